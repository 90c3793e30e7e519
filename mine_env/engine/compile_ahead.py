"""Compile some kernels ahead in a second process while this one compiles others: a cold cache only.

numba compiles one kernel at a time and holds the GIL while it does, so on a fresh install the first solver
game compiled its ~80 CPU seconds of kernels on one core (docs/COLD_START.md). Kernels that do not link each
other can compile at the same time in two processes that share numba's on-disk cache: a *job* (a module run
with ``python -m``) compiles its kernels, in the order this process will need them, while this process
compiles the others; when this process reaches one of the job's kernels, it loads it from the cache.

:func:`compile_ahead` arms a job: when numba starts compiling the kernel named ``trigger`` from Python in this
process (numba's ``numba:compile`` event, which a cache hit never raises: a warm cache starts nothing), the
job starts, with this process's numba cache and environment. It prints each kernel's dotted name once that
kernel is in the cache (:func:`run_job`). Meanwhile, here, a cache miss of one of the job's kernels waits for
the job to report it (or to end) and looks in the cache again, so no kernel compiles twice. The job ends by
itself when its list is done, is stopped when this process exits, and stops between two kernels when this
process is gone. ``MINESWEEPER_RL_COMPILE_AHEAD=0`` turns it off (the kernels then compile here, as before).
Either way the same kernels are compiled from the same code: only where and when differ.
"""

from __future__ import annotations

import atexit
import importlib
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import numba

ENV_VAR = "MINESWEEPER_RL_COMPILE_AHEAD"
"""``0``: never compile ahead in a second process (any other value, or none: do, on a cold cache)."""


class Plan(NamedTuple):
    """A job to start when a kernel first compiles: its module and the kernels it compiles, in order."""

    job: str
    """The module run as ``python -m job`` (its ``__main__`` calls :func:`run_job`)."""
    kernels: tuple[str, ...]
    """The dotted names (``module.function``) of the kernels it compiles and reports."""


_plans: list[tuple[str, Plan]] = []
"""Armed jobs, each with the dotted name of the kernel whose first compile starts it."""


def compile_ahead(trigger: str, job: str, kernels: Iterable[str]) -> None:
    """Start ``python -m job`` when the kernel ``trigger`` (dotted name) first compiles from Python in this
    process; the job compiles ``kernels`` (dotted names), which this process then loads from the cache.
    A job armed or started already in this process is not armed again."""
    plan = Plan(job, tuple(kernels))
    if all(armed != plan for _, armed in _plans) and all(started.plan != plan for started in _jobs):
        _plans.append((trigger, plan))


def enabled(environ: Mapping[str, str]) -> bool:
    """Whether jobs may start (:data:`ENV_VAR` is not ``0``)."""
    return environ.get(ENV_VAR, "").strip() != "0"


def dispatcher_named(name: str) -> Any:
    """The numba dispatcher of a dotted ``module.function`` name."""
    module, _, function = name.rpartition(".")
    return getattr(importlib.import_module(module), function)


SILENCE_LIMIT = 240.0
"""Seconds a waiting process gives the job to report its next kernel before it stops the job and compiles the
kernel itself (one kernel compiles in under 30 s on a loaded 2-core machine): a stuck job never hangs a game."""


class Job:
    """A running job: its process, and the kernels it has reported compiled."""

    def __init__(self, plan: Plan, command: list[str], environ: dict[str, str],
                 silence_limit: float = SILENCE_LIMIT) -> None:  # fmt: skip
        self.plan = plan
        self.reported: set[str] = set()
        self.silence_limit = silence_limit
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environ, text=True
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read_reports, daemon=True).start()
        atexit.register(self.stop)

    def _read_reports(self) -> None:
        """The job's report lines, one by one, into :attr:`lines`; an empty line when its output ends."""
        try:
            for line in self.process.stdout or ():
                self.lines.put(line)
        except (OSError, ValueError):  # the pipe closed by :meth:`stop` while reading
            pass
        self.lines.put("")

    def wait_for(self, name: str) -> bool:
        """Wait until the job reports ``name`` compiled (True), or ends without it or stays silent for
        :attr:`silence_limit` seconds (False; a silent job is stopped)."""
        while name not in self.reported:
            try:
                line = self.lines.get(timeout=self.silence_limit)
            except queue.Empty:
                self.stop()
                return False
            if not line:
                self.lines.put("")  # the end, for the next wait too
                return False
            self.reported.add(line.strip())
        return True

    def stop(self) -> None:
        """End the job if it still runs (this process is exiting), and reap it."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()


def _no_notice(name: str) -> None:
    """The default :data:`on_wait`: nothing."""


on_wait: Callable[[str], None] = _no_notice
"""Called with a kernel's dotted name before this process waits for the job to compile it: the compile
notice of :mod:`mine_env.engine.compilation`, which sets it (this module imports nothing of it)."""

_jobs: list[Job] = []
"""The jobs started in this process (each at most once)."""


def _load_after(job: Job, name: str, load: Callable[..., Any]) -> Callable[..., Any]:
    """A cache lookup that, on a miss of a kernel the job compiles, waits for the job and looks again."""

    def load_overload(sig: Any, target_context: Any) -> Any:
        found = load(sig, target_context)
        if found is None and name not in job.reported:
            on_wait(name)
            if job.wait_for(name):
                found = load(sig, target_context)
        return found

    return load_overload


def start_job(plan: Plan, environ: Mapping[str, str] = os.environ) -> Job:
    """Start ``plan``'s job and make this process's lookups of its kernels wait for it."""
    package_root = str(Path(__file__).resolve().parents[2])
    paths = [package_root, *([environ["PYTHONPATH"]] if environ.get("PYTHONPATH") else [])]
    child_environ = {
        **environ,
        ENV_VAR: "0",
        "MINESWEEPER_RL_COMPILE_NOTICE": "0",
        "PYTHONPATH": os.pathsep.join(paths),
    }
    job = Job(plan, [sys.executable, "-m", plan.job], child_environ)
    for name in plan.kernels:
        cache = dispatcher_named(name)._cache
        cache.load_overload = _load_after(job, name, cache.load_overload)
    _jobs.append(job)
    return job


def on_compile_start(name: str, depth: int) -> None:
    """Called by :mod:`mine_env.engine.compilation` when numba starts compiling the kernel ``name``: starts
    the jobs it triggers, once, when the compile comes from Python and jobs are enabled."""
    if depth or not any(trigger == name for trigger, _ in _plans):
        return
    triggered = [plan for trigger, plan in _plans if trigger == name]
    _plans[:] = [(trigger, plan) for trigger, plan in _plans if trigger != name]
    if enabled(os.environ):
        for plan in triggered:
            start_job(plan)


def run_job(steps: Iterable[tuple[Any, tuple[Any, ...]]]) -> None:
    """A job's body: compile each (dispatcher, sample arguments) for the arguments' numba types, without
    running it, and print the kernel's dotted name when done; stop early when the parent process is gone."""
    parent = os.getppid()
    for dispatcher, arguments in steps:
        if os.getppid() != parent:
            return
        dispatcher.compile(tuple(numba.typeof(argument) for argument in arguments))
        function = dispatcher.py_func
        print(f"{function.__module__}.{function.__qualname__}", flush=True)

"""The ``ray`` backend: every chunk a Ray task, on a private instance of this machine or on a cluster.

A chunk is one task of one CPU, retried up to :data:`MAX_RETRIES` times when its worker process or node
dies; its result is counted once, by its index. Without ``address`` a private Ray instance with ``workers``
CPUs starts on this machine and stops with the backend; with one (``host:port`` of a head started by
``ray start --head``, or ``auto``) the backend joins that cluster, ships the project's packages that this
process has loaded to its workers (:func:`shipped_packages`) and leaves the cluster running; in a process
already connected to Ray it uses that connection. Ray is the optional ``ray`` extra, imported only here.
"""

from __future__ import annotations

import importlib.util
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from backends.base import Backend, Job, check_workers

MAX_RETRIES = 3
"""Times Ray plays a chunk again when the process playing it dies (a node lost, a worker killed)."""
RAY_INSTALL_HINT = "pip install 'minesweeper-rl[ray]'"
CONNECT_TIMEOUT_S = 5.0
"""How long to wait for the head's port to answer before refusing an --address."""
LOCAL_OBJECT_STORE_BYTES = 200 * 1024**2
"""Object store of a private Ray instance: chunks' results are small, and Ray's default takes 30% of RAM."""
WAIT_BATCH, WAIT_S = 64, 0.2
"""Finished chunks collected per look at Ray, and the longest wait before showing the ones that are done."""
PROJECT_PACKAGES = ("backends", "mine_env", "agents", "eval", "train")
"""The project's packages a job may come from or import, by name: shipped to a cluster when loaded here."""


class RayBackend(Backend):
    """Chunks as Ray tasks on a private local instance (``address=None``) or on the cluster at ``address``.

    When this process is already connected to Ray (``ray.init()`` was called, as RLlib does), the backend
    uses that connection, whatever ``workers`` and ``address`` say, and leaves it open when it closes.

    Args:
        workers: CPUs of the private instance (ignored when joining a cluster: all its CPUs are used).
        address: ``host:port`` of a running head (``ray start --head``), ``auto``, or ``ray://host:port``.
        ship_code: Send the project's packages to the cluster's workers (default: when joining a cluster;
            a private instance's workers import them from this machine as the driver does).
        warm_up: A module-level function run in each worker process before its first chunk.
    """

    name = "ray"

    def __init__(
        self,
        workers: int = 1,
        address: str | None = None,
        ship_code: bool | None = None,
        warm_up: Callable[[], None] | None = None,
    ) -> None:
        check_workers(workers)
        self.ray = import_ray()
        self.address = address
        ship = (address is not None) if ship_code is None else ship_code
        runtime_env = {"py_modules": shipped_packages()} if ship else None
        self._owns_instance = not self.ray.is_initialized()
        if not self._owns_instance:
            self.workers = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        elif address is None:
            # address="local": a new private instance even when `ray start` runs a cluster on this machine
            # (plain ray.init() would join that one, and refuse num_cpus)
            with signal_handlers_kept():
                self.ray.init(address="local", num_cpus=workers, include_dashboard=False, runtime_env=runtime_env,
                              object_store_memory=LOCAL_OBJECT_STORE_BYTES, configure_logging=False,
                              log_to_driver=False)  # fmt: skip
            self.workers = workers
        else:
            check_reachable(address)
            try:
                with signal_handlers_kept():
                    self.ray.init(address=address, runtime_env=runtime_env, configure_logging=False)
            except ConnectionError as error:
                raise ValueError(f"cannot join the Ray cluster at {address!r}: {first_line(error)}") from None
            self.workers = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        self._warm_up = warm_up
        self._task = self.ray.remote(max_retries=MAX_RETRIES, num_cpus=1)(_ray_chunk)

    def run(self, job: Job, shared: Any, chunks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        shared_ref = self.ray.put(shared)
        pending = {self._task.remote(job, shared_ref, index, chunk, self._warm_up): index
                   for index, chunk in enumerate(chunks)}  # fmt: skip
        done: set[int] = set()
        try:
            while pending:
                ready, _ = self.ray.wait(list(pending), num_returns=min(len(pending), WAIT_BATCH), timeout=WAIT_S)
                for ref in ready:
                    index = pending.pop(ref)
                    result_index, result = self.ray.get(ref)
                    if result_index != index or index in done:
                        raise RuntimeError(f"chunk {index} came back twice or as chunk {result_index}")
                    done.add(index)
                    yield index, result
        finally:
            self._drop(pending)

    def _drop(self, pending: dict[Any, int]) -> None:
        """Stop the tasks of a run left early (an error, an interrupt, a caller that stopped reading) on a cluster
        this backend joined. A private instance is left to :meth:`close`, whose shutdown stops its workers: there a
        cancel can race with a task's reply and abort the driver inside Ray (a failed check of its task manager,
        "Tried to complete task that was not pending", seen when an eval was interrupted), which would lose the
        work kept and the stop's own message."""
        if self._owns_instance:
            return
        for ref in pending:
            self.ray.cancel(ref)

    def close(self) -> None:
        if self._owns_instance and self.ray.is_initialized():
            self.ray.shutdown()


_WARMED_UP: set[Callable[[], None]] = set()


def _ray_chunk(job: Job, shared: Any, index: int, chunk: Any, warm_up: Callable[[], None] | None) -> tuple[int, Any]:
    """One chunk in a Ray worker, with the worker's warm-up on its first chunk; tagged with its index."""
    if warm_up is not None and warm_up not in _WARMED_UP:
        warm_up()
        _WARMED_UP.add(warm_up)
    return index, job(shared, chunk)


@contextmanager
def signal_handlers_kept() -> Iterator[None]:
    """This process's SIGINT and SIGTERM handlers as they were before Ray starts: its driver replaces SIGTERM's
    with one that aborts the process, which leaves no chance to stop the workers and keep the work done."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            if handler is not None:
                signal.signal(signum, handler)


def ray_installed() -> bool:
    return importlib.util.find_spec("ray") is not None


def import_ray() -> ModuleType:
    """The ``ray`` module, or an ImportError that gives the command installing the extra."""
    try:
        import ray
    except ImportError:
        raise ImportError(f"the ray backend needs Ray, which is not installed: {RAY_INSTALL_HINT}") from None
    return ray


def check_reachable(address: str) -> None:
    """ValueError unless something listens at a ``host:port`` address (Ray itself would retry for minutes)."""
    if address == "auto" or "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--address {address!r} is not host:port (e.g. 10.0.0.5:6379, as ray start --head prints)")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as error:
        raise ValueError(
            f"cannot reach the Ray head at {address} ({error.strerror or error}): start it with "
            "`ray start --head` on that machine, or check the address and the firewall"
        ) from None


def shipped_packages() -> list[ModuleType]:
    """The packages of :data:`PROJECT_PACKAGES` that this process has imported: a job (and whatever it
    imports) comes from them, so a cluster's workers need them; their dependencies must be installed there."""
    return [sys.modules[name] for name in PROJECT_PACKAGES if name in sys.modules]


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__

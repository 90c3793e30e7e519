"""Stopping a long evaluation cleanly on Ctrl-C or SIGTERM: what is done is kept, and the way to resume is said.

While :func:`stop_signals` is active, the first SIGINT or SIGTERM raises :class:`Stopped` in the main thread,
wherever it waits; the evaluation's loops let it through (so that their backends close: a local pool is
terminated and joined, Ray's tasks cancelled and Ray shut down), noting on the way how many games were done
(:func:`count_games`). Later signals are ignored while that cleanup runs. The command then prints
:meth:`Stopped.message` and exits with :attr:`Stopped.exit_status` (130 for SIGINT, 143 for SIGTERM), as a
shell reports a command ended by the signal.

:class:`Stopped` is a :class:`KeyboardInterrupt`, as Ctrl-C's own exception is, so that the code between the signal
and the loops treats it as one: Ray's waits, for one, turn it into a KeyboardInterrupt of their own, which
:func:`stop_signals` turns back.
"""

from __future__ import annotations

import shlex
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Hold:
    """Whether the main thread is inside :func:`stops_held` (how deep), and the stop that arrived meanwhile."""

    depth = 0
    pending: int | None = None


_HOLD = _Hold()


class Stopped(KeyboardInterrupt):
    """A stop signal arrived; ``done`` of ``total`` games were played (None before the games started)."""

    def __init__(self, signum: int, done: int | None = None, total: int | None = None) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.done = done
        self.total = total

    @property
    def exit_status(self) -> int:
        """128 + the signal's number: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + self.signum

    def message(self, resume: str | None) -> str:
        """``interrupted after N of M games; resume with: <command>`` (one line)."""
        played = "interrupted" if self.done is None else f"interrupted after {self.done} of {self.total} games"
        if resume is None:
            return f"{played}; no game log was kept (give --log PATH to resume a stopped run)"
        return f"{played}; resume with: {resume}"


def interrupt_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The stop (a :class:`Stopped`, or Ctrl-C's KeyboardInterrupt) that ``error`` is or was raised from, else None.

    A stop that lands while compiled code calls back into Python (numba's first use of a constant) comes out of the
    compiled call as a SystemError whose cause is the stop: the loops look behind it so that the stop is still
    clean (the games kept and counted, the resume said)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def count_games(interrupt: KeyboardInterrupt, done: int, total: int) -> None:
    """Note on a stop on its way out of an evaluation's loop the games finished (kept in the log) and the run's
    games in all."""
    interrupt.done, interrupt.total = done, total  # type: ignore[attr-defined]


@contextmanager
def stop_signals() -> Iterator[None]:
    """Within it, SIGINT and SIGTERM raise :class:`Stopped` (the first one; later ones are ignored); the previous
    handlers come back after. Outside the main thread (where no handler can be set) it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        if received:
            return  # the cleanup of the first stop is under way: let it finish
        received.append(signum)
        if _HOLD.depth:
            _HOLD.pending = signum  # raised as the held section ends
            return
        raise Stopped(signum)

    previous = {signum: signal.signal(signum, stop) for signum in STOP_SIGNALS}
    try:
        yield
    except KeyboardInterrupt as interrupt:
        if not received or isinstance(interrupt, Stopped):
            raise
        # the stop came back as another KeyboardInterrupt (Ray's): the signal and the count are the first's
        raise Stopped(received[0], getattr(interrupt, "done", None), getattr(interrupt, "total", None)) from None
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def stops_held() -> Iterator[None]:
    """Within it, a stop waits: :class:`Stopped` is raised as it ends, not in its middle. Wrap in it what must happen
    whole or not at all, such as writing games to the log and counting them as done, so that the count a stop
    reports is the count the log holds."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _HOLD.depth += 1
    try:
        yield
    finally:
        _HOLD.depth -= 1
    if not _HOLD.depth and _HOLD.pending is not None:
        signum, _HOLD.pending = _HOLD.pending, None
        raise Stopped(signum)


@contextmanager
def threads_deaf_to_stops() -> Iterator[None]:
    """Threads started within it never receive SIGINT or SIGTERM (they start with both blocked, where the platform
    allows it), so that the kernel hands a stop to the main thread, which wakes at once from its wait and stops the
    run; a signal handed to another thread would wait, unheard, until the main thread next woke (a game's end,
    minutes later for a language model)."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def resume_command(program: str, arguments: Sequence[str], log: str | Path) -> str:
    """The command line that resumes a run: its ``arguments`` less an earlier ``--resume``, then ``--resume LOG``,
    quoted for a POSIX shell (a ``--log`` stays: it says the log is to be kept once the run ends)."""
    kept: list[str] = []
    skip = False
    for argument in arguments:
        if skip:
            skip = False
            continue
        if argument == "--resume":
            skip = True
            continue
        if argument.startswith("--resume="):
            continue
        kept.append(argument)
    return shlex.join([*shlex.split(program), *kept, "--resume", str(log)])

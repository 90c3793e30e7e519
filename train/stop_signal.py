"""Stopping a long run at its next checkpoint on a signal.

SIGTERM (a scheduler's or a session's end) and Ctrl-C (SIGINT) ask a run to stop; the run polls
:attr:`StopSignal.received` where it can stop cleanly, saves its checkpoint there and ends, so a resume loses
nothing. A second Ctrl-C interrupts at once, without a checkpoint. Python handles signals only in the main thread:
a run started in another thread installs nothing and is stopped as before.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
"""The signals that stop a run with a checkpoint."""


class StopSignal:
    """While installed, the first stop signal sets :attr:`received` (its name) for the run to poll."""

    def __init__(self) -> None:
        self.received = ""
        self._previous: dict[int, Any] = {}

    def install(self) -> StopSignal:
        """Catch :data:`STOP_SIGNALS` from now on (in the main thread; elsewhere nothing)."""
        if threading.current_thread() is threading.main_thread():
            self._previous = {number: signal.signal(number, self._on_signal) for number in STOP_SIGNALS}
        return self

    def restore(self) -> None:
        """Give back the handlers that were there before :meth:`install`."""
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous = {}

    def __enter__(self) -> StopSignal:
        return self.install()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.restore()

    def _on_signal(self, number: int, frame: Any) -> None:
        if self.received and number == signal.SIGINT:
            raise KeyboardInterrupt
        self.received = f"{signal.Signals(number).name} received"
        print(f"{self.received}: stopping at the next checkpoint (Ctrl-C again to stop without one)", flush=True)


def ignore_stop_signals() -> None:
    """For a run's worker processes, which their run stops (its stop event, then a kill): a Ctrl-C or SIGTERM sent
    to the whole process group then reaches the run alone, and it ends with its checkpoint instead of finding its
    workers dead in the middle of a step. As a signal no longer ends a worker, it ends itself once the process that
    started it is gone (a run killed outright)."""
    for number in STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_without, args=(parent,), daemon=True).start()


def _exit_without(parent: Any) -> None:
    """End this process at once when ``parent`` has ended (checked every second)."""
    while parent.is_alive():
        time.sleep(1.0)
    os._exit(1)


def run_ignoring_stop_signals(target: Callable[..., None], *args: Any) -> None:
    """A worker process's body: :func:`ignore_stop_signals`, then ``target(*args)``."""
    ignore_stop_signals()
    target(*args)

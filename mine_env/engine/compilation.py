"""What happens around numba's compiles of the project's kernels: a one-line notice, and fewer GC passes.

A fresh install has no compiled kernels: the first use of the solver compiles them (15-40 s on the 2-core
development machine, docs/COLD_START.md), and every later run loads them from numba's on-disk cache in
well under a second. So that the first wait is not silent, the first compile of each group of kernels in a
process prints one line, for example::

    minesweeper-rl: compiling the solver's guess kernels once (about 15 s; later runs load them from the cache)

The line is printed when numba starts compiling a kernel called from Python (numba's ``numba:compile``
event, which a cache hit never raises), so a warm cache prints nothing. Each package names its groups by
dotted-name prefix (:func:`announce_compiles`: a package, a module or one kernel); this module imports
nothing of theirs. The same event starts the jobs that compile kernels ahead in a second process
(:mod:`mine_env.engine.compile_ahead`).

While one of our kernels compiles, CPython's cyclic garbage collector runs less often
(:data:`GC_THRESHOLD_WHILE_COMPILING`): numba's compiler allocates millions of short-lived objects, and at
the default threshold a full collection of the growing heap ran 26 times during the first solver game;
raised, once or twice, and the compile takes a tenth less time. The thresholds are restored afterwards.

Where the notice goes: to stderr, wherever it goes (a terminal, a file, a pipe, a notebook's cell, a cluster
job's log), since a silent wait in a log looks like a hang; stdout stays clean. The environment variable
``MINESWEEPER_RL_COMPILE_NOTICE=0`` turns it off. A full-screen app, on which a stray stderr line would land
in the middle of its drawing, hands the notice to its own status line with :func:`show_notices_with`.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Mapping
from typing import NamedTuple, TextIO

from numba.core import event

from mine_env.engine import compile_ahead

ENV_VAR = "MINESWEEPER_RL_COMPILE_NOTICE"
"""``0``: never show the notice (any other value, or none: show it)."""


GC_THRESHOLD_WHILE_COMPILING = 20_000
"""Allocations between two young-generation collections while our kernels compile (CPython's default: 700).
On the first solver game: 37.4 -> 33.9 s CPU, peak memory 466 -> 494 MB (docs/COLD_START.md)."""


class KernelGroup(NamedTuple):
    """Kernels announced together: what they are and how long their first compile takes."""

    what: str
    """For example ``"the solver's kernels"``."""
    duration: str
    """For example ``"about half a minute"``."""


_GROUPS: dict[str, KernelGroup] = {}
"""Groups by dotted-name prefix (see :func:`announce_compiles`)."""
_shown: set[KernelGroup] = set()
"""The groups already announced in this process (two prefixes may name one group)."""
_handler: Callable[[str], None] | None = None
"""Where notices go instead of stderr (see :func:`show_notices_with`)."""


def announce_compiles(prefix: str, what: str, duration: str) -> None:
    """Announce the first compile of a kernel whose dotted name (``module.function``) is ``prefix`` or lies
    below it (the longest prefix wins) as ``compiling <what> once (<duration>; ...)``."""
    _GROUPS[prefix] = KernelGroup(what, duration)


def show_notices_with(handler: Callable[[str], None] | None) -> None:
    """Send every notice to ``handler`` (a full-screen app's status line, say) instead of stderr
    (``MINESWEEPER_RL_COMPILE_NOTICE=0`` still silences them); None: stderr again.

    The handler runs in the thread that compiles, just before the compile, so a synchronous app can draw the
    line before it waits.
    """
    global _handler
    _handler = handler


def group_of(name: str, groups: Mapping[str, KernelGroup]) -> str | None:
    """The longest prefix of ``groups`` that is the dotted ``name`` or lies above it, or None."""
    matches = [prefix for prefix in groups if name == prefix or name.startswith(prefix + ".")]
    return max(matches, key=len, default=None)


def notice_line(group: KernelGroup) -> str:
    """The notice for a group of kernels."""
    return f"minesweeper-rl: compiling {group.what} once ({group.duration}; later runs load them from the cache)"


def notice_sink(
    environ: Mapping[str, str], stream: TextIO, handler: Callable[[str], None] | None
) -> Callable[[str], None] | None:
    """Where a notice goes: nowhere (None) when :data:`ENV_VAR` is ``0``, else to ``handler`` when one is set,
    else to ``stream`` (a terminal or not), one flushed line."""
    if environ.get(ENV_VAR, "").strip() == "0":
        return None
    if handler is not None:
        return handler
    return lambda line: print(line, file=stream, flush=True)


def threshold_while_compiling(threshold: tuple[int, ...]) -> tuple[int, ...]:
    """The GC thresholds to compile with, given the current ones: the first raised to at least
    :data:`GC_THRESHOLD_WHILE_COMPILING`, the others kept."""
    return (max(threshold[0], GC_THRESHOLD_WHILE_COMPILING), *threshold[1:])


def notice_for(
    name: str, depth: int, groups: Mapping[str, KernelGroup], shown: set[KernelGroup]
) -> KernelGroup | None:
    """The group to announce when numba starts compiling the kernel ``name`` (dotted), or None.

    Only a compile started from Python (``depth`` 0: the kernels it calls compile inside it) of a kernel in
    a named group that was not announced yet in this process gets a notice.
    """
    if depth:
        return None
    prefix = group_of(name, groups)
    return None if prefix is None or groups[prefix] in shown else groups[prefix]


def _announce(name: str, depth: int) -> None:
    """Show the notice of the kernel ``name``'s group when :func:`notice_for` says so."""
    group = notice_for(name, depth, _GROUPS, _shown)
    sink = None if group is None else notice_sink(os.environ, sys.stderr, _handler)
    if sink is not None:
        _shown.add(group)
        sink(notice_line(group))


class _CompileListener(event.Listener):
    """Around a compile of one of our kernels started from Python: shows the notice when :func:`notice_for`
    announces it, and compiles with fewer GC passes (:func:`threshold_while_compiling`)."""

    def __init__(self) -> None:
        self._depth = 0
        self._saved_threshold: tuple[int, ...] | None = None

    def on_start(self, ev: event.Event) -> None:
        depth, self._depth = self._depth, self._depth + 1
        function = ev.data["dispatcher"].py_func
        name = f"{getattr(function, '__module__', '')}.{getattr(function, '__qualname__', '')}"
        if depth == 0 and group_of(name, _GROUPS) is not None:
            self._saved_threshold = gc.get_threshold()
            gc.set_threshold(*threshold_while_compiling(self._saved_threshold))
        _announce(name, depth)
        compile_ahead.on_compile_start(name, depth)

    def on_end(self, ev: event.Event) -> None:
        self._depth -= 1
        if self._depth == 0 and self._saved_threshold is not None:
            gc.set_threshold(*self._saved_threshold)
            self._saved_threshold = None


event.register("numba:compile", _CompileListener())
compile_ahead.on_wait = lambda name: _announce(name, 0)  # waiting for a kernel compiling ahead is a compile too
announce_compiles("mine_env.engine", "the game engine's kernels", "a few seconds")

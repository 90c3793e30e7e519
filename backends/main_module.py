"""Starting ``spawn`` workers from wherever the caller runs: a script, ``python -c``, standard input, a notebook.

A ``spawn`` worker re-imports the caller's ``__main__`` (its script, as ``__mp_main__``) before it runs anything,
so that functions and classes defined there can be sent to it. That costs a new user dearly: a script that
calls :func:`eval.runner.evaluate` at its top level, without ``if __name__ == "__main__":``, makes every worker
call it again while it starts; the worker dies, the pool starts another, and the script never ends. And a
session that has no file to re-import (``python -c``, ``python - < file``, a notebook) cannot send its own
functions at all: the worker fails to find them.

So, before a pool starts: when the work refers to nothing defined in ``__main__`` (agents by name, functions
of installed modules), the workers start without importing it (:func:`main_hidden`), and any caller runs; when
it does, :func:`start_problem` says in one line what to do where the workers could not run it.
"""

from __future__ import annotations

import ast
import pickle
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class _Discard:
    """A file that forgets what is written to it (pickling only to see what the payload refers to)."""

    def write(self, data: bytes | pickle.PickleBuffer) -> int:
        return memoryview(data).nbytes  # a large array's buffer comes whole, as a PickleBuffer (no len)


class _MainFinder(pickle.Pickler):
    """Pickles into nothing, noting every function or class of ``__main__`` the payload refers to."""

    def __init__(self) -> None:
        super().__init__(_Discard(), protocol=pickle.HIGHEST_PROTOCOL)
        self.found: list[str] = []

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, (type, types.FunctionType)) and getattr(obj, "__module__", None) == "__main__":
            self.found.append(getattr(obj, "__qualname__", repr(obj)))
        return NotImplemented


def main_references(payload: Any) -> list[str]:
    """The names of the functions and classes of ``__main__`` that ``payload`` refers to (empty: none).

    Raises what pickling ``payload`` raises (an object that cannot be sent to a worker at all)."""
    finder = _MainFinder()
    finder.dump(payload)
    return list(dict.fromkeys(finder.found))


def start_problem(names: list[str]) -> str | None:
    """Why ``spawn`` workers started from here could not run work that needs ``names`` of ``__main__`` (see
    :func:`main_references`), in one line that says what to do; None when they can."""
    what = f"{names[0]!r} is defined in __main__"
    main = sys.modules["__main__"]
    if not _importable(main):
        return (
            f"{what}, which worker processes cannot import (python -c, standard input or a notebook): define it "
            "in a module file and import it from there, or use workers=1"
        )
    line = unguarded_line(main)
    if line is not None:
        return (
            f"{what}, and {line} starts worker processes at the script's top level, which every worker re-runs "
            'while it starts: put that code under `if __name__ == "__main__":`, or use workers=1'
        )
    return None


@contextmanager
def main_hidden() -> Iterator[None]:
    """While worker processes start: ``__main__`` stands for an empty module, so that they do not import the
    caller's script (the workers of a pool start once, in the calling thread, when the pool is made)."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _importable(main: types.ModuleType) -> bool:
    """Whether a worker can import ``main`` again: a script file or a module run with ``-m``."""
    name = getattr(getattr(main, "__spec__", None), "name", None)
    path = getattr(main, "__file__", None)
    return (name is not None and name != "__main__") or (path is not None and Path(path).is_file())


def unguarded_line(main: types.ModuleType) -> str | None:
    """``file:line`` of the top-level statement of ``main`` now running when it lies outside an
    ``if __name__ == "__main__":`` block (a worker importing the script would run it again), else None."""
    frame: types.FrameType | None = sys._getframe(1)
    top = None
    while frame is not None:  # the outermost frame that runs main's own top level
        if frame.f_globals is main.__dict__ and frame.f_code.co_name == "<module>":
            top = frame
        frame = frame.f_back
    path = getattr(main, "__file__", None)
    if top is None or path is None:
        return None
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None  # nothing to read: let the workers start, as multiprocessing would
    guarded = [node for node in tree.body if isinstance(node, ast.If) and _is_main_guard(node.test)]
    line = top.f_lineno
    if any(node.lineno <= line <= (node.end_lineno or node.lineno) for node in guarded):
        return None
    return f"{path}:{line}"


def _is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {_name_or_text(test.left), _name_or_text(test.comparators[0])}
    return sides == {"name:__name__", "text:__main__"}


def _name_or_text(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return f"name:{node.id}"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return f"text:{node.value}"
    return ""

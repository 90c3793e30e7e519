"""Run pytest as ``python -m pytest`` does, then end the process with pytest's status without the interpreter's
teardown: ``python -m tests.run [pytest arguments]`` (what ``make test`` runs).

The test process loads Ray (its gRPC threads), torch, numba's LLVM and transformers. After a session had reported
"1909 passed", the interpreter's teardown crashed it (a segmentation fault, so ``make test`` failed): the teardown
frees every module and object, then exit() runs the libraries' C++ static destructors, with their native threads
still running. Nothing of the session's verdict depends on that teardown, so this runner runs pytest, then every
exit handler the process registered (Ray's shutdown, the compile-ahead jobs' stop, logging's flush,
multiprocessing's reaping of its children), flushes the standard streams and ends the process at once with
pytest's status. A crash up to that point is still a crash: ``make test`` sets ``PYTHONFAULTHANDLER=1``, so that
one prints every Python thread's stack.
"""

from __future__ import annotations

import atexit
import os
import sys

import pytest


def run(arguments: list[str]) -> int:
    """pytest's exit status for ``arguments``, after the process's exit handlers have run."""
    status = int(pytest.main(arguments))
    atexit._run_exitfuncs()  # what a normal exit runs first, before the teardown this runner skips
    return status


def main() -> None:
    """Run pytest on the command line's arguments and end the process with its status."""
    status = run(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    main()

"""Where chunks of work run: worker processes of this machine (``local``) or Ray tasks (``ray``).

The bottom of the project's layers beside :mod:`mine_env`: it imports no other package of the project, so
that both ``eval`` (suites, tournaments, the solver studies) and ``train`` (the distillation labels) run
their long jobs on it.

A job is a module-level function ``job(shared, chunk) -> result``: ``shared`` is what every chunk needs (a
suite, the agents, settings), sent once per worker or once to Ray's object store; a chunk is a small piece
(a range of games, a slice of positions). :meth:`Backend.run` yields ``(index, result)`` for every chunk
exactly once, in the order they finish, so callers can show progress and put the results in order
afterwards. A result depends only on its chunk, never on the backend, the worker or the order of play: that
is the caller's promise (:mod:`eval.player` keeps it by seeding each game from the suite).

- ``local`` (:mod:`backends.local`): ``workers=1`` runs in this process; more start a pool of ``spawn``
  processes, kept for every ``run`` of the backend (``with open_backend(...) as backend:``).
- ``ray`` (:mod:`backends.ray_tasks`): every chunk is a Ray task (one CPU each), retried when its worker
  process or node dies and counted once; a private Ray instance, or a cluster at ``address``. Ray is the
  optional ``ray`` extra.

:func:`open_backend` makes one by name; :func:`check_backend` refuses bad options before anything starts.
"""

from backends.base import Backend, Job, check_workers
from backends.choose import BACKENDS, check_backend, open_backend
from backends.local import LocalBackend
from backends.ray_tasks import MAX_RETRIES, RAY_INSTALL_HINT, RayBackend, ray_installed

__all__ = [
    "BACKENDS", "MAX_RETRIES", "RAY_INSTALL_HINT", "Backend", "Job", "LocalBackend", "RayBackend", "check_backend",
    "check_workers", "open_backend", "ray_installed",
]  # fmt: skip

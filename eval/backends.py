"""Where chunks of work run: worker processes of this machine (``local``) or Ray tasks (``ray``).

A job is a module-level function ``job(shared, chunk) -> result``: ``shared`` is what every chunk needs (a
suite, the agents, settings), sent once per worker or once to Ray's object store; a chunk is a small piece
(a range of games). :meth:`Backend.run` yields ``(index, result)`` for every chunk exactly once, in the order
they finish, so callers can show progress and sort the results afterwards. A result depends only on its
chunk, never on the backend, the worker or the order of play (that is the caller's promise: :mod:`eval.player`
keeps it by seeding each game from the suite).

- ``local``: ``workers=1`` runs in this process; more start a pool of ``spawn`` processes, kept for every
  ``run`` of the backend (``with open_backend(...) as backend:``).
- ``ray``: every chunk is a Ray task (one CPU each) retried up to :data:`MAX_RETRIES` times when its worker
  process or node dies; a chunk's result is counted once, by its index. Without ``address`` a private Ray
  instance with ``workers`` CPUs starts on this machine and stops with the backend; with one (``host:port``
  of a head started by ``ray start --head``, or ``auto``) the backend joins that cluster, ships the project's
  packages to its workers and leaves the cluster running; in a process already connected to Ray it uses that
  connection. Ray is the optional ``ray`` extra.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from types import ModuleType
from typing import Any

BACKENDS = ("local", "ray")
MAX_RETRIES = 3
"""Times Ray plays a chunk again when the process playing it dies (a node lost, a worker killed)."""
RAY_INSTALL_HINT = "pip install 'minesweeper-rl[ray]'"
CONNECT_TIMEOUT_S = 5.0
"""How long to wait for the head's port to answer before refusing an --address."""
LOCAL_OBJECT_STORE_BYTES = 200 * 1024**2
"""Object store of a private Ray instance: chunks' results are small, and Ray's default takes 30% of RAM."""

WAIT_BATCH, WAIT_S = 64, 0.2
"""Finished chunks collected per look at Ray, and the longest wait before showing the ones that are done."""

Job = Callable[[Any, Any], Any]


class Backend(AbstractContextManager):
    """Runs a job over chunks; see the module docstring. Close it (or use ``with``) to free its workers."""

    name: str
    workers: int
    """Chunks that can run at once: the processes of a local pool, or the CPUs of the Ray cluster."""

    def run(self, job: Job, shared: Any, chunks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        """``(index, job(shared, chunks[index]))`` for every chunk exactly once, as the chunks finish."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop the backend's workers."""

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class LocalBackend(Backend):
    """This process (``workers=1``) or a pool of ``spawn`` worker processes, optionally warmed up when they
    start (``warm_up``: a module-level function run once in each)."""

    name = "local"

    def __init__(self, workers: int = 1, warm_up: Callable[[], None] | None = None) -> None:
        check_workers(workers)
        self.workers = workers
        self._warm_up = warm_up
        self._pool: Any = None

    def run(self, job: Job, shared: Any, chunks: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        if self.workers == 1 or len(chunks) <= 1:
            if self._warm_up is not None:
                self._warm_up()
                self._warm_up = None
            for index, chunk in enumerate(chunks):
                yield index, job(shared, chunk)
            return
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            processes = min(self.workers, len(chunks))
            self._pool = context.Pool(processes, _start_local_worker, (self._warm_up,))
        calls = [(job, shared, index, chunk) for index, chunk in enumerate(chunks)]
        yield from self._pool.imap_unordered(_call, calls)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def _start_local_worker(warm_up: Callable[[], None] | None) -> None:
    """Pool initializer: torch kept to one thread so that workers do not compete, then the warm-up."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if warm_up is not None:
        warm_up()


def _call(call: tuple[Job, Any, int, Any]) -> tuple[int, Any]:
    job, shared, index, chunk = call
    return index, job(shared, chunk)


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
        runtime_env = {"py_modules": project_packages()} if ship else None
        self._owns_instance = not self.ray.is_initialized()
        if not self._owns_instance:
            self.workers = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        elif address is None:
            self.ray.init(num_cpus=workers, include_dashboard=False, object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                          runtime_env=runtime_env, configure_logging=False, log_to_driver=False)  # fmt: skip
            self.workers = workers
        else:
            check_reachable(address)
            try:
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
            for ref in pending:  # a run left early (an error, a caller that stopped reading): drop the rest
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


def open_backend(
    name: str = "local", workers: int = 1, address: str | None = None, warm_up: Callable[[], None] | None = None
) -> Backend:
    """The backend ``name`` (``local`` or ``ray``) with ``workers`` workers; ``address`` joins a Ray cluster.

    Raises:
        ValueError: an unknown backend, ``workers`` below 1, an address without ``ray``, ``ray`` without Ray
            installed (the message gives the pip command), or an address that cannot be reached.
    """
    check_backend(name, workers, address)
    if name == "local":
        return LocalBackend(workers, warm_up)
    return RayBackend(workers, address, warm_up=warm_up)


def check_backend(name: str, workers: int, address: str | None) -> None:
    """The checks of :func:`open_backend` that need nothing started, for commands to run before any work."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}")
    check_workers(workers)
    if address is not None and name != "ray":
        raise ValueError(f"--address {address} joins a Ray cluster: add --backend ray")
    if address is not None and not address.strip():
        raise ValueError("--address is empty: give host:port of the Ray head (ray start --head prints it)")
    if name == "ray" and not ray_installed():
        raise ValueError(f"--backend ray needs Ray, which is not installed: {RAY_INSTALL_HINT}")
    if address is not None:
        check_reachable(address)


def check_workers(workers: int) -> None:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers!r}")


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


def project_packages() -> list[ModuleType]:
    """The packages a chunk may import, shipped to a cluster's workers (their dependencies must be installed)."""
    import agents
    import eval as eval_package
    import mine_env

    return [mine_env, agents, eval_package]


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__

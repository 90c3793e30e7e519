"""A backend by its name (``local`` or ``ray``), and the checks of a command's backend options before any work."""

from __future__ import annotations

from collections.abc import Callable

from backends.base import Backend, check_workers
from backends.local import LocalBackend
from backends.ray_tasks import RAY_INSTALL_HINT, RayBackend, check_reachable, ray_installed

BACKENDS = ("local", "ray")


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

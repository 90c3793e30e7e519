"""The backends on their own: every chunk once, the same results on Ray as locally (even when a worker is
killed), what a cluster is sent, clear refusals. The Ray tests share a private two-CPU Ray instance and need
the ``ray`` extra."""

from __future__ import annotations

import functools
import operator
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from backends import BACKENDS, Backend, LocalBackend, check_backend, open_backend

DOOMED = 3


@pytest.mark.parametrize("workers", [1, 2])
def test_local_backend_runs_every_chunk_once(workers: int) -> None:
    with LocalBackend(workers) as backend:
        results = dict(backend.run(operator.mul, 10, list(range(7))))
    assert results == {index: 10 * index for index in range(7)}


@pytest.fixture(scope="module")
def ray_backend() -> Iterator[Backend]:
    """A private two-CPU Ray instance, opened where ``ray start`` has left an address for ``ray.init()`` to join
    (as the head's file /tmp/ray/ray_current_cluster does; RAY_ADDRESS here, pointing nowhere): it must not try."""
    ray = pytest.importorskip("ray")
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the test's jobs travel by value
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_ADDRESS", "127.0.0.1:1")
        backend = open_backend("ray", workers=2)
    with backend:
        yield backend


@pytest.mark.slow
def test_ray_runs_every_chunk_once_with_the_local_results(ray_backend: Backend) -> None:
    assert dict(ray_backend.run(operator.mul, 10, list(range(9)))) == {index: 10 * index for index in range(9)}
    assert dict(ray_backend.run(operator.add, 1, list(range(3)))) == {0: 1, 1: 2, 2: 3}


def killed_once(marker_dir: str, factor: int, chunk: int) -> int:
    """``factor * chunk``, except that the worker process given chunk DOOMED is killed (SIGKILL) the first time."""
    marker = Path(marker_dir) / "killed"
    if chunk == DOOMED and not marker.exists():
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return factor * chunk


@pytest.mark.slow
def test_a_chunk_whose_worker_is_killed_runs_again_and_counts_once(ray_backend: Backend, tmp_path: Path) -> None:
    results = list(ray_backend.run(functools.partial(killed_once, str(tmp_path)), 10, list(range(8))))
    assert (tmp_path / "killed").exists(), "the doomed chunk's worker was never killed: the test tested nothing"
    assert sorted(results) == [(index, 10 * index) for index in range(8)]


def test_a_cluster_is_sent_the_project_packages_this_process_loaded() -> None:
    """Run in a fresh interpreter: what is loaded depends on which tests ran before."""
    code = (
        "import train.distill.labels; from backends.ray_tasks import shipped_packages; "
        "print(' '.join(package.__name__ for package in shipped_packages()))"
    )
    shipped = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert shipped == ["backends", "mine_env", "agents", "train"]  # no eval: the labeller does not load it


@pytest.mark.parametrize(("backend", "workers", "address", "message"), [
    ("dask", 2, None, "unknown backend 'dask'; expected one of local, ray"),
    ("local", 0, None, "workers must be at least 1, got 0"),
    ("local", 2, "10.0.0.5:6379", "joins a Ray cluster: add --backend ray"),
    ("ray", 2, " ", "--address is empty: give host:port of the Ray head"),
])  # fmt: skip
def test_bad_backends_are_refused(backend: str, workers: int, address: str | None, message: str) -> None:
    if backend == "ray":
        pytest.importorskip("ray")
    with pytest.raises(ValueError, match=message):
        check_backend(backend, workers, address)
    assert BACKENDS == ("local", "ray")


def test_ray_missing_is_refused_with_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("backends.choose.ray_installed", lambda: False)
    with pytest.raises(ValueError, match=r"^--backend ray needs Ray, which is not installed: pip install "):
        check_backend("ray", 2, None)


def test_an_address_nobody_listens_at_is_refused_at_once() -> None:
    pytest.importorskip("ray")
    with pytest.raises(ValueError, match=r"cannot reach the Ray head at 127.0.0.1:1 .*ray start --head"):
        check_backend("ray", 2, "127.0.0.1:1")
    with pytest.raises(ValueError, match="is not host:port"):
        check_backend("ray", 2, "headnode")

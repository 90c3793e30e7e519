"""The distillation labels on the backends: the same labels, position for position, in this process, in a local
pool and on a private Ray instance; the one-line refusals of ``minesweeper train distill``'s backend options."""

from __future__ import annotations

import numpy as np
import pytest

from mine_env.engine.spec import BoardSpec
from support import run_cli
from train.distill.data import PositionCollector
from train.distill.labels import Labeller, label_positions

SPEC = BoardSpec(6, 6, 7, "opening")


@pytest.fixture(scope="module")
def positions() -> np.ndarray:
    """Positions of seeded games of the collector's policy mix (the kind distillation labels)."""
    with Labeller(workers=1) as labeller:
        collector = PositionCollector(SPEC, boards=12, seed=4, labeller=labeller, explore=0.2)
        grids, _, _ = collector.collect(150, (0.4, 0.0, 0.6), None)
    return grids


def labels_on(positions: np.ndarray, backend: str) -> tuple[np.ndarray, int]:
    """The labels of ``positions`` on ``backend`` with 2 workers in chunks of 16, and the positions the
    progress callback was told of."""
    counted: list[int] = []
    with Labeller(workers=2, chunk=16, backend=backend) as labeller:
        labels = labeller.label(positions, SPEC.mines, SPEC.first_click, counted.append)
    return labels, sum(counted)


def test_a_local_pool_labels_like_one_process(positions: np.ndarray) -> None:
    labels, counted = labels_on(positions, "local")
    np.testing.assert_array_equal(labels, label_positions(positions, SPEC.mines, SPEC.first_click))
    assert counted == len(positions) == 150


@pytest.mark.slow
def test_ray_labels_like_the_local_pool_position_for_position(positions: np.ndarray) -> None:
    pytest.importorskip("ray", reason="the ray backend needs the ray extra: pip install 'minesweeper-rl[ray]'")
    on_ray, counted = labels_on(positions, "ray")
    local, _ = labels_on(positions, "local")
    assert on_ray.dtype == local.dtype and on_ray.shape == local.shape == (150, 6, 6)
    np.testing.assert_array_equal(on_ray, local)
    assert counted == len(positions)


def test_a_batch_is_split_evenly_over_the_workers_unless_a_chunk_is_given() -> None:
    with Labeller(workers=2) as two, Labeller(workers=1) as one, Labeller(workers=2, chunk=16) as fixed:
        assert [two.chunk_size(n) for n in (256, 1000, 50)] == [128, 500, 64]  # never below MIN_CHUNK
        assert one.chunk_size(256) == 256 and fixed.chunk_size(256) == 16


def test_the_labeller_refuses_what_eval_refuses() -> None:
    with pytest.raises(ValueError, match=r"^unknown backend 'dask'; expected one of local, ray$"):
        Labeller(workers=2, backend="dask")
    with pytest.raises(ValueError, match=r"^--address 10.0.0.5:6379 joins a Ray cluster: add --backend ray$"):
        Labeller(workers=2, address="10.0.0.5:6379")


@pytest.mark.parametrize(("options", "message"), [
    (["--address", "10.0.0.5:6379"], "--address 10.0.0.5:6379 joins a Ray cluster: add --backend ray"),
    (["--backend", "dask"], "unknown backend 'dask'; expected one of local, ray"),
    (["--label-chunk", "-1"], "label_chunk must be at least 0, got -1"),
    (["--backend", "ray", "--address", "headnode"], "--address 'headnode' is not host:port (e.g. 10.0.0.5:6379, "
     "as ray start --head prints)"),
])  # fmt: skip
def test_the_distill_command_refuses_bad_backend_options_in_one_line(
    options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    if "ray" in options:
        pytest.importorskip("ray", reason="the address is checked only once Ray is known to be installed")
    status, out, err = run_cli(["train", "distill", *options], capsys)
    assert status == 2 and out == ""
    assert err.strip().splitlines() == [f"minesweeper train distill: error: {message}"]


def test_the_distill_command_says_how_to_install_ray_when_it_is_missing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    monkeypatch.setattr("backends.choose.ray_installed", lambda: False)
    status, out, err = run_cli(["train", "distill", "--backend", "ray"], capsys)
    assert status == 2 and out == ""
    assert err.strip().splitlines() == [
        "minesweeper train distill: error: --backend ray needs Ray, which is not installed: "
        "pip install 'minesweeper-rl[ray]'"
    ]

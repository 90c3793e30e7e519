"""The fully convolutional networks: the same weights fit any board size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from train.sb3 import maskable_ppo
from train.sb3.maskable_ppo import MaskablePPOConfig
from train.sb3.networks import action_scores
from train.sb3.training import make_vec_env

pytestmark = pytest.mark.train


def tiny_config(tmp_path: Path, **board: int) -> MaskablePPOConfig:
    """A MaskablePPO config with a tiny network, on a 4x5 board with 3 mines unless ``board`` says otherwise."""
    options = {
        "rows": 4, "cols": 5, "mines": 3, "num_envs": 4, "channels": 8, "layers": 2, "value_hidden": 8,
        "n_steps": 16, "batch_size": 32, "progress_bar": False, "runs_dir": str(tmp_path),
    }  # fmt: skip
    return MaskablePPOConfig(**(options | board))


def test_network_weights_fit_any_board_size(tmp_path: Path) -> None:
    small = tiny_config(tmp_path)
    large = tiny_config(tmp_path, rows=9, cols=7, mines=10)
    policy = maskable_ppo.build_model(small, make_vec_env(small)).policy
    other = maskable_ppo.build_model(large, make_vec_env(large)).policy
    other.load_state_dict(policy.state_dict())
    grids = np.full((2, 9, 7), -1, dtype=np.int8)
    assert action_scores(other, grids).shape == (2, 63)

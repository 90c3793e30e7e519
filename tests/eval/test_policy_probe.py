"""studies/policy_probe.py and studies/rollout_stages.py: the fixed positions, a perfect player reads as one, each
zip loads as its algorithm, and a model's own rollouts counted by stage."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th

from mine_env.analysis.probability import mine_probabilities
from mine_env.engine.constants import HIDDEN, PRESETS
from mine_env.engine.spec import BoardSpec
from train.sb3 import maskable_ppo, ppo
from train.sb3.networks import ConvActorCriticPolicy, MaskableConvActorCriticPolicy
from train.sb3.training import make_vec_env, train

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import policy_probe  # noqa: E402
import rollout_stages  # noqa: E402

pytestmark = pytest.mark.train

BEGINNER = BoardSpec(*PRESETS["beginner"], "opening")


@pytest.fixture(scope="module")
def fixed_positions() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return policy_probe.positions(BEGINNER, 6, seed=11)


class _Heads:
    """Policy and mine heads that read the exact probabilities the features carry."""

    def policy_head(self, features: th.Tensor) -> th.Tensor:
        return -features  # the least likely mine scores highest

    def mine_head(self, features: th.Tensor) -> th.Tensor:
        return th.logit(features.clamp(1e-9, 1 - 1e-9))


class OraclePolicy:
    """Just enough of an SB3 policy for ``heads_of``: its features are each cell's exact mine probability."""

    mlp_extractor = _Heads()

    def obs_to_tensor(self, grids: np.ndarray) -> tuple[th.Tensor, bool]:
        exact = [mine_probabilities(grid, BEGINNER.mines).reshape(-1) for grid in grids]
        return th.tensor(np.array(exact)), True

    def extract_features(self, probabilities: th.Tensor) -> th.Tensor:
        return probabilities


def test_the_positions_are_those_of_games_played_by_the_exact_probabilities(fixed_positions) -> None:
    grids, exact, truths, stages = fixed_positions
    hidden = grids.reshape(len(grids), -1) == HIDDEN
    assert hidden.any(axis=1).all()
    assert (truths.sum(axis=1) == BEGINNER.mines).all()  # every position is after the first click
    assert not (exact[~hidden]).any()  # revealed cells are safe
    assert set(np.unique(stages)) <= {0, 1, 2}
    again = policy_probe.positions(BEGINNER, 6, seed=11)
    assert all(np.array_equal(a, b) for a, b in zip(fixed_positions, again, strict=True))


def test_a_player_of_the_exact_probabilities_has_no_excess(fixed_positions) -> None:
    table = policy_probe.probe(OraclePolicy(), *fixed_positions, rng=np.random.default_rng(0))
    overall = table["all"]
    assert overall["positions"] == len(fixed_positions[0])
    assert overall["pick_excess"] == pytest.approx(0.0, abs=1e-12)
    assert overall["head_pick_excess"] == pytest.approx(0.0, abs=1e-12)
    assert overall["head_excess"] == pytest.approx(0.0, abs=1e-6)
    assert overall["sample_excess"] > 0  # sampling the renormalised policy does take riskier cells
    assert sum(table[stage]["positions"] for stage in ("early", "middle", "late")) == overall["positions"]


@pytest.mark.parametrize(("module", "policy_class"), [(ppo, ConvActorCriticPolicy),
                                                      (maskable_ppo, MaskableConvActorCriticPolicy)])
def test_each_zip_loads_as_its_own_algorithm(module, policy_class, tmp_path: Path) -> None:
    options = {"rows": 9, "cols": 9, "mines": 10, "num_envs": 2, "channels": 8, "layers": 2, "value_hidden": 8,
               "n_steps": 16, "batch_size": 32, "progress_bar": False, "runs_dir": str(tmp_path), "mine_coef": 0.5}
    config = module.ALGORITHM.config_class(**options)
    module.build_model(config, make_vec_env(config)).save(tmp_path / "model.zip")
    policy = policy_probe.load_policy(str(tmp_path / "model.zip"))
    assert type(policy) is policy_class
    grids, exact, truths, stages = policy_probe.positions(BEGINNER, 2, seed=3)
    table = policy_probe.probe(policy, grids, exact, truths, stages, np.random.default_rng(0))
    assert 0 <= table["all"]["revealed_mass"] <= 1 and table["all"]["pick_excess"] >= 0


@pytest.mark.parametrize("module", [ppo, maskable_ppo])
def test_a_models_own_rollouts_are_counted_by_stage(module, tmp_path: Path) -> None:
    options = {"rows": 5, "cols": 5, "mines": 3, "num_envs": 4, "channels": 8, "layers": 2, "value_hidden": 8,
               "n_steps": 16, "batch_size": 32, "steps": 64, "eval_games": 0, "progress_bar": False,
               "runs_dir": str(tmp_path), "run_name": "run", "mine_coef": 0.5}
    run = train(module.ALGORITHM, module.ALGORITHM.config_class(**options))
    table = rollout_stages.rollout_stages(str(run / "final_model.zip"), 256, seed=5)
    assert sum(row["positions"] for row in table.values()) == pytest.approx(1.0)
    assert sum(row["hidden_cells"] for row in table.values()) == pytest.approx(1.0)
    picks = [row["revealed_picks"] for row in table.values()]
    assert all(0 <= pick <= 1 for pick in picks)
    if module is maskable_ppo:
        assert picks == [0.0, 0.0, 0.0]  # the masks never let it pick a revealed cell
    else:
        assert max(picks) > 0  # an untrained PPO policy does
    assert table == rollout_stages.rollout_stages(str(run / "final_model.zip"), 256, seed=5)


def test_ppos_moves_onto_revealed_cells_fill_its_rollouts_with_late_positions(tmp_path: Path) -> None:
    """Why MaskablePPO lagged PPO early (docs/lab/2026-12-06-why-masks-lag-early.md): a move onto a revealed cell
    repeats its position, most often late, when few cells are hidden; the masks never repeat one."""
    late = {}
    for module in (ppo, maskable_ppo):
        options = {"preset": "beginner", "num_envs": 4, "channels": 8, "layers": 2, "value_hidden": 8, "n_steps": 16,
                   "batch_size": 32, "steps": 64, "eval_games": 0, "progress_bar": False, "runs_dir": str(tmp_path),
                   "run_name": module.__name__, "mine_coef": 0.5}  # fmt: skip
        run = train(module.ALGORITHM, module.ALGORITHM.config_class(**options))
        late[module] = rollout_stages.rollout_stages(str(run / "final_model.zip"), 2048, seed=5)["late"]
    assert late[ppo]["revealed_picks"] > 0.5 and late[maskable_ppo]["revealed_picks"] == 0
    assert late[ppo]["positions"] > 1.5 * late[maskable_ppo]["positions"]

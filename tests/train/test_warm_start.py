"""``--init`` reads the model format: a distilled model's card and ``.pt`` weights, as eval plays them. Started from
a shipped card (no training zip involved), a MaskablePPO, PPO or DQN model, a distillation network (as it is, or
grown) and the distilled policy give the very scores of the ModelAgent of that card."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th

from agents.networks.player import load_model_agent, tell_mine_count
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from support import random_play_grids
from train.distill.config import DistillConfig
from train.distill.network import learner_scores, new_model, play_scores, start_from
from train.sb3 import dqn, maskable_ppo, ppo
from train.sb3.networks import action_scores
from train.sb3.vec_env import BatchVecEnv
from train.sb3.warm_start import DQN_Q_SCALE, distilled_network, distilled_policy, load_distilled

pytestmark = pytest.mark.train
ROOT = Path(__file__).resolve().parents[2]
MINES = 12
"""Not the card's 10: the network reads the run's mine count."""
SPEC = BoardSpec(9, 9, MINES, "opening")


@pytest.fixture(scope="module")
def grids() -> np.ndarray:
    """Positions of seeded games played with random valid moves."""
    return random_play_grids(9, 9, MINES, games=4, moves=6)


@pytest.fixture(scope="module")
def expected(grids: np.ndarray) -> th.Tensor:
    """What eval plays from the card: the ModelAgent's scores."""
    agent = load_model_agent("distill-beginner")
    tell_mine_count(agent.network, MINES)
    return th.as_tensor(agent.batch_scores(grids))


def centred(logits: th.Tensor) -> th.Tensor:
    """Logits up to a shift per row (a distribution's logits are normalised)."""
    return logits - logits.logsumexp(1, keepdim=True)


@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo", "dqn"])
def test_an_rl_model_starts_as_the_card_plays(
    algo: str, grids: np.ndarray, expected: th.Tensor, tmp_path: Path
) -> None:
    module = {"ppo": ppo, "maskable_ppo": maskable_ppo, "dqn": dqn}[algo]
    extra = {} if algo == "dqn" else {"n_steps": 16, "batch_size": 32}
    config = module.ALGORITHM.config_class(rows=9, cols=9, mines=MINES, num_envs=2, init="distill-beginner",
                                           runs_dir=str(tmp_path), progress_bar=False, **extra)  # fmt: skip
    config.validate()
    model = module.ALGORITHM.build(config, BatchVecEnv(SPEC, 2))
    load_distilled(model, config.init, MINES)
    scores = action_scores(model.policy, grids)
    if algo == "dqn":
        th.testing.assert_close(scores, DQN_Q_SCALE * expected)
    else:
        th.testing.assert_close(centred(scores), centred(expected))


def test_a_dqn_with_the_mine_prior_starts_from_the_distilled_chances_of_a_mine(
    grids: np.ndarray, expected: th.Tensor, tmp_path: Path
) -> None:
    """The distilled head becomes the mine head; the return if safe starts level, so the Q-values of the hidden cells
    are minus their distilled chance of a mine, in the target network too."""
    config = dqn.DQNConfig(rows=9, cols=9, mines=MINES, num_envs=2, init="distill-beginner", mine_coef=0.5,
                           mine_prior=True, advantage_bound=0.05, runs_dir=str(tmp_path),
                           progress_bar=False)  # fmt: skip
    config.validate()
    model = dqn.ALGORITHM.build(config, BatchVecEnv(SPEC, 2))
    load_distilled(model, config.init, MINES)
    hidden = th.as_tensor(grids.reshape(len(grids), -1) == HIDDEN)
    for network in (model.q_net, model.q_net_target):
        with th.no_grad():
            scores = network(th.as_tensor(grids))
        th.testing.assert_close(scores[hidden], th.sigmoid(expected)[hidden] - 1)


@pytest.mark.parametrize("channels", [48, 64])
def test_a_distillation_starts_as_the_card_plays(channels: int, grids: np.ndarray, expected: th.Tensor) -> None:
    """The card's own shape loads as it is; a wider network is grown from it, to the same logits."""
    config = DistillConfig(preset="beginner", mines=MINES, channels=channels, dilations="1,1,1,2,2,1,1", seed=1)
    model = new_model(config, SPEC)
    start_from(model.policy, "distill-beginner", MINES)
    th.testing.assert_close(th.as_tensor(learner_scores(model.policy)(grids)), expected, atol=1e-4, rtol=1e-4)


def test_the_distilled_policy_and_network_play_as_the_card(grids: np.ndarray, expected: th.Tensor) -> None:
    th.testing.assert_close(th.as_tensor(play_scores(distilled_policy("distill-beginner", MINES))(grids)), expected)
    card = ROOT / "models" / "distill_beginner_opening.json"  # the card's path, or its weights', name it too
    for path in (card.with_suffix(""), card.with_suffix(".pt")):
        with th.no_grad():
            th.testing.assert_close(distilled_network(path, MINES)(th.as_tensor(grids)), expected)


def test_a_card_without_its_network_says_how_to_convert(tmp_path: Path) -> None:
    card = json.loads((ROOT / "models" / "distill_beginner_opening.json").read_text())
    del card["network"]
    (tmp_path / "old.json").write_text(json.dumps(card))
    shutil.copy(ROOT / "models" / "distill_beginner_opening.pt", tmp_path / "old.pt")
    with pytest.raises(ValueError, match=r"no network section .*python -m train\.sb3\.export .*old\.zip"):
        distilled_network(tmp_path / "old.zip", MINES)
    with pytest.raises(ValueError, match="is a dqn model, not a distilled one"):
        distilled_network("dqn-beginner", MINES)

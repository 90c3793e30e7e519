"""``--init`` with a model of the run's own algorithm (a curriculum of boards): the new run on a larger board starts
with every weight of the smaller board's model (its play, its critic, its target network), and a model it cannot
start from is refused in one line before anything is built."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th

from agents.model_card import ModelCard
from agents.networks.saved import load_network
from agents.networks.trunks import set_mine_count
from mine_env.engine.spec import BoardSpec
from support import random_play_grids
from train.sb3 import dqn, maskable_ppo, ppo
from train.sb3.curriculum import is_distilled, load_transfer
from train.sb3.networks import action_scores, cell_logits
from train.sb3.training import train
from train.sb3.vec_env import BatchVecEnv

pytestmark = pytest.mark.train

ALGORITHMS = {"dqn": dqn.ALGORITHM, "ppo": ppo.ALGORITHM, "maskable_ppo": maskable_ppo.ALGORITHM}
SMALL = {"rows": 4, "cols": 5, "mines": 3}
LARGE = BoardSpec(6, 7, 6, "opening")
SHARED = {"num_envs": 4, "channels": 8, "layers": 2, "value_hidden": 8, "eval_games": 0, "checkpoint_every": 0,
          "progress_bar": False, "steps": 128, "mine_coef": 0.5}  # fmt: skip
ALGO = {
    "dqn": {"learning_starts": 16, "batch_size": 16, "buffer_size": 100, "mine_prior": True},
    "ppo": {"n_steps": 16, "batch_size": 32},
    "maskable_ppo": {"n_steps": 16, "batch_size": 32, "dilations": "1,2", "pooled": "1"},
}


def config(algo: str, tmp_path: Path, name: str, **overrides: object) -> object:
    options = SHARED | ALGO[algo] | {"runs_dir": str(tmp_path), "run_name": name} | overrides
    return ALGORITHMS[algo].config_class(**options)


@pytest.fixture(scope="module")
def large_grids() -> np.ndarray:
    """Positions of seeded games on the large board, played with random valid moves."""
    return random_play_grids(LARGE.rows, LARGE.cols, LARGE.mines, games=3, moves=4)


@pytest.mark.parametrize("algo", ["dqn", "ppo", "maskable_ppo"])
def test_a_run_on_a_larger_board_starts_from_the_smaller_boards_model(
    algo: str, tmp_path: Path, large_grids: np.ndarray
) -> None:
    small_run = train(ALGORITHMS[algo], config(algo, tmp_path, "small", **SMALL))
    source = small_run / "final_model.zip"
    assert not is_distilled(source) and ALGORITHMS[algo].config_class.algo == algo
    large = config(algo, tmp_path, "large", rows=LARGE.rows, cols=LARGE.cols, mines=LARGE.mines, init=str(source))
    large.validate()
    model = ALGORITHMS[algo].build(large, BatchVecEnv(LARGE, 4))
    before = action_scores(model.policy, large_grids)
    load_transfer(model, source)
    weights = ALGORITHMS[algo].model_class.load(source, device="cpu").policy.state_dict()
    assert model.policy.state_dict().keys() == weights.keys()
    for name, weight in model.policy.state_dict().items():  # the play, the mine head, the critic or target network
        th.testing.assert_close(weight, weights[name], msg=name)
    assert not th.allclose(before, action_scores(model.policy, large_grids))
    assert any("mine" in name for name in weights), "the mine head comes along"
    if algo == "dqn":  # the first TD targets are the source's
        assert any(name.startswith("q_net_target.") for name in weights)
    else:  # the first advantages are those of a trained value head
        assert any("value" in name for name in weights)


def test_the_curriculum_run_trains_end_to_end(tmp_path: Path) -> None:
    """Through ``train``: the large board's run starts from the small one's model and records where from."""
    small_run = train(ALGORITHMS["dqn"], config("dqn", tmp_path, "small", **SMALL))
    source = str(small_run / "final_model.zip")
    large = config("dqn", tmp_path, "large", rows=LARGE.rows, cols=LARGE.cols, mines=LARGE.mines, init=source)
    large_run = train(ALGORITHMS["dqn"], large)
    assert (large_run / "final_model.zip").is_file()
    assert source in (large_run / "config.json").read_text()


@pytest.fixture(scope="module")
def dqn_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    return train(ALGORITHMS["dqn"], config("dqn", runs, "small", **SMALL)) / "final_model.zip"


@pytest.mark.parametrize(
    ("algo", "overrides", "message"),
    [
        ("maskable_ppo", {}, "is a dqn model: a maskable_ppo run starts from a distilled model or from a model of"),
        ("dqn", {"channels": 16}, "has another network: give --channels 8 as its run did"),
        ("dqn", {"mine_prior": False}, "has another network: give --mine-prior True as its run did"),
        ("dqn", {"advantage_bound": 0.05}, "has another network: give --advantage-bound 0.0 as its run did"),
        ("dqn", {"mine_coef": 0.0, "mine_prior": False}, "give --mine-prior True --mine-coef 0.5"),
    ],
)
def test_a_model_the_run_cannot_start_from_is_refused_in_one_line(
    algo: str, overrides: dict[str, object], message: str, dqn_model: Path, tmp_path: Path
) -> None:
    options = {"rows": LARGE.rows, "cols": LARGE.cols, "mines": LARGE.mines, "init": str(dqn_model)} | overrides
    if algo != "dqn":
        options.pop("mine_prior", None)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        train(ALGORITHMS[algo], config(algo, tmp_path, "refused", **options))
    assert not (tmp_path / "refused").exists()


def test_a_model_without_its_archive_is_refused(dqn_model: Path, tmp_path: Path) -> None:
    for suffix in (".json", ".pt"):
        (tmp_path / f"alone{suffix}").write_bytes(dqn_model.with_suffix(suffix).read_bytes())
    large = config("dqn", tmp_path, "refused", rows=6, cols=7, mines=6, init=str(tmp_path / "alone.pt"))
    with pytest.raises(ValueError, match=r"its training archive .* is missing"):
        large.validate()


PLAYING = {
    "prior-only": {"mine_prior": True, "detach_prior": True, "prior_only": True, "prior_scale": 3.0,
                   "preference_bound": 0.5},
    "plain": {"preference_bound": 0.5},
}


@pytest.mark.parametrize("kind", sorted(PLAYING))
def test_a_shipped_model_without_its_archive_starts_a_run_that_plays_its_moves(
    kind: str, tmp_path: Path, large_grids: np.ndarray
) -> None:
    """A shipped PPO-family model is its card and playing network alone: the new run gets the trunk, the preference
    and the head (a prior-only model's as the mine head), and plays its very moves; the value head starts fresh."""
    source = train(ALGORITHMS["maskable_ppo"], config("maskable_ppo", tmp_path, "small", **SMALL, **PLAYING[kind]))
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    for suffix in (".json", ".pt"):
        (shipped / f"final_model{suffix}").write_bytes((source / f"final_model{suffix}").read_bytes())
    large = config("maskable_ppo", tmp_path, "large", rows=LARGE.rows, cols=LARGE.cols, mines=LARGE.mines,
                   init=str(shipped / "final_model.pt"), **PLAYING[kind])  # fmt: skip
    large.validate()
    model = ALGORITHMS["maskable_ppo"].build(large, BatchVecEnv(LARGE, 4))
    load_transfer(model, shipped / "final_model.pt")
    card = ModelCard.of_model(shipped / "final_model.pt")
    assert card.network_spec is not None
    playing = load_network(card.network_spec, shipped)
    set_mine_count(playing, LARGE.mines)  # a residual trunk reads the board's mine count, not a weight
    with th.no_grad():
        shipped_scores = playing(th.as_tensor(large_grids).float())
    th.testing.assert_close(cell_logits(model.policy, large_grids), shipped_scores)
    original = ALGORITHMS["maskable_ppo"].model_class.load(source / "final_model.zip", device="cpu")
    value = "mlp_extractor.value_head.net.0.weight"
    assert not th.allclose(model.policy.state_dict()[value], original.policy.state_dict()[value])


def test_a_model_whose_head_folds_the_policy_and_the_mine_head_is_refused(tmp_path: Path) -> None:
    folded = {"mine_prior": True, "detach_prior": True}
    source = train(ALGORITHMS["ppo"], config("ppo", tmp_path, "small", **SMALL, **folded))
    for suffix in (".json", ".pt"):
        (tmp_path / f"final_model{suffix}").write_bytes((source / f"final_model{suffix}").read_bytes())
    large = config("ppo", tmp_path, "refused", rows=6, cols=7, mines=6, init=str(tmp_path / "final_model.pt"),
                   **folded)  # fmt: skip
    with pytest.raises(ValueError, match="folds the policy head and the mine head together"):
        large.validate()

"""Saved models as agents: a card and a weights file of the model format, checked, played on valid moves only.

Needs torch: skipped without it (stable-baselines3 is not needed to play a saved model).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import torch

from agents.model_card import ModelCard
from agents.networks.player import load_model_agent
from agents.networks.saved import CellScorer, save_weights, trunk_kwargs
from agents.networks.trunks import BoardTrunk, CellTrunk
from eval.runner import EvalReport, evaluate
from eval.suites import Suite
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv

MODELS = Path(__file__).resolve().parents[2] / "models"


def save_tiny_model(folder: Path, name: str, trunk: str = "cell", head: str = "policy", rows: int = 4,
                    cols: int = 4, algo: str = "ppo") -> Path:  # fmt: skip
    """An untrained network of the format on a small board, saved with its card as train/ does; returns the card."""
    torch.manual_seed(0)
    module = CellTrunk(8, 2) if trunk == "cell" else BoardTrunk(8, (1, 2), mines=2, pooled=(1,), refine=1)
    network = CellScorer(module)
    card_path = folder / f"{name}.json"
    sha256 = save_weights(network, card_path.with_suffix(".pt"))
    kind, kwargs = trunk_kwargs(module)
    section = {"format": 1, "weights": f"{name}.pt", "sha256": sha256, "trunk": kind, "trunk_kwargs": kwargs,
               "head": head, "preference_bound": 0.0}  # fmt: skip
    env_kwargs = dict(rows=rows, cols=cols, mines=2, first_click="opening", obs_mode="grid", flags=False)
    ModelCard(algo, "stable_baselines3.ppo.ppo:PPO", env_kwargs, network=section).write(card_path)
    return card_path


@pytest.mark.parametrize(("trunk", "head"), [("cell", "policy"), ("cell", "q"), ("board", "policy")])
def test_a_saved_model_loads_and_plays_only_valid_moves(tmp_path: Path, trunk: str, head: str) -> None:
    save_tiny_model(tmp_path, f"tiny-{trunk}", trunk, head)
    suite = Suite("tiny", 4, 4, 2, "opening", games=6, base_seed=0)
    report: EvalReport = evaluate([tmp_path / f"tiny-{trunk}.zip"], suite, workers=1, progress=False)
    (result,) = report.to_dict()["results"]
    assert result["agent"] == f"{tmp_path.name}/tiny-{trunk}" and result["games"] == 6
    assert result["invalid_moves"] == 0  # the untrained network's invalid preferences are masked out


def test_a_model_goes_by_its_stem_its_zip_or_its_weights(tmp_path: Path) -> None:
    save_tiny_model(tmp_path, "tiny")
    for given in ("tiny", "tiny.zip", "tiny.pt"):
        assert load_model_agent(tmp_path / given).name == f"{tmp_path.name}/tiny"
    report = evaluate([str(tmp_path / "tiny.pt")], Suite("tiny", 4, 4, 2, "opening", games=1, base_seed=0), workers=1,
                      oracle=False, progress=False)  # fmt: skip
    assert report.agents == (f"{tmp_path.name}/tiny",)


@pytest.mark.parametrize(
    "model",
    ["dqn_beginner_opening", "maskable_ppo_beginner_opening", "ppo_beginner_opening", "distill_beginner_opening"],
)
def test_a_fully_convolutional_model_plays_any_board(model: str) -> None:
    path = MODELS / f"{model}.json"  # trained on 9x9
    suite = Suite("expert", 16, 30, 99, "opening", games=2, base_seed=0)
    report = evaluate([path.with_suffix(".zip")], suite, workers=1, oracle=False, progress=False)
    (result,) = report.to_dict()["results"]
    assert result["games"] == 2 and result["invalid_moves"] == 0
    agent = load_model_agent(path.with_suffix(""), suite.spec())
    obs, info = MinesweeperEnv(preset="expert").reset(seed=0)
    assert agent.action_scores(obs, info).shape == (16 * 30,)


def test_a_distilled_model_is_told_the_games_mine_count() -> None:
    """Its input has the remaining-mine density: on expert it must count 99 mines, not its beginner 10."""
    agent = load_model_agent(MODELS / "distill_beginner_opening", BoardSpec(16, 30, 99))
    obs, info = MinesweeperEnv(preset="expert").reset(seed=0)
    agent.act(obs, info)
    counts = {module.mines for module in agent.network.modules() if getattr(module, "reads_mine_count", False)}
    assert counts == {99}


def test_scores_are_the_networks_own(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny", "board")
    agent = load_model_agent(path.with_suffix(""))
    obs, info = MinesweeperEnv(rows=4, cols=4, mines=2).reset(seed=0)
    with torch.no_grad():
        expected = agent.network(torch.as_tensor(obs[None]))[0].numpy()
    np.testing.assert_array_equal(agent.action_scores(obs, info), expected)


def test_a_card_without_a_network_names_the_conversion(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "old")
    card = json.loads(path.read_text())
    del card["network"]
    path.write_text(json.dumps(card))
    with pytest.raises(ValueError, match=r"has no network section .*python -m train\.sb3\.export .*old\.zip"):
        load_model_agent(tmp_path / "old")


def test_weights_that_are_not_the_cards_are_refused(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny")
    save_tiny_model(tmp_path, "other", "board")
    weights = path.with_suffix(".pt")
    weights.write_bytes((tmp_path / "other.pt").read_bytes())
    with pytest.raises(ValueError, match="not the ones its card names"):
        load_model_agent(path.with_suffix(""))
    card = json.loads(path.read_text())
    card["network"]["sha256"] = json.loads((tmp_path / "other.json").read_text())["network"]["sha256"]
    path.write_text(json.dumps(card))
    with pytest.raises(ValueError, match="do not fit the card's cell network"):
        load_model_agent(path.with_suffix(""))
    weights.write_bytes(b"not a tensor file")
    card["network"]["sha256"] = hashlib.sha256(b"not a tensor file").hexdigest()
    path.write_text(json.dumps(card))
    with pytest.raises(ValueError, match="cannot be read"):
        load_model_agent(path.with_suffix(""))
    weights.unlink()
    with pytest.raises(FileNotFoundError, match=r"tiny\.pt do not exist"):
        load_model_agent(path.with_suffix(""))


def test_a_model_without_its_json_or_file_is_refused(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny")
    path.unlink()
    with pytest.raises(FileNotFoundError, match="no metadata file"):
        load_model_agent(tmp_path / "tiny")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_model_agent(tmp_path / "missing.zip")


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"obs_mode": "pixels"}, "obs_mode 'pixels', but the networks of the model format read the 'grid'"),
        ({"flags": True}, "trained with flag actions"),
        ({"rows": 0}, "env_kwargs give no board: rows must be between 1 and"),
        ({"obs_mode": "planes"}, "read the 'grid' observation"),
    ],
)
def test_a_card_whose_env_the_evaluation_cannot_play_is_refused(tmp_path: Path, change: dict, match: str) -> None:
    path = save_tiny_model(tmp_path, "tiny")
    card = json.loads(path.read_text())
    card["env_kwargs"].update(change)
    path.write_text(json.dumps(card))
    with pytest.raises(ValueError, match=match):
        load_model_agent(tmp_path / "tiny")


def test_a_loaded_model_plays_on_one_torch_thread(tmp_path: Path) -> None:
    save_tiny_model(tmp_path, "tiny-threads")
    torch.set_num_threads(2)
    load_model_agent(tmp_path / "tiny-threads")
    assert torch.get_num_threads() == 1  # spinning OpenMP threads made a busy machine's games 150 times slower

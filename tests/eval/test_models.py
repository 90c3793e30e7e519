"""Saved stable-baselines3 models as agents: loaded with their model card, checked, played on valid moves only.

Needs the train extra (torch, stable-baselines3, sb3-contrib): skipped without it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from stable_baselines3 import DQN, PPO

from agents.model_card import ModelCard
from eval.models import load_model_agent
from eval.runner import EvalReport, evaluate
from eval.suites import Suite
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv

pytestmark = pytest.mark.train


def save_tiny_model(folder: Path, name: str, algo: str, obs_mode: str, rows: int = 4, cols: int = 4) -> Path:
    """An untrained SB3 model of the given kind on a small board, saved with its card as train/ does."""
    env_kwargs = dict(rows=rows, cols=cols, mines=2, first_click="opening", obs_mode=obs_mode, flags=False)
    env = MinesweeperEnv(**env_kwargs)
    if algo == "ppo":
        model = PPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=0)
    elif algo == "dqn":
        model = DQN("MlpPolicy", env, buffer_size=64, learning_starts=0, seed=0)
    else:
        model = MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=32, seed=0)
    path = folder / f"{name}.zip"
    model.save(path)
    model_class = f"{type(model).__module__}:{type(model).__name__}"
    ModelCard(algo, model_class, env_kwargs).write(path.with_suffix(".json"))
    return path


@pytest.mark.parametrize(("algo", "obs_mode"), [("ppo", "grid"), ("dqn", "planes"), ("maskable_ppo", "dict")])
def test_a_saved_model_loads_and_plays_only_valid_moves(tmp_path: Path, algo: str, obs_mode: str) -> None:
    path = save_tiny_model(tmp_path, f"tiny-{algo}", algo, obs_mode)
    suite = Suite("tiny", 4, 4, 2, "opening", games=6, base_seed=0)
    report: EvalReport = evaluate([path], suite, workers=1, progress=False)
    (result,) = report.to_dict()["results"]
    assert result["agent"] == f"{tmp_path.name}/tiny-{algo}" and result["games"] == 6
    assert result["invalid_moves"] == 0  # the untrained network's invalid preferences are masked out


NOT_CONVOLUTIONAL = "trained on 4x4 boards and its network is not fully convolutional"


@pytest.mark.parametrize(("algo", "obs_mode"), [("ppo", "grid"), ("dqn", "planes"), ("maskable_ppo", "dict")])
def test_a_network_shaped_for_its_board_is_refused_on_another(tmp_path: Path, algo: str, obs_mode: str) -> None:
    path = save_tiny_model(tmp_path, "tiny", algo, obs_mode)
    with pytest.raises(ValueError, match=rf"{NOT_CONVOLUTIONAL} .*the suite's 9x9 board; evaluate it on a 4x4 suite"):
        load_model_agent(path, BoardSpec(9, 9, 10))


def test_a_flat_network_is_refused_even_on_a_board_of_as_many_cells(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny", "ppo", "grid")  # 16 inputs and 16 outputs, like a 2x8 board's
    with pytest.raises(ValueError, match=rf"{NOT_CONVOLUTIONAL} .*cannot play the suite's 2x8 board"):
        load_model_agent(path, BoardSpec(2, 8, 2))


@pytest.mark.parametrize(
    "model",
    ["dqn_beginner_opening", "maskable_ppo_beginner_opening", "ppo_beginner_opening", "distill_beginner_opening"],
)
def test_a_fully_convolutional_model_plays_any_board(model: str) -> None:
    path = Path(__file__).resolve().parents[2] / "models" / f"{model}.zip"  # trained on 9x9
    suite = Suite("expert", 16, 30, 99, "opening", games=2, base_seed=0)
    report = evaluate([path], suite, workers=1, oracle=False, progress=False)
    (result,) = report.to_dict()["results"]
    assert result["games"] == 2 and result["invalid_moves"] == 0
    agent = load_model_agent(path, suite.spec())
    env = MinesweeperEnv(preset="expert")
    obs, info = env.reset(seed=0)
    assert agent.action_scores(obs, info).shape == (16 * 30,)


def test_a_distilled_model_is_told_the_games_mine_count() -> None:
    """Its input has the remaining-mine density: on expert it must count 99 mines, not its beginner 10."""
    path = Path(__file__).resolve().parents[2] / "models" / "distill_beginner_opening.zip"
    agent = load_model_agent(path, BoardSpec(16, 30, 99))
    obs, info = MinesweeperEnv(preset="expert").reset(seed=0)
    agent.act(obs, info)
    counts = {module.mines for module in agent.policy.modules() if getattr(module, "reads_mine_count", False)}
    assert counts == {99}


def test_scores_on_the_trained_board_are_the_policys_own_logits(tmp_path: Path) -> None:
    import torch

    path = save_tiny_model(tmp_path, "tiny", "maskable_ppo", "dict")
    agent = load_model_agent(path)
    env = MinesweeperEnv(rows=4, cols=4, mines=2, obs_mode="dict")
    obs, info = env.reset(seed=0)
    tensor, _ = agent.policy.obs_to_tensor(obs)
    with torch.no_grad():
        logits = agent.policy.get_distribution(tensor).distribution.logits[0].numpy()
    scores = torch.as_tensor(agent.action_scores(obs["observation"], info))
    np.testing.assert_allclose(torch.log_softmax(scores, dim=0).numpy(), logits, rtol=0, atol=1e-6)


def test_a_model_whose_zip_and_json_disagree_is_refused(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny", "ppo", "grid", rows=5, cols=5)
    metadata = json.loads(path.with_suffix(".json").read_text())
    metadata["env_kwargs"].update(rows=4, cols=4)
    path.with_suffix(".json").write_text(json.dumps(metadata))
    with pytest.raises(ValueError, match=r"acts in Discrete\(25\), not Discrete\(16\)"):
        load_model_agent(path, BoardSpec(4, 4, 2))


def test_a_model_without_its_json_or_file_is_refused(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny", "ppo", "grid")
    path.with_suffix(".json").unlink()
    with pytest.raises(FileNotFoundError, match="no metadata file"):
        load_model_agent(path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_model_agent(tmp_path / "missing.zip")


def test_a_corrupt_model_file_is_refused(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny", "ppo", "grid")
    path.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot load model"):
        load_model_agent(path)


@pytest.mark.parametrize(
    ("change", "match"),
    [({"obs_mode": "pixels"}, "unknown obs_mode 'pixels'"), ({"flags": True}, "trained with flag actions")],
)
def test_a_card_whose_env_the_evaluation_cannot_play_is_refused(tmp_path: Path, change: dict, match: str) -> None:
    path = save_tiny_model(tmp_path, "tiny", "ppo", "grid")
    card = json.loads(path.with_suffix(".json").read_text())
    card["env_kwargs"].update(change)
    path.with_suffix(".json").write_text(json.dumps(card))
    with pytest.raises(ValueError, match=match):
        load_model_agent(path)


def test_a_loaded_model_plays_on_one_torch_thread(tmp_path: Path) -> None:
    import torch

    path = save_tiny_model(tmp_path, "tiny-threads", "ppo", "grid")
    torch.set_num_threads(2)
    load_model_agent(path)
    assert torch.get_num_threads() == 1  # spinning OpenMP threads made a busy machine's games 150 times slower

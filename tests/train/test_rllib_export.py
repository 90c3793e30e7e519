"""train.rllib.export: an RLlib module's checkpoint in the model format plays the module's moves with torch alone;
what it cannot convert is told in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ray.rllib")

import torch as th

from agents.model_card import ModelCard
from agents.networks.player import load_model_agent
from mine_env.engine.constants import HIDDEN
from support import random_position
from train.rllib import RLlibAgent, make_env, module_spec
from train.rllib.export import main

pytestmark = pytest.mark.train
BOARD = {"rows": 5, "cols": 6, "mines": 4}
SETTINGS = {**BOARD, "first_click": "opening", "channels": 8, "layers": 2, "eval_games": 4, "eval_seed": 7}


def saved_module(folder: Path) -> RLlibAgent:
    """A freshly initialised masking module of 8 channels, saved as RLlib saves one, with its run's settings."""
    th.manual_seed(0)
    env = make_env(BOARD)
    spec = module_spec({"channels": 8, "layers": 2, "value_hidden": 8})
    spec.observation_space, spec.action_space = env.observation_space, env.action_space
    module = spec.build()
    module.save_to_path(str(folder))
    (folder / "run_config.json").write_text(json.dumps(SETTINGS))
    return RLlibAgent(module)


def test_the_exported_network_plays_the_modules_moves(tmp_path: Path) -> None:
    rllib = saved_module(tmp_path / "module")
    card_path = tmp_path / "exported.json"
    assert main([str(tmp_path / "module"), "--out", str(card_path), "--steps", "128"]) == 0
    card = ModelCard.read(card_path)
    assert (card.algo, card.model_class, card.steps, card.config) == ("rllib_ppo", None, 128, SETTINGS)
    assert card.env_kwargs == {**BOARD, "first_click": "opening", "obs_mode": "grid", "flags": False}
    assert card.eval is not None and card.eval["games"] == 4 and 0.0 <= card.eval["win_rate"] <= 1.0
    played = load_model_agent(tmp_path / "exported")
    rng = np.random.default_rng(3)
    for _ in range(40):
        grid = random_position(rng, BOARD["rows"], BOARD["cols"], BOARD["mines"])[1]
        mask = (grid.reshape(-1) == HIDDEN).astype(np.int8)
        if mask.any():
            assert played.act(grid, {"action_mask": mask}) == rllib.act(grid, {"action_mask": mask})


def test_what_it_cannot_convert_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved_module(tmp_path / "module")
    (tmp_path / "module" / "run_config.json").unlink()
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "module"), "--out", str(tmp_path / "m.json")])
    assert exit_info.value.code == 2 and "no run settings beside the checkpoint" in capsys.readouterr().err
    (tmp_path / "settings.json").write_text(json.dumps({**SETTINGS, "colour": "red"}))
    with pytest.raises(SystemExit):
        main([str(tmp_path / "module"), "--out", str(tmp_path / "m.json"), "--settings",
              str(tmp_path / "settings.json")])  # fmt: skip
    assert "unknown run settings colour: not a run of train.rllib.ppo" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path / "module"), "--out", str(tmp_path / "m.pt")])
    assert "is not a .json card path" in capsys.readouterr().err

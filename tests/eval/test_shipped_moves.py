"""Every shipped model plays the moves it played before the model format: the fixture of
``tests/eval/record_shipped_moves.py`` was recorded through the stable-baselines3 zips (``rllib-ppo-beginner``'s
moves through the pickled RLlib module, by :class:`train.rllib.RLlibAgent`, before ``train.rllib.export`` converted
it), and the format's loader must reproduce it, the chosen cell of every position and a distilled network's mine
chances to 1e-6. And the loader plays with torch alone: with ``train``, ``stable_baselines3`` and ``sb3_contrib``
blocked, eval and the CLI still play."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.networks.player import load_model_agent
from agents.shipped_models import SHIPPED_MODELS
from mine_env.engine.constants import HIDDEN, PRESETS
from mine_env.engine.spec import BoardSpec
from support import command_env

FIXTURE = Path(__file__).with_name("data") / "shipped_moves.npz"
BOARDS = ("beginner", "intermediate", "expert")


@pytest.fixture(scope="module")
def recorded() -> dict[str, np.ndarray]:
    with np.load(FIXTURE) as data:
        return dict(data)


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_every_shipped_model_plays_its_recorded_moves(name: str, recorded: dict[str, np.ndarray]) -> None:
    for board in BOARDS:
        rows, cols, mines = PRESETS[board]
        grids = recorded[f"{board}/grids"]
        agent = load_model_agent(name, BoardSpec(rows, cols, mines, "opening"))
        actions, chosen, mean, largest = [], [], [], []
        for grid in grids:
            mask = grid.reshape(-1) == HIDDEN
            scores = agent.action_scores(grid, {"action_mask": mask.astype(np.int8), "mines": mines})
            action = int(np.where(mask, scores, -np.inf).argmax())
            chances = 1.0 / (1.0 + np.exp(scores.astype(np.float64)))
            actions.append(action)
            chosen.append(chances[action])
            mean.append(chances[mask].mean())
            largest.append(chances[mask].max())
        assert len(grids) >= 80
        np.testing.assert_array_equal(actions, recorded[f"{board}/{name}/action"], err_msg=f"{name} on {board}")
        if name.startswith("distill-"):
            for key, values in (("chosen", chosen), ("mean", mean), ("largest", largest)):
                np.testing.assert_allclose(values, recorded[f"{board}/{name}/{key}"], rtol=0, atol=1e-6,
                                           err_msg=f"{name} on {board}: {key}")  # fmt: skip


BLOCKED_PLAY = """
import sys
for name in ("train", "stable_baselines3", "sb3_contrib"):
    sys.modules[name] = None  # any import of them now fails
import numpy as np
from agents.shipped_models import SHIPPED_MODELS
from agents.networks.player import load_model_agent
from minesweeper_cli.main import main
with np.load(sys.argv[1]) as data:
    grid = data["expert/grids"][0]
for name in SHIPPED_MODELS:
    mask = (grid.reshape(-1) == -1).astype(np.int8)
    print(name, load_model_agent(name).act(grid, {"action_mask": mask, "mines": 99}))
status = main(["eval", "--model", "distill-beginner", "--model", "dqn-beginner", "--games", "2", "--seed", "0",
               "--workers", "1", "--no-progress", "--no-oracle"])
assert not any(name.split(".")[0] in ("train", "stable_baselines3", "sb3_contrib") for name in sys.modules
               if sys.modules[name] is not None)
sys.exit(status)
"""


def test_eval_and_the_cli_play_shipped_models_without_train_or_stable_baselines3(
    recorded: dict[str, np.ndarray],
) -> None:
    done = subprocess.run([sys.executable, "-c", BLOCKED_PLAY, str(FIXTURE)], capture_output=True, text=True,
                          env=command_env(), timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for name in SHIPPED_MODELS:
        assert f"{name} {recorded[f'expert/{name}/action'][0]}" in lines
    assert "| dqn-beginner | 2 |" in done.stdout

"""The battle self-play baseline: the learner's env against the pool, a tiny run end to end, the model in the
tournament, and bad options."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
pytest.importorskip("pettingzoo")

from agents.model_card import ModelCard
from battle.rules import BattleSpec
from battle.tournament import run_tournament
from battle.training import sb3 as battle_train
from mine_env.engine.constants import HIDDEN

pytestmark = pytest.mark.train

TINY = {"rows": 5, "cols": 5, "mines": 5}


def test_the_learner_env_hides_the_opponent_and_pays_the_end_result() -> None:
    config = battle_train.BattleTrainConfig(**TINY, pool={"greedy": 1.0}, mine_reward=0.0)
    env = battle_train.PoolOpponentEnv(config, battle_train.PolicyPlayer(None))
    rng = np.random.default_rng(0)
    for episode in range(6):
        grid, info = env.reset(seed=episode)
        assert info == {"opponent": "greedy"} and grid.shape == (5, 5) and grid.min() >= -3
        total, done = 0.0, False
        while not done:
            mask = env.action_masks()
            assert mask.any() and np.array_equal(mask, (grid == HIDDEN).ravel())  # always the learner's turn
            grid, reward, done, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += reward
            assert not truncated
        assert total in (-1.0, 0.0, 1.0)


def test_a_tiny_run_saves_the_model_its_card_and_progress_and_the_tournament_plays_it(tmp_path: Path) -> None:
    out = tmp_path / "battle_model"
    status = battle_train.main([
        "--rows", "5", "--cols", "5", "--mines", "5", "--steps", "64", "--num-envs", "2", "--n-steps", "32",
        "--batch-size", "32", "--n-epochs", "1", "--eval-every", "64", "--eval-games", "1", "--channels", "4",
        "--layers", "1", "--out", str(out),
    ])  # fmt: skip
    assert status == 0
    card = ModelCard.read(out.with_suffix(".json"))
    assert card.algo == "maskable_ppo_battle" and card.board == (5, 5) and card.steps == 64
    assert 0.0 <= card.eval["win_rate"] <= 1.0 and card.eval["opponent"] == "greedy"
    assert out.with_name(out.name + "-progress.csv").read_text().startswith("steps,cpu_minutes,wall_minutes")
    spec = BattleSpec(**TINY)
    report = run_tournament([f"model:{out}.zip", "random"], spec, 2, 0)
    result = report["results"][0]
    assert result["games"] == 4 and result["wins_a"] + result["wins_b"] + result["draws"] == 4
    assert report["ratings"].keys() == {f"model:{out}.zip", "random"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--pool", "greedy:1,smart:1"], "--pool: unknown opponent 'smart'"),
        (["--pool", "greedy"], "--pool: cannot read 'greedy'; write NAME:WEIGHT"),
        (["--steps", "0"], "--steps must be at least 1, got 0"),
        (["--out", "/no/such/folder/model"], "--out: the folder /no/such/folder does not exist"),
        (["--mines", "0"], "battle board needs 1..256 mines"),
    ],
)
def test_bad_options_exit_2_with_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        battle_train.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_missing_model_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match=r"model:/no/model: model file /no/model\.zip does not exist"):
        run_tournament(["model:/no/model", "random"], BattleSpec(**TINY), 1, 0)

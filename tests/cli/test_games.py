"""``minesweeper games``: seeded games played by a baseline to their end, each final board printed."""

from __future__ import annotations

import pytest

from agents.episode import play_episode
from agents.registry import make_agent
from mine_env.env import MinesweeperEnv
from minesweeper_cli.main import main


def test_games_plays_and_counts_wins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--agent", "solver", "--games", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "game 2 (seed 4)" in out and "solver:" in out and "/2 won" in out


def test_games_rejects_an_impossible_board(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["games", "--rows", "3", "--cols", "3", "--mines", "9"])
    assert "do not fit" in capsys.readouterr().err


def test_games_are_the_agents_seeded_episodes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "--agent", "rules", "--games", "3", "--seed", "5", "--preset", "beginner"]) == 0
    out = capsys.readouterr().out
    env, agent = MinesweeperEnv(preset="beginner"), make_agent("rules", seed=5)
    for game in range(3):
        episode = play_episode(env, agent, 5 + game)
        outcome = "won" if episode.won else "lost"
        assert f"game {game + 1} (seed {5 + game}): {outcome} in {episode.steps} moves" in out

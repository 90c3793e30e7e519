"""The battle tournament and its command: seeded, seats swapped, the statistics of eval.stats, clear errors."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from eval.battle import markdown_table, play_pair, run_tournament
from eval.stats import wilson_interval
from mine_env.engine.battle import BattleSpec
from minesweeper_cli import battle as battle_cli
from minesweeper_cli import main as cli_main

SMALL = BattleSpec(8, 8, 11)


def test_each_board_is_played_from_both_seats_and_the_report_adds_up() -> None:
    result = play_pair(SMALL, "greedy", "random", boards=4, seed=3)
    assert result.games == 8 and result.wins_a + result.wins_b + result.draws == 8
    assert result.ci95 == wilson_interval(result.wins_a, 8)
    assert result.boards_swept_a + result.boards_swept_b <= 4
    assert result.wins_a >= 7


def test_the_tournament_is_a_pure_function_of_its_seed() -> None:
    first = run_tournament(["random", "greedy", "contest"], SMALL, boards=2, seed=9)
    assert first == run_tournament(["random", "greedy", "contest"], SMALL, boards=2, seed=9)
    assert [(r["agent_a"], r["agent_b"]) for r in first["results"]] == [
        ("random", "greedy"), ("random", "contest"), ("greedy", "contest"),
    ]
    assert "| greedy | contest | 4 |" in markdown_table(first)


@pytest.mark.parametrize(
    ("agents", "games", "seed", "message"),
    [
        (["greedy", "smart"], 1, 0, "unknown battle agent 'smart'"),
        (["greedy", "greedy"], 1, 0, "at least two different agents"),
        (["greedy", "random"], 0, 0, "--games must be at least 1"),
        (["greedy", "random"], 1, -1, "--seed must be non-negative"),
    ],
)
def test_a_bad_tournament_is_refused_before_any_game(agents: list[str], games: int, seed: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_tournament(agents, SMALL, games, seed)


def battle_command(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> int:
    """Run ``minesweeper battle ...`` with the battle command registered (main.py lists it)."""
    if "battle" not in cli_main.COMMANDS:
        monkeypatch.setattr(cli_main, "COMMANDS", (*cli_main.COMMANDS, "battle"))
    return cli_main.main(["battle", *argv])


def test_the_command_prints_the_table_and_writes_json(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "battle.json"
    argv = ["eval", "--agent", "random", "--agent", "greedy", "--games", "2", "--seed", "1",
            "--rows", "8", "--cols", "8", "--mines", "11", "--json", str(path)]  # fmt: skip
    assert battle_command(monkeypatch, argv) == 0
    assert "| random | greedy | 4 |" in capsys.readouterr().out
    report = json.loads(path.read_text())
    assert report["suite"]["games_per_pair"] == 4 and report["results"][0]["agent_b"] == "greedy"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--agent", "random", "--agent", "smart"], "unknown battle agent 'smart'"),
        (["--agent", "random", "--agent", "greedy", "--mines", "0"], "needs 1..256 mines"),
        (["--agent", "random", "--agent", "greedy", "--json", "/no/such/dir/x.json"], "does not exist"),
    ],
)
def test_bad_command_input_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        battle_command(monkeypatch, ["eval", "--games", "1", "--seed", "0", *extra])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_module_registers_a_battle_command() -> None:
    parser = argparse.ArgumentParser()
    battle_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["battle", "eval", "--agent", "a", "--agent", "b", "--games", "1", "--seed", "0"])
    assert args.func is battle_cli.run_eval and (args.rows, args.cols, args.mines) == (16, 16, 51)

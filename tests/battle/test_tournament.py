"""The battle tournament and its command: seeded, seats swapped, the statistics of eval.stats, clear errors."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from battle.players import make_battle_agent
from battle.rules import BattleGame, BattleSpec
from battle.tournament import bradley_terry, first_move_table, markdown_table, play_pair, run_tournament
from eval.stats import wilson_interval
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
        (["--agent", "random", "--agent", "greedy", "--merge", "/no/such/report.json"],
         "--merge: /no/such/report.json does not exist"),
        (["--agent", "random", "--agent", "model:"], "model: needs a path"),
    ],
)
def test_bad_command_input_exits_2_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        battle_command(monkeypatch, ["eval", "--games", "1", "--seed", "0", *extra])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_an_earlier_report_of_the_suite_supplies_its_pairs_and_only_new_pairs_are_played(tmp_path: Path) -> None:
    earlier = run_tournament(["greedy", "random"], SMALL, 2, 1)
    earlier["results"][0]["wins_a"] = 999  # a marker: the pair must be taken from the report, not replayed
    played: list[str] = []
    report = run_tournament(["greedy", "random", "contest"], SMALL, 2, 1, earlier=earlier,
                            on_pair=lambda r: played.append(f"{r['agent_a']}-{r['agent_b']}"))  # fmt: skip
    assert played == ["greedy-contest", "random-contest"]
    assert report["results"][0]["wins_a"] == 999 and set(report["ratings"]) == {"greedy", "random", "contest"}
    with pytest.raises(ValueError, match=r"another suite \(boards, games_per_pair differ\)"):
        run_tournament(["greedy", "random"], SMALL, 3, 1, earlier=earlier)
    with pytest.raises(ValueError, match="not a battle tournament report"):
        run_tournament(["greedy", "random"], SMALL, 2, 1, earlier={"results": 3})


def test_the_module_registers_a_battle_command() -> None:
    parser = argparse.ArgumentParser()
    battle_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["battle", "eval", "--agent", "a", "--agent", "b", "--games", "1", "--seed", "0"])
    assert args.func is battle_cli.run_eval and (args.rows, args.cols, args.mines) == (16, 16, 51)


def test_workers_do_not_change_the_result() -> None:
    assert play_pair(SMALL, "greedy", "random", boards=3, seed=5, workers=2) == play_pair(
        SMALL, "greedy", "random", boards=3, seed=5
    )


def test_bradley_terry_recovers_a_known_ratio() -> None:
    # With the half-game prior on each side a scores 74 + 1/2 (draw) + 1/2 = 75 against b's 25: odds 3 to 1.
    results = [{"agent_a": "a", "agent_b": "b", "wins_a": 74, "wins_b": 24, "draws": 1}]
    ratings = bradley_terry(["a", "b"], results)
    assert ratings["a"] - ratings["b"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert ratings["a"] + ratings["b"] == pytest.approx(0.0, abs=1e-9)


def test_bradley_terry_orders_a_chain_of_three() -> None:
    results = [
        {"agent_a": "x", "agent_b": "y", "wins_a": 70, "wins_b": 30, "draws": 0},
        {"agent_a": "y", "agent_b": "z", "wins_a": 70, "wins_b": 30, "draws": 0},
        {"agent_a": "x", "agent_b": "z", "wins_a": 85, "wins_b": 15, "draws": 0},
    ]
    ratings = bradley_terry(["x", "y", "z"], results)
    assert ratings["x"] > ratings["y"] > ratings["z"]


def test_the_report_has_the_ratings_in_json_and_markdown() -> None:
    report = run_tournament(["random", "greedy"], SMALL, boards=2, seed=1)
    assert list(report["ratings"]) == ["greedy", "random"]
    assert "| greedy | +" in markdown_table(report)


def test_the_first_move_table_is_exact() -> None:
    table = first_move_table(BattleSpec())
    for distribution in table.values():
        assert sum(distribution) == pytest.approx(1.0)
        assert distribution[0] == pytest.approx(51 / 256)
    # A corner shows 0 when it and its 3 neighbours are all safe: C(252, 51) / C(256, 51).
    assert table["corner"][1] == pytest.approx(math.comb(252, 51) / math.comb(256, 51))
    assert table["inside"][1] == pytest.approx(math.comb(247, 51) / math.comb(256, 51))
    assert table["corner"][5:] == pytest.approx([0.0] * 5)
    with pytest.raises(ValueError, match="at least 3x3"):
        first_move_table(BattleSpec(2, 8, 3))


def test_bad_workers_are_refused() -> None:
    with pytest.raises(ValueError, match="--workers must be at least 1"):
        run_tournament(["random", "greedy"], SMALL, 1, 0, workers=0)


def scripted(lines: list[str]) -> Callable[[], str]:
    """A person who types ``lines`` one at a time, then closes the input."""
    queue = iter(lines)

    def read_line() -> str:
        try:
            return next(queue)
        except StopIteration:
            raise EOFError from None

    return read_line


def test_watching_two_ais_plays_to_the_end_with_scores_on_screen() -> None:
    game = BattleGame(SMALL, 4)
    shown: list[str] = []
    players = (make_battle_agent("contest", 0), make_battle_agent("greedy", 0))
    battle_cli.play_game(game, players, scripted([]), shown.append)
    assert game.is_over and max(game.scores) == SMALL.to_win
    assert "player_0 (A) 0 - 0 player_1 (B), 6 to win: player_0 to move" in shown[0]
    assert "wins" in shown[-1] and all(line.count("\n") >= 1 for line in shown)


def test_a_person_types_moves_and_bad_lines_get_one_clear_line() -> None:
    game = BattleGame(SMALL, 4)
    shown: list[str] = []
    lines = ["7 7", "x y", "99 0", "b 0 0", "q"]
    battle_cli.play_game(game, (None, make_battle_agent("random", 0)), scripted(lines), shown.append)
    text = "".join(shown)
    assert "player_0 reveals (7, 7)" in text
    assert "cannot read 'x y': type ROW COL to reveal, b ROW COL to bomb, q to quit" in text
    assert "(99, 0) is off the board: rows 0..7, columns 0..7" in text
    assert "action 64 is a bomb, but the bomb rule is off on this board" in text
    assert text.endswith("quit\n") and not game.is_over


def test_the_play_command_refuses_an_unknown_ai(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        battle_command(monkeypatch, ["play", "--opponent", "smart"])
    assert exit_info.value.code == 2
    assert "unknown battle agent 'smart'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--seed", "-1"], "--seed must be non-negative, got -1"),
        (["play", "--delay", "-0.5"], "--delay must be non-negative, got -0.5"),
        (["play", "--watch", "greedy", "nobody"], "unknown battle agent 'nobody'"),
        (["eval", "--agent", "greedy", "--agent", "random", "--games", "1", "--seed", "0", "--workers", "0"],
         "--workers must be at least 1, got 0"),
    ],
)
def test_bad_battle_options_get_one_line_and_status_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        battle_command(monkeypatch, argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err

"""Per-game records summed up: an agent's summary and the paired comparison of two agents."""

from __future__ import annotations

from dataclasses import replace

import pytest

from eval.metrics import GameRecord, paired_comparison, summarise


def record(agent: str, game: int, won: bool, guesses: int | None = None, excess: float | None = None) -> GameRecord:
    oracle = guesses is not None
    return GameRecord(agent, game, seed=game, won=won, steps=10, invalid_moves=0, safe_revealed=8 if won else 4,
                      safe_fraction=1.0 if won else 0.5, guesses=guesses, avoidable_loss=(not won) if oracle else None,
                      excess_risk=excess, time_s=0.002)  # fmt: skip


def test_a_summary_counts_wins_and_averages_the_oracle_metrics_per_guess() -> None:
    records = [record("a", 0, True, 2, 0.25), record("a", 1, False, 1, 0.5), record("a", 2, True, 0, 0.0)]
    summary = summarise(records, oracle=True)
    assert (summary["games"], summary["wins"], summary["win_rate"]) == (3, 2, 2 / 3)
    low, high = summary["ci95"]
    assert low < 2 / 3 < high
    assert summary["mean_safe_fraction"] == pytest.approx(2.5 / 3) and summary["time_per_game_ms"] == pytest.approx(2)
    assert summary["guesses_per_game"] == 1.0 and summary["avoidable_losses"] == 1
    assert summary["mean_excess_risk"] == pytest.approx(0.75 / 3)


def test_without_the_oracle_its_summary_entries_are_none() -> None:
    summary = summarise([record("a", 0, True)], oracle=False)
    assert summary["guesses_per_game"] is None and summary["avoidable_loss_rate"] is None and not summary["oracle"]


def test_a_summary_needs_the_games_of_one_agent() -> None:
    with pytest.raises(ValueError, match="no games"):
        summarise([], oracle=False)
    with pytest.raises(ValueError, match="one agent expected"):
        summarise([record("a", 0, True), record("b", 0, True)], oracle=False)


def test_a_paired_comparison_counts_each_kind_of_game() -> None:
    first = [record("a", game, won) for game, won in enumerate((True, True, False, False, True))]
    second = [record("b", game, won) for game, won in enumerate((True, False, True, False, False))]
    pair = paired_comparison(first, second)
    assert pair["agents"] == ["a", "b"] and pair["games"] == 5
    assert (pair["both_won"], pair["only_first"], pair["only_second"], pair["neither"]) == (1, 2, 1, 1)


def test_a_paired_comparison_counts_the_games_played_on_the_same_board() -> None:
    first = [replace(record("a", game, True), first_action=cell) for game, cell in enumerate((20, 20, 3))]
    second = [replace(record("b", game, False), first_action=cell) for game, cell in enumerate((20, 4, 3))]
    assert paired_comparison(first, second)["same_boards"] == 2  # games 0 and 2 opened on the same cell
    assert paired_comparison(first, second, layout_follows_first_click=False)["same_boards"] == 3  # rule none
    unrecorded = [record("b", game, False) for game in range(3)]
    assert paired_comparison(first, unrecorded)["same_boards"] is None


def test_a_paired_comparison_needs_the_same_games() -> None:
    with pytest.raises(ValueError, match="same games"):
        paired_comparison([record("a", 0, True)], [record("b", 1, True)])

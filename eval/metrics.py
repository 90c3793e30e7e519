"""Per-game records and what is computed from them: an agent's summary and a paired comparison of two agents.

The summaries are plain JSON values (the ``results`` and ``paired`` entries of the report), so reports
saved as JSON can be tabulated and plotted again without replaying anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from eval.stats import mcnemar, wilson_interval


@dataclass(frozen=True)
class GameRecord:
    """How one game went.

    Attributes:
        agent: The agent's label.
        game: The game's index in the suite.
        seed: The seed the env was reset with.
        won: Whether every safe cell was revealed.
        steps: Moves played (invalid ones included).
        invalid_moves: Moves on a cell that could not be revealed (they change nothing).
        safe_revealed: Safe cells revealed at the end.
        safe_fraction: ``safe_revealed`` over the board's safe cells.
        guesses: Moves on a cell that was not certainly safe (None without the oracle).
        avoidable_loss: Lost by revealing a mine while a certainly safe cell was hidden (None without the
            oracle).
        excess_risk: Summed over the game's guesses, the chosen cell's mine probability minus the lowest one
            among the cells that could be revealed (None without the oracle).
        time_s: Seconds spent by the agent and the env in this game, from the reset (the oracle left out).
        first_action: The first cell the agent played (None where not recorded). Under the ``opening`` and
            ``safe`` rules, and on no-guess boards, the layout depends on it: agents that open on different
            cells play different boards of the same game.
    """

    agent: str
    game: int
    seed: int
    won: bool
    steps: int
    invalid_moves: int
    safe_revealed: int
    safe_fraction: float
    guesses: int | None
    avoidable_loss: bool | None
    excess_risk: float | None
    time_s: float
    first_action: int | None = None

    def outcome(self) -> tuple[Any, ...]:
        """Everything but the timing: what must be identical across machines and worker counts."""
        return tuple(getattr(self, f.name) for f in fields(self) if f.name != "time_s")


RECORD_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(GameRecord))
"""Column order of per-game CSV files."""


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def summarise(records: Sequence[GameRecord], oracle: bool) -> dict[str, Any]:
    """One agent's results on a suite, as a ``results`` entry of the report.

    Keys: ``agent, games, wins, win_rate, ci95`` (Wilson 95%), ``mean_safe_fraction``, ``mean_steps``,
    ``invalid_moves`` (total), ``time_per_game_ms``, and with the oracle ``guesses_per_game``,
    ``avoidable_losses`` (count), ``avoidable_loss_rate`` (per game), ``mean_excess_risk`` (per guess,
    0 when there was no guess); those four are None without it.
    """
    if not records:
        raise ValueError("cannot summarise an agent with no games")
    agents = {record.agent for record in records}
    if len(agents) != 1:
        raise ValueError(f"records of one agent expected, got {sorted(agents)}")
    games = len(records)
    wins = sum(record.won for record in records)
    low, high = wilson_interval(wins, games)
    summary: dict[str, Any] = {
        "agent": records[0].agent,
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "ci95": [low, high],
        "mean_safe_fraction": _mean([record.safe_fraction for record in records]),
        "mean_steps": _mean([record.steps for record in records]),
        "invalid_moves": sum(record.invalid_moves for record in records),
        "time_per_game_ms": 1000.0 * _mean([record.time_s for record in records]),
        "oracle": oracle,
        "guesses_per_game": None,
        "avoidable_losses": None,
        "avoidable_loss_rate": None,
        "mean_excess_risk": None,
    }
    if oracle:
        guesses = sum(record.guesses or 0 for record in records)
        avoidable = sum(bool(record.avoidable_loss) for record in records)
        summary["guesses_per_game"] = guesses / games
        summary["avoidable_losses"] = avoidable
        summary["avoidable_loss_rate"] = avoidable / games
        summary["mean_excess_risk"] = sum(record.excess_risk or 0.0 for record in records) / guesses if guesses else 0.0
    return summary


def paired_comparison(
    first: Sequence[GameRecord], second: Sequence[GameRecord], layout_follows_first_click: bool = True
) -> dict[str, Any]:
    """Two agents on the same games: how many both won, only one won, neither won; McNemar's test; and
    ``same_boards``, on how many games both played the same layout.

    Where the layout follows the first click (``layout_follows_first_click``: the ``opening`` and ``safe``
    rules, no-guess boards), that is the games both opened on the same cell (None where a record lacks its
    first action); otherwise every game. The test stays a valid test of equal win rates either way (each
    agent's wins estimate its own rate on the suite), but games on different boards pair less tightly.

    Raises:
        ValueError: the two lists are not the same games in the same order.
    """
    if [record.game for record in first] != [record.game for record in second]:
        raise ValueError("a paired comparison needs both agents' records of the same games, in the same order")
    if not first:
        raise ValueError("cannot compare agents on no games")
    both = sum(a.won and b.won for a, b in zip(first, second, strict=True))
    only_first = sum(a.won and not b.won for a, b in zip(first, second, strict=True))
    only_second = sum(b.won and not a.won for a, b in zip(first, second, strict=True))
    test = mcnemar(only_first, only_second)
    return {
        "agents": [first[0].agent, second[0].agent],
        "games": len(first),
        "both_won": both,
        "only_first": only_first,
        "only_second": only_second,
        "neither": len(first) - both - only_first - only_second,
        "mcnemar_statistic": test.statistic,
        "p_value_exact": test.p_value_exact,
        "p_value_chi2": test.p_value_chi2,
        "same_boards": same_boards(first, second) if layout_follows_first_click else len(first),
    }


def same_boards(first: Sequence[GameRecord], second: Sequence[GameRecord]) -> int | None:
    """How many games both agents opened on the same cell (None if a record lacks its first action)."""
    if any(record.first_action is None for record in (*first, *second)):
        return None
    return sum(a.first_action == b.first_action for a, b in zip(first, second, strict=True))

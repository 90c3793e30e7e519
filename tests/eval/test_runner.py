"""evaluate(): any agent on the same boards, clear errors, oracle metrics and paired counts in the report."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.base import Agent
from agents.probability import mine_probabilities
from eval.runner import EvalReport, evaluate
from eval.suites import Suite

SMALL = Suite("small", 6, 6, 5, "opening", games=12, base_seed=3)
"""A suite small enough for the tests: 6x6 boards with 5 mines, 12 games."""


def first_valid(obs: np.ndarray, info: dict[str, Any]) -> int:
    """A user's plain policy: the first cell that can be revealed, whatever the risk."""
    return int(np.flatnonzero(info["action_mask"])[0])


def safest(obs: np.ndarray, info: dict[str, Any]) -> int:
    """A policy that always takes the lowest exact mine probability among the cells it can reveal."""
    probabilities = mine_probabilities(obs, info["mines"]).ravel()
    return int(np.where(info["action_mask"].astype(bool), probabilities, np.inf).argmin())


def riskiest(obs: np.ndarray, info: dict[str, Any]) -> int:
    """A policy that always takes the highest mine probability among the cells it can reveal."""
    probabilities = mine_probabilities(obs, info["mines"]).ravel()
    return int(np.where(info["action_mask"].astype(bool), probabilities, -np.inf).argmax())


def test_all_agents_play_the_same_boards() -> None:
    # Two copies of one deterministic policy open the same first cell, so they must play identical games.
    report = evaluate([first_valid, first_valid], SMALL, workers=1, progress=False)
    assert report.agents == ("first_valid", "first_valid#2")
    first, second = (report.records_of(agent) for agent in report.agents)
    assert [r.outcome()[1:] for r in first] == [r.outcome()[1:] for r in second]


def test_a_plain_function_and_an_agent_object_can_be_evaluated() -> None:
    class FirstValid(Agent):
        name = "first-valid-agent"

        def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
            return first_valid(obs, info)

    report = evaluate([first_valid, FirstValid()], SMALL, workers=1, progress=False)
    results = report.to_dict()["results"]
    assert [result["agent"] for result in results] == ["first_valid", "first-valid-agent"]
    assert all(result["games"] == SMALL.games and result["invalid_moves"] == 0 for result in results)


def test_a_function_that_cannot_reach_worker_processes_gets_a_clear_error() -> None:
    with pytest.raises(ValueError, match="cannot be sent to worker processes"):
        evaluate([lambda obs, info: first_valid(obs, info)], SMALL, workers=2, progress=False)


@pytest.mark.parametrize(
    ("policy", "match"),
    [(lambda obs, info: 1.5, "must be an integer"), (lambda obs, info: 36, r"outside 0\.\.35")],
)
def test_an_agent_returning_a_bad_action_gets_a_clear_error(policy: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        evaluate([policy], SMALL, workers=1, progress=False)


def test_unknown_agent_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown agent 'minimax'"):
        evaluate(["minimax"], SMALL, workers=1, progress=False)
    with pytest.raises(ValueError, match="at least one"):
        evaluate([], SMALL, workers=1, progress=False)


@pytest.mark.statistical
def test_oracle_metrics_follow_their_definitions() -> None:
    suite = Suite("oracle", 8, 8, 12, "safe", games=15, base_seed=11)
    report = evaluate([safest, riskiest, first_valid], suite, workers=1, progress=False).to_dict()
    best, worst, naive = report["results"]
    # Always taking the lowest probability: no excess risk, never a loss while a safe cell was left.
    assert best["mean_excess_risk"] == 0.0 and best["avoidable_losses"] == 0
    # Always taking the highest: excess risk on its guesses, and losses while safe cells were left.
    assert worst["mean_excess_risk"] > 0.1 and 0 < worst["avoidable_losses"] <= suite.games - worst["wins"]
    assert naive["guesses_per_game"] > 0 and naive["avoidable_losses"] > 0
    for result in report["results"]:
        assert 0 <= result["avoidable_loss_rate"] <= 1 - result["win_rate"]


def test_without_the_oracle_its_metrics_are_none() -> None:
    report = evaluate([first_valid], SMALL, workers=1, oracle=False, progress=False)
    assert all(record.guesses is None and record.avoidable_loss is None for record in report.records)
    result = report.to_dict()["results"][0]
    assert result["guesses_per_game"] is None and result["mean_excess_risk"] is None and not result["oracle"]


def test_paired_counts_add_up() -> None:
    report = evaluate(["solver", "random"], SMALL, workers=1, progress=False).to_dict()
    solver, random_ = report["results"]
    (pair,) = report["paired"]
    assert pair["agents"] == ["solver", "random"]
    assert pair["both_won"] + pair["only_first"] == solver["wins"]
    assert pair["both_won"] + pair["only_second"] == random_["wins"]
    assert pair["both_won"] + pair["only_first"] + pair["only_second"] + pair["neither"] == SMALL.games
    assert 0.0 <= pair["p_value_exact"] <= 1.0


def test_the_report_counts_the_games_played_on_the_same_board() -> None:
    # The solver opens on (2, 2), random play anywhere: under the opening rule the boards match only where the
    # first cells do; with no first-click rule the layout is fixed before the click.
    report = evaluate(["solver", "random"], SMALL, workers=1, progress=False)
    solver, random_ = (report.records_of(agent) for agent in report.agents)
    (pair,) = report.to_dict()["paired"]
    assert pair["same_boards"] == sum(a.first_action == b.first_action for a, b in zip(solver, random_, strict=True))
    assert pair["same_boards"] < SMALL.games
    fixed = Suite("fixed", 6, 6, 5, "none", games=12, base_seed=3)
    (pair,) = evaluate(["solver", "random"], fixed, workers=1, progress=False).to_dict()["paired"]
    assert pair["same_boards"] == fixed.games


@pytest.mark.parametrize("oracle", [True, False])  # the solver through the env, and (when it opens there) compiled
@pytest.mark.parametrize("cell", [(2, 2), (0, 5)])
def test_a_suite_that_plays_the_first_cell_pairs_every_game_on_the_same_board(oracle: bool, cell: tuple) -> None:
    suite = SMALL.with_first_cell(cell)
    report = evaluate(["solver", "random"], suite, workers=1, progress=False, oracle=oracle)
    (pair,) = report.to_dict()["paired"]
    assert pair["same_boards"] == SMALL.games
    assert {record.first_action for record in report.records} == {cell[0] * SMALL.cols + cell[1]}
    assert report.to_dict()["results"][0]["wins"] > 0


def test_a_report_names_its_agents_and_refuses_others() -> None:
    report: EvalReport = evaluate(["random"], SMALL, workers=1, progress=False)
    assert [record.game for record in report.records_of("random")] == list(range(SMALL.games))
    with pytest.raises(ValueError, match="no agent 'solver' in this report"):
        report.records_of("solver")

"""What the evaluation accepts as an agent: names, objects, functions, specs; unique labels; clear refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from eval.agent_specs import AgentSpec, PolicyAgent, resolve_agent, resolve_agents
from mine_env.engine.spec import BoardSpec

SPEC = BoardSpec(6, 6, 5, "opening")


def first_valid(obs: np.ndarray, info: dict[str, Any]) -> int:
    """A user's plain policy: the first cell that can be revealed."""
    return int(np.flatnonzero(info["action_mask"])[0])


def test_a_name_is_a_baseline_rebuilt_from_each_games_seed() -> None:
    spec = resolve_agent("random", SPEC)
    assert spec.label == "random" and spec.seeded
    first, again = spec.build(7), spec.build(7)
    assert isinstance(first, RandomAgent) and first is not again


def test_objects_and_functions_are_one_agent_reset_between_games() -> None:
    agent = RandomAgent(seed=0)
    for item, label in ((agent, "random"), (first_valid, "first_valid")):
        spec = resolve_agent(item, SPEC)
        assert spec.label == label and not spec.seeded
        assert spec.build(None) is spec.build(1)
    assert resolve_agent(agent, SPEC).build(None) is agent
    assert isinstance(resolve_agent(first_valid, SPEC).build(None), PolicyAgent)


def test_repeated_labels_are_numbered_and_a_spec_is_kept() -> None:
    own = AgentSpec("mine", RandomAgent)
    specs = resolve_agents([first_valid, first_valid, own, "random", "random"], SPEC)
    assert [spec.label for spec in specs] == ["first_valid", "first_valid#2", "mine", "random", "random#2"]
    assert specs[2] == own
    assert [spec.label for spec in resolve_agents("solver", SPEC)] == ["solver"]


@pytest.mark.parametrize(
    ("agents", "match"),
    [
        (["minimax"], "unknown agent 'minimax'"),
        ([], "at least one"),
        ([42], "cannot evaluate 42"),
    ],
)
def test_what_is_not_an_agent_is_refused(agents: list[Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        resolve_agents(agents, SPEC)


def test_a_missing_model_is_refused_before_any_game(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        resolve_agents([tmp_path / "missing.zip"], SPEC)


def test_a_policy_must_be_callable() -> None:
    with pytest.raises(ValueError, match="must be callable"):
        PolicyAgent(3)  # type: ignore[arg-type]


@pytest.mark.train
def test_eval_plays_a_model_under_the_safe_cell_mask(capsys: pytest.CaptureFixture[str]) -> None:
    """--safe-mask plays the model's guesses only: on the same boards it never loses a game it could have kept
    by a certain cell, and it says so in its label."""
    pytest.importorskip("sb3_contrib")
    from minesweeper_cli.main import main

    code = main(["eval", "--model", "distill-beginner", "--safe-mask", "--preset", "beginner", "--games", "30",
                 "--workers", "1", "--no-progress"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("| distill-beginner +safe-mask |"))
    assert row.split("|")[7].strip() == "0"  # avoidable losses
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--agent", "random", "--safe-mask", "--preset", "beginner", "--games", "1"])
    assert exit_info.value.code == 2
    assert "--safe-mask applies to --model" in capsys.readouterr().err

"""The verifiers 0.4 adapter end to end: verifiers' own rollout machinery (its chat harness, its interception
server, and for tool calls its MCP tool server) asks a model on an OpenAI-compatible endpoint (the reference
server, whose model is a baseline) and plays the text env through the adapter; and the games a user asks for,
seeds up to 2**64 - 1 included. Skipped, with the reason, without the ``llm`` extra."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from eval.suites import adhoc_suite
from mine_env.engine.spec import BoardSpec
from mine_llm.reference_server import ReferenceServer, running_server
from support import command_env

pytest.importorskip("verifiers.v1", reason="verifiers 0.4 is not installed: pip install -e '.[llm]'")
from mine_llm.verifiers_env import load_environment, play_games

KEY = "MINESWEEPER_TEST_KEY"


@pytest.fixture(scope="module")
def model() -> Iterator[ReferenceServer]:
    with running_server() as server:
        yield server


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY, "unused")
    monkeypatch.setenv("PYTHONPATH", command_env()["PYTHONPATH"])  # the tool server imports this checkout


@pytest.mark.slow
def test_text_replies_are_played_and_graded_by_the_oracle(model: ReferenceServer) -> None:
    env = load_environment(rows=5, cols=5, mines=3, games=2, seed=1, weights={"env_return": 0.25})
    solver = play_games(env, model.url, "solver", api_key_var=KEY)
    random = play_games(env, model.url, "random", api_key_var=KEY, games=1)
    for trace in solver:
        scores = {name: reward.score for name, reward in trace.rewards.items()}
        assert scores["win"] == 1.0 and scores["logic_score"] == 1.0 and scores["wrong_flags"] == 0.0
        assert trace.reward == pytest.approx(1.0 + 0.5 + 0.25)
        assert "Status: won" not in trace.task.data.prompt_text  # the opening board, not the last one
    for trace in random:
        scores = {name: reward.score for name, reward in trace.rewards.items()}
        assert scores["win"] == 0.0 and scores["env_return"] == -1.0 and scores["avoidable_risk_per_move"] > 0
        assert trace.reward == pytest.approx(0.5 * scores["logic_score"] - 0.25)
    assert solver[0].task.data.info["seed"] == random[0].task.data.info["seed"] != solver[1].task.data.info["seed"]


@pytest.mark.slow
def test_make_move_tool_calls_are_played_and_graded(model: ReferenceServer) -> None:
    env = load_environment(rows=5, cols=5, mines=3, games=1, seed=1, tools=True)
    (trace,) = play_games(env, model.url, "solver", api_key_var=KEY)
    calls = [call for node in trace.nodes for call in getattr(node.message, "tool_calls", None) or []]
    assert calls and {call.name for call in calls} == {"make_move"}
    assert trace.rewards["win"].score == 1.0 and trace.rewards["logic_score"].score == 1.0
    assert trace.stop_condition == "game_over"


@pytest.mark.slow
def test_the_documented_arguments_play(model: ReferenceServer) -> None:
    env = load_environment(preset="beginner", games=200, seed=0)
    tasks = list(env.taskset)
    seeds = [int(task.data.info["seed"]) for task in tasks]
    assert len(tasks) == 200 and sum(seed >= 2**63 for seed in seeds) > 0  # the seeds pyarrow could not hold
    (trace,) = play_games(env, model.url, "solver", api_key_var=KEY, games=1)
    assert trace.rewards["logic_score"].score == 1.0


@pytest.mark.parametrize("seed", [0, 1, 2**31, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1])
@pytest.mark.parametrize(
    "board",
    [{"preset": "beginner"}, {"preset": "intermediate"}, {"preset": "expert"}, {"rows": 5, "cols": 5, "mines": 3},
     {"rows": 3, "cols": 40, "mines": 20, "first_click": "safe"}, {"rows": 30, "cols": 30, "mines": 150}],
)  # fmt: skip
def test_every_seed_and_board_a_user_passes_gives_its_games(seed: int, board: dict) -> None:
    env = load_environment(games=3, seed=seed, **board)
    preset = None if "rows" in board else board["preset"]
    spec = BoardSpec.from_options(preset, board.get("rows"), board.get("cols"), board.get("mines"),
                                  board.get("first_click", "opening"))  # fmt: skip
    suite = adhoc_suite(spec, 3, seed)
    tasks = list(env.taskset)
    assert [int(task.data.info["seed"]) for task in tasks] == [suite.game_seeds(game).env for game in range(3)]
    assert f"Minesweeper {spec.rows}x{spec.cols}, {spec.mines} mines" in tasks[0].data.prompt_text


def test_a_game_the_endpoint_refuses_fails_the_run_in_one_line(model: ReferenceServer) -> None:
    env = load_environment(rows=5, cols=5, mines=3, games=1)
    failure = r"^1 of 1 games failed, the first: ProviderError: upstream 404: .*unknown model"
    with pytest.raises(RuntimeError, match=failure):
        play_games(env, model.url, "no-such-model", api_key_var=KEY)


def test_bad_arguments_fail_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^weights: unknown reward\(s\) speed; expected win, "):
        load_environment(games=1, weights={"speed": 1.0})
    with pytest.raises(ValueError, match=r"^seed: Input should be less than or equal to 18446744073709551615$"):
        load_environment(games=1, seed=2**64)
    with pytest.raises(ValueError, match=r"^games: Input should be greater than or equal to 1$"):
        load_environment(games=0)
    with pytest.raises(ValueError, match="unknown reward scheme"):
        load_environment(games=1, env_kwargs={"reward": "shaped"})

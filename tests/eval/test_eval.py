"""The evaluation suite: seeds, the runner (any agent, any worker count), oracle metrics, reports, models, CLI."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.base import Agent
from agents.probability import mine_probabilities
from eval.metrics import RECORD_FIELDS
from eval.models import load_model_agent
from eval.runner import EvalReport, evaluate
from eval.suites import SUITES, Suite, derive_game_seeds, get_suite, list_suites
from mine_env.engine.spec import BoardSpec
from minesweeper_cli.main import main

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


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``minesweeper`` with argv; returns (exit status, stdout, stderr)."""
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ------------------------------------------------------------------------------------------------ suites
def test_game_seeds_depend_only_on_base_seed_and_index() -> None:
    seeds = [SMALL.game_seeds(i) for i in range(SMALL.games)]
    assert seeds == [derive_game_seeds(3, i) for i in range(SMALL.games)]
    assert len({seed.env for seed in seeds}) == SMALL.games
    assert all(seed.env != seed.agent for seed in seeds)
    # A smaller suite of the same family is a prefix of the larger one.
    assert get_suite("beginner-opening-1k").game_seeds(999) == get_suite("beginner-opening-10k").game_seeds(999)


def test_named_suites_are_listed_versioned_and_found_by_name() -> None:
    names = [suite.name for suite in list_suites()]
    assert "beginner-opening-10k" in names and "expert-safe-1k" in names
    suite = get_suite("intermediate-safe-10k@v1")
    assert (suite.rows, suite.cols, suite.mines, suite.first_click, suite.games) == (16, 16, 40, "safe", 10_000)
    assert suite.version == "v1" and suite is SUITES["intermediate-safe-10k"]


@pytest.mark.parametrize(
    ("name", "match"), [("beginner-opening-2k", "unknown suite"), ("expert-safe-1k@v9", "no version")]
)
def test_unknown_suite_is_refused(name: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        get_suite(name)


@pytest.mark.parametrize(("games", "seed", "match"), [(0, 0, "at least 1 game"), (5, -1, "non-negative")])
def test_bad_suite_is_refused(games: int, seed: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Suite("bad", 9, 9, 10, "opening", games, seed)


# ------------------------------------------------------------------------------------------------ runner
def test_results_do_not_depend_on_the_number_of_workers() -> None:
    one = evaluate(["random", "rules", "solver"], SMALL, workers=1, progress=False)
    two = evaluate(["random", "rules", "solver"], SMALL, workers=2, progress=False)
    assert [record.outcome() for record in one.records] == [record.outcome() for record in two.records]
    assert [(record.agent, record.game) for record in one.records] == [
        (agent, game) for agent in ("random", "rules", "solver") for game in range(SMALL.games)
    ]


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


# ------------------------------------------------------------------------------------------------ metrics
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


# ------------------------------------------------------------------------------------------------ command line
def test_cli_writes_the_contract_json_csv_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = {kind: tmp_path / f"out.{kind}" for kind in ("json", "csv", "png")}
    argv = ["eval", "--agent", "solver", "--agent", "rules", "--agent", "random", "--rows", "5", "--cols", "5",
            "--mines", "3", "--first-click", "opening", "--games", "6", "--seed", "0", "--workers", "1",
            "--no-progress", "--json", str(paths["json"]), "--csv", str(paths["csv"]),
            "--plot", str(paths["png"])]  # fmt: skip
    status, out, _ = run_cli(argv, capsys)
    assert status == 0
    assert "| solver | 6 |" in out and "solver vs rules" in out
    report = json.loads(paths["json"].read_text())
    assert set(report) == {"suite", "results", "paired"}
    assert report["suite"]["rows"] == 5 and report["suite"]["games"] == 6 and report["suite"]["base_seed"] == 0
    assert [result["agent"] for result in report["results"]] == ["solver", "rules", "random"]
    for result in report["results"]:
        assert {"agent", "games", "wins", "win_rate", "ci95"} <= set(result)
        low, high = result["ci95"]
        assert result["games"] == 6 and low <= result["win_rate"] == result["wins"] / 6 <= high
    pairs = [pair["agents"] for pair in report["paired"]]
    assert pairs == [["solver", "rules"], ["solver", "random"], ["rules", "random"]]
    with open(paths["csv"], newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 18 and list(rows[0]) == ["suite", *RECORD_FIELDS]
    assert paths["png"].read_bytes().startswith(b"\x89PNG")


def test_cli_lists_suites(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(["eval", "--list-suites"], capsys)
    assert status == 0 and "| beginner-opening-10k | v1 | 9x9 | 10 | opening | 10000 |" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--agent", "minimax"], "invalid choice: 'minimax'"),
        (["--agent", "random", "--suite", "nowhere-1k"], "unknown suite 'nowhere-1k'"),
        (["--agent", "random", "--games", "0"], "--games must be at least 1"),
        (["--agent", "random", "--suite", "beginner-safe-1k", "--games", "5"], "drop --games"),
        (["--agent", "random", "--mines", "99"], "99 mines do not fit"),
        (["--model", "no/such/model.zip"], "model file no/such/model.zip does not exist"),
        ([], "at least one --agent"),
    ],
)
def test_cli_bad_input_gives_a_clear_error(extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["eval", "--workers", "1", "--no-progress", *extra], capsys)
    assert status == 2 and message in err and "Traceback" not in err


# ------------------------------------------------------------------------------------------------ models
def save_tiny_model(folder: Path, name: str, algo: str, obs_mode: str, rows: int = 4, cols: int = 4) -> Path:
    """An untrained SB3 model of the given kind on a small board, saved with its JSON as train/ does."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import DQN, PPO

    from mine_env.env import MinesweeperEnv

    env_kwargs = dict(rows=rows, cols=cols, mines=2, first_click="opening", obs_mode=obs_mode, flags=False)
    env = MinesweeperEnv(**env_kwargs)
    if algo == "ppo":
        model = PPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=0)
    elif algo == "dqn":
        model = DQN("MlpPolicy", env, buffer_size=64, learning_starts=0, seed=0)
    else:
        model = MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=32, seed=0)
    path = folder / f"{name}.zip"
    model.save(path)
    model_class = f"{type(model).__module__}:{type(model).__name__}"
    metadata = {"algo": algo, "model_class": model_class, "env_kwargs": env_kwargs}
    path.with_suffix(".json").write_text(json.dumps(metadata))
    return path


@pytest.mark.parametrize(("algo", "obs_mode"), [("ppo", "grid"), ("dqn", "planes"), ("maskable_ppo", "dict")])
def test_a_saved_model_loads_and_plays_only_valid_moves(tmp_path: Path, algo: str, obs_mode: str) -> None:
    path = save_tiny_model(tmp_path, f"tiny-{algo}", algo, obs_mode)
    suite = Suite("tiny", 4, 4, 2, "opening", games=6, base_seed=0)
    report: EvalReport = evaluate([path], suite, workers=1, progress=False)
    (result,) = report.to_dict()["results"]
    assert result["agent"] == f"{tmp_path.name}/tiny-{algo}" and result["games"] == 6
    assert result["invalid_moves"] == 0  # the untrained network's invalid preferences are masked out


def test_a_model_for_another_board_is_refused(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny", "ppo", "grid")
    with pytest.raises(ValueError, match="trained on 4x4 boards and cannot play the suite's 9x9 board"):
        load_model_agent(path, BoardSpec(9, 9, 10))


def test_a_model_whose_zip_and_json_disagree_is_refused(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny", "ppo", "grid", rows=5, cols=5)
    metadata = json.loads(path.with_suffix(".json").read_text())
    metadata["env_kwargs"].update(rows=4, cols=4)
    path.with_suffix(".json").write_text(json.dumps(metadata))
    with pytest.raises(ValueError, match=r"acts in Discrete\(25\), not Discrete\(16\)"):
        load_model_agent(path, BoardSpec(4, 4, 2))


def test_a_model_without_its_json_or_file_is_refused(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny", "ppo", "grid")
    path.with_suffix(".json").unlink()
    with pytest.raises(FileNotFoundError, match="no metadata file"):
        load_model_agent(path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_model_agent(tmp_path / "missing.zip")


def test_a_corrupt_model_file_is_refused(tmp_path: Path) -> None:
    path = save_tiny_model(tmp_path, "tiny", "ppo", "grid")
    path.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot load model"):
        load_model_agent(path)

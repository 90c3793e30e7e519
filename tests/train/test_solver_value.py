"""Returns over the default solver's own shortlist, the head learnt from them and the solver-value agent."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import mine_env  # noqa: F401  (registers the env ids)
from agents.guess_value import FEATURES, ValueHead
from agents.solver import SolverAgent
from agents.solver.agent import initial_state
from agents.solver.guess import PRESETS, choose_guess, guess_candidates, strong_shortlist
from agents.solver_value import SHORTLIST_FEATURES, SOLVER_SCALARS, SolverValueAgent, solver_scalars
from eval.agent_specs import AgentSpec
from mine_env.analysis.deduction import certain_moves
from mine_env.engine.spec import BoardSpec
from train.distill.guess.returns import NO_CANDIDATE, GuessReturns, load_returns, rollout_guesses, rollout_shortlist
from train.distill.guess.value import GuessValueConfig, held_out_picks, main, run, safe_candidates

DENSE = BoardSpec(9, 9, 16, "opening")
"""A small board dense enough that the solver often weighs several candidates."""
STRONG = PRESETS["strong"]


@pytest.fixture(scope="module")
def shortlist() -> object:
    return rollout_shortlist(DENSE, 200, seed=3)


def test_the_rollouts_are_the_solvers_shortlist_with_its_pick_and_what_it_saw(shortlist: object) -> None:
    positions = shortlist
    assert len(positions.grids) > 20
    again = rollout_shortlist(DENSE, 200, seed=3)
    for name, array in positions._asdict().items():
        np.testing.assert_array_equal(array, getattr(again, name), err_msg=name)
    assert positions.scalars.shape == (*positions.candidates.shape, SOLVER_SCALARS)
    compared = 0
    for p, grid in enumerate(positions.grids):
        flat = grid.ravel()
        cells, consistent, probability, log_layouts = certain_moves(flat, DENSE.rows, DENSE.cols, DENSE.mines)
        assert consistent and cells.size == 0  # a true guess
        listed = positions.candidates[p][positions.candidates[p] != NO_CANDIDATE].astype(np.int64)
        assert len(listed) >= 2
        # strong's own shortlist for some draw of its tie-breaks: the cells it would weigh, safest first
        state = np.uint64(initial_state(p))
        decided, weighed, scores, keep, _ = strong_shortlist(flat, DENSE.rows, DENSE.cols, DENSE.mines, probability,
                                                             log_layouts, STRONG, state)  # fmt: skip
        assert decided == -1 and len(listed) <= STRONG.max_candidates
        assert probability[listed].max() <= probability[weighed].max() + 1e-12
        assert np.all(np.diff(probability[listed]) >= -1e-12)
        pad = len(listed)
        assert not positions.scalars[p, pad:].any() and not positions.returns[p, pad:].any()
        np.testing.assert_allclose(1.0 - positions.safety[p, :pad], probability[listed], atol=1e-6)
        assert positions.fast[p] < pad
        lost_at_once = ~positions.safe[p, :pad]
        assert not positions.returns[p, :pad][lost_at_once].any()  # a mine candidate's game is lost
        if sorted(weighed) == sorted(listed):  # the same shortlist: what the solver saw in each cell, unchanged
            compared += 1
            seen = solver_scalars(scores, keep)[np.argsort(weighed)]
            np.testing.assert_allclose(positions.scalars[p, :pad][np.argsort(listed)], seen, atol=1e-6)
    assert compared > 10

def test_the_shortlist_is_the_one_choose_guess_weighs() -> None:
    rng = np.random.default_rng(5)
    agent = SolverAgent(seed=1)
    env = gym.make("Minesweeper-v0", rows=DENSE.rows, cols=DENSE.cols, mines=DENSE.mines, first_click="opening")
    weighed = 0
    for game in range(40):
        obs, info = env.reset(seed=game)
        agent.reset()
        done = False
        while not done:
            flat = np.ascontiguousarray(obs, dtype=np.int8).ravel()
            cells, consistent, probability, log_layouts = certain_moves(flat, DENSE.rows, DENSE.cols, DENSE.mines)
            if (flat != -1).any() and consistent and cells.size == 0:
                state = np.uint64(rng.integers(2**62))
                decided, candidates, scores, keep, after = strong_shortlist(
                    flat, DENSE.rows, DENSE.cols, DENSE.mines, probability, log_layouts, STRONG, state
                )
                cell, _ = choose_guess(flat, DENSE.rows, DENSE.cols, DENSE.mines, probability, log_layouts, STRONG,
                                       state)  # fmt: skip
                if decided >= 0:
                    assert cell == decided
                else:
                    weighed += 1
                    _, drawn = guess_candidates(flat, DENSE.rows, DENSE.cols, probability, STRONG, state)
                    assert drawn == after and cell in candidates and keep.any() and scores.shape == (3, len(candidates))
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            done = terminated or truncated
    assert weighed > 5


def test_a_constant_head_plays_the_safest_candidate_and_a_wrong_head_is_refused(tmp_path: Path) -> None:
    zeros = [np.zeros((SHORTLIST_FEATURES, 1), np.float32)], [np.zeros(1, np.float32)]
    flat_head = ValueHead(*zeros, SHORTLIST_FEATURES)
    flat_head.save(tmp_path / "flat.npz")
    agent = SolverValueAgent(seed=0, head=tmp_path / "flat.npz")
    positions = rollout_shortlist(DENSE, 60, seed=9)
    assert len(positions.grids)
    for grid in positions.grids:
        flat = grid.ravel()
        _, _, probability, log_layouts = certain_moves(flat, DENSE.rows, DENSE.cols, DENSE.mines)
        cell = agent.guess(flat, DENSE.rows, DENSE.cols, DENSE.mines, probability, log_layouts)
        _, candidates, _, _, _ = strong_shortlist(flat, DENSE.rows, DENSE.cols, DENSE.mines, probability, log_layouts,
                                                  STRONG, np.uint64(0))  # fmt: skip
        assert probability[cell] == pytest.approx(probability[candidates].min())
    ValueHead([np.zeros((FEATURES, 1), np.float32)], [np.zeros(1, np.float32)]).save(tmp_path / "ties.npz")
    with pytest.raises(ValueError, match=f"takes {FEATURES} features a candidate, not the {SHORTLIST_FEATURES}"):
        SolverValueAgent(head=tmp_path / "ties.npz")
    with pytest.raises(ValueError, match="no solver-value head is shipped"):
        SolverValueAgent()


def test_old_chunks_load_without_scalars_and_ties_carry_none(tmp_path: Path) -> None:
    ties = rollout_guesses(DENSE, 50, seed=1, margin=1e-9)
    assert ties.scalars.shape == (*ties.candidates.shape, 0)
    saved = {name: array for name, array in ties._asdict().items() if name != "scalars"}
    np.savez(tmp_path / "old.npz", **saved)
    loaded = load_returns(tmp_path / "old.npz")
    assert loaded.scalars.shape == ties.scalars.shape and safe_candidates([loaded]).scalars.shape[1] == 0


def test_a_small_solver_run_trains_a_head_the_agent_plays(tmp_path: Path, shortlist: object) -> None:
    rows = safe_candidates([shortlist])
    assert rows.scalars.shape == (len(rows.won), SOLVER_SCALARS) and rows.scalars[:, 3].all() <= 1
    options = ["--player", "solver", "--rows", "9", "--cols", "9", "--mines", "16", "--games", "400",
               "--chunk-games", "200", "--workers", "1", "--epochs", "1", "--hidden", "8", "--runs-dir", str(tmp_path),
               "--run-name", "small"]  # fmt: skip
    assert main(options) == 0
    agent = SolverValueAgent(seed=0, head=tmp_path / "small" / "head.npz")
    env = gym.make("Minesweeper-v0", rows=9, cols=9, mines=16, first_click="opening")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        done = terminated or truncated
    with pytest.raises(ValueError, match="other settings \\(player\\)"):
        run(GuessValueConfig(rows=9, cols=9, mines=16, games=400, chunk_games=200, runs_dir=str(tmp_path),
                             run_name="small", resume=True))  # fmt: skip
    with pytest.raises(ValueError, match="player is one of"):
        GuessValueConfig(player="oracle").validate()


def test_eval_plays_a_head_by_its_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from minesweeper_cli.main import main as cli

    ValueHead([np.zeros((SHORTLIST_FEATURES, 1), np.float32)], [np.zeros(1, np.float32)],
              SHORTLIST_FEATURES).save(tmp_path / "flat.npz")  # fmt: skip
    assert cli(["eval", "--preset", "beginner", "--games", "20", "--head", str(tmp_path / "flat.npz"), "--agent",
                "solver", "--workers", "1", "--no-oracle"]) == 0  # fmt: skip
    assert f"solver-value:{tmp_path.name}/flat" in capsys.readouterr().out  # its folder and stem
    (tmp_path / "junk.npz").write_bytes(b"not a head")
    with pytest.raises(ValueError, match="is not a value head"):
        AgentSpec.head(tmp_path / "junk.npz")
    np.savez(tmp_path / "odd.npz", weight_0=np.zeros((7, 1)), bias_0=np.zeros(1))
    with pytest.raises(ValueError, match="takes 7 inputs a candidate"):
        AgentSpec.head(tmp_path / "odd.npz")


def test_held_out_picks_judge_the_heads_pick_against_the_policys_on_their_returns() -> None:
    grids = np.full((3, 2, 2), -1, np.int8)
    candidates = np.array([[0, 1, NO_CANDIDATE], [2, 3, 1], [0, 3, NO_CANDIDATE]], np.int16)
    safety = np.array([[0.9, 0.8, 0], [0.7, 0.7, 0.6], [0.5, 0.4, 0]], np.float32)
    returns = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]], np.float32)
    policy = np.array([1, 0, 1], np.int16)  # the policy took the second, first and second candidates
    positions = GuessReturns(grids, candidates, safety, returns, policy, np.ones((3, 3), np.bool_),
                             np.zeros((3, 3, SOLVER_SCALARS), np.float32))  # fmt: skip
    head = ValueHead([np.zeros((SHORTLIST_FEATURES, 1), np.float32)], [np.zeros(1, np.float32)], SHORTLIST_FEATURES)
    report = held_out_picks([positions], 0.999, head, mines=1)
    # a constant head plays the safest candidate: the first of each row (the first of the tied pair in row 2)
    assert report["positions"] == 3 and report["picks_differ"] == pytest.approx(2 / 3)
    assert report["head_return"] == pytest.approx(2 / 3) and report["policy_return"] == pytest.approx(1.0)
    assert report["gain"] == pytest.approx(-1 / 3)

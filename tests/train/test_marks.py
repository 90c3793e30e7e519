"""``--mark-above``: PPO's rollouts, its evaluation and the players of its saved model keep marks the same way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

import torch as th
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import VecMonitor

from agents.marks import sure_logit
from agents.networks.player import load_model_agent
from mine_env.engine.constants import FLAG, HIDDEN
from mine_env.engine.spec import BoardSpec
from support import random_position
from train.played_games import play_games
from train.sb3 import maskable_ppo
from train.sb3.marks import MarkingVecEnv, marking_env, policy_scorer
from train.sb3.networks import cell_logits
from train.sb3.training import make_vec_env, start_or_resume, train
from train.sb3.vec_env import BatchVecEnv

pytestmark = pytest.mark.train

SPEC = BoardSpec.from_options(None, 6, 6, 7, "opening")
MARK_ABOVE = 0.7


def fixed_scorer(spec: BoardSpec, seed: int = 3):  # type: ignore[no-untyped-def]
    """Logits of a fixed random map of the grid, each cell's also reading the code of the cell opposite it (so a mark
    moves another cell's score): some cells read as sure mines, right or wrong."""
    weights = np.random.default_rng(seed).normal(size=spec.n_cells)

    def scores(grids: np.ndarray) -> np.ndarray:
        return weights + 0.6 * grids.reshape(len(grids), -1)[:, ::-1]

    return scores


def marked_env(boards: int, seed: int) -> MarkingVecEnv:
    env = MarkingVecEnv(BatchVecEnv(SPEC, boards), MARK_ABOVE)
    env.attach(fixed_scorer(SPEC))
    env.seed(seed)
    return env


def test_the_policy_sees_its_earlier_marks_as_flags_and_may_not_play_them() -> None:
    env = marked_env(4, seed=2)
    obs = env.reset()
    scores = fixed_scorer(SPEC)
    flags_seen = False
    for _ in range(40):
        flat = obs.reshape(len(obs), -1)
        hidden = (flat == HIDDEN) | (flat == FLAG)
        # the marks on its hidden cells: those shown, and those it scores as sure mines on this grid
        sure = scores(obs) < sure_logit(MARK_ABOVE)
        np.testing.assert_array_equal(env.marks & hidden, hidden & ((flat == FLAG) | sure))
        expected = hidden & ~env.marks
        stuck = ~expected.any(axis=1)
        expected[stuck] = hidden[stuck]
        masks = get_action_masks(VecMonitor(env))
        np.testing.assert_array_equal(masks, expected)
        flags_seen |= bool((flat == FLAG).any())
        marks = env.marks.copy()
        obs, _, dones, infos = env.step(np.where(masks, scores(obs), -np.inf).argmax(axis=1))
        flat = obs.reshape(len(obs), -1)
        hidden = (flat == HIDDEN) | (flat == FLAG)
        going_on = ~dones
        np.testing.assert_array_equal((flat == FLAG)[going_on], (marks & hidden)[going_on])
        assert not (flat[dones] == FLAG).any()  # a new game starts without marks
        for i in np.flatnonzero(dones):
            final = infos[i]["terminal_observation"].reshape(-1)
            np.testing.assert_array_equal(final == FLAG, marks[i] & (final == FLAG) | marks[i] & (final == HIDDEN))
    assert flags_seen


def test_a_board_whose_hidden_cells_are_all_marked_may_play_any_of_them() -> None:
    env = MarkingVecEnv(BatchVecEnv(SPEC, 3), MARK_ABOVE)
    env.attach(lambda grids: np.full((len(grids), SPEC.n_cells), -10.0))  # every cell a sure mine
    env.seed(5)
    obs = env.reset()
    np.testing.assert_array_equal(env.action_masks(), obs.reshape(3, -1) == HIDDEN)
    obs, _, _, _ = env.step(np.zeros(3, dtype=np.int64))
    assert (obs == FLAG).any() and env.action_masks().any(axis=1).all()


def test_greedy_rollouts_with_marks_are_the_evaluation_s_games() -> None:
    boards, seed = 12, 40
    env = marked_env(boards, seed)
    obs = env.reset()
    scores = fixed_scorer(SPEC)
    won = np.full(boards, -1)
    safe = np.zeros(boards)
    while (won < 0).any():
        masks = env.action_masks()
        obs, _, dones, infos = env.step(np.where(masks, scores(obs), -np.inf).argmax(axis=1))
        for i in np.flatnonzero(dones & (won < 0)):
            won[i] = infos[i]["is_success"]
            safe[i] = (infos[i]["terminal_observation"] > HIDDEN).sum()
    played = play_games(scores, SPEC, boards, seed, mark_above=MARK_ABOVE)
    assert played.win_rate == won.mean()
    assert played.safe_fraction == pytest.approx(safe.mean() / (SPEC.n_cells - SPEC.mines))
    assert played != play_games(scores, SPEC, boards, seed)  # the marks changed the games


def test_the_evaluation_counts_the_games_with_a_mark_on_a_safe_cell() -> None:
    def everything_a_mine(grids: np.ndarray) -> np.ndarray:
        return np.full(grids.reshape(len(grids), -1).shape, -50.0)

    def nothing_a_mine(grids: np.ndarray) -> np.ndarray:
        return np.full(grids.reshape(len(grids), -1).shape, 50.0)

    assert play_games(everything_a_mine, SPEC, 8, 0, mark_above=MARK_ABOVE).wrong_mark_games == 1.0
    assert play_games(nothing_a_mine, SPEC, 8, 0, mark_above=MARK_ABOVE).wrong_mark_games == 0.0
    assert play_games(nothing_a_mine, SPEC, 8, 0).wrong_mark_games is None  # no marks played

    def the_last_cell_a_mine(grids: np.ndarray) -> np.ndarray:  # a safe cell in some games, a mine in others
        scores = nothing_a_mine(grids)
        scores[:, -1] = -50.0
        return scores

    some = play_games(the_last_cell_a_mine, SPEC, 40, 0, mark_above=MARK_ABOVE).wrong_mark_games
    assert some is not None and 0.5 < some < 1.0
    # a board whose game has ended plays on in the batch: the marks of its next game are not its own
    scorer = the_last_cell_a_mine
    alone = [play_games(scorer, SPEC, 1, seed, mark_above=MARK_ABOVE).wrong_mark_games for seed in range(40)]
    assert some == pytest.approx(np.mean(alone))


def test_a_run_with_marks_saves_models_that_play_with_them(tmp_path: Path) -> None:
    options = {"rows": 5, "cols": 5, "mines": 4, "num_envs": 4, "channels": 8, "layers": 2, "value_hidden": 8,
               "n_steps": 16, "batch_size": 32, "steps": 128, "eval_games": 10, "eval_every": 64,
               "checkpoint_every": 0, "progress_bar": False, "mine_coef": 0.5, "mark_above": 0.51,
               "runs_dir": str(tmp_path), "run_name": "marks"}  # fmt: skip
    config = maskable_ppo.MaskablePPOConfig(**options)
    assert marking_env(make_vec_env(config)) is not None
    run_dir = train(maskable_ppo.ALGORITHM, config)
    agent = load_model_agent(str(run_dir / "final_model.pt"))
    assert agent.mark_above == 0.51
    # the rollouts mark by the very scores the saved model plays by (raw logits, not normalised log-probabilities)
    policy = maskable_ppo.ALGORITHM.model_class.load(run_dir / "final_model.zip", device="cpu").policy
    grids = np.stack([random_position(np.random.default_rng(seed), 5, 5, 4)[1] for seed in range(8)])
    np.testing.assert_allclose(policy_scorer(policy)(grids), agent.batch_scores(grids), rtol=1e-5, atol=1e-5)


def test_a_run_with_marks_from_a_model_without_them_reads_a_mark_as_a_hidden_cell(tmp_path: Path) -> None:
    """Started from a model that never saw a flag, the marked run's policy scores a marked board as the source scores
    it unmarked (the flag plane takes the hidden plane's weights); from a model that played with marks, its flag
    weights are kept."""
    options = {"rows": 5, "cols": 5, "mines": 4, "num_envs": 4, "channels": 8, "layers": 2, "value_hidden": 8,
               "n_steps": 16, "batch_size": 32, "steps": 64, "eval_games": 0, "checkpoint_every": 0,
               "progress_bar": False, "mine_coef": 0.5, "runs_dir": str(tmp_path)}  # fmt: skip
    grids = np.stack([random_position(np.random.default_rng(seed), 5, 5, 4)[1] for seed in range(8)])
    flagged = np.where(grids == HIDDEN, np.int8(FLAG), grids)
    flagged[:, 0, 0] = grids[:, 0, 0]  # a cell of each board stays as it was
    for source_marks in (0.0, 0.51):
        source = train(maskable_ppo.ALGORITHM, maskable_ppo.MaskablePPOConfig(
            **options, mark_above=source_marks, run_name=f"source-{source_marks}"))  # fmt: skip
        init = str(source / "final_model.zip")
        config = maskable_ppo.MaskablePPOConfig(**options, mark_above=0.6, init=init, run_name=f"from-{source_marks}")
        model, _ = start_or_resume(maskable_ppo.ALGORITHM, config, make_vec_env(config), None)
        original = maskable_ppo.ALGORITHM.model_class.load(init, device="cpu").policy
        if source_marks:
            th.testing.assert_close(cell_logits(model.policy, flagged), cell_logits(original, flagged))
        else:
            th.testing.assert_close(cell_logits(model.policy, flagged), cell_logits(original, grids))


def test_a_mark_threshold_that_is_no_mine_chance_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"--mark-above is a mine chance between 0\.5 and 1"):
        maskable_ppo.MaskablePPOConfig(preset="beginner", mark_above=1.5).validate()

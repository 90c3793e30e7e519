"""The guess-value agent: its features against a plain reading of the board, its numpy head against plain
arithmetic, its compiled head against the numpy one, and its moves: certainly safe cells first, guesses among the
tied safest cells only, whole games through the env and in compiled code alike."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import mine_env  # noqa: F401  (registers Minesweeper-v0)
from agents.guess_value import (
    CODES,
    FEATURES,
    SCALARS,
    SHIPPED_HEAD,
    WINDOW,
    GuessValueAgent,
    ValueHead,
    candidate_features,
    tied_safest,
)
from agents.guess_value_kernels import head_logit
from agents.shipped_models import shipped_dir
from eval.runner import GamePlayer, resolve_agents
from eval.suites import Suite
from mine_env.analysis.counting import count_position
from mine_env.engine.constants import HIDDEN, PRESETS

GRID = np.array(
    [
        [HIDDEN, HIDDEN, HIDDEN, HIDDEN, HIDDEN],
        [HIDDEN, 2, 1, 1, HIDDEN],
        [HIDDEN, 1, 0, 0, HIDDEN],
        [HIDDEN, HIDDEN, HIDDEN, HIDDEN, HIDDEN],
    ],
    np.int8,
)


def plain_features(grid: np.ndarray, cell: int, chance: float, mines: int) -> np.ndarray:
    """One candidate's features, cell by cell."""
    rows, cols = grid.shape
    r, c = divmod(cell, cols)
    out = []
    for dr in range(-WINDOW, WINDOW + 1):
        for dc in range(-WINDOW, WINDOW + 1):
            one_hot = [0.0] * CODES
            rr, cc = r + dr, c + dc
            if not (0 <= rr < rows and 0 <= cc < cols):
                one_hot[0] = 1.0
            elif grid[rr, cc] == HIDDEN:
                one_hot[1] = 1.0
            else:
                one_hot[int(grid[rr, cc]) + 2] = 1.0
            out += one_hot
    hidden = int((grid == HIDDEN).sum())
    return np.array([*out, chance, mines / hidden, hidden / grid.size], np.float32)


def test_features_read_the_neighbourhood_and_the_position() -> None:
    cells = np.array([0, 4, 17, 19])
    chances = np.array([0.1, 0.2, 0.3, 0.4])
    features = candidate_features(GRID, cells, chances, mines=3)
    assert features.shape == (4, FEATURES) and features.dtype == np.float32
    for row, cell, chance in zip(features, cells, chances, strict=True):
        np.testing.assert_allclose(row, plain_features(GRID, int(cell), float(chance), 3), rtol=1e-6)
    assert (features[:, :-SCALARS].reshape(4, -1, CODES).sum(axis=2) == 1).all()


def small_head(rng: np.random.Generator, widths: tuple[int, ...] = (5,)) -> ValueHead:
    sizes = [FEATURES, *widths, 1]
    return ValueHead([rng.normal(size=pair).astype(np.float32) for pair in pairwise(sizes)],
                     [rng.normal(size=size).astype(np.float32) for size in sizes[1:]])  # fmt: skip


def test_the_head_is_two_matrix_products_and_survives_saving(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    head = small_head(rng)
    x = rng.normal(size=(3, FEATURES)).astype(np.float32)
    expected = np.maximum(x @ head.weights[0] + head.biases[0], 0) @ head.weights[1] + head.biases[1]
    np.testing.assert_allclose(head.logits(x), expected[:, 0], rtol=1e-5)
    head.save(tmp_path / "head.npz")
    np.testing.assert_array_equal(ValueHead.load(tmp_path / "head.npz").logits(x), head.logits(x))


def test_a_head_of_the_wrong_shape_or_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"takes {FEATURES} features"):
        ValueHead([np.zeros((3, 1), np.float32)], [np.zeros(1, np.float32)])
    with pytest.raises(FileNotFoundError, match="train one with"):
        ValueHead.load(tmp_path / "absent.npz")


def test_a_guess_is_the_tied_safest_cell_the_head_values_most() -> None:
    """A head that values the cells off the board around a candidate picks the tied cell nearest a corner."""
    flat = GRID.ravel()
    _, probability, _, _ = count_position(flat, *GRID.shape, 4)
    ties = tied_safest(flat, probability)
    hidden = np.flatnonzero(flat == HIDDEN)
    assert ties.size >= 2 and np.allclose(probability[ties], probability[hidden].min())
    weight = np.zeros((FEATURES, 1), np.float32)
    weight[0 : FEATURES - SCALARS : CODES] = 1.0  # the off-board class of every cell of the neighbourhood
    agent = GuessValueAgent.__new__(GuessValueAgent)
    agent.head = ValueHead([weight], [np.zeros(1, np.float32)])
    off_board = candidate_features(GRID, ties, probability[ties], 4)[:, 0 : FEATURES - SCALARS : CODES].sum(axis=1)
    assert agent.pick(GRID, probability, 4) == ties[int(np.argmax(off_board))]


@pytest.mark.parametrize("widths", [(), (5,), (8, 4)])
def test_the_compiled_head_reads_the_board_as_the_numpy_head_reads_the_features(widths: tuple[int, ...]) -> None:
    """Every hidden cell of a 7x8 position, flags and the board's edges among its neighbourhoods, scored by the
    compiled head straight from the board and by the numpy head on :func:`candidate_features`' rows."""
    rng = np.random.default_rng(len(widths))
    head = small_head(rng, widths)
    grid = rng.integers(-1, 4, size=(7, 8)).astype(np.int8)  # -1: hidden; the numbers 0-3
    grid[0, 0] = grid[3, 4] = -2  # flags read as hidden
    cells = np.flatnonzero(grid.ravel() < 0)
    chances = rng.uniform(0.05, 0.5, size=cells.size)
    hidden = int((grid == HIDDEN).sum())  # a flag is no hidden cell in the position's numbers
    numpy_logits = head.logits(candidate_features(grid, cells, chances, mines=6))
    compiled = [head_logit(grid.ravel(), 7, 8, int(cell), float(chance), 6 / hidden, hidden / grid.size, *head.layers())
                for cell, chance in zip(cells, chances, strict=True)]  # fmt: skip
    np.testing.assert_allclose(compiled, numpy_logits, rtol=1e-4, atol=1e-4)


def test_the_shipped_agent_plays_safe_cells_first_and_guesses_among_the_ties() -> None:
    if not (shipped_dir() / SHIPPED_HEAD).is_file():
        pytest.skip(f"no shipped head {SHIPPED_HEAD} in {shipped_dir()}")
    agent = GuessValueAgent()
    env = gym.make("Minesweeper-v0", rows=9, cols=9, mines=10)
    wins, guesses = 0, 0
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        agent.reset()
        done = False
        while not done:
            action = agent.act(obs, info)
            flat = obs.ravel()
            if not (flat == HIDDEN).all():
                _, probability, safe, _ = count_position(flat.astype(np.int8), 9, 9, 10)
                if (safe & (flat == HIDDEN)).any():  # a planned cell: safe, maybe by an earlier count
                    assert flat[action] == HIDDEN and safe[action]
                else:
                    guesses += 1
                    assert action in tied_safest(flat, probability)
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        wins += info.get("is_success", reward > 0)
    assert guesses > 0 and wins >= 20


@pytest.mark.parametrize(("preset", "rule", "games"), [("beginner", "opening", 40), ("intermediate", "none", 8)])
def test_compiled_games_make_the_same_moves_as_games_through_the_env(preset: str, rule: str, games: int) -> None:
    if not (shipped_dir() / SHIPPED_HEAD).is_file():
        pytest.skip(f"no shipped head {SHIPPED_HEAD} in {shipped_dir()}")
    rows, cols, mines = PRESETS[preset]
    suite = Suite(name="t", rows=rows, cols=cols, mines=mines, first_click=rule, games=games, base_seed=9)
    agents = resolve_agents(["guess-value"], suite.spec())
    compiled = GamePlayer(suite, agents, oracle=False).play_games(0, range(games))
    through_env = GamePlayer(suite, agents, oracle=True).play_games(0, range(games))
    assert [(a.won, a.steps, a.safe_revealed) for a in compiled] == [
        (b.won, b.steps, b.safe_revealed) for b in through_env
    ]
    assert 0 < sum(a.won for a in compiled) < games or preset == "beginner"


def test_compiled_games_take_one_seed_and_one_first_cell_a_key() -> None:
    agent = GuessValueAgent.__new__(GuessValueAgent)
    agent.head, agent.first_cell = small_head(np.random.default_rng(0)), None
    with pytest.raises(ValueError, match="one seed per key"):
        agent.play_compiled(9, 9, 10, "safe", np.arange(3), range(2))
    with pytest.raises(ValueError, match="one first cell per key"):
        agent.play_compiled(9, 9, 10, "safe", np.arange(3), range(3), first_cells=np.arange(2))
    won, revealed, steps = agent.play_compiled(9, 9, 10, "opening", np.arange(5), range(5), boards="no_guess")
    assert won.all() and (revealed == 71).all() and (steps >= 2).all()  # a no-guess board never needs a guess

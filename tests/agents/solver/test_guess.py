"""The compiled guess policy against the plain-Python reference and the exact probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from agents.probability import BoardAnalysis, analyse
from agents.solver.guess import PRESETS, decide
from agents.solver.outlook import look_ahead
from agents.solver.reference import ReferenceSolver, progress_chance
from mine_env.engine.board import Board, layout_key
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from support import grid_from_rows, info_for


def played_positions(rows: int, cols: int, mines: int, games: int, seed: int) -> list[np.ndarray]:
    """Positions where the reference solver had to guess, collected from whole games it played."""
    spec = BoardSpec(rows, cols, mines, "safe")
    positions = []
    for game in range(games):
        board = Board(spec, layout_key(seed + game))
        agent = ReferenceSolver(seed=game)
        while not board.is_over:
            grid = board.grid_view
            if (grid >= 0).any() and not analyse(grid, mines).certain_safe.any():
                positions.append(grid.copy())
            board.step(agent.act(grid, info_for(grid, mines, "safe")), flags=False)
    return positions


@pytest.fixture(scope="module")
def positions() -> list[tuple[np.ndarray, int]]:
    """Guessing positions with their mine counts, on two board sizes."""
    small = [(grid, 10) for grid in played_positions(9, 9, 10, games=12, seed=100)]
    return small + [(grid, 20) for grid in played_positions(8, 12, 20, games=8, seed=200)]


def compiled_guess(grid: np.ndarray, mines: int, strength: str, seed: int = 0, pairs_first: bool = True) -> int:
    """The compiled guess with the default settings of ``strength``, bar the endgame search."""
    settings = PRESETS[strength]._replace(endgame_layouts=0, pairs_first=pairs_first)
    cells, _ = decide(grid.astype(np.int8).ravel(), *grid.shape, mines, settings, np.uint64(seed))
    assert cells.size == 1
    return int(cells[0])


def two_move_survival(analysis: BoardAnalysis, cell: int) -> float:
    """The chance ``cell`` is safe and, whatever number it shows, the best next move is safe too (a certainly
    safe cell counting as 1), from the plain-Python analysis."""
    distribution, outcomes = analysis.reveal_outcomes(divmod(cell, analysis.grid.shape[1]))
    survival = 0.0
    for share, outcome in zip(distribution, outcomes, strict=True):
        if outcome is not None:
            hidden = outcome.hidden
            best_safety = max((1.0 - outcome.probabilities[hidden]).tolist(), default=0.0)
            survival += share * (1.0 if outcome.certain_safe[hidden].any() else best_safety)
    return survival


def test_fast_guesses_a_safest_cell(positions: list[tuple[np.ndarray, int]]) -> None:
    assert len(positions) > 20
    for grid, mines in positions:
        probabilities = analyse(grid, mines).probabilities.ravel()
        hidden = grid.ravel() == HIDDEN
        cell = compiled_guess(grid, mines, "fast")
        assert probabilities[cell] <= probabilities[hidden].min() * (1 + 1e-9)


def test_standard_guesses_what_the_reference_would(positions: list[tuple[np.ndarray, int]]) -> None:
    checked = 0
    for grid, mines in positions:
        analysis = analyse(grid, mines)
        probabilities = analysis.probabilities.ravel()
        hidden = np.flatnonzero(grid.ravel() == HIDDEN)
        tied = hidden[probabilities[hidden] <= probabilities[hidden].min() * (1 + 1e-9)]
        if tied.size > 12:  # the reference then shortlists at random: not comparable cell for cell
            continue
        chances = np.array([progress_chance(analysis, divmod(int(c), grid.shape[1])) for c in tied])
        best = set(tied[chances >= chances.max() * (1 - 1e-9)].tolist())
        for seed in range(3):
            assert compiled_guess(grid, mines, "standard", seed) in best
        checked += 1
    assert checked > 10


def test_strong_guesses_within_the_margin_and_blends_below_two_move_survival(
    positions: list[tuple[np.ndarray, int]],
) -> None:
    for grid, mines in positions[:15]:
        analysis = analyse(grid, mines)
        probabilities = analysis.probabilities.ravel()
        hidden = grid.ravel() == HIDDEN
        cell = compiled_guess(grid, mines, "strong", pairs_first=False)
        assert 1 - probabilities[cell] >= (1 - probabilities[hidden].min()) * 0.9 - 1e-12
        for candidate in np.flatnonzero(hidden)[:6]:
            outlook = look_ahead(grid.ravel(), *grid.shape, mines, candidate, probabilities[candidate])
            assert outlook.blended <= two_move_survival(analysis, int(candidate)) + 1e-12
            assert not outlook.always_safe[candidate] and not (outlook.always_safe & ~hidden).any()


def test_strong_guesses_a_forced_fifty_fifty_before_a_safer_cell() -> None:
    grid = grid_from_rows("1 3 X . . . . .", ". . X . . . . .")
    # (1,0) and (1,1): one mine, and only mines or the border lie next to just one of them; the ten cells
    # on the right share one mine, so each is 90% safe.
    assert compiled_guess(grid, 4, "fast") >= 3
    assert compiled_guess(grid, 4, "strong") in (8, 9)
    assert compiled_guess(grid, 4, "strong", pairs_first=False) >= 3


def test_the_presets_are_the_default_settings_of_each_strength() -> None:
    assert [PRESETS[name].strength for name in ("fast", "standard", "strong")] == [0, 1, 2]
    assert {(s.margin, s.max_candidates, s.endgame_layouts, s.pairs_first) for s in PRESETS.values()} == {
        (0.1, 12, 1000, True)
    }

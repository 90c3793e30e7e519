"""The compiled solver: its count, its guess rules against the plain-Python reference, whole games."""

from __future__ import annotations

import numpy as np
import pytest

from agents.analysis import solver_kernels as kernels
from agents.analysis.endgame import enumerate_layouts
from agents.probability import InconsistentBoard, analyse
from agents.seeding import numpy_first_draws
from agents.solver import DEFAULT_SCORING, SolverAgent, initial_state, initial_states
from agents.solver_reference import ReferenceSolver, progress_chance
from eval.runner import GamePlayer, resolve_agents
from eval.suites import Suite
from mine_env.engine.board import Board, layout_key
from mine_env.engine.constants import FLAG, HIDDEN, MINE, PRESETS
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv
from support import info_for, random_position


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


def compiled_guess(
    grid: np.ndarray, mines: int, strength: str, seed: int = 0, pairs_first: bool = True, scoring: str = DEFAULT_SCORING
) -> int:
    """The compiled guess with the default settings, bar the endgame search."""
    flat = grid.astype(np.int8).ravel()
    cells, _ = kernels.decide(
        flat, *grid.shape, mines, kernels.STRENGTHS[strength], 0.1, 12, kernels.FAR_CANDIDATES, 0, pairs_first,
        kernels.SCORINGS[scoring], np.uint64(seed),
    )  # fmt: skip
    assert cells.size == 1
    return int(cells[0])


def test_the_compiled_count_equals_the_reference_count() -> None:
    rng = np.random.default_rng(3)
    for _ in range(40):
        _, grid = random_position(rng, 7, 9, 12)
        analysis = analyse(grid, 12)
        consistent, probability, safe, log_layouts = kernels.count_position(grid.ravel(), 7, 9, 12)
        assert consistent
        np.testing.assert_allclose(probability, analysis.probabilities.ravel(), rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(safe, analysis.certain_safe.ravel())
        assert log_layouts == pytest.approx(analysis.log_layouts, rel=1e-12)


def test_the_compiled_count_reports_an_inconsistent_position() -> None:
    grid = np.array([[3, HIDDEN], [HIDDEN, HIDDEN]], np.int8)  # a 3 next to three cells, one mine in all
    assert not kernels.count_position(grid.ravel(), 2, 2, 1)[0]
    with pytest.raises(InconsistentBoard, match="does not fit"):
        SolverAgent(seed=0).act(grid, info_for(grid, 1))


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


def strong_guess_within_the_margin(grid: np.ndarray, mines: int, scoring: str) -> tuple[int, np.ndarray]:
    """``strong``'s guess (no forced 50/50s first), checked to be within 10% of the best safety; returns it
    with the exact mine probabilities."""
    probabilities = analyse(grid, mines).probabilities.ravel()
    cell = compiled_guess(grid, mines, "strong", pairs_first=False, scoring=scoring)
    assert 1 - probabilities[cell] >= (1 - probabilities[grid.ravel() == HIDDEN].min()) * 0.9 - 1e-12
    return cell, probabilities


def test_strong_guesses_within_the_margin_with_the_best_two_move_survival(
    positions: list[tuple[np.ndarray, int]],
) -> None:
    for grid, mines in positions[:15]:
        cell, probabilities = strong_guess_within_the_margin(grid, mines, "survival")
        survival = kernels.look_ahead(grid.ravel(), *grid.shape, mines, cell, probabilities[cell])[1]
        assert survival <= 1 - probabilities[cell] + 1e-12
        fast_cell = compiled_guess(grid, mines, "fast")
        fast_survival = kernels.look_ahead(grid.ravel(), *grid.shape, mines, fast_cell, probabilities[fast_cell])[1]
        assert survival >= fast_survival - 1e-12


def test_blended_scoring_guesses_within_the_margin_and_blends_below_survival(
    positions: list[tuple[np.ndarray, int]],
) -> None:
    for grid, mines in positions[:15]:
        _, probabilities = strong_guess_within_the_margin(grid, mines, "blended")
        hidden = grid.ravel() == HIDDEN
        for candidate in np.flatnonzero(hidden)[:6]:
            outcome = kernels.look_ahead(grid.ravel(), *grid.shape, mines, candidate, probabilities[candidate])
            survival, blended, always_safe = outcome[1], outcome[3], outcome[5]
            assert blended <= survival + 1e-12
            assert not always_safe[candidate] and not (always_safe & ~hidden).any()


def forced_pairs_by_enumeration(grid: np.ndarray, mines: int) -> set[frozenset[int]] | None:
    """Neighbour pairs with one mine in every layout and a mine in every layout on each cell next to only
    one of them (None: too many layouts to list)."""
    rows, cols = grid.shape
    cells, layouts, complete = enumerate_layouts(grid.ravel(), rows, cols, mines, 20_000)
    if not complete:
        return None
    column = {int(cell): layouts[:, j] for j, cell in enumerate(cells)}
    always_mine = {cell for cell, mine in column.items() if mine.all()} | set(np.flatnonzero(grid.ravel() == MINE))
    pairs = set()
    for a in column:
        for b in (a + 1, a + cols):
            if b not in column or (b == a + 1 and b % cols == 0) or not (column[a] + column[b] == 1).all():
                continue
            (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
            one_sided = {
                r * cols + c
                for r in range(max(min(ra, rb) - 1, 0), min(max(ra, rb) + 2, rows))
                for c in range(max(min(ca, cb) - 1, 0), min(max(ca, cb) + 2, cols))
                if (max(abs(r - ra), abs(c - ca)) <= 1) != (max(abs(r - rb), abs(c - cb)) <= 1)
            }
            if one_sided <= always_mine:
                pairs.add(frozenset((a, b)))
    return pairs


def test_a_found_forced_fifty_fifty_is_one_by_enumeration() -> None:
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(600):
        _, grid = random_position(rng, 5, 6, 9)
        probability = kernels.count_position(grid.ravel(), 5, 6, 9)[1]
        cell = kernels.forced_fifty_fifty(grid.ravel(), 5, 6, probability)
        pairs = forced_pairs_by_enumeration(grid, 9)
        if cell < 0 or pairs is None:
            continue
        assert any(cell in pair for pair in pairs), grid
        found += 1
    assert found >= 10  # 17 of the 33 positions with a forced pair


def test_strong_guesses_a_forced_fifty_fifty_before_a_safer_cell() -> None:
    H = HIDDEN
    grid = np.array([[1, 3, MINE, H, H, H, H, H], [H, H, MINE, H, H, H, H, H]], np.int8)
    # (1,0) and (1,1): one mine, and only mines or the border lie next to just one of them; the ten cells
    # on the right share one mine, so each is 90% safe.
    assert compiled_guess(grid, 4, "fast") >= 3
    assert compiled_guess(grid, 4, "strong") in (8, 9)
    assert compiled_guess(grid, 4, "strong", pairs_first=False) >= 3
    grid[0, 1] = 2  # now (1,2) need not be a mine: a later reveal there can settle the pair
    grid[1, 2] = H
    probability = kernels.count_position(grid.ravel(), 2, 8, 4)[1]
    assert kernels.forced_fifty_fifty(grid.ravel(), 2, 8, probability) == -1


def test_strong_looks_ahead_at_cells_two_steps_from_a_number() -> None:
    grid = np.full((9, 9), HIDDEN, np.int8)
    grid[4, 4] = 2  # one number in the middle: 8 cells touch it, the rest are alike
    flat = grid.ravel()
    probability = kernels.count_position(flat, 9, 9, 10)[1]
    bound = probability[flat == HIDDEN].max()
    near, _ = kernels._candidates(flat, 9, 9, probability, bound, True, 20, 0, np.uint64(1))
    far, _ = kernels._candidates(flat, 9, 9, probability, bound, True, 20, 4, np.uint64(1))
    two_steps = {2 * 9 + 4, 6 * 9 + 4, 4 * 9 + 2, 4 * 9 + 6}
    assert len(far) == len(near) + 4
    assert set(far.tolist()) - set(near.tolist()) == two_steps


SETTINGS = {
    "fast": "solver-fast",
    "standard": "solver-standard",
    "strong": "solver",
    "survival": "solver-survival",
}


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize(("preset", "rule"), [("beginner", "safe"), ("beginner", "opening"), ("intermediate", "none")])
def test_compiled_games_make_the_same_moves_as_games_through_the_env(setting: str, preset: str, rule: str) -> None:
    rows, cols, mines = PRESETS[preset]
    games = 12 if preset == "beginner" else 4
    suite = Suite(name="t", rows=rows, cols=cols, mines=mines, first_click=rule, games=games, base_seed=9)
    agents = resolve_agents([SETTINGS[setting]], suite.spec())
    compiled = GamePlayer(suite, agents, oracle=False).play_games(0, range(games))
    through_env = GamePlayer(suite, agents, oracle=True).play_games(0, range(games))
    for a, b in zip(compiled, through_env, strict=True):
        assert (a.won, a.steps, a.safe_revealed) == (b.won, b.steps, b.safe_revealed)


def test_every_strength_wins_most_beginner_games() -> None:
    keys = np.array([layout_key(seed) for seed in range(300)], dtype=np.int64)
    seeds = np.arange(300)
    fast = SolverAgent(strength="fast").play_compiled(9, 9, 10, "safe", keys, seeds)[0].sum()
    strong = SolverAgent(strength="strong").play_compiled(9, 9, 10, "safe", keys, seeds)[0].sum()
    assert 255 <= fast <= 295 and 255 <= strong <= 295  # about 91.5% each; docs/SOLVER.md has the ablation


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"strength": "wild"}, "unknown solver strength"),
        ({"margin": 1.0}, "margin"),
        ({"max_candidates": 0}, "max_cand"),
        ({"far_candidates": -1}, "far_cand"),
        ({"scoring": "greedy"}, "unknown scoring"),
    ],
)
def test_bad_solver_settings_are_refused(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SolverAgent(**options)


def test_compiled_seeding_equals_numpys_first_draw() -> None:
    edges = [0, 1, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**63, 2**64 - 1]
    drawn = np.random.default_rng(3).integers(0, 2**64 - 1, size=300, dtype=np.uint64, endpoint=True)
    seeds = edges + [int(seed) for seed in drawn] + list(range(200))
    expected = np.array([initial_state(seed) for seed in seeds], dtype=np.uint64)
    assert (numpy_first_draws(np.array(seeds, dtype=np.uint64)) == expected).all()
    assert (initial_states(seeds) == expected).all()


def test_seeds_outside_the_compiled_range_go_through_numpy() -> None:
    assert initial_states([2**64 + 5, 7]).tolist() == [initial_state(2**64 + 5), initial_state(7)]
    with pytest.raises(ValueError, match="non-negative"):
        initial_states([3, -1])
    with pytest.raises(TypeError):
        initial_states([1.5])


def test_a_given_first_cell_is_clicked_first_through_the_env_and_in_compiled_games() -> None:
    env = MinesweeperEnv(rows=9, cols=9, mines=10, first_click="opening")
    expected = []
    for game in range(6):
        agent = SolverAgent(seed=game, first_cell=(1, 6))
        obs, info = env.reset(seed=100 + game)
        assert agent.act(obs, info) == 1 * 9 + 6
        agent.reset()
        steps, done = 0, False
        while not done:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            steps, done = steps + 1, terminated or truncated
        expected.append((bool(info["is_success"]), int(info["revealed"]), steps))
    keys = np.array([layout_key(100 + game) for game in range(6)], dtype=np.int64)
    won, revealed, steps = SolverAgent(first_cell=(1, 6)).play_compiled(9, 9, 10, "opening", keys, range(6))
    assert list(zip(won.tolist(), revealed.tolist(), steps.tolist(), strict=True)) == expected
    assert SolverAgent(first_cell=None).first_click(9, 9, "opening") == (2, 2)


@pytest.mark.parametrize(("first_cell", "message"), [((1,), "pair"), (("a", 2), "pair"), ((1.5, 2), "pair")])
def test_a_malformed_first_cell_is_refused(first_cell: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SolverAgent(first_cell=first_cell)


def test_a_first_cell_off_the_board_is_refused_when_played() -> None:
    agent = SolverAgent(first_cell=(9, 0))
    with pytest.raises(ValueError, match="off the 9x9 board"):
        agent.play_compiled(9, 9, 10, "safe", np.arange(2), range(2))
    grid = np.full((9, 9), HIDDEN, np.int8)
    with pytest.raises(ValueError, match="off the 9x9 board"):
        agent.act(grid, info_for(grid, 10))


def test_one_seed_per_key() -> None:
    with pytest.raises(ValueError, match="one seed per key"):
        SolverAgent().play_compiled(9, 9, 10, "safe", np.arange(3), np.arange(2))


def test_cells_one_or_two_numbers_clear_are_certainly_safe_and_hidden() -> None:
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(400):
        _, grid = random_position(rng, 7, 9, 12)
        flat = grid.ravel()
        flat[(flat == HIDDEN) & (rng.random(flat.size) < 0.15)] = FLAG  # flags on mines and safe cells
        quick = kernels.local_safe(flat, 7, 9)
        safe = kernels.count_position(flat, 7, 9, 12)[2]
        assert safe[quick].all() and (flat[quick] == HIDDEN).all()
        found += quick.size > 0
    assert found > 100


def test_two_numbers_together_clear_what_neither_clears_alone() -> None:
    grid = np.array([[HIDDEN] * 4, [1, 1, 1, 1], [0, 0, 0, 0]], np.int8)
    # The left 1 puts its mine among the first two cells, which the second 1 also sees: its third is safe.
    assert kernels.local_safe(grid.ravel(), 3, 4).tolist() == [1, 2]
    assert kernels.count_position(grid.ravel(), 3, 4, 2)[2][:4].tolist() == [False, True, True, False]


def test_a_position_that_does_not_fit_is_refused_even_when_one_number_clears_a_cell() -> None:
    grid = np.array([[1, HIDDEN, 1, HIDDEN]], np.int8)  # the first 1 makes (0,1) a mine, so (0,3) is safe
    assert kernels.local_safe(grid.ravel(), 1, 4).tolist() == [3]
    with pytest.raises(InconsistentBoard):
        SolverAgent(seed=0).act(grid, info_for(grid, 3))  # three mines cannot fit in two covered cells

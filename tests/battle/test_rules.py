"""The battle rules: turn passing, mine claiming, flood fill, the win threshold, the bomb, determinism, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from battle.rules import (
    DRAW,
    OPPONENT_MINE,
    OWN_MINE,
    BattleGame,
    BattleSpec,
    analysis_grid,
    bomb_area,
    bomb_area_counts,
)
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.layout import neighbour_counts
from mine_env.engine.rng import layout_key


def a_game(rows: int = 16, cols: int = 16, mines: int = 51, seed: int = 7, bomb: bool = False) -> BattleGame:
    return BattleGame(BattleSpec(rows, cols, mines, bomb), layout_key(seed))


def first_cell(game: BattleGame, mine: bool, zero: bool | None = None) -> int:
    """The first hidden cell that is (or is not) a mine, and shows a zero (or a non-zero) when ``zero`` says so."""
    layout = game.layout.ravel()
    counts = neighbour_counts(game.layout).ravel()
    for cell in range(game.spec.n_cells):
        if game.grid.flat[cell] != HIDDEN or layout[cell] != mine:
            continue
        if zero is None or (counts[cell] == 0) == zero:
            return cell
    raise AssertionError("no such cell")


def test_the_defaults_are_the_contest_board() -> None:
    spec = BattleSpec()
    assert (spec.rows, spec.cols, spec.mines, spec.bomb, spec.to_win) == (16, 16, 51, False, 26)


def test_the_layout_is_a_pure_function_of_the_key_with_no_first_click_protection() -> None:
    assert (a_game(seed=3).layout == a_game(seed=3).layout).all()
    assert (a_game(seed=3).layout != a_game(seed=4).layout).any()
    assert a_game().layout.sum() == 51
    # Without protection a first click may hit a mine: it scores.
    game = a_game()
    assert game.play(first_cell(game, mine=True)) == 1 and game.scores == [1, 0]


def test_a_mine_scores_for_the_mover_who_moves_again_and_is_shown_as_claimed() -> None:
    game = a_game()
    cell = first_cell(game, mine=True)
    game.play(cell)
    assert game.mover == 0 and game.scores == [1, 0]
    assert game.view(0).flat[cell] == OWN_MINE and game.view(1).flat[cell] == OPPONENT_MINE
    assert game.grid.flat[cell] == MINE
    assert analysis_grid(game.view(1)).flat[cell] == MINE


def test_a_safe_cell_shows_its_number_and_passes_the_turn() -> None:
    game = a_game()
    cell = first_cell(game, mine=False, zero=False)
    assert game.play(cell) == 0
    assert game.mover == 1 and game.scores == [0, 0]
    assert game.grid.flat[cell] == neighbour_counts(game.layout).flat[cell]
    assert (game.grid != HIDDEN).sum() == 1


def test_a_zero_floods_like_the_single_player_game() -> None:
    game = a_game()
    cell = first_cell(game, mine=False, zero=True)
    game.play(cell)
    opened = game.grid != HIDDEN
    assert opened.sum() > 1 and not (opened & game.layout).any()
    counts = neighbour_counts(game.layout)
    assert (game.grid[opened] == counts[opened]).all()
    assert game.mover == 1


def test_the_first_to_more_than_half_the_mines_wins() -> None:
    game = a_game(5, 5, 5)
    for _ in range(2):
        game.play(first_cell(game, mine=True))
    assert not game.is_over
    game.play(first_cell(game, mine=True))
    assert game.is_over and game.winner == 0 and game.scores == [3, 0]
    assert not game.action_mask(0).any() and not game.action_mask(1).any()
    with pytest.raises(ValueError, match="the game is over"):
        game.play(first_cell(game, mine=False))


def test_an_even_count_can_end_in_a_draw() -> None:
    game = a_game(2, 2, 2)
    game.play(first_cell(game, mine=True))
    game.play(first_cell(game, mine=False))  # the turn passes (the flood cannot open a mine)
    while not game.is_over:
        game.play(first_cell(game, mine=True) if game.mover == 1 else first_cell(game, mine=False))
    assert game.scores == [1, 1] and game.winner == DRAW


def test_only_the_mover_has_valid_actions_and_only_on_hidden_cells() -> None:
    game = a_game()
    cell = first_cell(game, mine=False, zero=False)
    assert game.action_mask(0).sum() == 256 and not game.action_mask(1).any()
    game.play(cell)
    mask = game.action_mask(1)
    assert mask.dtype == np.int8 and mask[cell] == 0 and mask.sum() == 255


def test_random_games_are_reproducible_and_keep_the_invariants() -> None:
    def play_out(seed: int) -> tuple[list[int], int | None, int]:
        game, rng = a_game(seed=seed), np.random.default_rng(seed)
        while not game.is_over:
            game.play(int(rng.choice(np.flatnonzero(game.action_mask(game.mover)))))
            assert (game.grid == MINE).sum() == sum(game.scores)
        return game.scores, game.winner, game.moves

    for seed in range(5):
        scores, winner, _ = play_out(seed)
        assert max(scores) == 26 and winner == scores.index(26)
        assert play_out(seed) == (scores, winner, _)


def test_bad_boards_are_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match=r"needs 1\.\.256 mines"):
        BattleSpec(16, 16, 0)
    with pytest.raises(ValueError, match=r"needs 1\.\.4 mines"):
        BattleSpec(2, 2, 5)
    with pytest.raises(ValueError, match="rows must be between 1 and"):
        BattleSpec(0, 5, 1)
    with pytest.raises(ValueError, match="cols must be an integer"):
        BattleSpec(5, 5.0, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bomb must be True or False"):
        BattleSpec(5, 5, 1, "yes")  # type: ignore[arg-type]


def test_bad_moves_are_refused_with_a_clear_message() -> None:
    game = a_game()
    cell = first_cell(game, mine=False, zero=False)
    game.play(cell)
    with pytest.raises(ValueError, match="already open"):
        game.play(cell)
    with pytest.raises(ValueError, match=r"outside 0\.\.255"):
        game.play(-1)
    with pytest.raises(ValueError, match="action 256 is a bomb, but the bomb rule is off"):
        game.play(256)
    with pytest.raises(ValueError, match="must be an integer"):
        game.play(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="the bomb rule is off"):
        game.bomb(0)


def test_the_bomb_square_is_shifted_inside_the_board() -> None:
    spec = BattleSpec(16, 16, 51)
    assert bomb_area(spec, 0) == (0, 5, 0, 5)
    assert bomb_area(spec, 255) == (11, 16, 11, 16)
    assert bomb_area(spec, 8 * 16 + 8) == (6, 11, 6, 11)
    assert bomb_area(BattleSpec(3, 3, 1), 4) == (0, 3, 0, 3)


def test_the_bomb_claims_the_mines_reveals_the_safe_cells_and_passes_the_turn() -> None:
    game = a_game(bomb=True)
    n = game.spec.n_cells
    assert not game.action_mask(0)[n:].any()  # not behind: no bomb
    with pytest.raises(ValueError, match="not behind"):
        game.bomb(0)
    game.play(first_cell(game, mine=False, zero=False))  # player 1 to move
    game.play(first_cell(game, mine=True))  # player 1 leads 1-0
    game.play(first_cell(game, mine=False, zero=False))  # player 0 to move, behind
    assert game.mover == 0 and game.action_mask(0)[n:].any()
    centre = 8 * 16 + 8
    r0, r1, c0, c1 = bomb_area(game.spec, centre)
    hidden_mines = int(((game.grid == HIDDEN) & game.layout)[r0:r1, c0:c1].sum())
    before = list(game.scores)
    assert game.play(n + centre) == hidden_mines
    assert game.scores == [before[0] + hidden_mines, before[1]]
    assert (game.grid[r0:r1, c0:c1] != HIDDEN).all()
    assert game.mover == 1 and game.bomb_used == [True, False]
    assert not game.can_bomb(0)
    game.play(first_cell(game, mine=False, zero=False))  # player 0 to move again, the bomb spent
    with pytest.raises(ValueError, match="player 0 has already used the bomb"):
        game.bomb(centre)


@pytest.mark.parametrize(("rows", "cols"), [(16, 16), (7, 11), (3, 4), (1, 6)])
def test_the_bomb_area_counts_are_those_of_each_area(rows: int, cols: int) -> None:
    rng = np.random.default_rng(rows * cols)
    spec = BattleSpec(rows, cols, 1)
    cells = rng.random(rows * cols) < 0.3
    expected = [cells.reshape(rows, cols)[r0:r1, c0:c1].sum() for r0, r1, c0, c1 in
                (bomb_area(spec, cell) for cell in range(spec.n_cells))]  # fmt: skip
    assert bomb_area_counts(spec, cells).ravel().tolist() == expected

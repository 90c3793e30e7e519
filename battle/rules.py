"""Battle minesweeper: the two-player game of the PTT Java-board AI contest and of MSN Minesweeper Flags.

The rules, over the board engine's own kernels (the layout of :func:`~mine_env.engine.layout.place_mines` under
the ``none`` first-click rule, the counts of :func:`~mine_env.engine.layout.count_mines`, the flood fill of
:func:`~mine_env.engine.rules.reveal`):

- the layout is a pure function of a layout key (:mod:`mine_env.engine.rng`); no first-click protection;
- two players (seats 0 and 1) alternate, seat 0 first;
- revealing a mine claims it for the mover, who moves again; the mine is shown claimed by that player;
- revealing a safe cell shows its number (zeros flood-fill as usual) and passes the turn;
- the first to more than half the mines wins (26 of 51 on the default 16x16/51); with an even count both can end
  on half, a draw, once every mine is claimed;
- optional *bomb* (``bomb=True``): once per game for each player, only while that player is strictly behind. It
  hits the 5x5 square centred on a cell, shifted to lie inside the board: every hidden mine there is claimed for
  the bomber, every hidden safe cell is revealed (zeros flood-fill), and the turn passes.

A player's view (:meth:`BattleGame.view`) is the single-player observation with claimed mines split by owner:
``-1`` hidden, ``0..8`` a number, ``OWN_MINE`` (= ``MINE``, -3) a mine the viewer claimed, ``OPPONENT_MINE`` (-4)
one the opponent claimed. :func:`analysis_grid` turns a view back into a single-player grid, where every claimed
mine is a shown mine, so the exact probability engine applies with the global mine count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.geometry import RULE_NONE
from mine_env.engine.rules import Game, new_game_arrays, new_game_spread, reveal_cell
from mine_env.engine.spec import check_board_size

DEFAULT_ROWS, DEFAULT_COLS, DEFAULT_MINES = 16, 16, 51
BOMB_SIDE = 5
"""The bomb's square is BOMB_SIDE x BOMB_SIDE cells (clipped to the board when the board is smaller)."""

OWN_MINE = MINE
"""View code of a mine claimed by the viewing player."""
OPPONENT_MINE = -4
"""View code of a mine claimed by the other player."""
NO_OWNER = -1
DRAW = -1
"""``BattleGame.winner`` of a drawn game (each player claimed exactly half the mines)."""


@dataclass(frozen=True)
class BattleSpec:
    """A battle board: its size, its mine count and whether the bomb rule is on.

    Any size from 1x1 to MAX_SIDE x MAX_SIDE and any count from 1 mine to every cell are allowed.
    """

    rows: int = DEFAULT_ROWS
    cols: int = DEFAULT_COLS
    mines: int = DEFAULT_MINES
    bomb: bool = False

    def __post_init__(self) -> None:
        check_board_size(self)
        if not 1 <= self.mines <= self.n_cells:
            raise ValueError(
                f"a {self.rows}x{self.cols} battle board needs 1..{self.n_cells} mines (someone must score), "
                f"got {self.mines}"
            )
        if not isinstance(self.bomb, bool | np.bool_):
            raise ValueError(f"bomb must be True or False, got {self.bomb!r}")

    @property
    def n_cells(self) -> int:
        """Cells on the board (and reveal actions)."""
        return self.rows * self.cols

    @property
    def to_win(self) -> int:
        """Mines a player needs to win: more than half of them."""
        return self.mines // 2 + 1


def bomb_area(spec: BattleSpec, cell: int) -> tuple[int, int, int, int]:
    """The bomb's square around ``cell``, shifted to lie inside the board, as [r0, r1) x [c0, c1)."""
    r, c = divmod(cell, spec.cols)
    r0 = min(max(r - BOMB_SIDE // 2, 0), max(spec.rows - BOMB_SIDE, 0))
    c0 = min(max(c - BOMB_SIDE // 2, 0), max(spec.cols - BOMB_SIDE, 0))
    return r0, min(r0 + BOMB_SIDE, spec.rows), c0, min(c0 + BOMB_SIDE, spec.cols)


def bomb_area_counts(spec: BattleSpec, cells: np.ndarray) -> np.ndarray:
    """For every cell, how many of ``cells`` (a flat boolean mask) lie in its bomb area (:func:`bomb_area`),
    (rows, cols): window sums of a summed-area table, all cells at once."""
    table = np.zeros((spec.rows + 1, spec.cols + 1), np.int64)
    table[1:, 1:] = cells.reshape(spec.rows, spec.cols).cumsum(axis=0).cumsum(axis=1)
    r0 = np.minimum(np.maximum(np.arange(spec.rows) - BOMB_SIDE // 2, 0), max(spec.rows - BOMB_SIDE, 0))
    c0 = np.minimum(np.maximum(np.arange(spec.cols) - BOMB_SIDE // 2, 0), max(spec.cols - BOMB_SIDE, 0))
    r1, c1 = np.minimum(r0 + BOMB_SIDE, spec.rows)[:, None], np.minimum(c0 + BOMB_SIDE, spec.cols)[None, :]
    r0, c0 = r0[:, None], c0[None, :]
    return table[r1, c1] - table[r0, c1] - table[r1, c0] + table[r0, c0]


class BattleGame:
    """One battle game: the board arrays of the engine plus the two players' scores, the mover and the bombs.

    Args:
        spec: the board and rules.
        key: the layout key (see :mod:`mine_env.engine.rng`); the layout is a pure function of it.
    """

    def __init__(self, spec: BattleSpec, key: int) -> None:
        self.spec = spec
        self.key = int(key)
        self._game: Game = new_game_arrays(spec.n_cells)
        new_game_spread(*self._game, spec.rows, spec.cols, spec.mines, RULE_NONE, self.key)
        self.owner = np.full(spec.n_cells, NO_OWNER, dtype=np.int8)
        self.scores = [0, 0]
        self.bomb_used = [False, False]
        self.mover = 0
        self.winner: int | None = None
        self.moves = 0

    # ------------------------------------------------------------------ state
    @property
    def is_over(self) -> bool:
        """Whether the game has ended (a winner, or a draw)."""
        return self.winner is not None

    @property
    def layout(self) -> np.ndarray:
        """Where the mines lie, bool (rows, cols): for drawing a finished game and for tests, never for players."""
        return self._game.mines.reshape(self.spec.rows, self.spec.cols).astype(bool)

    @property
    def grid(self) -> np.ndarray:
        """The board as a single-player grid (rows, cols): every claimed mine shown as MINE."""
        return self._game.obs.reshape(self.spec.rows, self.spec.cols).copy()

    def view(self, seat: int) -> np.ndarray:
        """What player ``seat`` sees, int8 (rows, cols): see the module docstring for the codes."""
        view = self._game.obs.copy()
        view[self.owner == 1 - seat] = OPPONENT_MINE
        return view.reshape(self.spec.rows, self.spec.cols)

    def can_bomb(self, seat: int) -> bool:
        """Whether ``seat`` may use its bomb now: the rule is on, it is unused, the seat is behind, the game on."""
        behind = self.scores[seat] < self.scores[1 - seat]
        return self.spec.bomb and not self.is_over and not self.bomb_used[seat] and behind

    def action_mask(self, seat: int) -> np.ndarray:
        """Valid actions of ``seat`` (int8, 1 = valid): ``n`` reveals, then ``n`` bombs when the rule is on.

        Nothing is valid for the player who is not to move, or once the game is over.
        """
        n = self.spec.n_cells
        mask = np.zeros(2 * n if self.spec.bomb else n, dtype=np.int8)
        if self.is_over or seat != self.mover:
            return mask
        hidden = self._game.obs == HIDDEN
        mask[:n] = hidden
        if self.can_bomb(seat):
            mask[n:] = bomb_area_counts(self.spec, hidden).ravel() > 0
        return mask

    def _area_has_hidden(self, cell: int, hidden: np.ndarray) -> bool:
        r0, r1, c0, c1 = bomb_area(self.spec, cell)
        return bool(hidden.reshape(self.spec.rows, self.spec.cols)[r0:r1, c0:c1].any())

    # ------------------------------------------------------------------ moves
    def play(self, action: int) -> int:
        """Play the mover's action (``0..n-1`` reveal a cell, ``n..2n-1`` bomb around ``action - n``); returns the
        mines it claimed.

        Raises:
            ValueError: the game is over, or the action is not one the mover may play now (say which and why).
        """
        n = self.spec.n_cells
        if self.is_over:
            raise ValueError("the game is over: start a new one")
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise ValueError(f"an action must be an integer, got {action!r}")
        action = int(action)
        limit = 2 * n if self.spec.bomb else n
        if not self.spec.bomb and n <= action < 2 * n:
            raise ValueError(f"action {action} is a bomb, but the bomb rule is off on this board (bomb=True, or "
                             "--bomb on the command line, turns it on)")  # fmt: skip
        if not 0 <= action < limit:
            raise ValueError(f"action {action} is outside 0..{limit - 1}")
        if action >= n:
            return self.bomb(action - n)
        return self.reveal(action)

    def reveal(self, cell: int) -> int:
        """The mover reveals ``cell``: a mine is claimed (returns 1, same mover), a safe cell floods and passes."""
        self._check_cell(cell)
        if self._game.obs[cell] != HIDDEN:
            raise ValueError(f"cell {divmod(cell, self.spec.cols)} is already open: choose a hidden cell")
        self.moves += 1
        if self._game.mines[cell]:
            self._claim(cell, self.mover)
            self._settle()
            return 1
        reveal_cell(self._game, self.spec.rows, self.spec.cols, cell)
        self._pass_turn()
        return 0

    def bomb(self, cell: int) -> int:
        """The mover bombs the 5x5 square around ``cell`` (see the module docstring); returns the mines claimed."""
        self._check_cell(cell)
        if not self.spec.bomb:
            raise ValueError("the bomb rule is off: create the game with bomb=True to use it")
        seat = self.mover
        if self.bomb_used[seat]:
            raise ValueError(f"player {seat} has already used the bomb")
        if self.scores[seat] >= self.scores[1 - seat]:
            raise ValueError(f"player {seat} is not behind ({self.scores[seat]} to {self.scores[1 - seat]}): "
                             "only the player who is behind may bomb")
        hidden = self._game.obs == HIDDEN
        if not self._area_has_hidden(cell, hidden):
            raise ValueError(f"the bomb around {divmod(cell, self.spec.cols)} would hit no hidden cell")
        self.moves += 1
        self.bomb_used[seat] = True
        r0, r1, c0, c1 = bomb_area(self.spec, cell)
        area = [r * self.spec.cols + c for r in range(r0, r1) for c in range(c0, c1)]
        mined = [a for a in area if self._game.obs[a] == HIDDEN and self._game.mines[a]]
        for a in mined:
            self._claim(a, seat)
        for a in area:
            if self._game.obs[a] == HIDDEN and not self._game.mines[a]:
                reveal_cell(self._game, self.spec.rows, self.spec.cols, a)
        if not self._settle():
            self._pass_turn()
        return len(mined)

    def _check_cell(self, cell: int) -> None:
        if not 0 <= cell < self.spec.n_cells:
            raise ValueError(f"cell {cell} is outside 0..{self.spec.n_cells - 1}")
        if self.is_over:
            raise ValueError("the game is over: start a new one")

    def _claim(self, cell: int, seat: int) -> None:
        self._game.obs[cell] = MINE
        self.owner[cell] = seat
        self.scores[seat] += 1

    def _settle(self) -> bool:
        """End the game when a player has more than half the mines, or every mine is claimed; returns whether over."""
        for seat in (0, 1):
            if self.scores[seat] >= self.spec.to_win:
                self.winner = seat
        if self.winner is None and sum(self.scores) == self.spec.mines:
            self.winner = DRAW
        return self.is_over

    def _pass_turn(self) -> None:
        self.mover = 1 - self.mover


def analysis_grid(view: np.ndarray) -> np.ndarray:
    """A player's view as a single-player grid for the probability engine: every claimed mine shown as MINE."""
    grid = np.array(view, dtype=np.int8, copy=True)
    grid[grid == OPPONENT_MINE] = MINE
    return grid

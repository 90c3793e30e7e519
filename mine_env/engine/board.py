"""The board engine: one game of Minesweeper, with no Gymnasium in sight.

:class:`Board` keeps a game's state in flat arrays and plays it through the compiled rules of
:mod:`mine_env.engine.rules`. Its public methods take (row, col) and raise ``ValueError`` with a message on a
move the rules do not allow; the env uses the raw :meth:`Board.step`, which never raises.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mine_env.engine import rules as k
from mine_env.engine.constants import HIDDEN, MINE
from mine_env.engine.geometry import is_revealed
from mine_env.engine.layout import compute_counts
from mine_env.engine.layout_source import LayoutSource, first_reveals
from mine_env.engine.rng import KEY_LIMIT
from mine_env.engine.rng import draw_layout_key as draw_layout_key  # re-exported: callers know it from here
from mine_env.engine.rng import layout_key as layout_key  # re-exported
from mine_env.engine.spec import BoardSpec
from mine_env.engine.textformat import format_board, parse_board


@dataclass(frozen=True)
class BoardState:
    """A snapshot of a game, enough to restore it exactly (arrays are private copies)."""

    spec: BoardSpec
    obs: np.ndarray
    mines: np.ndarray
    counts: np.ndarray
    meta: np.ndarray


class Board:
    """One game on a board of a given :class:`~mine_env.engine.spec.BoardSpec`.

    The layout is a pure function of the layout ``key`` and the first revealed cell: under the ``safe``
    and ``opening`` rules it is placed by the first reveal, under ``none`` at the start of the game. With a
    ``layout_source`` (:mod:`mine_env.engine.layout_source`, such as the no-guess boards), the first reveal
    takes the source's layout for (key, first cell) instead.

    Examples:
        >>> board = Board(BoardSpec(9, 9, 10, "opening"), key=7)
        >>> board.reveal(4, 4) > 1  # the opening rule always opens a zero
        True
    """

    def __init__(self, spec: BoardSpec, key: int = 0, layout_source: LayoutSource | None = None) -> None:
        self.spec = spec
        self.layout_source = layout_source
        n = spec.n_cells
        self._rules = k.Rules(spec.rows, spec.cols, spec.mines, k.RULE_CODES[spec.first_click])
        self._game = k.Game(
            obs=np.full(n, HIDDEN, dtype=np.int8),
            mines=np.zeros(n, dtype=np.uint8),
            counts=np.zeros(n, dtype=np.int8),
            meta=np.zeros(k.META_SIZE, dtype=np.int64),
            stack=np.empty(n, dtype=np.int32),
        )
        # Passed to the compiled rules on every step and reset, as plain attributes one by one: a NamedTuple's
        # fields, or a call with *args, cost more (about 0.05 us of a single env's 4 us step).
        self._obs, self._mines, self._counts, self._meta, self._stack = self._game
        self._rows, self._cols, self._n_mines, self._rule = self._rules
        self.new_game(key)

    # ----------------------------------------------------------------- construction
    def new_game(self, key: int) -> None:
        """Start a new game whose layout is drawn from ``key`` (an integer in [0, 2**63))."""
        if not 0 <= int(key) < KEY_LIMIT:
            raise ValueError(f"layout key must lie in [0, 2**63), got {key}")
        k.new_game_spread(
            self._obs, self._mines, self._counts, self._meta, self._stack,
            self._rows, self._cols, self._n_mines, self._rule, int(key),
        )  # fmt: skip

    @classmethod
    def from_layout(cls, layout: np.ndarray, first_click: str = "none") -> Board:
        """A game in progress on a given layout (bool (rows, cols), True = mine), nothing revealed yet."""
        layout = np.asarray(layout)
        if layout.ndim != 2 or layout.dtype != bool:
            raise ValueError(f"a layout must be a 2-D bool array, got {layout.dtype} of shape {layout.shape}")
        rows, cols = layout.shape
        board = cls(BoardSpec(rows, cols, int(layout.sum()), first_click))
        game = board._game
        game.mines[:] = layout.ravel()
        compute_counts(game.mines, game.counts, rows, cols)
        board._meta[k.META_STATUS] = k.PLAYING
        return board

    @classmethod
    def from_text(cls, text: str, first_click: str | None = None) -> Board:
        """A game restored from a full board in the text format of :mod:`mine_env.engine.textformat`.

        The rule is ``first_click`` if given, else the text's ``first_click:`` header, else ``"none"``.
        """
        parsed = parse_board(text)
        if parsed.layout is None:
            raise ValueError("this board has no known layout ('*' or '+' cells), so it cannot be played")
        board = cls.from_layout(parsed.layout, first_click or parsed.first_click or "none")
        board._obs[:] = parsed.grid.ravel()
        board._meta[k.META_SAFE_LEFT] = board.spec.n_safe - int(is_revealed(parsed.grid).sum())
        if (parsed.grid == MINE).any():
            board._meta[k.META_STATUS] = k.LOST
        elif board.safe_left == 0:
            board._meta[k.META_STATUS] = k.WON
        return board

    def to_text(self) -> str:
        """This game as a full board in the text format (a position only, before the layout exists)."""
        return format_board(self.grid, self.spec.mines, self.layout, self.spec.first_click)

    def export_state(self) -> BoardState:
        """A snapshot of the whole game (layout included) for :meth:`restore`."""
        game = self._game
        return BoardState(self.spec, game.obs.copy(), game.mines.copy(), game.counts.copy(), game.meta.copy())

    @classmethod
    def restore(cls, state: BoardState) -> Board:
        """The game exactly as it was when ``state`` was exported."""
        board = cls(state.spec)
        game = board._game
        game.obs[:] = state.obs
        game.mines[:] = state.mines
        game.counts[:] = state.counts
        game.meta[:] = state.meta
        return board

    def copy(self) -> Board:
        """An independent copy of this game (with the same layout source)."""
        board = Board.restore(self.export_state())
        board.layout_source = self.layout_source
        return board

    # ----------------------------------------------------------------- views
    @property
    def rows(self) -> int:
        return self.spec.rows

    @property
    def cols(self) -> int:
        return self.spec.cols

    @property
    def status(self) -> str:
        """``"ready"`` (no layout yet), ``"playing"``, ``"won"`` or ``"lost"``."""
        return k.STATUS_NAMES[int(self._meta[k.META_STATUS])]

    @property
    def status_code(self) -> int:
        """The status as the integer code of :mod:`mine_env.engine.rules` (READY, PLAYING, WON, LOST)."""
        return int(self._meta[k.META_STATUS])

    @property
    def is_over(self) -> bool:
        return self.status_code >= k.WON

    @property
    def safe_left(self) -> int:
        """Safe cells still hidden."""
        return int(self._meta[k.META_SAFE_LEFT])

    @property
    def key(self) -> int:
        """The layout key of this game."""
        return int(self._meta[k.META_KEY])

    @property
    def steps(self) -> int:
        """Valid actions played in this game."""
        return int(self._meta[k.META_STEPS])

    @property
    def grid_view(self) -> np.ndarray:
        """A read-only view of the player's grid (no copy: it changes as the game goes on)."""
        view = self._obs.reshape(self.rows, self.cols)
        view.flags.writeable = False
        return view

    @property
    def grid(self) -> np.ndarray:
        """What the player sees: int8 (rows, cols) with the codes of :mod:`mine_env.engine.constants`."""
        return self._obs.reshape(self.rows, self.cols).copy()

    @property
    def layout(self) -> np.ndarray | None:
        """Where the mines lie (bool (rows, cols)), or None before the first reveal places them."""
        if self.status == "ready":
            return None
        return self._game.mines.reshape(self.rows, self.cols).astype(bool)

    @property
    def counts(self) -> np.ndarray | None:
        """Mines around every cell (int8 (rows, cols)), or None before the layout is placed."""
        if self.status == "ready":
            return None
        return self._game.counts.reshape(self.rows, self.cols).copy()

    # ----------------------------------------------------------------- play
    def step(self, action: int, flags: bool = True) -> int:
        """Play a flat action (see :func:`mine_env.engine.rules.apply_action`) without raising.

        Returns the safe cells revealed, or :data:`mine_env.engine.rules.INVALID` when nothing changed.
        """
        if self.layout_source is not None and self._meta[k.META_STATUS] == k.READY:
            self._deal(action)
        return k.apply_action_spread(
            self._obs, self._mines, self._counts, self._meta, self._stack,
            self._rows, self._cols, self._n_mines, self._rule, flags, int(action),
        )  # fmt: skip

    def _deal(self, action: int) -> None:
        """Start the game on the layout source's layout when ``action`` is its first reveal."""
        actions = np.array([action], dtype=np.int64)
        if first_reveals(self._obs[None, :], self._meta[None, :], actions, self.spec.n_cells).size:
            layout = self.layout_source(np.array([self.key], dtype=np.int64), actions)[0]
            k.start_game_on(self._mines, self._counts, self._meta, layout, self._rows, self._cols)

    def action_mask(self, flags: bool = True) -> np.ndarray:
        """Valid flat actions (int8, 1 = valid): reveals, then flag toggles when ``flags``."""
        out = np.empty(self.spec.n_cells * (2 if flags else 1), dtype=np.int8)
        k.fill_action_mask(self._obs, self._meta, self.rows, self.cols, flags, out)
        return out

    def reveal(self, row: int, col: int) -> int:
        """Reveal a hidden cell; returns the safe cells revealed (0 when it was a mine)."""
        cell = self._cell(row, col)
        if self._obs[cell] != HIDDEN:
            raise ValueError(f"cell ({row}, {col}) is not hidden and unflagged, so it cannot be revealed")
        return self.step(cell)

    def chord(self, row: int, col: int) -> int:
        """Reveal the hidden neighbours of a number whose flags are all placed."""
        cell = self._cell(row, col)
        if k.chord_targets(self._obs, self.rows, self.cols, cell) == 0:
            raise ValueError(
                f"cell ({row}, {col}) cannot be chorded: it must be a revealed number with exactly that many "
                "flagged neighbours and at least one hidden neighbour"
            )
        return self.step(cell)

    def toggle_flag(self, row: int, col: int) -> None:
        """Put a flag on a hidden cell, or take it off."""
        cell = self._cell(row, col)
        if self.step(cell + self.spec.n_cells) == k.INVALID:
            raise ValueError(f"cell ({row}, {col}) is revealed, so it cannot carry a flag")

    def _cell(self, row: int, col: int) -> int:
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"cell ({row}, {col}) is outside the {self.rows}x{self.cols} board")
        if self.is_over:
            raise ValueError(f"the game is over ({self.status}); start a new one")
        return row * self.cols + col

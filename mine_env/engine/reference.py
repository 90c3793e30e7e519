"""The game rules restated in plain Python: the readable spec, and the yardstick of the tests and benchmarks.

Everything here is ordinary lists and ints, written to be obvious rather than fast. It must agree with the
compiled rules of :mod:`mine_env.engine.rules` move for move: the same SplitMix64 stream, the same masked
rejection draw and the same partial Fisher-Yates shuffle give the identical layout for a (key, first cell),
and :meth:`ReferenceBoard.step` returns what :meth:`mine_env.engine.board.Board.step` returns. The tests play both
engines side by side on random games; the benchmark times this loop as "the plain pure-Python step loop".

Cells are numbered row by row: cell ``i`` is row ``i // cols``, column ``i % cols``. Which cells are
neighbours, and which the first click protects, come from the plain statements of
:mod:`mine_env.engine.geometry` (``neighbours``, ``protected_cells``), which its tests hold to the compiled ones.
"""

from __future__ import annotations

from mine_env.engine.constants import FLAG, HIDDEN, MINE
from mine_env.engine.geometry import neighbours, protected_cells
from mine_env.engine.rewards import RewardConfig
from mine_env.engine.spec import BoardSpec

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

INVALID = -1
"""What :meth:`ReferenceBoard.step` returns for an action that changes nothing."""

READY, PLAYING, WON, LOST = "ready", "playing", "won", "lost"


# ----------------------------------------------------------------------------- random numbers
def splitmix64(state: int) -> tuple[int, int]:
    """Advance a SplitMix64 stream by one: returns (new state, 64 random bits), all modulo 2**64."""
    state = (state + GOLDEN_GAMMA) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return state, z ^ (z >> 31)


def draw_below(state: int, bound: int) -> tuple[int, int]:
    """An unbiased integer in [0, bound): keep the low bits that cover ``bound - 1``, redraw when too big."""
    mask = 0
    while mask < bound - 1:
        mask = (mask << 1) | 1
    while True:
        state, bits = splitmix64(state)
        value = bits & mask
        if value < bound:
            return state, value


# ----------------------------------------------------------------------------- layouts
def neighbour_table(rows: int, cols: int) -> list[list[int]]:
    """The neighbours of every cell (see :func:`mine_env.engine.geometry.neighbours`), computed once per size."""
    return [neighbours(cell, rows, cols) for cell in range(rows * cols)]


def place_mines(
    rows: int, cols: int, n_mines: int, first_click: str, first_cell: int | None, key: int
) -> list[bool]:
    """Where the mines lie (True = mine) for a layout key and the first revealed cell.

    The cells the rule allows (all but :func:`mine_env.engine.geometry.protected_cells`), in row-major order, are
    shuffled by a partial Fisher-Yates shuffle driven by a SplitMix64 stream seeded with ``key``; the first
    ``n_mines`` of them get a mine. Every allowed layout is equally likely.
    """
    protected = set(protected_cells(rows, cols, first_click, -1 if first_cell is None else first_cell))
    candidates = [cell for cell in range(rows * cols) if cell not in protected]
    state = key
    for j in range(n_mines):
        state, offset = draw_below(state, len(candidates) - j)
        chosen = j + offset
        candidates[j], candidates[chosen] = candidates[chosen], candidates[j]
    mines = [False] * (rows * cols)
    for cell in candidates[:n_mines]:
        mines[cell] = True
    return mines


def mine_counts(mines: list[bool], around: list[list[int]]) -> list[int]:
    """How many of its neighbours hold a mine, for every cell (``around`` from :func:`neighbour_table`)."""
    counts = [0] * len(mines)
    for cell, is_mine in enumerate(mines):
        if is_mine:
            for other in around[cell]:
                counts[other] += 1
    return counts


def step_reward(status: str, revealed: int, rewards: RewardConfig) -> float:
    """The reward of a step: invalid, win, loss, or the progress shaping per safe cell revealed."""
    if revealed == INVALID:
        return rewards.invalid
    if status == WON:
        return rewards.win
    if status == LOST:
        return rewards.loss
    return rewards.progress * revealed


# ----------------------------------------------------------------------------- one game
class ReferenceBoard:
    """One game, played by the rules in plain Python; mirrors :class:`mine_env.engine.board.Board`.

    Attributes:
        obs: What the player sees, one code per cell (see :mod:`mine_env.engine.constants`).
        mines: True where a mine lies (all False until the layout is placed).
        counts: Mines around every cell (all 0 until the layout is placed).
        status: ``"ready"`` (no layout yet), ``"playing"``, ``"won"`` or ``"lost"``.
        safe_left: Safe cells still hidden.
        steps: Valid actions played.
        around: The neighbours of every cell, computed once for the board's size.
    """

    def __init__(self, spec: BoardSpec, key: int = 0) -> None:
        self.spec = spec
        self.rows, self.cols = spec.rows, spec.cols
        self.n_cells = spec.n_cells
        self.around = neighbour_table(spec.rows, spec.cols)
        self.new_game(key)

    def new_game(self, key: int) -> None:
        """Start a new game; under the ``none`` rule the layout is placed at once, else by the first reveal."""
        self.key = key
        self.obs = [HIDDEN] * self.n_cells
        self.mines = [False] * self.n_cells
        self.counts = [0] * self.n_cells
        self.status = READY
        self.safe_left = self.spec.n_safe
        self.steps = 0
        if self.spec.first_click == "none":
            self._start(None)

    def _start(self, first_cell: int | None) -> None:
        s = self.spec
        self.mines = place_mines(s.rows, s.cols, s.mines, s.first_click, first_cell, self.key)
        self.counts = mine_counts(self.mines, self.around)
        self.status = PLAYING

    # ------------------------------------------------------------------ rules
    def chord_targets(self, cell: int) -> int:
        """Hidden neighbours a chord would reveal: needs a revealed number with exactly that many flags."""
        if self.obs[cell] <= 0:
            return 0
        around = [self.obs[other] for other in self.around[cell]]
        if around.count(FLAG) != self.obs[cell]:
            return 0
        return around.count(HIDDEN)

    def is_valid(self, action: int, flags: bool) -> bool:
        """Whether an action changes the board (nothing is valid once the game is over)."""
        if self.status not in (READY, PLAYING):
            return False
        n = self.n_cells
        if 0 <= action < n:
            return self.obs[action] == HIDDEN or (flags and self.chord_targets(action) > 0)
        if flags and n <= action < 2 * n:
            return self.obs[action - n] in (HIDDEN, FLAG)
        return False

    def action_mask(self, flags: bool) -> list[int]:
        """1 for every valid action: reveals first, then flag toggles when ``flags``."""
        return [int(self.is_valid(action, flags)) for action in range(self.n_cells * (2 if flags else 1))]

    def step(self, action: int, flags: bool = True) -> int:
        """Play a flat action; returns the safe cells revealed, or :data:`INVALID` when nothing changed."""
        if not self.is_valid(action, flags):
            return INVALID
        self.steps += 1
        if action >= self.n_cells:
            cell = action - self.n_cells
            self.obs[cell] = HIDDEN if self.obs[cell] == FLAG else FLAG
            return 0
        if self.status == READY:
            self._start(action)
        if self.obs[action] == HIDDEN:
            return self.reveal(action)
        return self.chord(action)

    def reveal(self, cell: int) -> int:
        """Open a hidden cell; a zero opens its region (flood fill) except flagged cells. Returns cells opened."""
        if self.mines[cell]:
            self.obs[cell] = MINE
            self.status = LOST
            return 0
        self.obs[cell] = self.counts[cell]
        opened = 1
        zeros_to_expand = [cell] if self.counts[cell] == 0 else []
        while zeros_to_expand:
            zero = zeros_to_expand.pop()
            for other in self.around[zero]:
                if self.obs[other] == HIDDEN:
                    self.obs[other] = self.counts[other]
                    opened += 1
                    if self.counts[other] == 0:
                        zeros_to_expand.append(other)
        self.safe_left -= opened
        if self.safe_left == 0:
            self.status = WON
        return opened

    def chord(self, cell: int) -> int:
        """Reveal the hidden neighbours of a satisfied number in row-major order, stopping when the game ends."""
        opened = 0
        for other in self.around[cell]:
            if self.obs[other] == HIDDEN and self.status == PLAYING:
                opened += self.reveal(other)
        return opened

    # ------------------------------------------------------------------ views
    @property
    def is_over(self) -> bool:
        return self.status in (WON, LOST)

    @property
    def layout(self) -> list[bool] | None:
        """Where the mines lie, or None before the first reveal places them."""
        return None if self.status == READY else list(self.mines)

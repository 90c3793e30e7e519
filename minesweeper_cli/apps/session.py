"""A game as people play it, shared by the terminal game and the pygame window.

:class:`GameSession` wraps a :class:`mine_env.engine.board.Board` with what a player needs beyond the rules: a
timer that starts with the first reveal, the mines left to flag, a message about the last move, moves by
an agent (one at a time, or every certain move at once in ``assist``), and the solver's mine chances for
hints. It never raises on a player's move: a move the rules refuse changes nothing and says why in
:attr:`GameSession.message`.

Layouts come from the seed exactly as in :class:`mine_env.env.MinesweeperEnv`: game ``i`` of a session
seeded with ``s`` has the layout key of the env's ``i``-th ``reset`` after ``reset(seed=s)``, so a seeded
board in the terminal is the same board an agent meets in the env (see :func:`mine_env.engine.board.layout_key`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import Agent
from agents.registry import SOLVER_AGENTS
from mine_env.boards import layout_source
from mine_env.engine.board import Board, draw_layout_key
from mine_env.engine.constants import DEFAULT_BOARDS, FLAG, HIDDEN, MINE
from mine_env.engine.spec import BoardSpec
from minesweeper_cli.apps.hints import FrontierHints, frontier, frontier_hints
from minesweeper_cli.apps.moves import ASSIST, PLAYER, Move
from minesweeper_cli.apps.outcome import agent_summary, game_outcome, move_message
from minesweeper_cli.apps.solver_warm_up import WAITING

MODES: tuple[str, ...] = ("manual", "assist", "auto")
"""``manual``: you play every move. ``assist``: after each of your reveals the solver plays every certain
move. ``auto``: an agent plays the first game; every later game starts in ``manual``."""


class GameSession:
    """Games on one board size, with a timer, hints and agent moves.

    Args:
        spec: The board (size, mines, first-click rule).
        seed: Seeds the layouts of every game of the session; None for fresh entropy.
        mode: One of :data:`MODES`.
        agent: The agent for AI moves: a name from :mod:`agents.registry` (built on first use, seeded with
            ``seed``) or any :class:`agents.base.Agent`, a trained policy for instance.
        clock: Seconds as a float, for the timer (tests pass a fake one).
        boards: ``"random"`` or ``"no_guess"`` (:mod:`mine_env.boards`): the kind of board of every game,
            whatever its size.

    Examples:
        >>> session = GameSession(BoardSpec(9, 9, 10), seed=3)
        >>> moves = session.click(4, 4)
        >>> session.status, session.mines_left
        ('playing', 10)
    """

    def __init__(
        self,
        spec: BoardSpec,
        seed: int | None = None,
        mode: str = "manual",
        agent: str | Agent = "solver",
        clock: Callable[[], float] = time.monotonic,
        boards: str = DEFAULT_BOARDS,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
        self.mode = mode
        self.agent_name = agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)
        self.seed = seed
        self._clock = clock
        self._rng = np.random.default_rng(seed)
        self._agent: Agent | None = None if isinstance(agent, str) else agent
        self._probabilities: tuple[tuple[int, int], np.ndarray] | None = None
        self._hints: tuple[tuple[int, int], FrontierHints] | None = None
        self.solver_ready: Callable[[], bool] = lambda: True
        """False while the solver's kernels compile in the background (:mod:`minesweeper_cli.apps.solver_warm_up`):
        hints, assist and the solver's moves are put off meanwhile, never waited for."""
        self.assist_owed = False
        """True when the solver's certain moves were put off after a player's move (see :meth:`catch_up`)."""
        self._owed_after: Move | None = None
        """The player's move that assist owes its certain moves to."""
        self.board = Board(spec, layout_source=layout_source(boards, spec))
        self.boards = boards
        self.spec = spec
        self.games = 0
        self._start_game()

    # ------------------------------------------------------------------ games
    def new_game(self, spec: BoardSpec | None = None) -> None:
        """Start the next game of the session, on a new board size if ``spec`` is given.

        The game is the player's: ``auto`` becomes ``manual`` (an agent played the game before, on request),
        while ``assist`` stays, since its guesses are the player's anyway.
        """
        if spec is not None and spec != self.spec:
            self.board = Board(spec, layout_source=layout_source(self.boards, spec))
            self.spec = spec
        if self.mode == "auto":
            self.mode = "manual"
        self._start_game()

    def set_boards(self, boards: str) -> None:
        """Deal ``boards`` layouts (``"random"`` or ``"no_guess"``) from a new game on, on the same board; a
        ValueError (and no change) when this board or rule cannot have them."""
        source = layout_source(boards, self.spec)
        self.boards = boards
        self.board = Board(self.spec, layout_source=source)
        self.new_game()

    def _start_game(self) -> None:
        self.board.new_game(draw_layout_key(self._rng))
        self.games += 1
        self.assist_owed = False
        self.moves: list[Move] = []
        self._started: float | None = None
        self._stopped: float | None = None
        if self._agent is not None:
            self._agent.reset()
        kind = ", no guess needed" if self.boards == "no_guess" else ""
        self.message = f"game {self.games}: {self.spec.rows}x{self.spec.cols}, {self.spec.mines} mines{kind}"

    @property
    def status(self) -> str:
        """``"ready"`` (no layout yet), ``"playing"``, ``"won"`` or ``"lost"``."""
        return self.board.status

    @property
    def is_over(self) -> bool:
        return self.board.is_over

    @property
    def grid(self) -> np.ndarray:
        """What the player sees (a read-only view that follows the game)."""
        return self.board.grid_view

    @property
    def shown_layout(self) -> np.ndarray | None:
        """The layout once the game is over (for drawing every mine), else None."""
        return self.board.layout if self.board.is_over else None

    @property
    def mines_left(self) -> int:
        """Mines minus flags placed (negative when there are too many flags), as on the classic counter.

        0 once the game is won: every cell left covered is then a mine, so every mine is found.
        """
        if self.status == "won":
            return 0
        return self.spec.mines - int(np.count_nonzero(self.grid == FLAG))

    @property
    def elapsed(self) -> float:
        """Seconds since the first reveal, frozen when the game ends."""
        if self._started is None:
            return 0.0
        end = self._stopped if self._stopped is not None else self._clock()
        return end - self._started

    @property
    def lost_cell(self) -> tuple[int, int] | None:
        """The mine that ended a lost game."""
        hit = np.argwhere(self.grid == MINE)
        return (int(hit[0, 0]), int(hit[0, 1])) if len(hit) else None

    def outcome(self) -> str:
        """Who won or lost the finished game, and how (see :func:`~minesweeper_cli.apps.outcome.game_outcome`).

        "" while the game goes on.
        """
        if not self.is_over:
            return ""
        return game_outcome(self.moves, self.agent_name, self.status, self.elapsed, self.lost_cell)

    # ------------------------------------------------------------------ the player's moves
    def click(self, row: int, col: int) -> list[Move]:
        """Reveal a hidden cell or chord a number: the left click of the classic game."""
        cell = self._checked_cell(row, col)
        if cell is None:
            return []
        code = int(self.grid[row, col])
        if code == FLAG:
            self.message = f"({row}, {col}) is flagged: remove the flag to reveal it"
            return []
        if code >= 0:
            return self.chord(row, col)
        return self._after_player_move(self._play(cell, "reveal", PLAYER))

    def chord(self, row: int, col: int) -> list[Move]:
        """Reveal the hidden neighbours of a number whose flags are all placed."""
        cell = self._checked_cell(row, col)
        if cell is None:
            return []
        move = self._play(cell, "chord", PLAYER) if self.grid[row, col] > 0 else None
        if move is None:
            self.message = f"({row}, {col}) cannot be chorded: it needs exactly its number of flags around it"
            return []
        return self._after_player_move(move)

    def toggle_flag(self, row: int, col: int) -> list[Move]:
        """Put a flag on a hidden cell or take it off (the right click)."""
        cell = self._checked_cell(row, col)
        if cell is None:
            return []
        kind = "unflag" if self.grid[row, col] == FLAG else "flag"
        move = self._play(cell + self.spec.n_cells, kind, PLAYER)
        if move is None:
            self.message = f"({row}, {col}) is revealed, so it cannot carry a flag"
            return []
        self.message = move.describe()
        return [move]

    # ------------------------------------------------------------------ the solver's and the agent's moves
    def probabilities(self) -> np.ndarray | None:
        """Mine chance of every cell (see :func:`mine_env.analysis.probability.mine_probabilities`), flags ignored.

        None before the layout is placed, once the game is over, while the solver compiles, and (with a
        message) if the solver fails. Computed once per position.
        """
        if self.status != "playing" or not self.solver_ready():
            return None
        position = (self.games, self.board.safe_left)  # revealed cells only grow within a game
        if self._probabilities is None or self._probabilities[0] != position:
            from mine_env.analysis.probability import mine_probabilities

            try:
                self._probabilities = (position, mine_probabilities(self.board.grid, self.spec.mines))
            except Exception as error:  # a solver bug must not end the player's game: say it and go on
                self.message = f"the solver failed on this position: {type(error).__name__}: {error}"
                return None
        return self._probabilities[1]

    def frontier(self) -> np.ndarray:
        """Unrevealed cells next to a revealed number (see :func:`minesweeper_cli.apps.hints.frontier`)."""
        return frontier(self.grid)

    def frontier_hints(self) -> FrontierHints | None:
        """The mine chances worth showing (see :func:`minesweeper_cli.apps.hints.frontier_hints`), once per position.

        None before the first reveal and after the end.
        """
        probabilities = self.probabilities()
        if probabilities is None:
            return None
        position = (self.games, self.board.steps)  # flags move hints too: every valid action counts a step
        if self._hints is None or self._hints[0] != position:
            self._hints = (position, frontier_hints(self.grid, probabilities))
        return self._hints[1]

    def risk_of(self, row: int, col: int) -> float | None:
        """The chance that revealing (row, col) now hits a mine; None when the solver has no answer.

        Before the first reveal the first-click rule decides: no risk under ``safe`` and ``opening``.
        """
        if self.status == "ready":
            if self.spec.first_click != "none":
                return 0.0
            return self.spec.mines / self.spec.n_cells
        probabilities = self.probabilities()
        return None if probabilities is None else float(probabilities[row, col])

    def agent_move(self) -> Move | None:
        """Let the agent choose and play one reveal; returns it (None when there is nothing to play)."""
        if self.is_over:
            self.message = f"the game is over ({self.status}): start a new one"
            return None
        if self.agent_name in SOLVER_AGENTS and not self.solver_ready():
            self.message = f"{WAITING}: ask for the move again when it is done"
            return None
        try:
            action = int(self.agent.act(self._agent_observation(), self._agent_info()))
        except Exception as error:  # an agent's bug must not end the player's game: say it and go on
            self.message = f"{self.agent_name} failed on this position: {type(error).__name__}: {error}"
            return None
        if not 0 <= action < self.spec.n_cells or self.grid.flat[action] not in (HIDDEN, FLAG):
            self.message = f"{self.agent_name} chose action {action}, which is not an unrevealed cell"
            return None
        row, col = divmod(action, self.spec.cols)
        risk = self.risk_of(row, col)
        if self.grid[row, col] == FLAG:
            self._play(action + self.spec.n_cells, "unflag", self.agent_name)
        move = self._play(action, "reveal", self.agent_name, risk)
        self.message = move_message(move, self.status, self.elapsed)
        return move

    def agent_summary(self) -> str:
        """How the agent's moves of this game split into certain moves and guesses ("" before its first)."""
        return agent_summary(self.moves, self.agent_name)

    def certain_moves(self) -> list[Move]:
        """Play every move the solver is sure of: reveal each certainly safe cell, flag each certain mine.

        Repeats until no certain move is left; flags the player placed are left alone.
        """
        played: list[Move] = []
        while not self.is_over:
            probabilities = self.probabilities()
            if probabilities is None:
                break
            hidden = self.grid == HIDDEN
            safe = np.flatnonzero(hidden & (probabilities == 0.0))
            mines = np.flatnonzero(hidden & (probabilities == 1.0))
            if len(safe) == 0 and len(mines) == 0:
                break
            for cell in mines:
                played.append(self._play(int(cell) + self.spec.n_cells, "flag", ASSIST, 1.0))
            for cell in safe:
                if self.is_over:
                    break
                if self.grid.flat[cell] == HIDDEN:
                    played.append(self._play(int(cell), "reveal", ASSIST, 0.0))
        return [move for move in played if move is not None]

    @property
    def agent(self) -> Agent:
        """The agent that plays AI moves, built on first use."""
        if self._agent is None:
            from agents.registry import make_agent

            self._agent = make_agent(self.agent_name, seed=self.seed)
            self._agent.reset()
        return self._agent

    # ------------------------------------------------------------------ internals
    def _checked_cell(self, row: int, col: int) -> int | None:
        """The flat index of a cell the player may act on, or None (with a message) if there is none."""
        if self.is_over:
            self.message = f"the game is over ({self.status}): start a new one"
            return None
        if not (0 <= row < self.spec.rows and 0 <= col < self.spec.cols):
            self.message = f"({row}, {col}) is outside the {self.spec.rows}x{self.spec.cols} board"
            return None
        return row * self.spec.cols + col

    def _play(self, action: int, kind: str, by: str, risk: float | None = None) -> Move | None:
        """Play a flat board action; the move made, or None if the rules refused it."""
        revealed = self.board.step(action, flags=True)
        if revealed < 0:
            return None
        if kind in ("reveal", "chord") and self._started is None:
            self._started = self._clock()
        if self.is_over and self._stopped is None:
            self._stopped = self._clock()
        row, col = divmod(action % self.spec.n_cells, self.spec.cols)
        move = Move(kind, row, col, by, risk, revealed)
        self.moves.append(move)
        return move

    def _after_player_move(self, move: Move | None) -> list[Move]:
        """The player's move, then the solver's certain moves in assist mode; sets the message."""
        if move is None:
            self.message = "nothing to do there"
            return []
        played = [move]
        if self.mode == "assist" and not self.solver_ready():
            self.assist_owed = not self.is_over
            self._owed_after = move
        elif self.mode == "assist":
            played += self.certain_moves()
        self.message = move_message(move, self.status, self.elapsed) + self._assist_note(len(played) - 1)
        return played

    def catch_up(self) -> list[Move]:
        """Play the certain moves put off while the solver compiled, once it is ready (assist mode); the message
        is then what it would have been without the wait."""
        if not self.assist_owed or not self.solver_ready():
            return []
        self.assist_owed = False
        played = self.certain_moves()
        self.message = move_message(self._owed_after, self.status, self.elapsed) + self._assist_note(len(played))
        return played

    def _assist_note(self, assisted: int) -> str:
        """What assist did after a move, to add to its message ("" when nothing)."""
        if self.assist_owed:
            return f"; {ASSIST} waits: {WAITING}"
        if assisted and not self.is_over:
            return f"; {ASSIST} played {assisted} certain move{'s' if assisted > 1 else ''}"
        return ""

    def _unrevealed(self) -> np.ndarray:
        return (self.grid == HIDDEN) | (self.grid == FLAG)

    def _agent_observation(self) -> np.ndarray:
        """The grid as the env shows it to an agent (no flags: they are the player's, not the agent's)."""
        grid = self.board.grid
        grid[grid == FLAG] = HIDDEN
        return grid

    def _agent_info(self) -> dict[str, Any]:
        """The env's info for the position: mines, the reveal mask (int8) and the first-click rule."""
        mask = self._unrevealed().ravel().astype(np.int8)
        return {"mines": self.spec.mines, "action_mask": mask, "first_click": self.spec.first_click}

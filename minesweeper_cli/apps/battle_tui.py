"""The full-screen ``minesweeper battle play``: a person against an AI, or two AIs watched, with the keys of
``minesweeper play``.

:class:`BattleSession` is the battle counterpart of :class:`~minesweeper_cli.apps.session.GameSession`: one battle game
(:class:`~battle.rules.BattleGame`), who plays each seat (a person or an AI of :mod:`battle.players`),
the AI that plays for the person on request, and the message line. :class:`BattleTerminalGame` is a
:class:`~minesweeper_cli.apps.tui.TerminalGame` over it, so the cursor, the keys, the mouse, auto play and its pace,
the board's geometry and the curses drawing (:mod:`minesweeper_cli.apps.curses_screen`) are the single-player game's.
What differs: the screen (both scores, whose turn it is, the bomb when the rule allows it), ``b`` (and the right
button) bombs around the cursor, ``p`` gives the exact mine chance at the cursor and the likeliest cell, the AI's
seat moves by itself (``delay`` seconds after the person's move), and flags and chords, which battle does not
have, only earn a message.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from battle.players import make_battle_agent, seat_observation
from battle.players.position import Position
from battle.rules import DRAW, BattleGame, BattleSpec, analysis_grid
from mine_env.engine.constants import MINE
from mine_env.engine.rng import layout_key
from mine_env.rendering import cell_char
from minesweeper_cli.apps.moves import Move
from minesweeper_cli.apps.tui import TerminalGame

CLAIM_CHARS = ("A", "B")
"""How a mine claimed by player_0 / player_1 is drawn (as in the env's ansi render)."""
PERSON = "you"
BATTLE_HELP = (
    "arrows/hjkl move   space/enter reveal   b bomb (once, when behind)   p mine chance   a AI move",
    "t auto play (+/- speed)   n new game   q quit   mouse: left reveals, right bombs",
)


class BattleSession:
    """One battle game and who plays it.

    Args:
        spec: the board and rules.
        seed: the board of game 1 is the env's layout after ``reset(seed=seed)``; game ``k`` uses ``seed + k - 1``.
        players: the AI names of seats 0 and 1, None for the person.
        helper: the AI that plays for the person on request (``a``, auto play).
    """

    def __init__(self, spec: BattleSpec, seed: int, players: tuple[str | None, str | None], helper: str) -> None:
        self.spec = spec
        self.seed = seed
        self.names = players
        self.helper = helper
        self.mode = "watch" if None not in players else "play"
        self.games = 0
        self.message = ""
        self.last_move = ""
        self._new_board()

    # ------------------------------------------------------------------ the game
    def _new_board(self) -> None:
        self.games += 1
        board_seed = self.seed + self.games - 1
        self.game = BattleGame(self.spec, layout_key(board_seed))
        self.agents = tuple(make_battle_agent(name or self.helper, board_seed) for name in self.names)
        self._position: tuple[int, Position] | None = None
        self.last_move = ""
        self.message = f"game {self.games}: board of seed {board_seed}"

    def new_game(self, spec: BattleSpec | None = None) -> None:
        """The next board (``spec`` if given)."""
        if spec is not None:
            self.spec = spec
        self._new_board()

    @property
    def grid(self) -> np.ndarray:
        """The board with every claimed mine shown as a mine (the curses screen colours it)."""
        return self.game.grid

    @property
    def is_over(self) -> bool:
        return self.game.is_over

    @property
    def status(self) -> str:
        """``won`` / ``lost`` for the person (or player_0 when watching), ``draw``, or ``playing``."""
        if not self.is_over:
            return "playing"
        if self.game.winner == DRAW:
            return "draw"
        seat = self.names.index(None) if self.mode == "play" else 0
        return "won" if self.game.winner == seat else "lost"

    def label(self, seat: int) -> str:
        """``player_0 (A, you)`` or ``player_1 (B, contest)``."""
        return f"player_{seat} ({CLAIM_CHARS[seat]}, {self.names[seat] or PERSON})"

    def ai_to_move(self) -> bool:
        """Whether the seat to move is played by an AI (so it moves by itself)."""
        return not self.is_over and self.names[self.game.mover] is not None

    # ------------------------------------------------------------------ moves
    def click(self, row: int, col: int) -> list[Move]:
        """The person reveals (row, col); a move out of turn or on an open cell only earns a message."""
        return self._person_move(row, col, bomb=False)

    def bomb(self, row: int, col: int) -> list[Move]:
        """The person bombs around (row, col) (the rule must be on, the person behind, the bomb unused)."""
        if not self.spec.bomb:
            self.message = "the bomb rule is off: start the game with --bomb to use it"
            return []
        return self._person_move(row, col, bomb=True)

    def toggle_flag(self, row: int, col: int) -> list[Move]:
        self.message = "battle has no flags: space reveals, b bombs"
        return []

    def chord(self, row: int, col: int) -> list[Move]:
        self.message = "battle has no chords: space reveals one cell, b bombs"
        return []

    def agent_move(self) -> Move | None:
        """The seat to move plays its AI's move (the helper's for the person)."""
        if self.is_over:
            self.message = "the game is over: n starts a new one"
            return None
        seat = self.game.mover
        action = self.agents[seat].act(*seat_observation(self.game, seat))
        by = self.names[seat] or self.helper
        return self._play(action, by)

    def _person_move(self, row: int, col: int, bomb: bool) -> list[Move]:
        if self.is_over:
            self.message = "the game is over: n starts a new one"
            return []
        if self.mode == "watch" or self.names[self.game.mover] is not None:
            self.message = f"it is {self.label(self.game.mover)}'s turn: wait for its move"
            return []
        action = row * self.spec.cols + col + (self.spec.n_cells if bomb else 0)
        move = self._play(action, PERSON)
        return [] if move is None else [move]

    def _play(self, action: int, by: str) -> Move | None:
        seat = self.game.mover
        try:
            claimed = self.game.play(action)
        except ValueError as error:
            self.message = str(error)
            return None
        n = self.spec.n_cells
        row, col = divmod(action % n, self.spec.cols)
        if action >= n:
            text = f"bombs around ({row}, {col}): {claimed} mine(s)"
        else:
            text = f"reveals ({row}, {col}): " + ("a mine, moves again" if claimed else "safe")
        self.last_move = f"{self.label(seat)} {text}"
        self.message = self.outcome() or ""
        return Move("bomb" if action >= n else "reveal", row, col, by)

    # ------------------------------------------------------------------ what the screen says
    def outcome(self) -> str:
        """Who won, once the game is over ("" before)."""
        if not self.is_over:
            return ""
        a, b = self.game.scores
        if self.game.winner == DRAW:
            return f"a draw, {a} - {b}"
        return f"{self.label(self.game.winner)} wins, {a} - {b}"

    def position(self) -> Position:
        """The exact count of the position (as the player to move sees it), counted once per move."""
        if self._position is None or self._position[0] != self.game.moves:
            grid = analysis_grid(self.game.view(self.game.mover))
            self._position = (self.game.moves, Position.of(grid, self.spec.mines))
        return self._position[1]

    def hint(self, cursor: tuple[int, int]) -> str:
        """The exact mine chance at the cursor and the likeliest hidden cell."""
        if self.is_over:
            return "mine chances: none, the game is over"
        position = self.position()
        chances = np.where(position.hidden, position.probabilities, -1.0)
        best = divmod(int(chances.argmax()), self.spec.cols)
        at = f"{chances[cursor]:.1%}" if position.hidden[cursor] else "open"
        return f"mine chance at the cursor {cursor}: {at}   likeliest: {best} {chances[best]:.1%}"


class BattleTerminalGame(TerminalGame):
    """The single-player terminal game's controls over a :class:`BattleSession` (see the module docstring).

    Args:
        session: the battle to show.
        delay: seconds between AI moves (the AI's reply, and auto play).
        auto: start with auto play on (watching two AIs starts with it on).
        clock: seconds as a float, for the pace.
    """

    GAME_OVER_TIP = "n starts a new one"

    def __init__(self, session: BattleSession, delay: float = 0.5, auto: bool = False,
                 clock: Callable[[], float] | None = None) -> None:  # fmt: skip
        kwargs = {} if clock is None else {"clock": clock}
        super().__init__(session, delay, auto, **kwargs)  # type: ignore[arg-type]
        self.session: BattleSession = session  # type: ignore[assignment]
        self.cursor = (session.spec.rows // 2, session.spec.cols // 2)
        self.show_chances = False
        """Whether the line under the board gives the exact mine chances (``p``); the board keeps its cells."""

    def handle_key(self, key: int) -> None:
        if key == ord("b"):
            self.session.bomb(*self.cursor)
        else:
            super().handle_key(key)

    def press(self, cell: tuple[int, int], button: int) -> None:
        """A mouse button on a cell: 1 reveals, 3 bombs; 2 is a chord, which battle does not have."""
        action = {1: self.session.click, 2: self.session.chord, 3: self.session.bomb}.get(button)
        if action is not None:
            action(*cell)

    def tick(self) -> None:
        """The AI's seat moves by itself (watched AIs only under auto play, which ``t`` pauses), and the person's
        too under auto play, ``delay`` seconds apart."""
        session = self.session
        if session.is_over:
            self.auto = False
        elif (self.auto or (session.mode == "play" and session.ai_to_move())) and self._pacer.ready(self.delay):
            self.agent_move()

    def toggle_hints(self) -> None:
        self.show_chances = not self.show_chances
        self.session.message = f"mine chances {'on' if self.show_chances else 'off'} (the line under the board)"

    def legend_segments(self) -> list:
        return []

    def lines(self) -> list[tuple[str, str]]:
        """The screen as (text, style) lines, in the single-player game's layout (three lines above the board)."""
        session, game = self.session, self.session.game
        spec = session.spec
        geometry = self.geometry()
        auto = f"   auto: on, {self.delay:.2f} s a move" if self.auto else ""
        rule = ", bomb rule on" if spec.bomb else ""
        out = [
            (f"Battle minesweeper  {spec.rows}x{spec.cols}, {spec.mines} mines, {spec.to_win} to win{rule}"
             f"   {session.label(0)} vs {session.label(1)}", "title"),
            (f"Score  A {game.scores[0]} - {game.scores[1]} B   Game {session.games}{auto}", "text"),
            self._turn_line(),
        ]  # fmt: skip
        out += [(line, "text") for line in geometry.header_lines()]
        width = geometry.cell_width
        owner = game.owner.reshape(spec.rows, spec.cols)
        grid = session.grid
        for r in range(spec.rows):
            texts = [(CLAIM_CHARS[owner[r, c]] if grid[r, c] == MINE else cell_char(int(grid[r, c]))).rjust(width)
                     for c in range(spec.cols)]  # fmt: skip
            out.append((str(r).rjust(geometry.left - 1) + " " + " ".join(texts), "board"))
        out += [(session.last_move, "text"), (session.message, "text")]
        out += [(session.hint(self.cursor) if self.show_chances else "", "text"), ("", "text")]
        out += [(line, "text") for line in BATTLE_HELP]
        return out

    def _turn_line(self) -> tuple[str, str]:
        session, game = self.session, self.session.game
        if session.is_over:
            return f"*** {session.outcome()} ***   n: new game   q: quit", "won" if session.status != "lost" else "lost"
        bomb = "   b: bomb allowed" if game.can_bomb(game.mover) else ""
        return f"{session.label(game.mover)} to move{bomb}", "title"


def battle_session(spec: BattleSpec, seed: int, opponent: str, seat: int,
                   watch: list[str] | None) -> BattleSession:  # fmt: skip
    """The session of ``battle play``'s options: two AIs watched, or the person in ``seat`` against ``opponent``."""
    if watch:
        return BattleSession(spec, seed, (watch[0], watch[1]), helper=watch[0])
    players: tuple[str | None, str | None] = (None, opponent) if seat == 0 else (opponent, None)
    return BattleSession(spec, seed, players, helper=opponent)


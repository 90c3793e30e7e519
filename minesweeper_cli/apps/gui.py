"""The pygame window of ``minesweeper play --gui``: click to reveal, right-click to flag, and the solver on call.

The board is drawn by :func:`mine_env.rendering.render_rgb`, the drawing of the env's ``render_mode="human"``,
with the solver's mine chances as its hint overlay. Above it: buttons for a new game, one AI move, auto
play, hints, no-guess boards and the three presets, then the counters and the last move (or who won); below
it, the key to the hint colours. :func:`~minesweeper_cli.apps.window_layout.plan_layout` places all of it so that the
window fits the screen, shrinking the cells when a larger board needs it. :class:`GameWindow` reacts to one event
at a time (:meth:`GameWindow.handle`) and draws one frame at a time (:meth:`GameWindow.draw`), so tests step it
headless with SDL's dummy video driver; :func:`run_window` is the loop around it. pygame (the ``gui`` extra)
is imported only once :func:`~minesweeper_cli.apps.window_display.check_display` found a display to open the window on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mine_env.engine.constants import PRESETS
from mine_env.engine.spec import BoardSpec
from mine_env.rendering import render_rgb
from minesweeper_cli.apps.controls import PlayControls
from minesweeper_cli.apps.hints import SAMPLE_CHANCE, Hint, hint_kind, percent
from minesweeper_cli.apps.session import GameSession
from minesweeper_cli.apps.solver_warm_up import WAITING, SolverWarmUp
from minesweeper_cli.apps.window_display import WindowPlacement, desktop_size, import_pygame, open_display
from minesweeper_cli.apps.window_drawing import TEXT_COLOUR, WindowPainter
from minesweeper_cli.apps.window_layout import MARGIN, TEXT_HEIGHT, WindowLayout, plan_layout

WON_COLOUR = (0, 120, 0)
LOST_COLOUR = (200, 0, 0)
FPS = 30
KEY_ACTIONS = {"n": "new", "a": "ai", "t": "auto", "h": "hints", "g": "noguess", "q": "quit"}
"""Keyboard shortcuts of the window, by key name."""
TOOLBAR = (
    ("New game", "new"), ("AI move", "ai"), ("Auto: off", "auto"), ("Hints: off", "hints"),
    ("No guess: off", "noguess"), *((name.capitalize(), f"preset:{name}") for name in PRESETS),
)  # fmt: skip
"""The toolbar's buttons as (label, action); "off" is the wider state of the three toggles. "No guess" deals
no-guess boards (docs/NO_GUESS.md) from a new game on, the presets keep it."""
CONTROLS = "Left click: reveal (on a number: chord)   Right click: flag"


@dataclass
class Button:
    """A labelled rectangle of the toolbar; ``action`` names what a click on it does."""

    label: str
    action: str
    rect: Any


class GameWindow(PlayControls):
    """The window's state, its reactions to events, and what each frame shows (drawn by :class:`WindowPainter`).

    Args:
        session: The game session to play.
        cell_px: Size of a cell in pixels; smaller when the board would not fit the screen otherwise.
        delay: Seconds between agent moves while auto play is on.
        auto: Start with auto play on.
        clock: Seconds as a float, for auto play's pace.
        desktop: The screen's (width, height) in pixels; None asks SDL.
    """

    def __init__(
        self,
        session: GameSession,
        cell_px: int = 32,
        delay: float = 0.5,
        auto: bool = False,
        clock: Callable[[], float] = time.monotonic,
        desktop: tuple[int, int] | None = None,
        warm_up: SolverWarmUp | None = None,
    ) -> None:
        self.pygame = import_pygame()
        open_display(self.pygame)
        self.pygame.font.init()
        self.pygame.display.set_caption("Minesweeper")
        self.painter = WindowPainter(self.pygame)
        self.desktop = desktop or desktop_size(self.pygame)
        super().__init__(session, max(delay, 0.0), auto, clock, warm_up)
        self.wanted_cell_px = cell_px
        self.running = True
        self.hover: tuple[int, int] | None = None
        self.screen: Any = None
        self.placement = WindowPlacement(self.pygame)
        try:
            self._apply(self.plan(session.spec))
        except ValueError:
            self.close()
            raise

    # ------------------------------------------------------------------ geometry
    def plan(self, spec: BoardSpec) -> WindowLayout:
        """The layout for a board of ``spec`` on this screen (a ValueError if it cannot fit)."""
        widths = [self.painter.font.size(label)[0] + 16 for label, _ in TOOLBAR]
        return plan_layout(spec.rows, spec.cols, self.wanted_cell_px, widths, self.desktop)

    def _apply(self, layout: WindowLayout) -> None:
        """Place the buttons and the board as ``layout`` says and size the window to it."""
        rect = self.pygame.Rect
        self.layout = layout
        self.cell_px = layout.cell_px
        boxes = zip(TOOLBAR, layout.buttons, strict=True)
        self.buttons = [Button(label, action, rect(box)) for (label, action), box in boxes]
        self.status_top = layout.status_top
        self.board_rect = rect(layout.board)
        self.hint_font = self.painter.hint_font(layout.cell_px)
        resized = self.screen is not None and self.screen.get_size() != layout.size
        self.screen = self.pygame.display.set_mode(layout.size)
        if resized:
            self.placement.keep_on_screen(layout.size, self.desktop)

    def cell_at(self, pos: tuple[int, int]) -> tuple[int, int] | None:
        """The board cell under a window position, or None."""
        if not self.board_rect.collidepoint(pos):
            return None
        return (pos[1] - self.board_rect.top) // self.cell_px, (pos[0] - self.board_rect.left) // self.cell_px

    def cell_centre(self, row: int, col: int) -> tuple[int, int]:
        """The window position of the middle of a cell (for tests and demos that click)."""
        half = self.cell_px // 2
        return self.board_rect.left + col * self.cell_px + half, self.board_rect.top + row * self.cell_px + half

    def button(self, action: str) -> Button:
        """The toolbar button with that action (``new``, ``ai``, ``auto``, ``hints``, ``preset:NAME``)."""
        return next(button for button in self.buttons if button.action == action)

    # ------------------------------------------------------------------ events
    def handle(self, event: Any) -> None:
        """React to one pygame event; anything unexpected is ignored."""
        pygame = self.pygame
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.MOUSEMOTION:
            self.hover = self.cell_at(event.pos)
        elif event.type == pygame.MOUSEBUTTONUP:
            self._click(event.pos, event.button)
        elif event.type == pygame.KEYDOWN:
            action = KEY_ACTIONS.get(pygame.key.name(event.key))
            if action is not None:
                self.do(action)
            elif event.key == pygame.K_ESCAPE:
                self.running = False

    def _click(self, pos: tuple[int, int], button: int) -> None:
        cell = self.cell_at(pos)
        if cell is not None:
            self.hover = cell
            self.press(cell, button)
            return
        if button != 1:
            return
        for toolbar_button in self.buttons:
            if toolbar_button.rect.collidepoint(pos):
                self.do(toolbar_button.action)
                return

    def do(self, action: str) -> None:
        """Run a toolbar action by name."""
        if action == "new":
            self.new_game()
        elif action == "ai":
            self.agent_move()
        elif action == "auto":
            self.toggle_auto()
        elif action == "hints":
            self.toggle_hints()
        elif action == "noguess":
            self._toggle_no_guess()
        elif action == "quit":
            self.running = False
        elif action.startswith("preset:"):
            self._preset(action.split(":", 1)[1])

    def _toggle_no_guess(self) -> None:
        """No-guess boards on or off, from a new game on the same board (or a message why this board cannot)."""
        try:
            self.session.set_boards("random" if self.session.boards == "no_guess" else "no_guess")
        except ValueError as error:
            self.session.message = str(error)
            return
        self.auto = False

    def _preset(self, name: str) -> None:
        """A new game on a preset board, the window resized to it (or a message if it cannot fit the screen)."""
        rows, cols, mines = PRESETS[name]
        spec = BoardSpec(rows, cols, mines, self.session.spec.first_click)
        try:
            layout = self.plan(spec)
        except ValueError as error:
            self.session.message = str(error)
            return
        self.new_game(spec)
        self.hover = None
        self._apply(layout)

    # ------------------------------------------------------------------ drawing
    def draw(self) -> None:
        """Draw one frame: toolbar, counters, message, board and legend."""
        painter = self.painter
        painter.clear()
        for button in self.buttons:
            painter.button(button.rect, *self._face(button))
        self._draw_board()  # first: a solver failure while computing hints shows in this frame's message
        for line, (text, colour) in enumerate(self.status_lines()):
            painter.write(text, (MARGIN, self.status_top + line * TEXT_HEIGHT), colour)
        painter.legend(self.legend(), self.layout.legend_top)
        self.pygame.display.flip()

    def _face(self, button: Button) -> tuple[str, bool]:
        """A button's label and whether it is drawn pressed: the two toggles show their state."""
        if button.action == "auto":
            return f"Auto: {'on' if self.auto else 'off'}", self.auto
        if button.action == "hints":
            return f"Hints: {'on' if self.show_hints else 'off'}", self.show_hints
        if button.action == "noguess":
            no_guess = self.session.boards == "no_guess"
            return f"No guess: {'on' if no_guess else 'off'}", no_guess
        return button.label, False

    def status_lines(self) -> list[tuple[str, tuple[int, int, int]]]:
        """The two lines above the board as (text, colour): the counters, then who won (at the end) or the message."""
        session = self.session
        counters = (f"Mines left: {session.mines_left}    Time: {session.elapsed:.0f} s    Mode: {session.mode}"
                    f"    Game {session.games}")  # fmt: skip
        if session.is_over:
            colour = WON_COLOUR if session.status == "won" else LOST_COLOUR
            return [(counters, TEXT_COLOUR), (session.outcome(), colour)]
        compiling = "" if self.warm_up is None else self.warm_up.status_line()
        return [(counters, TEXT_COLOUR), (compiling or self._message(), TEXT_COLOUR)]

    def _message(self) -> str:
        """The last move's message, or the mine chance under the mouse while hints are on."""
        if self.show_hints and self.hover is not None and self.session.probabilities() is not None:
            row, col = self.hover
            if self.session.grid[row, col] < 0:
                return f"mine chance at ({row}, {col}): {self.session.risk_of(row, col):.1%}"
        return self.session.message

    def _draw_board(self) -> None:
        session = self.session
        hints = session.frontier_hints() if self.show_hints else None
        chances = None if hints is None else hints.chances
        self.painter.image(render_rgb(session.grid, session.shown_layout, self.cell_px, hints=chances),
                           self.board_rect.topleft)  # fmt: skip
        if chances is not None:
            self._draw_percentages(chances)

    def _draw_percentages(self, chances: np.ndarray) -> None:
        """Write the mine chance (``33%``) on every frontier cell that is neither certainly safe nor a certain mine."""
        if self.hint_font is None:  # cells too small for text: the colours and the hover line tell the chance
            return
        for row, col in np.argwhere(~np.isnan(chances)):
            chance = float(chances[row, col])
            if hint_kind(chance) is Hint.UNCERTAIN:
                self.painter.write_in_cell(percent(chance), self.cell_centre(int(row), int(col)), self.hint_font)

    def legend(self) -> list[tuple[float | None, str]]:
        """The row under the board as (sample, text) pieces: a sample cell tinted for that mine chance (None: text).

        While hints are shown: the key to the colours (safe, an uncertain chance, a mine) and the chance of
        every hidden cell off the numbers' edge; otherwise the controls.
        """
        if not self.show_hints:
            return [(None, CONTROLS)]
        hints = self.session.frontier_hints()
        if hints is None and self.session.status == "playing" and not self.session.solver_ready():
            return [(None, f"Hints: {WAITING}")]
        if hints is None:
            return [(None, _NO_HINTS.get(self.session.status, "Hints: none for this position"))]
        pieces = [(0.0, "safe"), (SAMPLE_CHANCE, "chance of a mine"), (1.0, "mine")]
        if hints.elsewhere is not None:
            pieces.append((None, f"other hidden cells: {percent(hints.elsewhere)}"))
        return pieces

    def close(self) -> None:
        self.pygame.display.quit()
        self.pygame.quit()


_NO_HINTS = {
    "ready": "Hints: mine chances appear after the first click",
    "won": "Hints: none, the game is over",
    "lost": "Hints: none, the game is over",
}
"""The legend while there is no mine chance to show, by the game's status."""


def run_window(
    session: GameSession, cell_px: int = 32, delay: float = 0.5, auto: bool = False, warm_up: SolverWarmUp | None = None
) -> None:
    """Open the window and play until it is closed."""
    window = GameWindow(session, cell_px=cell_px, delay=delay, auto=auto, warm_up=warm_up)
    ticker = window.pygame.time.Clock()
    try:
        while window.running:
            for event in window.pygame.event.get():
                window.handle(event)
            window.tick()
            window.draw()
            ticker.tick(FPS)
    finally:
        window.close()

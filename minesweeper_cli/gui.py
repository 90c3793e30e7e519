"""The pygame window of ``minesweeper play --gui``: click to reveal, right-click to flag, and the solver on call.

The board is drawn by :func:`mine_env.rendering.render_rgb`, the drawing of the env's ``render_mode="human"``,
with the solver's mine chances as its hint overlay. Above it: buttons for a new game, one AI move, auto
play, hints and the three presets, then the mines left, the timer and the last move. :class:`GameWindow`
reacts to one event at a time (:meth:`GameWindow.handle`) and draws one frame at a time
(:meth:`GameWindow.draw`), so tests step it headless with SDL's dummy video driver; :func:`run_window` is
the loop around it. pygame (the ``gui`` extra) is imported only here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mine_env.engine.constants import PRESETS
from mine_env.engine.spec import BoardSpec
from mine_env.rendering import HIDDEN_COLOUR, HIDDEN_DARK, HIDDEN_LIGHT, render_rgb
from minesweeper_cli.session import GameSession, MovePacer

MIN_WIDTH = 460
"""The window is at least this wide, so the buttons fit above a small board."""
MARGIN = 6
BUTTON_HEIGHT = 26
TEXT_HEIGHT = 20
BACKGROUND = HIDDEN_COLOUR
TEXT_COLOUR = (0, 0, 0)
WON_COLOUR = (0, 120, 0)
LOST_COLOUR = (200, 0, 0)
FPS = 30
KEY_ACTIONS = {"n": "new", "a": "ai", "t": "auto", "h": "hints", "q": "quit"}
"""Keyboard shortcuts of the window, by key name."""


def import_pygame() -> Any:
    """pygame, or an ImportError saying how to install it."""
    try:
        import pygame
    except ImportError as error:
        raise ImportError("the window needs pygame: pip install 'minesweeper-rl[gui]'") from error
    return pygame


@dataclass
class Button:
    """A labelled rectangle of the toolbar; ``action`` names what a click on it does."""

    label: str
    action: str
    rect: Any


class GameWindow:
    """The window's state, event handling and drawing.

    Args:
        session: The game session to play.
        cell_px: Size of a cell in pixels.
        delay: Seconds between agent moves while auto play is on.
        auto: Start with auto play on.
        clock: Seconds as a float, for auto play's pace.
    """

    def __init__(
        self,
        session: GameSession,
        cell_px: int = 32,
        delay: float = 0.5,
        auto: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pygame = import_pygame()
        self.pygame.display.init()  # only what the window needs: no audio device is opened
        self.pygame.font.init()
        self.pygame.display.set_caption("Minesweeper")
        self.session = session
        self.cell_px = cell_px
        self.delay = max(delay, 0.0)
        self.auto = auto
        self.show_hints = False
        self.running = True
        self.hover: tuple[int, int] | None = None
        self._pacer = MovePacer(clock)
        self.font = self.pygame.font.Font(None, 22)
        self.small_font = self.pygame.font.Font(None, max(12, cell_px * 9 // 16))
        self._layout_window()

    # ------------------------------------------------------------------ geometry
    def _layout_window(self) -> None:
        """Place the buttons and the board for the current board size and open the window at that size."""
        spec = self.session.spec
        board_width = spec.cols * self.cell_px
        width = max(MIN_WIDTH, board_width + 2 * MARGIN)
        labels = [("New game", "new"), ("AI move", "ai"), ("Auto: off", "auto"), ("Hints: off", "hints")]
        labels += [(name.capitalize(), f"preset:{name}") for name in PRESETS]
        self.buttons: list[Button] = []
        x, y = MARGIN, MARGIN
        for label, action in labels:
            button_width = self.font.size(label)[0] + 16  # "off" is wider than "on"
            if x + button_width > width - MARGIN:
                x, y = MARGIN, y + BUTTON_HEIGHT + MARGIN
            self.buttons.append(Button(label, action, self.pygame.Rect(x, y, button_width, BUTTON_HEIGHT)))
            x += button_width + MARGIN
        self.status_top = y + BUTTON_HEIGHT + MARGIN
        board_top = self.status_top + 2 * TEXT_HEIGHT + MARGIN
        self.board_rect = self.pygame.Rect((width - board_width) // 2, board_top, board_width, spec.rows * self.cell_px)
        self.screen = self.pygame.display.set_mode((width, self.board_rect.bottom + MARGIN))

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
            action = {1: self.session.click, 2: self.session.chord, 3: self.session.toggle_flag}.get(button)
            if action is not None:
                action(*cell)
            return
        if button != 1:
            return
        for toolbar_button in self.buttons:
            if toolbar_button.rect.collidepoint(pos):
                self.do(toolbar_button.action)
                return

    def do(self, action: str) -> None:
        """Run a toolbar action by name."""
        session = self.session
        if action == "new":
            session.new_game()
        elif action == "ai":
            session.agent_move()
        elif action == "auto":
            self.auto = not self.auto
            session.message = f"auto play {'on' if self.auto else 'off'}"
        elif action == "hints":
            self.show_hints = not self.show_hints
            session.message = f"hints {'on' if self.show_hints else 'off'}"
        elif action == "quit":
            self.running = False
        elif action.startswith("preset:"):
            rows, cols, mines = PRESETS[action.split(":", 1)[1]]
            session.new_game(BoardSpec(rows, cols, mines, session.spec.first_click))
            self.hover = None
            self._layout_window()

    def update(self) -> None:
        """Play the agent's next move when auto play is on and its delay has passed."""
        if self.auto and not self.session.is_over and self._pacer.ready(self.delay):
            self.session.agent_move()

    # ------------------------------------------------------------------ drawing
    def draw(self) -> None:
        """Draw one frame: toolbar, counters, message and board."""
        self.screen.fill(BACKGROUND)
        for button in self.buttons:
            self._draw_button(button)
        self._draw_board()  # first: a solver failure while computing hints shows in this frame's message
        self._draw_status()
        self.pygame.display.flip()

    def _draw_button(self, button: Button) -> None:
        pygame, rect = self.pygame, button.rect
        label = button.label
        if button.action == "auto":
            label = f"Auto: {'on' if self.auto else 'off'}"
        elif button.action == "hints":
            label = f"Hints: {'on' if self.show_hints else 'off'}"
        pressed = (button.action == "auto" and self.auto) or (button.action == "hints" and self.show_hints)
        pygame.draw.rect(self.screen, HIDDEN_COLOUR, rect)
        light, dark = (HIDDEN_DARK, HIDDEN_LIGHT) if pressed else (HIDDEN_LIGHT, HIDDEN_DARK)
        pygame.draw.lines(self.screen, light, False, [rect.bottomleft, rect.topleft, rect.topright], 2)
        pygame.draw.lines(self.screen, dark, False, [rect.topright, rect.bottomright, rect.bottomleft], 2)
        text = self.font.render(label, True, TEXT_COLOUR)
        self.screen.blit(text, text.get_rect(center=rect.center))

    def _draw_status(self) -> None:
        session = self.session
        counters = f"Mines left: {session.mines_left}    Time: {session.elapsed:.0f} s    Mode: {session.mode}"
        colour = TEXT_COLOUR
        if session.status == "won":
            counters, colour = f"YOU WON in {session.elapsed:.0f} s!  " + counters, WON_COLOUR
        elif session.status == "lost":
            counters, colour = "YOU LOST!  " + counters, LOST_COLOUR
        self.screen.blit(self.font.render(counters, True, colour), (MARGIN, self.status_top))
        self.screen.blit(self.font.render(self._message(), True, TEXT_COLOUR), (MARGIN, self.status_top + TEXT_HEIGHT))

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
        frame = render_rgb(session.grid, session.shown_layout, self.cell_px, hints=None if hints is None else hints[0])
        surface = self.pygame.surfarray.make_surface(np.ascontiguousarray(frame.transpose(1, 0, 2)))
        self.screen.blit(surface, self.board_rect.topleft)
        if hints is not None:
            self._draw_percentages(hints[0])

    def _draw_percentages(self, chances: np.ndarray) -> None:
        """Write the mine chance (in %) on every frontier cell that is neither certain safe nor a certain mine."""
        for row, col in np.argwhere((chances > 0.0) & (chances < 1.0)):
            percent = min(max(round(float(chances[row, col]) * 100), 1), 99)
            text = self.small_font.render(str(percent), True, TEXT_COLOUR)
            self.screen.blit(text, text.get_rect(center=self.cell_centre(int(row), int(col))))

    def close(self) -> None:
        self.pygame.display.quit()
        self.pygame.quit()


def run_window(session: GameSession, cell_px: int = 32, delay: float = 0.5, auto: bool = False) -> None:
    """Open the window and play until it is closed."""
    window = GameWindow(session, cell_px=cell_px, delay=delay, auto=auto)
    ticker = window.pygame.time.Clock()
    try:
        while window.running:
            for event in window.pygame.event.get():
                window.handle(event)
            window.update()
            window.draw()
            ticker.tick(FPS)
    finally:
        window.close()

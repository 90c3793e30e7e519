"""The pygame window of ``minesweeper play --gui``: click to reveal, right-click to flag, and the solver on call.

The board is drawn by :func:`mine_env.rendering.render_rgb`, the drawing of the env's ``render_mode="human"``,
with the solver's mine chances as its hint overlay. Above it: buttons for a new game, one AI move, auto
play, hints and the three presets, then the counters and the last move (or who won); below it, the key to
the hint colours. :func:`plan_layout` places all of it so that the window fits the screen, shrinking the
cells when a larger board needs it. :class:`GameWindow` reacts to one event at a time
(:meth:`GameWindow.handle`) and draws one frame at a time (:meth:`GameWindow.draw`), so tests step it
headless with SDL's dummy video driver; :func:`run_window` is the loop around it. pygame (the ``gui`` extra)
is imported only here, and only once :func:`check_display` found a display to open the window on.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mine_env.engine.constants import HIDDEN, PRESETS
from mine_env.engine.spec import BoardSpec
from mine_env.rendering import HIDDEN_COLOUR, HIDDEN_DARK, HIDDEN_LIGHT, draw_cell, draw_hint, render_rgb
from minesweeper_cli.controls import PlayControls
from minesweeper_cli.hints import SAMPLE_CHANCE, Hint, hint_kind, percent
from minesweeper_cli.session import GameSession

MIN_WIDTH = 460
"""The window is at least this wide (when the screen allows), so the buttons fit above a small board."""
MIN_CELL_PX = 10
"""The smallest cell the window shrinks to so that a large board fits the screen."""
SCREEN_RESERVE = (16, 96)
"""Pixels of the screen's width and height the window leaves to its frame, title bar and the desktop's panels."""
TITLE_BAR_PX = 32
"""Room kept above the window for its title bar when the window is moved back onto the screen."""
MARGIN = 6
BUTTON_HEIGHT = 26
TEXT_HEIGHT = 20
LEGEND_HEIGHT = 28
"""The row under the board: the key to the hint colours, or the controls while hints are off."""
FONT_PX = 22
SMALLEST_FONT_PX = 12
BACKGROUND = HIDDEN_COLOUR
TEXT_COLOUR = (0, 0, 0)
WON_COLOUR = (0, 120, 0)
LOST_COLOUR = (200, 0, 0)
FPS = 30
KEY_ACTIONS = {"n": "new", "a": "ai", "t": "auto", "h": "hints", "q": "quit"}
"""Keyboard shortcuts of the window, by key name."""
TOOLBAR = (
    ("New game", "new"), ("AI move", "ai"), ("Auto: off", "auto"), ("Hints: off", "hints"),
    *((name.capitalize(), f"preset:{name}") for name in PRESETS),
)  # fmt: skip
"""The toolbar's buttons as (label, action); "off" is the wider state of the two toggles."""
HEADLESS_DRIVERS = ("offscreen", "dummy")
"""SDL video drivers that draw into memory: no window a person could see."""
CONTROLS = "Left click: reveal (on a number: chord)   Right click: flag"


def check_display(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> None:
    """Raise a ValueError saying what to do when no window can open here, before pygame is even imported.

    On Linux and the BSDs a window needs an X11 or a Wayland display. Left alone without one, SDL falls back
    to drawing off screen, and the game would run on with nothing to see. A video driver named in
    ``SDL_VIDEODRIVER`` other than x11 and wayland (``dummy`` in the tests, ``kmsdrm`` on a console) is the
    user's choice and is left to SDL.
    """
    named = {driver.strip() for driver in environ.get("SDL_VIDEODRIVER", "").split(",") if driver.strip()}
    if named - {"x11", "wayland"} or not platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return
    raise ValueError("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset): play in the "
                     "terminal without --gui, or run it in a desktop session (over ssh: ssh -X)")  # fmt: skip


def import_pygame() -> Any:
    """pygame, or an ImportError saying how to install it."""
    try:
        import pygame
    except ImportError as error:
        raise ImportError("the window needs pygame: pip install 'minesweeper-rl[gui]'") from error
    return pygame


def open_display(pygame: Any, environ: Mapping[str, str] = os.environ) -> None:
    """Start pygame's display, or raise a ValueError when SDL found no screen to show a window on."""
    try:
        pygame.display.init()  # only what the window needs: no audio device is opened
    except pygame.error as error:
        raise ValueError(f"cannot open the window: {error}") from error
    driver = pygame.display.get_driver()
    if driver in HEADLESS_DRIVERS and driver not in environ.get("SDL_VIDEODRIVER", ""):
        pygame.display.quit()
        raise ValueError(f"no display to open the window on (SDL fell back to its {driver!r} video driver): "
                         "play in the terminal without --gui, or check DISPLAY / WAYLAND_DISPLAY")  # fmt: skip


# ---------------------------------------------------------------------- where everything lies
@dataclass(frozen=True)
class WindowLayout:
    """Where everything lies in the window, in pixels; rectangles are (left, top, width, height).

    Attributes:
        cell_px: The size of a cell.
        size: The window's (width, height).
        buttons: One rectangle per toolbar button, in the order of the widths given to :func:`plan_layout`.
        status_top: The top of the two text lines above the board (counters, then the message).
        board: The board's rectangle.
        legend_top: The top of the legend row under the board.
    """

    cell_px: int
    size: tuple[int, int]
    buttons: tuple[tuple[int, int, int, int], ...]
    status_top: int
    board: tuple[int, int, int, int]
    legend_top: int


def plan_layout(
    rows: int, cols: int, cell_px: int, button_widths: Sequence[int], desktop: tuple[int, int]
) -> WindowLayout:
    """The window for a ``rows`` x ``cols`` board on a screen of ``desktop`` pixels (width, height).

    Cells are ``cell_px`` pixels, or as much smaller (down to :data:`MIN_CELL_PX`) as it takes for the whole
    window to fit the screen less :data:`SCREEN_RESERVE`; the legend row keeps the board off the bottom edge.

    Raises:
        ValueError: If the board does not fit even with the smallest cells.
    """
    room = (desktop[0] - SCREEN_RESERVE[0], desktop[1] - SCREEN_RESERVE[1])
    for size in range(cell_px, MIN_CELL_PX - 1, -1):
        layout = _layout_with_cells(rows, cols, size, button_widths, room[0])
        if layout.size[0] <= room[0] and layout.size[1] <= room[1]:
            return layout
    raise ValueError(f"a {rows}x{cols} board does not fit the {desktop[0]}x{desktop[1]} screen even with "
                     f"{MIN_CELL_PX}-pixel cells: play it in the terminal without --gui")  # fmt: skip


def _layout_with_cells(
    rows: int, cols: int, cell_px: int, button_widths: Sequence[int], room_width: int
) -> WindowLayout:
    """The layout with cells of ``cell_px``: the toolbar wraps to the window's width."""
    board_width = cols * cell_px
    width = max(min(MIN_WIDTH, room_width), board_width + 2 * MARGIN)
    buttons = []
    x, y = MARGIN, MARGIN
    for button_width in button_widths:
        if x + button_width > width - MARGIN and x > MARGIN:
            x, y = MARGIN, y + BUTTON_HEIGHT + MARGIN
        buttons.append((x, y, button_width, BUTTON_HEIGHT))
        x += button_width + MARGIN
    status_top = y + BUTTON_HEIGHT + MARGIN
    board = ((width - board_width) // 2, status_top + 2 * TEXT_HEIGHT + MARGIN, board_width, rows * cell_px)
    legend_top = board[1] + board[3] + MARGIN
    return WindowLayout(cell_px, (width, legend_top + LEGEND_HEIGHT + MARGIN), tuple(buttons), status_top, board,
                        legend_top)  # fmt: skip


@dataclass
class Button:
    """A labelled rectangle of the toolbar; ``action`` names what a click on it does."""

    label: str
    action: str
    rect: Any


class GameWindow(PlayControls):
    """The window's state, event handling and drawing.

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
    ) -> None:
        self.pygame = import_pygame()
        open_display(self.pygame)
        self.pygame.font.init()
        self.pygame.display.set_caption("Minesweeper")
        self.desktop = desktop or _desktop_size(self.pygame)
        super().__init__(session, max(delay, 0.0), auto, clock)
        self.wanted_cell_px = cell_px
        self.running = True
        self.hover: tuple[int, int] | None = None
        self._fonts: dict[int, Any] = {}
        self.font = self._font(FONT_PX)
        self.screen: Any = None
        self._handle: Any = None
        try:
            self._apply(self.plan(session.spec))
        except ValueError:
            self.close()
            raise

    # ------------------------------------------------------------------ geometry
    def plan(self, spec: BoardSpec) -> WindowLayout:
        """The layout for a board of ``spec`` on this screen (a ValueError if it cannot fit)."""
        widths = [self.font.size(label)[0] + 16 for label, _ in TOOLBAR]
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
        self.hint_font = self._hint_font(layout.cell_px)
        resized = self.screen is not None and self.screen.get_size() != layout.size
        self.screen = self.pygame.display.set_mode(layout.size)
        if resized:
            self._keep_on_screen()

    def _keep_on_screen(self) -> None:
        """Move the window back onto the screen when growing pushed it past the right or the bottom edge.

        SDL keeps a window's top-left corner when the window grows.
        """
        corner = self.position
        if corner is None:
            return
        width, height = self.screen.get_size()
        right, bottom = self.desktop[0] - width, self.desktop[1] - height - (SCREEN_RESERVE[1] - TITLE_BAR_PX)
        inside = (max(0, min(corner[0], right)), max(TITLE_BAR_PX, min(corner[1], bottom)))
        if inside != corner:
            self.move_to(inside)

    @property
    def position(self) -> tuple[int, int] | None:
        """The window's top-left corner on the screen, or None where pygame cannot tell."""
        handle = self._window_handle()
        return None if handle is None else tuple(handle.position)

    def move_to(self, corner: tuple[int, int]) -> None:
        """Put the window's top-left corner at ``corner`` on the screen (where pygame can)."""
        handle = self._window_handle()
        if handle is not None:
            handle.position = corner

    def _window_handle(self) -> Any | None:
        """pygame's SDL2 object for the window, made once: SDL keeps a pointer to it, so it must live on.

        None with a pygame build that lacks it (best effort: the window then stays where SDL puts it).
        """
        if self._handle is None:
            try:
                from pygame._sdl2.video import Window

                self._handle = Window.from_display_module()
            except (ImportError, AttributeError, self.pygame.error):
                return None
        return self._handle

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
        elif action == "quit":
            self.running = False
        elif action.startswith("preset:"):
            self._preset(action.split(":", 1)[1])

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
        self.screen.fill(BACKGROUND)
        for button in self.buttons:
            self._draw_button(button)
        self._draw_board()  # first: a solver failure while computing hints shows in this frame's message
        self._draw_status()
        self._draw_legend()
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

    def status_lines(self) -> list[tuple[str, tuple[int, int, int]]]:
        """The two lines above the board as (text, colour): the counters, then who won (at the end) or the message."""
        session = self.session
        counters = (f"Mines left: {session.mines_left}    Time: {session.elapsed:.0f} s    Mode: {session.mode}"
                    f"    Game {session.games}")  # fmt: skip
        if session.is_over:
            colour = WON_COLOUR if session.status == "won" else LOST_COLOUR
            return [(counters, TEXT_COLOUR), (session.outcome(), colour)]
        return [(counters, TEXT_COLOUR), (self._message(), TEXT_COLOUR)]

    def _draw_status(self) -> None:
        for line, (text, colour) in enumerate(self.status_lines()):
            self._write(text, (MARGIN, self.status_top + line * TEXT_HEIGHT), colour)

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
        frame = render_rgb(session.grid, session.shown_layout, self.cell_px, hints=chances)
        surface = self.pygame.surfarray.make_surface(np.ascontiguousarray(frame.transpose(1, 0, 2)))
        self.screen.blit(surface, self.board_rect.topleft)
        if chances is not None:
            self._draw_percentages(chances)

    def _draw_percentages(self, chances: np.ndarray) -> None:
        """Write the mine chance (``33%``) on every frontier cell that is neither certainly safe nor a certain mine."""
        if self.hint_font is None:  # cells too small for text: the colours and the hover line tell the chance
            return
        for row, col in np.argwhere(~np.isnan(chances)):
            chance = float(chances[row, col])
            if hint_kind(chance) is Hint.UNCERTAIN:
                self._write_in_cell(percent(chance), self.cell_centre(int(row), int(col)))

    def _write_in_cell(self, text: str, centre: tuple[int, int]) -> None:
        rendered = self.hint_font.render(text, True, TEXT_COLOUR)
        self.screen.blit(rendered, rendered.get_rect(center=centre))

    def legend(self) -> list[tuple[float | None, str]]:
        """The row under the board as (sample, text) pieces: a sample cell tinted for that mine chance (None: text).

        While hints are shown: the key to the colours (safe, an uncertain chance, a mine) and the chance of
        every hidden cell off the numbers' edge; otherwise the controls.
        """
        if not self.show_hints:
            return [(None, CONTROLS)]
        hints = self.session.frontier_hints()
        if hints is None:
            return [(None, _NO_HINTS.get(self.session.status, "Hints: none for this position"))]
        pieces = [(0.0, "safe"), (SAMPLE_CHANCE, "chance of a mine"), (1.0, "mine")]
        if hints.elsewhere is not None:
            pieces.append((None, f"other hidden cells: {percent(hints.elsewhere)}"))
        return pieces

    def _draw_legend(self) -> None:
        x, top = MARGIN, self.layout.legend_top
        sample_px = LEGEND_HEIGHT
        for chance, text in self.legend():
            if chance is not None:
                self._draw_sample(chance, (x, top), sample_px)
                x += sample_px + 4
            x += self._write(text, (x, top + (LEGEND_HEIGHT - self.font.get_height()) // 2), TEXT_COLOUR) + 14

    def _draw_sample(self, chance: float, corner: tuple[int, int], size: int) -> None:
        """A hidden cell tinted as the board tints a cell with that mine chance, with its percentage."""
        tile = np.empty((size, size, 3), dtype=np.uint8)
        draw_cell(tile, HIDDEN, None)
        draw_hint(tile, chance)
        self.screen.blit(self.pygame.surfarray.make_surface(tile.transpose(1, 0, 2)), corner)
        if hint_kind(chance) is Hint.UNCERTAIN:
            font = self._hint_font(size)
            if font is not None:
                rendered = font.render(percent(chance), True, TEXT_COLOUR)
                self.screen.blit(rendered, rendered.get_rect(center=(corner[0] + size // 2, corner[1] + size // 2)))

    def _write(self, text: str, corner: tuple[int, int], colour: tuple[int, int, int]) -> int:
        """Write ``text`` from ``corner``, in a smaller font if it would pass the window's right edge; its width."""
        room = self.screen.get_width() - MARGIN - corner[0]
        size = FONT_PX
        while self._font(size).size(text)[0] > room and size > SMALLEST_FONT_PX:
            size -= 1
        rendered = self._font(size).render(text, True, colour)
        self.screen.blit(rendered, corner)
        return rendered.get_width()

    def _font(self, size: int) -> Any:
        if size not in self._fonts:
            self._fonts[size] = self.pygame.font.Font(None, size)
        return self._fonts[size]

    def _hint_font(self, cell_px: int) -> Any | None:
        """The largest font whose ``99%`` fits a cell, or None when the cell is too small for legible text."""
        inside = cell_px - 4
        for size in range(cell_px * 5 // 8, 9, -1):
            if self._font(size).size("99%")[0] <= inside:
                return self._font(size)
        return None

    def close(self) -> None:
        self.pygame.display.quit()
        self.pygame.quit()


_NO_HINTS = {
    "ready": "Hints: mine chances appear after the first click",
    "won": "Hints: none, the game is over",
    "lost": "Hints: none, the game is over",
}
"""The legend while there is no mine chance to show, by the game's status."""


def _desktop_size(pygame: Any) -> tuple[int, int]:
    """The size in pixels of the first desktop (the screen the window opens on), or of the display mode."""
    sizes = pygame.display.get_desktop_sizes()
    if sizes:
        return int(sizes[0][0]), int(sizes[0][1])
    info = pygame.display.Info()
    return info.current_w, info.current_h


def run_window(session: GameSession, cell_px: int = 32, delay: float = 0.5, auto: bool = False) -> None:
    """Open the window and play until it is closed."""
    window = GameWindow(session, cell_px=cell_px, delay=delay, auto=auto)
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

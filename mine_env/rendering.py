"""Drawing a board: text with coordinates, RGB images with the familiar colours, and a pygame window.

Every function takes the player's grid (codes of :mod:`mine_env.engine.constants`) and, once the game is over,
the layout, so the drawing shows every mine; the shown mine (code MINE) is the one that lost the game. pygame is
imported only when a window is opened. The env's ``render_mode="human"`` and the ``minesweeper play --gui`` window
draw boards with the same :func:`render_rgb`; the window adds the solver's mine chances with its ``hints`` overlay.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN, MINE
from mine_env.engine.geometry import is_revealed

NUMBER_COLOURS: dict[int, tuple[int, int, int]] = {
    1: (0, 0, 255),
    2: (0, 128, 0),
    3: (255, 0, 0),
    4: (0, 0, 128),
    5: (128, 0, 0),
    6: (0, 128, 128),
    7: (0, 0, 0),
    8: (128, 128, 128),
}
HIDDEN_COLOUR = (189, 189, 189)
HIDDEN_LIGHT = (255, 255, 255)
HIDDEN_DARK = (123, 123, 123)
REVEALED_COLOUR = (214, 214, 214)
GRID_COLOUR = (123, 123, 123)
EXPLODED_COLOUR = (255, 0, 0)
WRONG_FLAG_COLOUR = (255, 160, 160)
SAFE_HINT_COLOUR = (40, 200, 40)
RISKY_HINT_COLOUR = (240, 200, 0)
MINE_HINT_COLOUR = (230, 30, 30)
HINT_OPACITY = 0.55

# 5x7 bitmaps of the digits 1..8, one string per row.
_DIGITS: dict[int, tuple[str, ...]] = {
    1: ("..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."),
    2: (".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"),
    3: ("####.", "....#", "....#", ".###.", "....#", "....#", "####."),
    4: ("...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."),
    5: ("#####", "#....", "####.", "....#", "....#", "#...#", ".###."),
    6: (".###.", "#....", "#....", "####.", "#...#", "#...#", ".###."),
    7: ("#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."),
    8: (".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."),
}


def render_ansi(grid: np.ndarray, layout: np.ndarray | None = None) -> str:
    """The board as text: column numbers on top, row numbers on the left.

    ``.`` hidden, ``F`` flag, ``X`` a shown mine (the one that lost), ``*`` a hidden mine (drawn only
    when ``layout`` is given, once the game is over), ``' '`` an empty cell, ``1``-``8`` counts.
    """
    rows, cols = grid.shape
    width = len(str(max(cols - 1, 0)))
    row_width = len(str(max(rows - 1, 0)))
    header = " " * (row_width + 1) + " ".join(str(c).rjust(width) for c in range(cols))
    lines = [header]
    mines = np.zeros(grid.shape, dtype=bool) if layout is None else layout
    for r in range(rows):
        cells = [cell_char(int(grid[r, c]), bool(mines[r, c])).rjust(width) for c in range(cols)]
        lines.append(str(r).rjust(row_width) + " " + " ".join(cells))
    return "\n".join(lines) + "\n"


def cell_char(code: int, mine: bool = False) -> str:
    """The character of one cell in text drawings (see :func:`render_ansi`); ``mine`` from the shown layout."""
    if code == MINE:
        return "X"
    if code == FLAG:
        return "F"
    if code == HIDDEN:
        return "*" if mine else "."
    return str(code) if code > 0 else " "


def render_rgb(
    grid: np.ndarray, layout: np.ndarray | None = None, cell_px: int = 24, *, hints: np.ndarray | None = None
) -> np.ndarray:
    """The board as an RGB image, uint8 (rows * cell_px, cols * cell_px, 3).

    ``hints`` (float (rows, cols), NaN where no hint is wanted) tints cells by their mine chance, see
    :func:`draw_hint`.
    """
    if cell_px < 8:
        raise ValueError(f"cell_px must be at least 8 to draw the digits, got {cell_px}")
    rows, cols = grid.shape
    if hints is not None and hints.shape != grid.shape:
        raise ValueError(f"hints must have the grid's shape {grid.shape}, got {hints.shape}")
    image = np.empty((rows * cell_px, cols * cell_px, 3), dtype=np.uint8)
    for r in range(rows):
        for c in range(cols):
            tile = image[r * cell_px : (r + 1) * cell_px, c * cell_px : (c + 1) * cell_px]
            mine = None if layout is None else bool(layout[r, c])
            draw_cell(tile, int(grid[r, c]), mine)
            if hints is not None and not np.isnan(hints[r, c]):
                draw_hint(tile, float(hints[r, c]))
    return image


def hint_colour(probability: float) -> tuple[int, int, int]:
    """The colour of a mine chance: green when certainly safe, through yellow, to red for a certain mine."""
    p = min(max(probability, 0.0), 1.0)
    if p < 0.5:
        low, high, t = SAFE_HINT_COLOUR, RISKY_HINT_COLOUR, 2 * p
    else:
        low, high, t = RISKY_HINT_COLOUR, MINE_HINT_COLOUR, 2 * p - 1
    return tuple(round(a + (b - a) * t) for a, b in zip(low, high, strict=True))  # type: ignore[return-value]


def draw_hint(tile: np.ndarray, probability: float) -> None:
    """Tint the inside of a cell (its bevel stays visible) with the colour of its mine chance."""
    edge = max(1, tile.shape[0] // 8)
    inside = tile[edge:-edge, edge:-edge]
    tint = np.array(hint_colour(probability), dtype=np.float32)
    inside[:] = np.round(inside * (1 - HINT_OPACITY) + tint * HINT_OPACITY).astype(np.uint8)


def draw_cell(tile: np.ndarray, code: int, mine: bool | None) -> None:
    """Draw one cell into ``tile`` (a square view of the image).

    ``mine`` is whether the cell holds a mine, or None while the layout is not shown.
    """
    if is_revealed(code):
        _draw_flat(tile, REVEALED_COLOUR)
        if code > 0:
            _draw_digit(tile, code)
    elif code == MINE or (code == HIDDEN and mine):
        _draw_flat(tile, EXPLODED_COLOUR if code == MINE else REVEALED_COLOUR)
        _draw_mine(tile)
    elif code == FLAG and mine is False:
        _draw_flat(tile, WRONG_FLAG_COLOUR)
        _draw_flag(tile)
    else:
        _draw_raised(tile)
        if code == FLAG:
            _draw_flag(tile)


def _draw_flat(tile: np.ndarray, colour: tuple[int, int, int]) -> None:
    tile[:] = colour
    tile[-1, :] = GRID_COLOUR
    tile[:, -1] = GRID_COLOUR


def _draw_raised(tile: np.ndarray) -> None:
    edge = max(1, tile.shape[0] // 8)
    tile[:] = HIDDEN_COLOUR
    tile[:edge, :] = HIDDEN_LIGHT
    tile[:, :edge] = HIDDEN_LIGHT
    tile[-edge:, :] = HIDDEN_DARK
    tile[:, -edge:] = HIDDEN_DARK


def _draw_digit(tile: np.ndarray, digit: int) -> None:
    size = tile.shape[0]
    scale = max(1, (size * 2 // 3) // 7)
    bitmap = np.array([[ch == "#" for ch in row] for row in _DIGITS[digit]])
    glyph = np.kron(bitmap, np.ones((scale, scale), dtype=bool))
    top = (size - glyph.shape[0]) // 2
    left = (size - glyph.shape[1]) // 2
    tile[top : top + glyph.shape[0], left : left + glyph.shape[1]][glyph] = NUMBER_COLOURS[digit]


def _disc(size: int, radius: float) -> np.ndarray:
    centre = (size - 1) / 2
    yy, xx = np.mgrid[:size, :size]
    return (yy - centre) ** 2 + (xx - centre) ** 2 <= radius**2


def _draw_mine(tile: np.ndarray) -> None:
    size = tile.shape[0]
    tile[_disc(size, size * 0.28)] = (0, 0, 0)
    middle = size // 2
    spike = max(1, size // 12)
    tile[middle - spike : middle + spike, size // 6 : size - size // 6] = (0, 0, 0)
    tile[size // 6 : size - size // 6, middle - spike : middle + spike] = (0, 0, 0)
    glint = max(1, size // 10)
    tile[middle - 2 * glint : middle - glint, middle - 2 * glint : middle - glint] = (255, 255, 255)


def _draw_flag(tile: np.ndarray) -> None:
    size = tile.shape[0]
    pole = size // 2
    width = max(1, size // 12)
    tile[size // 5 : size * 3 // 4, pole : pole + width] = (0, 0, 0)
    tile[size * 3 // 4 - width : size * 3 // 4, size // 4 : size * 3 // 4] = (0, 0, 0)
    for row in range(size // 5, size // 2):
        half = (row - size // 5) if row < (size // 5 + size // 2) // 2 else (size // 2 - row)
        tile[row, max(pole - half * 2, size // 6) : pole] = (255, 0, 0)


class PygameWindow:
    """A window that shows RGB frames, opened on first use (pygame is an optional extra)."""

    def __init__(self, title: str = "Minesweeper", fps: int = 30) -> None:
        self.title = title
        self.fps = fps
        self._pygame: Any = None
        self._screen: Any = None
        self._clock: Any = None

    def show(self, frame: np.ndarray) -> None:
        """Draw ``frame`` (uint8 HxWx3) and keep the window responsive."""
        pygame = self._ensure_open(frame.shape[1], frame.shape[0])
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(frame.transpose(1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(self.fps)

    def _ensure_open(self, width: int, height: int) -> Any:
        if self._pygame is None:
            try:
                import pygame
            except ImportError as error:
                raise ImportError(
                    "render_mode='human' needs pygame: pip install 'minesweeper-rl[gui]'"
                ) from error
            pygame.display.init()  # the display alone: pygame.init() would open the sound device too (ALSA errors)
            pygame.display.set_caption(self.title)
            self._pygame = pygame
            self._clock = pygame.time.Clock()
        if self._screen is None or self._screen.get_size() != (width, height):
            self._screen = self._pygame.display.set_mode((width, height))
        return self._pygame

    def close(self) -> None:
        """Close the window if it is open."""
        if self._pygame is not None:
            self._pygame.display.quit()
            self._pygame.quit()
            self._pygame = None
            self._screen = None

"""How the window of ``minesweeper play --gui`` puts things on its surface with pygame.

:class:`WindowPainter` draws what :class:`~minesweeper_cli.apps.gui.GameWindow` decides to show: raised toolbar
buttons, text that shrinks to fit the window's width, the board image, a hint's percentage in its cell, and
the legend's sample cells tinted as the board tints a cell with that mine chance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mine_env.engine.constants import HIDDEN
from mine_env.rendering import HIDDEN_COLOUR, HIDDEN_DARK, HIDDEN_LIGHT, draw_cell, draw_hint
from minesweeper_cli.apps.hints import Hint, hint_kind, percent
from minesweeper_cli.apps.window_layout import LEGEND_HEIGHT, MARGIN

FONT_PX = 22
SMALLEST_FONT_PX = 12
BACKGROUND = HIDDEN_COLOUR
TEXT_COLOUR = (0, 0, 0)


class WindowPainter:
    """Draws on the window's display surface; fonts are made once per size.

    Args:
        pygame: The pygame module, its display and font modules started.
    """

    def __init__(self, pygame: Any) -> None:
        self.pygame = pygame
        self._fonts: dict[int, Any] = {}
        self.font = self.font_of(FONT_PX)

    @property
    def screen(self) -> Any:
        return self.pygame.display.get_surface()

    def font_of(self, size: int) -> Any:
        """pygame's default font at ``size`` pixels."""
        if size not in self._fonts:
            self._fonts[size] = self.pygame.font.Font(None, size)
        return self._fonts[size]

    def hint_font(self, cell_px: int) -> Any | None:
        """The largest font whose ``99%`` fits a cell, or None when the cell is too small for legible text."""
        inside = cell_px - 4
        for size in range(cell_px * 5 // 8, 9, -1):
            if self.font_of(size).size("99%")[0] <= inside:
                return self.font_of(size)
        return None

    def clear(self) -> None:
        self.screen.fill(BACKGROUND)

    def button(self, rect: Any, label: str, pressed: bool) -> None:
        """A raised button (sunken while ``pressed``) with its label in the middle."""
        draw, screen = self.pygame.draw, self.screen
        draw.rect(screen, HIDDEN_COLOUR, rect)
        light, dark = (HIDDEN_DARK, HIDDEN_LIGHT) if pressed else (HIDDEN_LIGHT, HIDDEN_DARK)
        draw.lines(screen, light, False, [rect.bottomleft, rect.topleft, rect.topright], 2)
        draw.lines(screen, dark, False, [rect.topright, rect.bottomright, rect.bottomleft], 2)
        text = self.font.render(label, True, TEXT_COLOUR)
        screen.blit(text, text.get_rect(center=rect.center))

    def write(self, text: str, corner: tuple[int, int], colour: tuple[int, int, int]) -> int:
        """Write ``text`` from ``corner``, in a smaller font if it would pass the window's right edge; its width."""
        room = self.screen.get_width() - MARGIN - corner[0]
        size = FONT_PX
        while self.font_of(size).size(text)[0] > room and size > SMALLEST_FONT_PX:
            size -= 1
        rendered = self.font_of(size).render(text, True, colour)
        self.screen.blit(rendered, corner)
        return rendered.get_width()

    def image(self, pixels: np.ndarray, corner: tuple[int, int]) -> None:
        """An RGB image of (rows, cols, 3) with its top-left corner at ``corner``."""
        surface = self.pygame.surfarray.make_surface(np.ascontiguousarray(pixels.transpose(1, 0, 2)))
        self.screen.blit(surface, corner)

    def write_in_cell(self, text: str, centre: tuple[int, int], font: Any) -> None:
        """Write ``text`` centred on ``centre`` (a hint's percentage on its cell)."""
        rendered = font.render(text, True, TEXT_COLOUR)
        self.screen.blit(rendered, rendered.get_rect(center=centre))

    def legend(self, pieces: Sequence[tuple[float | None, str]], top: int) -> None:
        """The legend row from ``top``: each piece's sample cell (when it has a chance), then its text."""
        x = MARGIN
        for chance, text in pieces:
            if chance is not None:
                self._sample(chance, (x, top), LEGEND_HEIGHT)
                x += LEGEND_HEIGHT + 4
            x += self.write(text, (x, top + (LEGEND_HEIGHT - self.font.get_height()) // 2), TEXT_COLOUR) + 14

    def _sample(self, chance: float, corner: tuple[int, int], size: int) -> None:
        """A hidden cell tinted as the board tints a cell with that mine chance, with its percentage."""
        tile = np.empty((size, size, 3), dtype=np.uint8)
        draw_cell(tile, HIDDEN, None)
        draw_hint(tile, chance)
        self.image(tile, corner)
        font = self.hint_font(size) if hint_kind(chance) is Hint.UNCERTAIN else None
        if font is not None:
            self.write_in_cell(percent(chance), (corner[0] + size // 2, corner[1] + size // 2), font)

"""The screen under the window of ``minesweeper play --gui``: is there one, how large is it, where is the window.

:func:`check_display` refuses at once, before pygame is even imported, where no window could open;
:func:`open_display` refuses when SDL found no screen after all. pygame (the ``gui`` extra) is imported only
through :func:`import_pygame`. :class:`WindowPlacement` moves the window on the screen where pygame can.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from minesweeper_cli.apps.window_layout import corner_on_screen

HEADLESS_DRIVERS = ("offscreen", "dummy")
"""SDL video drivers that draw into memory: no window a person could see."""


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


def desktop_size(pygame: Any) -> tuple[int, int]:
    """The size in pixels of the first desktop (the screen the window opens on), or of the display mode."""
    sizes = pygame.display.get_desktop_sizes()
    if sizes:
        return int(sizes[0][0]), int(sizes[0][1])
    info = pygame.display.Info()
    return info.current_w, info.current_h


class WindowPlacement:
    """The window's place on the screen, through pygame's SDL2 window object where this pygame has one.

    The object is made once and kept: SDL keeps a pointer to it, so it must live as long as the window.
    Without it (an older pygame) the window stays where SDL puts it.
    """

    def __init__(self, pygame: Any) -> None:
        self._pygame = pygame
        self._handle: Any = None

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

    def keep_on_screen(self, size: tuple[int, int], desktop: tuple[int, int]) -> None:
        """Move a window of ``size`` back onto the screen when it grew past the right or the bottom edge.

        SDL keeps a window's top-left corner when the window grows.
        """
        corner = self.position
        if corner is None:
            return
        inside = corner_on_screen(corner, size, desktop)
        if inside != corner:
            self.move_to(inside)

    def _window_handle(self) -> Any | None:
        if self._handle is None:
            try:
                from pygame._sdl2.video import Window

                self._handle = Window.from_display_module()
            except (ImportError, AttributeError, self._pygame.error):
                return None
        return self._handle

"""Finding a program's window on an X display by its title, and where it lies on the screen."""

from __future__ import annotations

import time
from dataclasses import dataclass

from screen_bot.errors import BotSetupError


@dataclass(frozen=True)
class Box:
    """A rectangle of the screen in pixels: left, top, width, height."""

    left: int
    top: int
    width: int
    height: int


def window_title(display, window) -> str | None:
    """The window's title: _NET_WM_NAME (UTF-8) when set, else WM_NAME, None when it has none."""
    try:
        utf8 = window.get_full_property(display.intern_atom("_NET_WM_NAME"), 0)
        if utf8 is not None and utf8.value:
            value = utf8.value
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        name = window.get_wm_name()
    except Exception:  # a window can vanish between listing and asking (BadWindow): it is not ours
        return None
    if isinstance(name, bytes):
        return name.decode("latin-1")
    return name or None


def _viewable_windows(display, window):
    """Every mapped window under ``window``, depth first."""
    from Xlib import X

    for child in window.query_tree().children:
        try:
            if child.get_attributes().map_state != X.IsViewable:
                continue
        except Exception:  # gone meanwhile
            continue
        yield child
        yield from _viewable_windows(display, child)


def window_box(display, window) -> Box:
    """Where ``window`` lies on the screen (its inside, without a window manager's frame)."""
    geometry = window.get_geometry()
    origin = window.translate_coords(display.screen().root, 0, 0)
    return Box(-origin.x, -origin.y, geometry.width, geometry.height)


def find_window(display, title: str, timeout_s: float = 10.0, program: str = "the program"):
    """The largest mapped window titled ``title``, waiting up to ``timeout_s`` for it to appear."""
    deadline = time.monotonic() + timeout_s
    root = display.screen().root
    while True:
        matches = [w for w in _viewable_windows(display, root) if window_title(display, w) == title]
        if matches:
            return max(matches, key=lambda w: _area(w.get_geometry()))
        if time.monotonic() >= deadline:
            raise BotSetupError(
                f"the window {title!r} of {program} was not found on display {display.get_display_name()}"
                f" within {timeout_s:.0f} s: did the program start there? (run it by hand to see its errors)"
            )
        time.sleep(0.05)


def _area(geometry) -> int:
    return int(geometry.width) * int(geometry.height)

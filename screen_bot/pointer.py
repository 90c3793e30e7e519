"""The bot's hand: fake mouse and key events through the XTest extension (python-xlib).

Each event is flushed and followed by a sync, so the program has received a click before the bot takes
its next screenshot. Between reads the pointer is parked away from the board, where it hides no cell and
leaves no hover highlight.
"""

from __future__ import annotations

from screen_bot.errors import BotSetupError

LEFT, MIDDLE, RIGHT = 1, 2, 3


class Pointer:
    """Mouse and keyboard of one X display, driven through XTest."""

    def __init__(self, display) -> None:
        from Xlib.ext import xtest  # noqa: F401  (loads the extension's methods)

        from screen_bot.display import has_extension

        if not has_extension(display, "XTEST"):
            raise BotSetupError(
                f"the X server {display.get_display_name()} has no XTEST extension: the bot cannot click there"
            )
        self._display = display
        self.clicks = 0

    def move(self, x: int, y: int) -> None:
        """Move the pointer to screen pixel (x, y)."""
        from Xlib import X
        from Xlib.ext import xtest

        xtest.fake_input(self._display, X.MotionNotify, x=int(x), y=int(y))
        self._display.sync()

    def click(self, x: int, y: int, button: int = LEFT) -> None:
        """Press and release ``button`` at screen pixel (x, y); counted in :attr:`clicks`."""
        from Xlib import X
        from Xlib.ext import xtest

        self.move(x, y)
        xtest.fake_input(self._display, X.ButtonPress, button)
        xtest.fake_input(self._display, X.ButtonRelease, button)
        self._display.sync()
        self.clicks += 1

    def key(self, name: str) -> None:
        """Press and release the key with X keysym name ``name`` (e.g. "n")."""
        from Xlib import XK, X
        from Xlib.ext import xtest

        keycode = self._display.keysym_to_keycode(XK.string_to_keysym(name))
        if keycode == 0:
            raise BotSetupError(f"the X server {self._display.get_display_name()} has no key {name!r}")
        xtest.fake_input(self._display, X.KeyPress, keycode)
        xtest.fake_input(self._display, X.KeyRelease, keycode)
        self._display.sync()

    def park(self, x: int, y: int) -> None:
        """Leave the pointer at (x, y), a place off the board."""
        self.move(x, y)

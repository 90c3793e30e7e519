"""The bot's set-up errors: one line that says what is missing and how to fix it.

They are ``OSError`` subclasses so the ``minesweeper`` command prints them as one line, never a
traceback (see docs/ERRORS.md).
"""

from __future__ import annotations


class BotSetupError(OSError):
    """Something outside the project is missing or unusable: a program, the X display, a window."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "the screen bot could not start"


def missing_module_error(module: str) -> BotSetupError:
    """The error for a Python package of the ``screen`` extra that is not installed."""
    return BotSetupError(
        f"the screen bot needs the Python package {module!r}: pip install -e '.[screen]' (mss, python-xlib)"
    )

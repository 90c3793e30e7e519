"""Deprecated alias of :mod:`minesweeper_cli.apps.gui`, where the module moved on 2026-11-27 with the other
play apps; importing it warns and gives the moved module itself."""

import sys
import warnings

from minesweeper_cli.apps import gui

warnings.warn(
    "minesweeper_cli.gui moved to minesweeper_cli.apps.gui; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = gui

"""Deprecated alias of :mod:`minesweeper_cli.apps.tui`, where the module moved on 2026-11-27 with the other
play apps; importing it warns and gives the moved module itself."""

import sys
import warnings

from minesweeper_cli.apps import tui

warnings.warn(
    "minesweeper_cli.tui moved to minesweeper_cli.apps.tui; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = tui

"""Deprecated alias of :mod:`minesweeper_cli.apps.session`, where the module moved on 2026-11-27 with the other
play apps; importing it warns and gives the moved module itself."""

import sys
import warnings

from minesweeper_cli.apps import session

warnings.warn(
    "minesweeper_cli.session moved to minesweeper_cli.apps.session; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = session

"""The play apps moved to minesweeper_cli.apps: their old module paths still import, with a DeprecationWarning."""

from __future__ import annotations

import importlib
import sys

import pytest

ALIASES = ["session", "tui", "gui", "battle_tui"]


@pytest.mark.parametrize("name", ALIASES)
def test_the_old_path_warns_and_gives_the_moved_module(name: str) -> None:
    sys.modules.pop(f"minesweeper_cli.{name}", None)
    with pytest.warns(DeprecationWarning, match=f"minesweeper_cli.apps.{name}"):
        old = importlib.import_module(f"minesweeper_cli.{name}")
    assert old is importlib.import_module(f"minesweeper_cli.apps.{name}")


def test_a_name_imported_from_the_old_path_is_the_new_one() -> None:
    sys.modules.pop("minesweeper_cli.session", None)
    with pytest.warns(DeprecationWarning):
        from minesweeper_cli.session import GameSession
    from minesweeper_cli.apps.session import GameSession as moved

    assert GameSession is moved

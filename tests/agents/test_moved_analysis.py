"""The analysis moved from agents.analysis to mine_env.analysis: the old paths still import, with a DeprecationWarning,
and give the moved modules themselves; the public face agents.probability imports without a warning."""

from __future__ import annotations

import importlib
import sys
import warnings

import pytest


def forget_old_paths() -> None:
    for name in [name for name in sys.modules if name == "agents.analysis" or name.startswith("agents.analysis.")]:
        del sys.modules[name]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("agents.analysis.probability", "mine_env.analysis.probability"),
        ("agents.analysis.deduction", "mine_env.analysis.deduction"),
        ("agents.analysis.no_guess", "mine_env.analysis.no_guess"),
        ("agents.analysis.outcomes", "mine_env.analysis.battle.outcomes"),
        ("agents.analysis.stored_counting", "mine_env.analysis.battle.stored_counting"),
    ],
)
def test_the_old_path_warns_and_gives_the_moved_module(old: str, new: str) -> None:
    forget_old_paths()
    with pytest.warns(DeprecationWarning) as caught:  # the package's own warning, then the module's
        module = importlib.import_module(old)
    assert f"{old} moved to {new}" in [str(warning.message).split(";")[0] for warning in caught]
    assert module is importlib.import_module(new)


def test_a_name_imported_from_the_old_path_is_the_new_one() -> None:
    forget_old_paths()
    with pytest.warns(DeprecationWarning):
        from agents.analysis.probability import mine_probabilities
    from mine_env.analysis.probability import mine_probabilities as moved

    assert mine_probabilities is moved


def test_the_public_contract_imports_without_a_warning() -> None:
    sys.modules.pop("agents.probability", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from agents.probability import InconsistentBoard, mine_probabilities
    assert issubclass(InconsistentBoard, ValueError)
    assert callable(mine_probabilities)

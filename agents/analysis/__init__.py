"""Deprecated alias of :mod:`mine_env.analysis`, where the exact analysis moved on 2026-11-27 (below the agents,
on the engine): ``agents.analysis.X`` imports warn and give the moved module itself.

``agents.analysis.probability`` is ``mine_env.analysis.probability``, and so on; the battle modules
(``outcomes``, ``component_store``, ``stored_counting``, ``open_number``) have no alias (``outcomes`` is
:mod:`battle.counting.outcomes`, which single-player code never imports; the count's store is
:mod:`mine_env.analysis.component_store`). The public face of the probabilities, :mod:`agents.probability`,
did not move.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType


def moved_name(old: str) -> str:
    """Where the module ``agents.analysis.X`` (or a module below it) lives now."""
    return f"mine_env.analysis.{old.removeprefix(f'{__name__}.')}"


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``agents.analysis.X`` and loads it as the moved module object itself (one module, two names)."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        return importlib.util.spec_from_loader(fullname, self) if fullname.startswith(f"{__name__}.") else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = moved_name(spec.name)
        warnings.warn(f"{spec.name} moved to {new}; import it from there", DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the moved module ran when it was imported under its own name."""


warnings.warn("agents.analysis moved to mine_env.analysis; import it from there", DeprecationWarning, stacklevel=2)
__path__: list[str] = []  # a package, so that its old submodules import (through the finder below)
if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())

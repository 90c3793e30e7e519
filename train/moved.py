"""The flat module paths of :mod:`train` before it was split by method (2026-11-27): each still imports, with a
DeprecationWarning, and gives the moved module itself; ``python -m train.OLD`` warns and runs the new module.

``train.dqn`` is ``train.sb3.dqn``, ``train.distill_labels`` is ``train.distill.labels``, and so on
(:data:`MOVED`). Saved stable-baselines3 zips pickle their classes under the old paths (``train.networks``,
``train.dqn``): they load through the same aliases. :mod:`train.distill` was a module and
is a package now: :func:`forward_names` gives it the old module's names (:mod:`train.distill.rounds`), with the
same warning. Battle's self-play (``train.battle``, ``train.rllib_battle``) moved into the battle package
(:mod:`battle.training`) with no alias.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable
from types import CodeType, ModuleType
from typing import Any

_SB3 = ("dqn", "ppo", "maskable_ppo", "checkpoints", "mine_head", "warm_start", "vec_env", "evaluation",
        "networks", "bench_vec_env", "export", "run_config")  # fmt: skip
_DISTILL = ("config", "data", "guesses", "labels", "losses", "network", "trainer", "stream", "stream_config")
MOVED: dict[str, str] = {
    **{f"train.{name}": f"train.sb3.{name}" for name in _SB3},
    "train.sb3_training": "train.sb3.training",
    **{f"train.distill_{name}": f"train.distill.{name}" for name in _DISTILL},
    **{f"train.{name}": f"train.distill.{name}" for name in ("stream_data", "grow", "guess_preference",
                                                             "iterated_trunk")},
    "train.rllib_ppo": "train.rllib.ppo",
}
"""Old module path -> where the module lives now."""
_MISSING = object()


def moved_warning(old: str, new: str) -> str:
    """The one message every alias gives."""
    return f"{old} moved to {new}; import it from there"


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.InspectLoader):
    """Finds the old paths of :data:`MOVED` and loads each as the moved module object itself (one module, two
    names); run with ``python -m``, an old path warns and runs the new module as ``__main__``."""

    def __init__(self) -> None:
        self.own_specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        return importlib.util.spec_from_loader(fullname, self) if fullname in MOVED else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(moved_warning(spec.name, MOVED[spec.name]), DeprecationWarning, stacklevel=2)
        module = importlib.import_module(MOVED[spec.name])
        self.own_specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the moved module ran when it was imported under its own name): only its own spec given
        back, which the import system replaced by the alias's."""
        module.__spec__ = self.own_specs.pop(module.__name__)

    def get_source(self, fullname: str) -> str:
        """What ``python -m OLD`` runs: the warning (shown, as it comes from ``__main__``), then the new module."""
        new = MOVED[fullname]
        message = f"python -m {fullname} moved to python -m {new}; run it from there"
        return (f"import runpy, warnings\nwarnings.warn({message!r}, DeprecationWarning)\n"
                f"runpy.run_module({new!r}, run_name='__main__', alter_sys=True)\n")

    def get_code(self, fullname: str) -> CodeType:
        return compile(self.get_source(fullname), f"<{fullname}, moved to {MOVED[fullname]}>", "exec")

    def is_package(self, fullname: str) -> bool:
        return False


def install() -> None:
    """Put the finder on ``sys.meta_path`` once, right after the path finder: a module file of the old name on the
    package's path wins, a finder placed later (an editable install's of another checkout) does not."""
    if any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        return
    after = [index for index, finder in enumerate(sys.meta_path) if finder is importlib.machinery.PathFinder]
    sys.meta_path.insert(after[0] + 1 if after else len(sys.meta_path), MovedModules())


def forward_names(package: str, home: str) -> Callable[[str], Any]:
    """A ``__getattr__`` for ``package``, a module that became a package: the old module's names (``main``, ...)
    come from ``home``, where its code moved, with a DeprecationWarning; submodules import as usual."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__") or importlib.util.find_spec(f"{package}.{name}") is not None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name, _MISSING)
        if value is _MISSING:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        warnings.warn(moved_warning(f"{package}.{name}", f"{home}.{name}"), DeprecationWarning, stacklevel=2)
        return value

    return __getattr__

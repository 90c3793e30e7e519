"""studies/call_walk.py: the reader's walk over files, on two small modules whose calls are known."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "studies"))
import call_walk  # noqa: E402

HELPERS = '''
def leaf():
    return 1


def other_leaf():
    return 2
'''
CALLER = '''
from helpers import leaf, other_leaf


def move():
    total = leaf() + leaf()  # the second call of a known function moves nothing
    return total + other_leaf() + leaf()
'''


def _module(folder: Path, name: str, source: str) -> ModuleType:
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_walk_opens_each_function_once_and_counts_the_steps_back(tmp_path: Path) -> None:
    _module(tmp_path, "helpers", HELPERS)
    caller = _module(tmp_path, "caller", CALLER)
    walk = call_walk.Walk(tmp_path, set())
    sys.setprofile(walk)
    try:
        caller.move()
    finally:
        sys.setprofile(None)
        del sys.modules["helpers"], sys.modules["caller"]
    assert walk.steps == ["caller.py", "helpers.py", "caller.py", "helpers.py", "caller.py"]
    assert call_walk.turn_backs(walk.steps) == 3


def test_turn_backs_count_only_steps_into_a_file_seen_before() -> None:
    assert call_walk.turn_backs(["a", "b", "c"]) == 0
    assert call_walk.turn_backs(["a", "b", "a", "c", "b"]) == 2


def test_the_kernels_stay_python_and_keep_py_func() -> None:
    def kernel(x: int) -> int:
        return x + 1

    bare = call_walk._python_njit(kernel)
    configured = call_walk._python_njit(cache=True, inline="always")(kernel)
    assert bare is kernel and configured is kernel and kernel.py_func is kernel  # type: ignore[attr-defined]
    assert configured(1) == 2

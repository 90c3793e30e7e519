"""A release's kernel bundle: compiled for a generic CPU in one cache, copied into another, loaded there without a
compile; never used where its source, versions or target differ, and seeded once per cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from mine_env.engine import kernel_bundle
from mine_env.engine.kernel_bundle import GENERIC_CPU, collect, seed, seed_once

KERNEL = "from numba import njit\n\n\n@njit(cache=True)\ndef add(a, b):\n    return a + b\n"

CALL = """
import sys
from numba.core import event
compiles = []
class Count(event.Listener):
    def on_start(self, ev): compiles.append(ev.data["dispatcher"].py_func.__name__)
    def on_end(self, ev): pass
event.register("numba:compile", Count())
sys.path.insert(0, sys.argv[1])
from toypkg.kern import add
print(add(2, 3), len(compiles))
"""


def _call(packages: Path, cache: Path, **environment: str) -> tuple[int, int]:
    """(add(2, 3), compiles) in a fresh process whose numba cache is ``cache``."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("NUMBA_CPU")}
    env.update(NUMBA_CACHE_DIR=str(cache), **environment)
    out = subprocess.run([sys.executable, "-c", CALL, str(packages)], env=env, capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    return int(out[0]), int(out[1])


@pytest.fixture
def bundle(tmp_path: Path) -> tuple[Path, Path]:
    """A toy package whose one kernel was compiled for a generic CPU, and the bundle collected from that compile."""
    packages = tmp_path / "packages"
    (packages / "toypkg").mkdir(parents=True)
    (packages / "toypkg" / "__init__.py").write_text("")
    (packages / "toypkg" / "kern.py").write_text(KERNEL)
    assert _call(packages, tmp_path / "build-cache", **GENERIC_CPU) == (5, 1)  # compiled there
    manifest = collect(tmp_path / "build-cache", packages, ["toypkg"], tmp_path / "bundle")
    assert manifest["kernels"] == 1 and manifest["numba"] == numba.__version__ and manifest["cpu"] == "generic"
    return packages, tmp_path / "bundle"


def _seed_into(cache: Path, bundle: Path, packages: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(cache))  # the locator numba picks for a user's cache
    return seed(bundle, packages)


def test_a_seeded_cache_loads_the_kernel_without_compiling(bundle, tmp_path, monkeypatch) -> None:
    packages, shipped = bundle
    assert _call(packages, tmp_path / "empty") == (5, 1)  # without the bundle: a compile, under this CPU's key
    assert _seed_into(tmp_path / "user", shipped, packages, monkeypatch) == 1
    assert _call(packages, tmp_path / "user") == (5, 0)
    assert _seed_into(tmp_path / "user", shipped, packages, monkeypatch) == 0  # already there: nothing added


def test_a_changed_source_gets_nothing_from_the_bundle(bundle, tmp_path, monkeypatch) -> None:
    packages, shipped = bundle
    (packages / "toypkg" / "kern.py").write_text(KERNEL.replace("a + b", "a + b + 0"))
    assert _seed_into(tmp_path / "user", shipped, packages, monkeypatch) == 0
    assert _call(packages, tmp_path / "user") == (5, 1)


def test_seeding_happens_once_per_cache_and_only_where_the_bundle_can_run(bundle, tmp_path, monkeypatch) -> None:
    packages, shipped = bundle
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "user"))
    monkeypatch.delenv(kernel_bundle.ENV_VAR, raising=False)
    assert seed_once(shipped, packages) == 1
    assert seed_once(shipped, packages) == 0  # the marker says it was done
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "other"))
    monkeypatch.setenv(kernel_bundle.ENV_VAR, "0")
    assert seed_once(shipped, packages) == 0  # switched off
    monkeypatch.delenv(kernel_bundle.ENV_VAR)
    manifest = json.loads((shipped / "manifest.json").read_text())
    (shipped / "manifest.json").write_text(json.dumps({**manifest, "numba": "0.0.0"}))
    assert seed_once(shipped, packages) == 0  # another numba
    assert seed_once(tmp_path / "no-bundle", packages) == 0


def test_an_index_file_name_gives_the_kernel_it_holds() -> None:
    assert kernel_bundle._kernel_of("counting.count_board-412.py311.nbi") == ("counting", "count_board", 412)
    assert kernel_bundle._kernel_of("guess.Outlook.score-7.py311.nbi") == ("guess", "Outlook.score", 7)

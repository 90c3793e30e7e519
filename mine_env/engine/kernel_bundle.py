"""Kernels compiled ahead into the release: a bundle of numba cache entries that a fresh install loads at once.

numba compiles the kernels on their first call and keeps them in its on-disk cache; on a fresh install that
first compile is a minute or more of the first solver game (docs/COLD_START.md). A release built with
``make wheel`` carries the cache entries of every kernel the env, the solver and the battle AIs call
(``python -m agents.warm_up --bundle DIR``), compiled for a generic x86-64 CPU so that any x86-64 machine runs
them. On the first import of the engine (:func:`seed_once`) they are copied into the cache numba reads for
each of our source files, filed under this machine's CPU, and numba loads them as if it had compiled them here.

An entry is copied only where it can be trusted: the same numba and Python versions and target triple, a
source file whose content hash is the one it was compiled from (numba checks the bytecode too), and no entry
for that signature already there (a kernel compiled here is never replaced). Anything else is left to
numba's own compile, as without a bundle. ``MINESWEEPER_RL_KERNEL_BUNDLE=0`` turns seeding off; the code it
loads is generic x86-64 (see docs/COLD_START.md for what that costs and how to compile for this CPU instead).

A bundle is a folder: ``manifest.json`` (versions, target, an id) and one sub-folder per source folder,
relative to the root of the packages (``mine_env/analysis``), holding numba's own index and data files.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import os
import shutil
import sys
import types
from collections.abc import Iterator, Sequence
from pathlib import Path

ENV_VAR = "MINESWEEPER_RL_KERNEL_BUNDLE"
"""``0``: never copy the bundle's kernels into numba's cache."""

BUNDLE_DIR = Path(__file__).resolve().parents[1] / "kernel_bundle"
"""Where a release carries its bundle (``mine_env/kernel_bundle``; absent in a checkout)."""

PACKAGES_ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the ``mine_env`` and ``agents`` packages (site-packages, or the checkout)."""

MANIFEST = "manifest.json"
GENERIC_CPU = {"NUMBA_CPU_NAME": "generic", "NUMBA_CPU_FEATURES": ""}
"""The environment under which a bundle is compiled: code any x86-64 CPU runs."""

_log = logging.getLogger(__name__)


def python_tag() -> str:
    """``py311``-style: numba's cache file names carry it."""
    return f"py{sys.version_info[0]}{sys.version_info[1]}"


def host_target() -> tuple[str, str, str]:
    """This process's numba codegen key (target triple, CPU name, CPU features), as numba files entries under."""
    from numba.core.registry import cpu_target

    return tuple(cpu_target.target_context.codegen().magic_tuple())


def collect(cache_dir: Path, source_root: Path, packages: Sequence[str], out: Path) -> dict:
    """Gather what a compile under ``NUMBA_CACHE_DIR=cache_dir`` left for the ``packages`` (top-level folders of
    ``source_root``, the ones a release ships) into the bundle folder ``out``; returns the manifest written there."""
    from numba.core.caching import UserProvidedCacheLocator

    out.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    entries = 0
    folders = {path.parent for package in packages for path in (source_root / package).rglob("*.py")}
    for folder in sorted(folder for folder in folders if "__pycache__" not in folder.parts):
        compiled = cache_dir / UserProvidedCacheLocator.get_suitable_cache_subpath(str(folder / "x.py"))
        if not compiled.is_dir():
            continue
        target = out / folder.relative_to(source_root)
        target.mkdir(parents=True, exist_ok=True)
        for file in sorted(compiled.iterdir()):
            if file.suffix in (".nbi", ".nbc"):
                shutil.copyfile(file, target / file.name)
                digest.update(file.name.encode() + file.read_bytes())
                entries += file.suffix == ".nbi"
    import numba

    manifest = {
        "id": digest.hexdigest()[:16],
        "numba": numba.__version__,
        "python": python_tag(),
        "triple": host_target()[0],
        "cpu": GENERIC_CPU["NUMBA_CPU_NAME"],
        "kernels": entries,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def read_manifest(bundle: Path) -> dict | None:
    """The bundle's manifest, or None where there is no bundle."""
    try:
        return json.loads((bundle / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def usable(manifest: dict) -> bool:
    """Whether a bundle with this manifest can run here: the same numba, Python and target triple."""
    import numba

    built_for = (manifest.get("numba"), manifest.get("python"), manifest.get("triple"))
    return built_for == (numba.__version__, python_tag(), host_target()[0])


def _numba_cache(source: Path, qualname: str, lineno: int):
    """numba's cache of the kernel ``qualname`` defined at ``lineno`` of ``source``, as numba itself would open it
    for that kernel (the same locator, folder, file names and source stamp)."""
    from numba.core.caching import FunctionCache

    def probe() -> None:  # stands for the kernel: numba reads only its file, line and name
        return None

    kernel = types.FunctionType(probe.__code__.replace(co_filename=str(source), co_firstlineno=lineno), {})
    kernel.__qualname__ = qualname
    return FunctionCache(kernel)


def _kernel_of(index_name: str) -> tuple[str, str, int]:
    """(module file stem, qualname, line) from a numba index file name ``stem.qualname-line.py311.nbi``."""
    base = index_name[: -len(".nbi")].rsplit(".", 1)[0]  # drop the python tag
    dotted, line = base.rsplit("-", 1)
    stem, qualname = dotted.split(".", 1)
    return stem, qualname, int(line)


def seed(bundle: Path, packages_root: Path) -> int:
    """Copy the bundle's entries into numba's cache for the sources below ``packages_root``, each filed under this
    machine's codegen key; returns how many were added (entries already there, or of changed sources, are not)."""
    from numba.core.caching import IndexDataCacheFile

    host = host_target()
    added = 0
    for index in sorted(bundle.rglob("*.nbi")):
        folder = index.parent.relative_to(bundle)
        stem, qualname, line = _kernel_of(index.name)
        source = packages_root / folder / f"{stem}.py"
        if not source.is_file():
            continue
        cache = _numba_cache(source, qualname, line)
        target: IndexDataCacheFile = cache._cache_file
        shipped = IndexDataCacheFile(str(index.parent), index.name[: -len(".nbi")], target._source_stamp)
        present = target._load_index()
        missing = {
            (key[0], host, key[2]): data_name
            for key, data_name in shipped._load_index().items()  # empty where the source's hash differs
            if (key[0], host, key[2]) not in present
        }
        if not missing:
            continue
        cache._impl.locator.ensure_cache_path()
        numbers = itertools.count(1)
        for host_key, data_name in missing.items():  # the data is copied as it is (unpickling imports its module)
            name = next(name for name in map(target._data_name, numbers) if name not in present.values())
            shutil.copyfile(shipped._data_path(data_name), target._data_path(name))
            present[host_key] = name
        target._save_index(present)
        added += len(missing)
    return added


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (two processes starting at once seed once); none where fcntl is missing."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def seed_once(bundle: Path = BUNDLE_DIR, packages_root: Path = PACKAGES_ROOT) -> int:
    """Seed numba's cache from the release's bundle once per cache (a marker file in the engine's cache folder
    says it was); returns how many entries were added. Costs one file read where it was done, nothing without
    a bundle; never raises (a bundle that cannot be used leaves numba to compile, as without one)."""
    if os.environ.get(ENV_VAR, "").strip() == "0":
        return 0
    manifest = read_manifest(bundle)
    if manifest is None:
        return 0
    try:
        marker_dir = Path(_numba_cache(Path(__file__), "seed_once", 1).cache_path)
        marker = marker_dir / f"minesweeper-rl-kernels-{manifest.get('id')}.seeded"
        if marker.exists() or not usable(manifest):
            return 0
        marker_dir.mkdir(parents=True, exist_ok=True)
        with _locked(marker_dir / "minesweeper-rl-kernels.lock"):
            if marker.exists():
                return 0
            added = seed(bundle, packages_root)
            marker.write_text(f"{added} entries\n")
        return added
    except Exception as error:  # a cache that cannot be written: numba compiles as without a bundle
        _log.debug("the kernel bundle was not used: %s", error)
        return 0

"""A preload library that fixes ``time()``, so a program that seeds its generator from the clock repeats.

xdemineur calls ``srand(time(NULL))`` once at start. Run with ``LD_PRELOAD`` pointing at this library and
``MINESWEEPER_BOT_TIME=S`` in its environment, its ``time()`` answers S, so the run's games are the same
for the same seed. The library is built from the C source below with the system compiler, once, into the
user's cache (never shipped as a binary); without a compiler the bot plays unseeded games and says so.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

TIME_VARIABLE = "MINESWEEPER_BOT_TIME"

SOURCE = r"""
#include <stdlib.h>
#include <time.h>

/* time() answers the value of MINESWEEPER_BOT_TIME: a program seeded from the clock repeats its games. */
time_t time(time_t *out) {
    const char *fixed = getenv("MINESWEEPER_BOT_TIME");
    time_t now = fixed ? (time_t) strtoull(fixed, NULL, 10) : 0;
    if (out) *out = now;
    return now;
}
"""


def cache_dir() -> Path:
    """Where built helpers live: $XDG_CACHE_HOME/minesweeper-rl/bot (~/.cache by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "minesweeper-rl" / "bot"


def build_library(directory: Path | None = None) -> Path | None:
    """The path of the built library (built now if missing), or None when no C compiler is available."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    directory = directory or cache_dir()
    digest = hashlib.sha256(SOURCE.encode()).hexdigest()[:12]
    library = directory / f"fixed_time-{digest}.so"
    if library.exists():
        return library
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / f"fixed_time-{digest}.c"
    source.write_text(SOURCE)
    partial = library.with_suffix(f".{os.getpid()}.tmp")
    result = subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-o", str(partial), str(source)], capture_output=True, text=True
    )
    if result.returncode != 0:
        return None
    partial.replace(library)  # atomic: a concurrent run never loads a half-written file
    return library


def seeded_environment(seed: int, library: Path) -> dict[str, str]:
    """The variables that make a program started with them see ``time() == seed`` (mod 2**31)."""
    return {"LD_PRELOAD": str(library), TIME_VARIABLE: str(seed % 2**31)}

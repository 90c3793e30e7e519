"""Another installed distribution that hides one of our top-level packages, said in one line.

Our packages have plain names (``agents``, ``eval``, ``train``...), and a distribution that installs a top-level
package of the same name either comes first on the import path or overwrites our files in site-packages (both
wheels claim ``agents/__init__.py``: openai-agents, which verifiers 0.3 pulled in, did). Either way an import of
ours fails far from the cause. :func:`warn_once` (called by ``import mine_env``, so by the CLI too) checks
cheaply, with no import of the packages themselves, that each of ours resolves to this installation and, where
installed as a wheel, still holds the file the wheel put there; only when one does not does it read every
installed distribution's names to say which one hides it. tests/test_top_level_names.py keeps any extra of
ours from installing such a distribution in the first place.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importlib.metadata is read only when something is wrong: `import mine_env` stays cheap
    from importlib.metadata import Distribution

DISTRIBUTION = "minesweeper-rl"
"""Our distribution's name."""
OUR_PACKAGES = (
    "mine_env", "agents", "eval", "train", "backends", "mine_llm", "minesweeper_cli", "screen_bot", "battle",
)  # fmt: skip
"""Our top-level packages (those of them that this installation holds are checked)."""

_ROOT = Path(__file__).resolve().parent.parent
_reported: list[str] = []


def shadowed_packages() -> list[str]:
    """Our top-level packages that an import would not take from this installation."""
    ours = [name for name in OUR_PACKAGES if (_ROOT / name / "__init__.py").is_file()]
    shadowed = [name for name in ours if not _blocked_here(name) and not _resolves_here(name)]
    return shadowed + [name for name in _overwritten(ours) if name not in shadowed]


def _blocked_here(name: str) -> bool:
    """Whether this process blocked ``import name`` itself (``sys.modules[name] = None``, as a check that something
    runs without ``train`` does): then nothing installed hides it."""
    return name in sys.modules and sys.modules[name] is None


def _resolves_here(name: str) -> bool:
    """Whether ``import name`` finds this installation's package (without importing it)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    origin = spec.origin if spec is not None else None
    return origin is not None and Path(origin).resolve() == _ROOT / name / "__init__.py"


def _overwritten(ours: list[str]) -> list[str]:
    """Our packages whose ``__init__.py`` differs from the one our wheel installed (another wheel wrote over it);
    none for a checkout or an editable install, whose files no record lists."""
    record = next(_ROOT.glob("minesweeper_rl-*.dist-info"), None)
    if record is None:
        return []
    from importlib import metadata

    files = {str(file): file for file in metadata.Distribution.at(record).files or []}
    changed = []
    for name in ours:
        listed = files.get(f"{name}/__init__.py")
        if listed is None or listed.hash is None or listed.hash.mode != "sha256":
            continue
        digest = hashlib.sha256((_ROOT / name / "__init__.py").read_bytes()).digest()
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != listed.hash.value:
            changed.append(name)
    return changed


def other_owners(name: str) -> list[str]:
    """The installed distributions other than ours that claim the top-level name ``name``."""
    from importlib import metadata

    owners = set()
    for distribution in metadata.distributions():
        owner = distribution.metadata["Name"]
        if owner and owner.lower().replace("_", "-") != DISTRIBUTION and name in top_level_names(distribution):
            owners.add(owner)
    return sorted(owners)


def top_level_names(distribution: Distribution) -> set[str]:
    """The top-level modules and packages a distribution installs: its ``top_level.txt``, else its RECORD."""
    listed = distribution.read_text("top_level.txt")
    if listed:
        return {line.strip().replace("/", ".").split(".")[0] for line in listed.splitlines() if line.strip()}
    names = set()
    for file in distribution.files or []:
        parts = file.parts
        if not parts or parts[0] in ("..", "__pycache__") or parts[0].endswith((".dist-info", ".data")):
            continue
        if len(parts) > 1 or parts[0].endswith(".py"):
            names.add(parts[0].removesuffix(".py"))
    return names


def clash_message(name: str) -> str:
    """One line: which distribution hides our package ``name``, and what to do."""
    owners = other_owners(name)
    if owners:
        named = ", ".join(f"'{owner}'" for owner in owners)
        return (f"the package {named} also installs a top-level '{name}' that hides ours: pip uninstall "
                f"{' '.join(owners)}, or use a separate virtual environment")  # fmt: skip
    found = importlib.util.find_spec(name)
    if found is None:  # ours is on disk but no finder knows it: an install older than the package (editable ones)
        return (f"'{name}' of minesweeper-rl at {_ROOT} is not installed (an install from before it was added): "
                f"install again, pip install -e {_ROOT} for a checkout")  # fmt: skip
    return (f"'{name}' imports from {found.origin}, not from minesweeper-rl at {_ROOT}: remove what puts it first "
            "on the import path (PYTHONPATH, a folder of that name in the current directory), or use a separate "
            "virtual environment")  # fmt: skip


def warn_once() -> list[str]:
    """Say on stderr, one line a package and once a process, which of our packages another distribution hides;
    the hidden ones."""
    shadowed = shadowed_packages()
    for name in shadowed:
        if name not in _reported:
            _reported.append(name)
            print(f"minesweeper-rl: {clash_message(name)}", file=sys.stderr)
    return shadowed

"""The command line answers --help, --version and a mistyped option without loading the engine: its choices are
copies (minesweeper_cli.choices) of the lists the engine keeps, and each copy is checked here against its source."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from minesweeper_cli import choices

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numba", "torch", "openai", "gymnasium", "numpy", "mine_env", "agents", "mine_llm", "screen_bot", "train")
"""Top-level modules that no answer of the parser alone may import (the engine, its kernels, the RL and LLM SDKs)."""

PROBE = """
import json, sys
from minesweeper_cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
print(json.dumps({"code": code, "loaded": sorted({name.split(".")[0] for name in sys.modules})}), file=sys.stderr)
"""


def _probe(argv: list[str]) -> dict:
    """Run the command in a fresh interpreter; its exit code and the top-level modules it had loaded."""
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--help"], 0),
        (["--version"], 0),
        (["eval", "--help"], 0),
        (["eval", "--bogus"], 2),
        (["eval", "--preset", "huge"], 2),
        (["battle", "eval", "--help"], 0),
        (["play", "--agent", "nobody"], 2),
    ],
)
def test_the_parser_alone_loads_no_engine(argv: list[str], code: int) -> None:
    result = _probe(argv)
    assert result["code"] == code
    loaded = set(HEAVY) & set(result["loaded"])
    assert not loaded, f"minesweeper {' '.join(argv)} loaded {sorted(loaded)}"


def test_the_version_is_the_packages(capsys: pytest.CaptureFixture[str]) -> None:
    from mine_env import __version__
    from minesweeper_cli.main import main

    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"minesweeper-rl {__version__}"


SOURCES: dict[str, tuple[str, Callable[[Any], object]]] = {
    "PRESETS": ("mine_env.engine.constants", lambda module: tuple(sorted(module.PRESETS))),
    "FIRST_CLICK_RULES": ("mine_env.engine.constants", lambda module: module.FIRST_CLICK_RULES),
    "DEFAULT_FIRST_CLICK": ("mine_env.engine.constants", lambda module: module.DEFAULT_FIRST_CLICK),
    "BOARD_KINDS": ("mine_env.engine.constants", lambda module: module.BOARD_KINDS),
    "DEFAULT_BOARDS": ("mine_env.engine.constants", lambda module: module.DEFAULT_BOARDS),
    "STARTS": ("mine_env.engine.starts", lambda module: tuple(module.STARTS)),
    "SYMMETRY_COUNTS": ("mine_env.engine.symmetry", lambda module: tuple(module.SYMMETRY_COUNTS)),
    "AGENTS": ("agents.registry", lambda module: tuple(sorted(module.AGENTS))),
    "SHIPPED_MODELS": ("agents.shipped_models", lambda module: tuple(module.SHIPPED_MODELS)),
    "BATTLE_AGENTS": ("battle.players", lambda module: tuple(module.BATTLE_AGENTS)),
    "BATTLE_BOARD": (
        "battle.rules",
        lambda module: (module.DEFAULT_ROWS, module.DEFAULT_COLS, module.DEFAULT_MINES),
    ),
    "PLAY_MODES": ("minesweeper_cli.apps.session", lambda module: tuple(module.MODES)),
    "BOT_PROGRAMS": ("screen_bot.programs", lambda module: tuple(sorted(module.PROGRAMS))),
}
"""Each copy of minesweeper_cli.choices: the module it copies, and how to read the copied list from it."""


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_copied_choice_is_its_source(name: str) -> None:
    module, read = SOURCES[name]
    source = read(importlib.import_module(module))
    assert source == getattr(choices, name), f"minesweeper_cli.choices.{name} is not {module}'s: copy it again"


def test_the_default_workers_are_the_runners() -> None:
    from eval.pool import default_workers

    assert choices.default_workers() == default_workers()

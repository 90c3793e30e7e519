"""docs/ARCHITECTURE.md against the import-linter contracts of pyproject.toml: the same layers, the same count."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def importlinter() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def architecture() -> str:
    return (ROOT / "docs" / "ARCHITECTURE.md").read_text()


def test_the_package_count_is_the_contracts() -> None:
    packages = importlinter()["root_packages"]
    text = architecture()
    assert f"is {NUMBERS[len(packages)]} Python packages" in text
    for package in packages:
        assert f"**`{package}`**" in text, f"docs/ARCHITECTURE.md has no paragraph for {package}"


def test_the_layers_diagram_is_the_layers_contract() -> None:
    contracts = importlinter()["contracts"]
    layers = next(contract["layers"] for contract in contracts if contract["type"] == "layers")
    block = re.search(r"```text\n(.*?)```", architecture(), re.S)
    assert block, "docs/ARCHITECTURE.md has no diagram of the layers (a ```text block)"
    drawn = [re.split(r"\s{2,}", line.strip())[0] for line in block[1].splitlines() if line.strip()]
    assert drawn == layers


def test_every_contract_is_named() -> None:
    text = architecture()
    for contract in importlinter()["contracts"]:
        if contract["type"] != "layers":
            first_words = re.split(r"[:(]", contract["name"])[0].strip()
            assert first_words in text, f"the contract {contract['name']!r} is not in docs/ARCHITECTURE.md"


BOTH_GAMES = {"agents.warm_up", "agents.warm_up.__main__"}
"""Modules that serve both games by design (the kernels' warm-up)."""


def covered(module: str, patterns: list[str]) -> bool:
    """Whether an import-linter module list (``pkg.*`` names the children of pkg) names ``module``."""
    for pattern in patterns:
        if pattern.endswith(".*") and module.startswith(pattern[:-1]):
            return True
        if module == pattern or module.startswith(pattern + "."):
            return True
    return False


def test_every_module_is_single_player_or_battle() -> None:
    """The battle contract lists its sources by name: a new module must join them (or the battle homes), so that
    none escapes the rule that single-player code never imports battle."""
    contract = next(c for c in importlinter()["contracts"] if c["name"].startswith("Single-player code"))
    roots = set(importlinter()["root_packages"]) - {"minesweeper_cli"}  # the CLI serves both games by design
    modules = []
    for root in sorted(roots):
        for path in (ROOT / root).rglob("*.py"):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            modules.append(module)
    loose = [module for module in modules if module not in roots and module not in BOTH_GAMES
             and not covered(module, contract["source_modules"] + contract["forbidden_modules"])]  # fmt: skip
    assert not loose, f"add these to the battle contract's sources or homes in pyproject.toml: {loose}"

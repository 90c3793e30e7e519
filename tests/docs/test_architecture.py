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


def test_every_single_player_package_is_a_source_of_the_battle_contract() -> None:
    """Single-player code never imports battle: every root package but battle and the CLI (which serves both
    games by design) is a source of that one contract, so a new package cannot escape the rule."""
    contract = next(c for c in importlinter()["contracts"] if c["name"].startswith("Single-player code"))
    single_player = set(importlinter()["root_packages"]) - {"battle", "minesweeper_cli"}
    assert set(contract["source_modules"]) == single_player
    assert contract["forbidden_modules"] == ["battle"]

"""The shipped models by short name (in a checkout: models/; in a wheel: agents/shipped/), and the one version.
Loading a model needs the train extra: those tests skip without it."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

import mine_env
from agents import shipped_models
from agents.model_card import ModelCard, model_paths
from agents.shipped_models import CHECKOUT_DIR, SHIPPED_MODELS, shipped_dir, shipped_model
from support import run_cli

ROOT = Path(__file__).resolve().parents[2]
NEEDS_TRAIN = pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("torch", "stable_baselines3", "sb3_contrib")),
    reason="needs the train extra (torch, stable-baselines3, sb3-contrib)",
)


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_every_short_name_is_a_model_with_its_card(name: str) -> None:
    archive, card = model_paths(name)
    assert archive == CHECKOUT_DIR / f"{SHIPPED_MODELS[name]}.zip" and card.is_file()
    network = ModelCard.of_model(name).network
    assert network is not None and (CHECKOUT_DIR / network["weights"]).is_file()
    assert not archive.is_file()  # no training zip is shipped: --init reads the card and the weights too


def test_a_file_of_that_name_in_the_working_directory_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "distill-expert.zip").write_bytes(b"")
    assert shipped_model("distill-expert") is None
    assert model_paths("distill-expert")[0] == Path("distill-expert.zip")
    assert shipped_model("models/distill_expert_opening.zip") is None  # a path is a path


def test_an_installed_wheel_uses_its_own_copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert shipped_dir() == CHECKOUT_DIR  # a checkout: models/ itself
    monkeypatch.setattr(shipped_models, "PACKAGE_DIR", tmp_path)
    assert shipped_dir() == tmp_path
    assert shipped_model("dqn-beginner") == tmp_path / "dqn_beginner_opening"


def test_an_unknown_model_names_the_shipped_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"does not exist \(the shipped models go by name: distill-beginner, "):
        ModelCard.of_model("distill-expret")


@NEEDS_TRAIN
def test_evaluate_and_the_command_take_a_short_name(capsys: pytest.CaptureFixture[str]) -> None:
    from eval.runner import evaluate
    from eval.suites import Suite

    report = evaluate(["distill-beginner"], Suite("few", 9, 9, 10, "opening", games=3, base_seed=0), workers=1,
                      oracle=False, progress=False)  # fmt: skip
    assert report.agents == ("distill-beginner",)
    status, out, err = run_cli(["eval", "--model", "dqn-beginner", "--games", "2", "--seed", "0", "--workers", "1",
                                "--no-progress", "--no-oracle"], capsys)  # fmt: skip
    assert status == 0, err
    assert "| dqn-beginner | 2 |" in out


def test_the_version_is_said_in_one_place(capsys: pytest.CaptureFixture[str]) -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    project = pyproject.split("\n[project]\n", 1)[1].split("\n[", 1)[0]
    assert re.search(r"^version\s*=", project, re.M) is None
    assert 'dynamic = ["version"]' in pyproject and 'version = { attr = "mine_env.__version__" }' in pyproject
    assert re.fullmatch(r"\d+\.\d+\.\d+", mine_env.__version__)
    assert f"## {mine_env.__version__}" in (ROOT / "CHANGELOG.md").read_text()
    status, out, _ = run_cli(["--version"], capsys)
    assert (status, out) == (0, f"minesweeper-rl {mine_env.__version__}\n")


@pytest.mark.parametrize("package", ["mine_env", "agents", "eval"])
def test_the_typed_packages_say_so(package: str) -> None:
    assert (ROOT / package / "py.typed").is_file()

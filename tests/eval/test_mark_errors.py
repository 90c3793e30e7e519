"""studies/mark_errors.py: every model on the same games with marks, its wrong marks counted; a model that plays
without marks and no threshold given is refused in one line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import mark_errors  # noqa: E402


def test_a_shipped_model_played_with_marks(capsys: pytest.CaptureFixture[str]) -> None:
    mark_errors.main(["maskable-ppo-beginner", "--preset", "beginner", "--games", "4", "--mark-above", "0.999999"])
    row = capsys.readouterr().out.strip().splitlines()[-1]
    assert row.startswith("| maskable-ppo-beginner | 0.999999 |") and row.count("%") == 3


def test_a_model_without_marks_needs_a_threshold() -> None:
    with pytest.raises(SystemExit, match="plays without marks: give --mark-above"):
        mark_errors.main(["maskable-ppo-beginner", "--preset", "beginner", "--games", "2"])

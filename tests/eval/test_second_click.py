"""studies/second_click.py: the position's share of games, paired rollouts from the same layouts, bad cells."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import second_click  # noqa: E402


def test_the_corner_values_share_out_every_game() -> None:
    shares = [second_click.position_share(16, 30, 99, value) for value in range(4)]
    assert math.isclose(sum(shares), 1.0)
    assert math.isclose(shares[0], math.comb(476, 99) / math.comb(479, 99))  # three empty neighbours


def test_a_candidate_wins_the_same_games_from_the_same_seed() -> None:
    first = second_click.rollouts(9, 9, 10, 1, [(8, 0), (0, 8)], 40, "fast", seed=3)
    again = second_click.rollouts(9, 9, 10, 1, [(8, 0)], 40, "fast", seed=3)
    assert np.array_equal(first[(8, 0)], again[(8, 0)])
    assert first[(8, 0)].dtype == np.bool_ and first[(8, 0)].shape == (40,)
    assert 0 < first[(8, 0)].sum() < 40  # beginner from a corner showing 1: some games won, some lost


def test_the_table_reads_each_candidate_against_the_first() -> None:
    wins = {(8, 0): np.array([True, False, True, False]), (0, 8): np.array([True, True, True, False])}
    lines = second_click.table(wins, share=0.5).splitlines()
    assert lines[2].startswith("| (8, 0) | 50.00% | +0.00 |")
    assert lines[3].startswith("| (0, 8) | 75.00% | +25.00 | 25.00 | +12.50 |")


def test_a_cell_off_the_board_or_the_corner_itself_is_one_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert second_click.main(["--preset", "beginner", "--cell", "0,0", "--layouts", "10"]) == 2
    assert second_click.main(["--preset", "beginner", "--cell", "9,0", "--layouts", "10"]) == 2
    assert "error: candidates must be hidden cells" in capsys.readouterr().err

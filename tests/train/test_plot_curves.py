"""Learning curves read from a run's logs: against steps (resumed logs included) and against wall-clock time."""

from __future__ import annotations

from pathlib import Path

import pytest

from train.plot_curves import HOURS, plot_runs, read_curve

LOG = """time/total_timesteps,rollout/success_rate,eval/win_rate,time/wall_seconds
2048,0.1,,
,,0.25,
4096,0.2,,
4096,,0.5,600.0
6144,,0.75,1200.0
"""


def test_a_curve_against_steps_and_against_wall_time(tmp_path: Path) -> None:
    (tmp_path / "progress.csv").write_text(LOG)
    assert read_curve(tmp_path, "eval/win_rate") == ([2048.0, 4096.0, 6144.0], [0.25, 0.5, 0.75])
    assert read_curve(tmp_path, "rollout/success_rate") == ([2048.0, 4096.0], [0.1, 0.2])
    # the evaluation logged before the wall time was has no place on the time axis
    assert read_curve(tmp_path, "eval/win_rate", HOURS[0]) == ([600.0, 1200.0], [0.5, 0.75])


def test_the_figure_is_drawn(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    (run / "logs" / "progress.csv").write_text(LOG)
    plot_runs([run], tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 1000

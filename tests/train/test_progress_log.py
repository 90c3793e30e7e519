"""The progress log's CSV (train.progress_log): columns a resumed run adds, and rows that leave some out."""

from __future__ import annotations

from pathlib import Path

from train.progress_log import log_row, read_log


def test_a_row_with_new_columns_adds_them_blank_before_and_a_shorter_row_leaves_them_blank(tmp_path: Path) -> None:
    path = tmp_path / "progress.csv"
    log_row(path, {"step": 1, "error": 0.5})
    log_row(path, {"step": 2, "error": 0.4})
    log_row(path, {"step": 3, "error": 0.3, "ema_error": 0.25})
    log_row(path, {"error": 0.2, "step": 4})
    rows = read_log(path)
    assert path.read_text().splitlines()[0] == "step,error,ema_error"
    assert [row["step"] for row in rows] == ["1", "2", "3", "4"]
    assert [row["ema_error"] for row in rows] == ["", "", "0.25", ""]
    assert rows[3]["error"] == "0.2"

"""A training run's progress, row by row: one printed line per row, the CSV log it appends to, and that log (or
stable-baselines3's ``progress.csv``) read back."""

from __future__ import annotations

import csv
from pathlib import Path


def progress_line(row: dict[str, float]) -> str:
    """A progress row as one printed line: ``key value`` pairs, floats to 4 significant digits."""
    return ", ".join(f"{key} {value:.4g}" if isinstance(value, float) else f"{key} {value}"
                     for key, value in row.items())  # fmt: skip


def log_row(path: Path, row: dict[str, float]) -> None:
    """Append ``row`` to the CSV at ``path`` (the header written with the first row). A row with columns the log
    lacks (a resumed run that now logs more) rewrites it with them added, blank in the rows before."""
    header = _header(path)
    if header is not None and not set(row) <= set(header):
        rows = read_log(path)
        header = [*header, *(key for key in row if key not in header)]
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=header)
            writer.writeheader()
            writer.writerows(rows)
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=header or list(row))
        if header is None:
            writer.writeheader()
        writer.writerow(row)


def _header(path: Path) -> list[str] | None:
    """The column names of the CSV at ``path``; None when there is no such file or it is empty."""
    if not path.is_file():
        return None
    with path.open(newline="") as handle:
        return next(csv.reader(handle), None)


def read_log(path: Path) -> list[dict[str, str]]:
    """The rows of a progress CSV (ours or stable-baselines3's), each column's text ('' where a row left it blank);
    no rows when the file does not exist."""
    if not path.is_file():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def logged(rows: list[dict[str, str]], key: str) -> list[float]:
    """The values of column ``key`` in row order, the rows without one skipped."""
    return [float(row[key]) for row in rows if row.get(key)]

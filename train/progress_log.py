"""A training run's progress, row by row: one printed line per row and the CSV log it appends to."""

from __future__ import annotations

import csv
from pathlib import Path


def progress_line(row: dict[str, float]) -> str:
    """A progress row as one printed line: ``key value`` pairs, floats to 4 significant digits."""
    return ", ".join(f"{key} {value:.4g}" if isinstance(value, float) else f"{key} {value}"
                     for key, value in row.items())  # fmt: skip


def log_row(path: Path, row: dict[str, float]) -> None:
    """Append ``row`` to the CSV at ``path`` (the header written with the first row)."""
    new = not path.is_file()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)

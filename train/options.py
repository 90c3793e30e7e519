"""The options a training run is set by: a dataclass field that carries its own ``--help``, the board options
every training script starts with, and the checks that turn a bad value into one clear error."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch as th

from mine_env.engine.constants import FIRST_CLICK_RULES
from mine_env.engine.spec import BoardSpec


def option(default: Any, help: str) -> Any:
    """A dataclass field with its documentation, which is also its ``--help`` text."""
    return field(default=default, metadata={"help": help})


@dataclass
class BoardOptions:
    """The board a run trains on: a preset, or rows/cols/mines, and the first-click rule (the first options of
    every training script, in this order)."""

    preset: str | None = option(
        "beginner", "Board preset (beginner, intermediate, expert); rows/cols/mines override it."
    )
    rows: int | None = option(None, "Board rows (overrides the preset).")
    cols: int | None = option(None, "Board columns (overrides the preset).")
    mines: int | None = option(None, "Number of mines (overrides the preset).")
    first_click: str = option("opening", f"First-click rule, one of {', '.join(FIRST_CLICK_RULES)}.")

    def board_spec(self) -> BoardSpec:
        """The board the run trains on (ValueError with a message if impossible)."""
        return BoardSpec.from_options(self.preset, self.rows, self.cols, self.mines, self.first_click)


def check_device(device: str) -> None:
    """ValueError for a device name torch does not know, or CUDA asked for where there is none."""
    if device == "auto":
        return
    try:
        kind = th.device(device).type
    except RuntimeError:
        raise ValueError(f"unknown device {device!r}; expected cpu, cuda, cuda:N or auto") from None
    if kind == "cuda" and not th.cuda.is_available():
        raise ValueError(
            f"--device {device}: CUDA is not available here (torch {th.__version__}, "
            f"{'no GPU found' if th.backends.cuda.is_built() else 'a CPU-only build'}); use --device cpu or auto"
        )


def at_least(config: Any, low: int, *names: str) -> None:
    """ValueError naming the first of the config's fields ``names`` below ``low``."""
    for name in names:
        value = getattr(config, name)
        if value < low:
            raise ValueError(f"{name} must be at least {low}, got {value}")


def within(config: Any, low: float, high: float, *names: str) -> None:
    """ValueError naming the first of the config's fields ``names`` outside ``[low, high]``."""
    for name in names:
        value = getattr(config, name)
        if not low <= value <= high:
            raise ValueError(f"{name} must be between {low} and {high}, got {value}")

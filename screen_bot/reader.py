"""Reading the whole board from the screen, only once the picture has settled.

A program redraws after a click over a few milliseconds and some flash the board when a game ends, so a
single screenshot can catch a half-drawn board. The reader parks the pointer off the board, then takes
shots until two in a row read the same, that read keeps every number already seen (an open cell never
changes), and the cell just clicked has changed. A board that does not settle in time is unreadable: the
caller saves the picture and gives the game up.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mine_env.engine.constants import HIDDEN, MINE
from screen_bot.capture import Camera
from screen_bot.cells import EXPLODED, classify_cells
from screen_bot.grid import Grid, detect_grid
from screen_bot.pointer import Pointer
from screen_bot.programs import Program
from screen_bot.window import Box

SETTLE_TIMEOUT_S = 3.0
POLL_S = 0.005


class UnreadableBoard(Exception):
    """The board did not settle into a consistent reading; ``image`` is the last screenshot."""

    def __init__(self, message: str, image: np.ndarray) -> None:
        super().__init__(message)
        self.image = image


@dataclass(frozen=True)
class Reading:
    """A settled board: the state codes (rows, cols) and the screenshot they were read from."""

    codes: np.ndarray
    image: np.ndarray


def keeps_numbers(previous: np.ndarray | None, codes: np.ndarray) -> bool:
    """Whether ``codes`` shows every open number of ``previous`` unchanged (a later picture of one game)."""
    if previous is None:
        return True
    opened = previous >= 0
    return bool(np.array_equal(previous[opened], codes[opened]))


class BoardReader:
    """Reads one program window's board: finds the grid once, then settled readings on demand."""

    def __init__(self, camera: Camera, pointer: Pointer, program: Program, box: Box, rows: int, cols: int) -> None:
        self.camera = camera
        self.pointer = pointer
        self.program = program
        self.box = box
        self.shots = 0
        self._last: tuple[np.ndarray, np.ndarray] | None = None  # the last image read and its codes
        self.grid: Grid = self._find_grid(rows, cols)

    def _find_grid(self, rows: int, cols: int, timeout_s: float = SETTLE_TIMEOUT_S) -> Grid:
        """The board's lattice, looked for until the window has been drawn (a new window starts blank)."""
        deadline = time.monotonic() + timeout_s
        while True:
            image = self.shot()
            try:
                return detect_grid(image, rows, cols)
            except ValueError as error:
                if time.monotonic() > deadline:
                    raise UnreadableBoard(f"{self.program.name}: {error}", image) from None
            time.sleep(0.05)

    def shot(self) -> np.ndarray:
        """A screenshot of the window, the pointer parked off the board first."""
        self.park()
        self.shots += 1
        return self.camera.grab(self.box)

    def park(self) -> None:
        """Put the pointer in the window's bottom-right corner, away from every cell."""
        self.pointer.park(self.box.left + self.box.width - 1, self.box.top + self.box.height - 1)

    def read_once(self) -> Reading:
        """One screenshot, read."""
        return self._read(self.shot())

    def _read(self, image: np.ndarray) -> Reading:
        """The board in ``image``; only cells whose pixels differ from the last image read are classified
        again (the same pixels always read the same), so a move costs a few cells, not the board."""
        cells = self.grid.cells(image)
        if self._last is None:
            codes = classify_cells(cells, self.program.look)
        else:
            last_image, codes = self._last
            codes = codes.copy()
            differ = (cells != self.grid.cells(last_image)).any(axis=(2, 3, 4))
            if differ.any():
                codes[differ] = classify_cells(cells[differ][:, None], self.program.look)[:, 0]
        self._last = (image, codes)
        return Reading(codes, image)

    def settled(
        self, previous: np.ndarray | None = None, changed: Sequence[tuple[int, int]] = (),
        until: Callable[[np.ndarray], bool] | None = None, timeout_s: float = SETTLE_TIMEOUT_S,
    ) -> Reading:  # fmt: skip
        """The first reading that two shots in a row agree on, that keeps ``previous``'s numbers and in
        which every cell of ``changed`` (the cells just clicked) is no longer plainly covered, or the game
        is lost, and which satisfies ``until`` (if given). Two equal shots alone do not prove the program has
        handled every click yet."""
        deadline = time.monotonic() + timeout_s
        last = self.read_once()
        while True:
            time.sleep(POLL_S)
            image = self.shot()
            same_picture = np.array_equal(image, last.image)  # the same pixels read the same: no need to read
            reading = Reading(last.codes, image) if same_picture else self._read(image)
            agreed = same_picture or np.array_equal(reading.codes, last.codes)
            if (
                agreed and keeps_numbers(previous, reading.codes) and _has_changed(reading.codes, changed)
                and (until is None or until(reading.codes))
            ):  # fmt: skip
                return reading
            if time.monotonic() > deadline:
                raise UnreadableBoard(f"the board did not settle within {timeout_s:.0f} s", reading.image)
            last = reading

    def click_point(self, row: int, col: int) -> tuple[int, int]:
        """The screen pixel in the middle of cell (row, col)."""
        x, y = self.grid.cell_centre(row, col)
        return self.box.left + x, self.box.top + y


def _has_changed(codes: np.ndarray, cells: Sequence[tuple[int, int]]) -> bool:
    if np.isin(codes, (MINE, EXPLODED)).any():  # a lost game ignores the clicks after the fatal one
        return True
    return all(int(codes[cell]) != HIDDEN for cell in cells)

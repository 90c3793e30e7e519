"""Reading a cell's state from its pixels, by the colours the program draws with.

Each pixel of a cell's middle is given the nearest of the program's known colours (its eight number
colours, the flag's, the mine's, the backgrounds), and the cell is judged by how much of its middle each
colour covers; a covered cell is told from an open one by its raised tile's highlight, which open cells
never show. The colours come from the program's own drawing (its pixmaps and colour table, see
:mod:`screen_bot.programs`), so a number, a flag or a mine is recognised wherever it is drawn, and the
reading tolerates a lattice a pixel or two off.

The codes are the env's (:data:`mine_env.HIDDEN`, :data:`mine_env.FLAG`, :data:`mine_env.MINE`, 0..8),
plus two that only the end of a lost game shows: :data:`EXPLODED` (the mine that was hit) and
:data:`WRONG_FLAG` (a flag on a safe cell).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mine_env.engine.constants import FLAG, HIDDEN, MINE

EXPLODED = -4
"""The mine the player hit, shown on a red ground."""
WRONG_FLAG = -5
"""A flag on a cell without a mine, crossed out when the game is lost."""

Colour = tuple[int, int, int]


@dataclass(frozen=True)
class CellLook:
    """The colours one program draws its cells with.

    Attributes:
        numbers: The colours of the numbers 1..8, in order.
        highlight: The light edge of a raised (covered) tile.
        backgrounds: The other plain colours of cells: the open ground, a tile's face, its shadow.
        flag: The flag's colour (on a covered tile).
        mine: The mine's body colour.
        exploded: The ground of the mine that was hit.
    """

    numbers: tuple[Colour, ...]
    highlight: Colour
    backgrounds: tuple[Colour, ...]
    flag: Colour
    mine: Colour = (0, 0, 0)
    exploded: Colour = (255, 0, 0)


COVERED_HIGHLIGHT = 0.08
"""A cell with at least this share of highlight pixels is a raised, covered tile (open cells have none)."""
MINE_SHARE = 0.35
"""A mine fills a third of the cell's middle or more; the number 7 drawn in black covers far less."""
EXPLODED_SHARE = 0.08
WRONG_FLAG_SHARE = 0.3
FLAG_SHARE = 0.04
NUMBER_SHARE = 0.05
MIDDLE = 0.2
"""The margin, as a share of the pitch, cut from each side of a cell to keep its middle."""


NEAR = 60
"""Pixels within this sum of channel differences of a colour count as drawn in it (anti-aliased edges)."""


def _palette(look: CellLook) -> tuple[np.ndarray, list[str]]:
    """The colours a number is told from, with a name each: "1".."8", or "ground" for plain colours."""
    colours = [*look.numbers, look.highlight, *look.backgrounds]
    names = [str(k) for k in range(1, 9)] + ["ground"] * (1 + len(look.backgrounds))
    return np.array(colours, dtype=np.int32), names


def colour_shares(middles: np.ndarray, look: CellLook) -> dict[str, np.ndarray]:
    """For cells' middles (n, h, w, 3), the share of pixels per cell: nearest to each number colour (by
    name "1".."8"), and near the mine, flag and exploded colours ("mine", "flag", "exploded").

    A board holds few distinct colours, so each is judged once and the cells' pixels are counted by colour.
    """
    n = middles.shape[0]
    pixels = middles.reshape(n, -1, 3)
    keys = (pixels[..., 0].astype(np.uint32) << 16) | (pixels[..., 1].astype(np.uint32) << 8) | pixels[..., 2]
    distinct, inverse = np.unique(keys, return_inverse=True)
    colours = np.stack([(distinct >> 16) & 255, (distinct >> 8) & 255, distinct & 255], axis=1).astype(np.int32)
    palette, names = _palette(look)
    nearest = np.abs(colours[:, None, :] - palette[None, :, :]).sum(axis=2).argmin(axis=1)  # per distinct colour
    cell_of_pixel = np.repeat(np.arange(n), pixels.shape[1])
    inverse = inverse.reshape(-1)
    per_pixel = pixels.shape[1]

    def share(per_colour: np.ndarray) -> np.ndarray:
        return np.bincount(cell_of_pixel, weights=per_colour[inverse].astype(np.float64), minlength=n) / per_pixel

    shares = {name: share(nearest == index) for index, name in enumerate(names) if name != "ground"}
    for name, colour in (("mine", look.mine), ("flag", look.flag), ("exploded", look.exploded)):
        shares[name] = share(np.abs(colours - np.array(colour)).sum(axis=1) <= NEAR)
    return shares


def classify_cells(cells: np.ndarray, look: CellLook) -> np.ndarray:
    """The state code of every cell of a board cut into cells (rows, cols, pitch, pitch, 3)."""
    rows, cols, pitch = cells.shape[0], cells.shape[1], cells.shape[2]
    flat = cells.reshape(rows * cols, pitch, pitch, 3)
    highlight = (np.abs(flat.astype(np.int16) - np.array(look.highlight)).max(axis=3) <= 8).mean(axis=(1, 2))
    covered = highlight >= COVERED_HIGHLIGHT
    margin = max(1, round(pitch * MIDDLE))
    shares = colour_shares(flat[:, margin : pitch - margin, margin : pitch - margin], look)
    numbers = np.stack([shares[str(k)] for k in range(1, 9)], axis=1)
    best_number = numbers.argmax(axis=1) + 1
    codes = np.where(numbers.max(axis=1) >= NUMBER_SHARE, best_number, 0).astype(np.int8)
    mine = shares["mine"] >= MINE_SHARE
    codes = np.where(mine, MINE, codes)
    codes = np.where(mine & (shares["exploded"] >= EXPLODED_SHARE), EXPLODED, codes)
    codes = np.where(mine & (shares["exploded"] >= WRONG_FLAG_SHARE), WRONG_FLAG, codes)
    codes = np.where(covered, np.where(shares["flag"] >= FLAG_SHARE, FLAG, HIDDEN), codes)
    return codes.reshape(rows, cols).astype(np.int8)


SYMBOLS = {HIDDEN: ".", FLAG: "F", MINE: "*", EXPLODED: "X", WRONG_FLAG: "W", 0: " "}


def board_text(codes: np.ndarray) -> str:
    """A board read as text, one character per cell: ``.`` covered, ``F`` flag, ``*`` mine, ``X`` the mine
    hit, ``W`` a wrong flag, a blank for an open zero, else the number."""
    return "\n".join("".join(SYMBOLS.get(int(v), str(int(v))) for v in row) for row in codes)

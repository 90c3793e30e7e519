"""The moves of a play session: who made each one, and how sure the one who chose it was."""

from __future__ import annotations

from dataclasses import dataclass

PLAYER = "you"
"""Who made a move the player made."""

ASSIST = "assist"
"""Who made a certain move that ``assist`` played after one of the player's."""


@dataclass(frozen=True)
class Move:
    """One move played in a session.

    Attributes:
        kind: ``"reveal"``, ``"chord"``, ``"flag"`` or ``"unflag"``.
        row: Row of the cell.
        col: Column of the cell.
        by: :data:`PLAYER`, :data:`ASSIST` or the name of the agent that chose it.
        risk: For moves chosen by the solver or an agent, the chance that the cell held a mine when the
            move was chosen (0.0: a certain move; above: a guess). None for the player's moves.
        revealed: Safe cells the move revealed.
    """

    kind: str
    row: int
    col: int
    by: str
    risk: float | None = None
    revealed: int = 0

    @property
    def certain(self) -> bool:
        """Whether the move could not hit a mine."""
        return self.risk == 0.0

    def describe(self) -> str:
        """A short sentence for the status line, e.g. ``solver reveals (3, 4): guess, 25% risk``."""
        text = f"{self.by} {self.kind}{'s' if self.by != PLAYER else ''} ({self.row}, {self.col})"
        if self.risk is None or self.kind in ("flag", "unflag"):
            return text
        return text + (": certain" if self.certain else f": guess, {self.risk:.0%} risk")

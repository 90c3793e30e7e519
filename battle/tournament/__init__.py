"""Battle minesweeper's evaluation, in one home: the seeded tournament and saved models as its players.

``matches`` plays every pair of battle agents on the same seeded boards, seats swapped, and reports win
rates with Wilson intervals, the paired sign test and a Bradley-Terry rating; ``models`` makes a saved
``model:PATH`` a battle player.
"""

from battle.tournament.matches import (
    PairResult,
    bradley_terry,
    check_tournament,
    first_move_table,
    markdown_table,
    pair_row,
    play_pair,
    run_tournament,
)

__all__ = [
    "PairResult",
    "bradley_terry",
    "check_tournament",
    "first_move_table",
    "markdown_table",
    "pair_row",
    "play_pair",
    "run_tournament",
]

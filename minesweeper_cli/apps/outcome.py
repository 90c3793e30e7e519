"""What the play apps say about a game's moves: the last move and its effect, whose game it was, how it ended.

The terminal's banner, the window's status line and the plain-text watcher all word a game from these.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from minesweeper_cli.apps.moves import ASSIST, PLAYER, Move


def agent_title(agent_name: str) -> str:
    """How the end screen names an agent: ``the solver``, ``the random agent``."""
    return "the solver" if agent_name == "solver" else f"the {agent_name} agent"


def who_played(moves: Sequence[Move], agent_name: str) -> tuple[str, str]:
    """Whose finished game it is (``You``, ``The solver``), and the share of moves the others made.

    The game belongs to whoever made its last move, the one that won or lost it; a move of :data:`ASSIST`
    counts as the player's, since assist plays only right after the player's own moves. The share names the
    others' moves, e.g. ``the solver made 12 of 40 moves`` or ``you made 3 and assist 5 of 40 moves``, and
    is "" when nobody else moved.

    Args:
        moves: The moves of a finished game, in order (at least one).
        agent_name: The name the session's agent signs its moves with.
    """
    names = {PLAYER: "you", agent_name: agent_title(agent_name), ASSIST: ASSIST}
    owner = PLAYER if moves[-1].by == ASSIST else moves[-1].by
    counts = Counter(move.by for move in moves)
    others = [(names[by], counts[by]) for by in names if by != owner and counts[by]]
    owner_name = names.get(owner, owner)
    owner_name = owner_name[0].upper() + owner_name[1:]
    if not others:
        return owner_name, ""
    (first, count), rest = others[0], others[1:]
    share = " and ".join([f"{first} made {count}", *(f"{name} {n}" for name, n in rest)])
    return owner_name, f"{share} of {len(moves)} moves"


def duration(seconds: float) -> str:
    """A game's time in whole seconds, ``under 1 s`` for a game cleared at once (the assist can win on the first
    click) rather than ``0 s``."""
    return "under 1 s" if seconds < 0.5 else f"{seconds:.0f} s"


def game_outcome(
    moves: Sequence[Move], agent_name: str, status: str, elapsed: float, lost_cell: tuple[int, int] | None
) -> str:
    """Who won or lost a finished game, and how, e.g. ``The solver won in 4 s; you made 3 of 40 moves``.

    See :func:`who_played` for whose game it is and the share of moves the others made.

    Args:
        moves: The game's moves, in order (at least one).
        agent_name: The name the session's agent signs its moves with.
        status: ``"won"`` or ``"lost"``.
        elapsed: The game's time in seconds.
        lost_cell: The mine that ended a lost game.
    """
    owner, share = who_played(moves, agent_name)
    how = f"won in {duration(elapsed)}" if status == "won" else f"lost: a mine at {lost_cell}"
    return f"{owner} {how}" + (f"; {share}" if share else "")


def move_message(move: Move, status: str, elapsed: float) -> str:
    """The status line after a move: the move, and the end of the game when the move ended it."""
    text = move.describe()
    if status == "won":
        return text + f" -- won in {duration(elapsed)}"
    if status == "lost":
        return text + " -- hit a mine"
    return text


def agent_summary(moves: Sequence[Move], agent_name: str) -> str:
    """How the agent's moves split into certain moves and guesses, e.g. ``12 certain, 1 guess`` ("" if none)."""
    risks = [move.risk for move in moves if move.by == agent_name and move.risk is not None]
    if not risks:
        return ""
    guesses = sum(risk > 0.0 for risk in risks)
    return f"{len(risks) - guesses} certain, {guesses} guess{'es' if guesses != 1 else ''}"

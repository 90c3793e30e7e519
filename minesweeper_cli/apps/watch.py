"""``minesweeper play`` when stdout is not a terminal: an agent's game printed move by move in plain text.

For pipes and CI logs: no escape codes and no curses, one board per move.
"""

from __future__ import annotations

import time
from typing import TextIO

from mine_env.rendering import render_ansi
from minesweeper_cli.apps.session import GameSession


def watch_plain(session: GameSession, delay: float, out: TextIO) -> bool:
    """Let the session's agent play one game, printing each move and the board after it; returns whether it won."""
    kind = ", no-guess board" if session.boards == "no_guess" else ""
    out.write(f"{session.agent_name} plays {session.spec.rows}x{session.spec.cols}, {session.spec.mines} mines, "
              f"first click {session.spec.first_click}{kind}\n")  # fmt: skip
    while not session.is_over:
        move = session.agent_move()
        if move is None:
            break
        out.write(f"\nmove {len(session.moves)}: {session.message}\n")
        out.write(render_ansi(session.board.grid, session.shown_layout))
        out.flush()
        if delay > 0 and not session.is_over:
            time.sleep(delay)
    won = session.status == "won"
    if session.is_over:
        out.write(f"\n{session.agent_name} {'won' if won else 'lost'} in {len(session.moves)} moves "
                  f"({session.agent_summary()})\n")  # fmt: skip
    else:
        out.write(f"\nstopped: {session.message}\n")
    return won

"""The plain-text watcher: an agent's game printed move by move, for pipes and CI logs."""

from __future__ import annotations

import io

import numpy as np

from mine_env.engine.spec import BoardSpec
from minesweeper_cli.apps.session import GameSession
from minesweeper_cli.apps.watch import watch_plain


def test_watch_plain_prints_every_move_and_the_result():
    class FirstHidden:
        name = "first-hidden"

        def reset(self) -> None:
            pass

        def act(self, obs, info):  # the first hidden cell: a poor but valid agent
            return int(np.flatnonzero(info["action_mask"])[0])

    session = GameSession(BoardSpec(5, 5, 3), seed=0, agent=FirstHidden())
    out = io.StringIO()
    won = watch_plain(session, 0.0, out)
    text = out.getvalue()
    assert session.is_over and won == (session.status == "won")
    assert text.count("move ") == len(session.moves)
    assert text.rstrip().endswith(f"in {len(session.moves)} moves ({session.agent_summary()})")
    assert "\x1b" not in text


def test_the_solver_plays_only_certain_moves_on_a_no_guess_board(capsys):
    from support import run_cli

    status, out, _ = run_cli(["play", "--no-guess", "--agent", "solver", "--seed", "8", "--preset", "intermediate"],
                             capsys)  # fmt: skip
    moves = [line for line in out.splitlines() if line.startswith("move ")]
    assert status == 0 and "first click opening, no-guess board" in out
    assert moves and all(line.split(": ", 2)[2].startswith("certain") for line in moves)
    assert f"solver won in {len(moves)} moves ({len(moves)} certain, 0 guesses)" in out

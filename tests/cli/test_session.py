"""The game session behind ``minesweeper play``: seeded layouts, moves, timer, assist and agent moves."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import Agent
from mine_env.engine.board import Board, layout_key
from mine_env.engine.constants import FLAG, HIDDEN, MINE
from mine_env.engine.spec import BoardSpec
from mine_env.env import MinesweeperEnv
from minesweeper_cli.apps.moves import Move
from minesweeper_cli.apps.outcome import duration
from minesweeper_cli.apps.session import GameSession

SPEC = BoardSpec(6, 6, 5, "safe")


class FakeClock:
    """Seconds that pass only when the test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class ScriptedAgent(Agent):
    """Plays the listed actions in turn and remembers what it was shown."""

    name = "scripted"

    def __init__(self, actions: list[int]) -> None:
        self.actions = list(actions)
        self.seen: list[tuple[np.ndarray, dict]] = []

    def act(self, obs: np.ndarray, info: dict) -> int:
        self.seen.append((obs.copy(), info))
        return self.actions.pop(0)


def layout_after(spec: BoardSpec, seed: int, first: tuple[int, int]) -> np.ndarray:
    """The layout a session seeded with ``seed`` places when ``first`` is the first cell revealed."""
    board = Board(spec, layout_key(seed))
    board.reveal(*first)
    return board.layout


def test_the_first_game_has_the_layout_key_of_the_env_reset_with_the_same_seed():
    env = MinesweeperEnv(rows=6, cols=6, mines=5, first_click="safe")
    session = GameSession(SPEC, seed=11)
    env.reset(seed=11)
    assert session.board.key == env.board.key == layout_key(11)
    env.reset()
    session.new_game()
    assert session.board.key == env.board.key
    assert session.games == 2


def test_revealing_every_safe_cell_wins_and_the_timer_stops_at_the_end():
    clock = FakeClock()
    session = GameSession(SPEC, seed=5, clock=clock)
    clock.now += 50  # time before the first reveal does not count
    assert session.elapsed == 0.0
    session.click(0, 0)
    clock.now += 7
    assert session.elapsed == 7.0
    layout = layout_after(SPEC, 5, (0, 0))
    for row, col in np.argwhere(~layout):
        if session.grid[row, col] == HIDDEN:
            session.click(int(row), int(col))
    assert session.status == "won"
    assert "won in 7 s" in session.message
    clock.now += 30
    assert session.elapsed == 7.0
    assert session.mines_left == 0  # no flag was placed, but a won board's mines are all found
    assert session.outcome() == "You won in 7 s"


def test_mines_left_counts_flags_until_a_loss_and_is_zero_after_a_win_with_some_flags():
    session = GameSession(SPEC, seed=5)
    session.click(0, 0)
    mines = [tuple(int(v) for v in cell) for cell in np.argwhere(layout_after(SPEC, 5, (0, 0)))]
    session.toggle_flag(*mines[0])
    assert session.mines_left == SPEC.mines - 1
    for row, col in np.argwhere(~session.board.layout):
        if session.grid[row, col] == HIDDEN:
            session.click(int(row), int(col))
    assert session.status == "won" and session.mines_left == 0
    lost = GameSession(SPEC, seed=5)
    lost.click(0, 0)
    lost.toggle_flag(*mines[0])
    lost.click(*mines[1])
    assert lost.status == "lost" and lost.mines_left == SPEC.mines - 1  # the flags placed, as the counter showed


def test_revealing_a_mine_loses_and_names_the_cell():
    session = GameSession(SPEC, seed=5)
    session.click(0, 0)
    mine = tuple(int(v) for v in np.argwhere(layout_after(SPEC, 5, (0, 0)))[0])
    moves = session.click(*mine)
    assert session.status == "lost"
    assert session.lost_cell == mine
    assert session.grid[mine] == MINE
    assert moves[0].kind == "reveal" and moves[0].by == "you"
    assert session.shown_layout is not None and session.shown_layout.sum() == SPEC.mines


def test_flags_change_the_mines_left_and_block_a_reveal_until_removed():
    session = GameSession(SPEC, seed=2)
    session.toggle_flag(3, 3)
    assert session.mines_left == SPEC.mines - 1
    assert session.click(3, 3) == []
    assert "flagged" in session.message
    assert session.grid[3, 3] == FLAG
    session.toggle_flag(3, 3)
    assert session.mines_left == SPEC.mines
    assert session.click(3, 3)[0].revealed >= 1


def chordable_number(session: GameSession) -> tuple[int, int] | None:
    """A revealed number with a safe hidden neighbour, or None."""
    layout = session.board.layout
    for row, col in np.argwhere(session.grid > 0):
        near = np.s_[max(row - 1, 0) : row + 2, max(col - 1, 0) : col + 2]
        if ((session.grid[near] == HIDDEN) & ~layout[near]).any():
            return int(row), int(col)
    return None


def test_clicking_a_number_with_its_flags_placed_chords_it():
    session = GameSession(BoardSpec(9, 9, 10, "opening"), seed=8)
    session.click(4, 4)
    number = chordable_number(session)
    assert number is not None, "this seeded board has no number to chord; pick another seed"
    row, col = number
    for r in range(max(row - 1, 0), row + 2):
        for c in range(max(col - 1, 0), col + 2):
            if r < 9 and c < 9 and session.board.layout[r, c]:
                session.toggle_flag(r, c)
    moves = session.click(row, col)
    assert [move.kind for move in moves] == ["chord"]
    assert moves[0].revealed >= 1 and session.status != "lost"


@pytest.mark.parametrize(
    ("action", "args", "expected"),
    [
        ("click", (9, 0), "outside the 6x6 board"),
        ("toggle_flag", (-1, 2), "outside"),
        ("chord", (0, 0), "cannot be chorded"),
    ],
)
def test_refused_moves_change_nothing_and_say_why(action, args, expected):
    session = GameSession(SPEC, seed=1)
    before = session.grid.copy()
    assert getattr(session, action)(*args) == []
    assert expected in session.message
    assert (session.grid == before).all()


def test_moves_after_the_end_are_refused():
    session = GameSession(SPEC, seed=5)
    session.click(0, 0)
    session.click(*(int(v) for v in np.argwhere(layout_after(SPEC, 5, (0, 0)))[0]))
    assert session.click(0, 1) == [] and "game is over" in session.message
    assert session.agent_move() is None


def test_the_outcome_says_who_won_or_lost_and_how():
    session = GameSession(BoardSpec(9, 9, 10, "opening"), seed=21)
    assert session.outcome() == ""
    session.click(4, 4)
    while not session.is_over:
        session.agent_move()
    agents = sum(move.by == "solver" for move in session.moves)
    yours = len(session.moves) - agents
    how = f"won in {duration(session.elapsed)}" if session.status == "won" else f"lost: a mine at {session.lost_cell}"
    assert session.outcome() == f"The solver {how}; you made {yours} of {len(session.moves)} moves"


def test_a_lost_game_names_the_mine():
    session = GameSession(SPEC, seed=5)
    session.click(0, 0)
    mine = tuple(int(v) for v in np.argwhere(layout_after(SPEC, 5, (0, 0)))[0])
    session.click(*mine)
    assert session.outcome() == f"You lost: a mine at {mine}"


def test_a_new_game_after_auto_mode_is_the_players_and_assist_stays():
    auto = GameSession(SPEC, seed=1, mode="auto")
    assert auto.mode == "auto"  # the first game is the agent's
    auto.new_game()
    assert auto.mode == "manual"
    auto.new_game(BoardSpec(9, 9, 10))
    assert auto.mode == "manual"
    assist = GameSession(SPEC, seed=1, mode="assist")
    assist.new_game()
    assert assist.mode == "assist"


def test_unknown_mode_is_a_value_error():
    with pytest.raises(ValueError, match="unknown mode 'cheat'"):
        GameSession(SPEC, mode="cheat")


def test_new_game_with_a_new_spec_changes_the_board_size():
    session = GameSession(SPEC, seed=3)
    session.click(1, 1)
    session.new_game(BoardSpec(9, 9, 10))
    assert session.grid.shape == (9, 9) and session.status == "ready" and session.moves == []


def test_assist_plays_every_certain_move_and_never_a_wrong_one():
    spec = BoardSpec(9, 9, 10, "opening")
    for seed in range(6):
        session = GameSession(spec, seed=seed, mode="assist")
        moves = session.click(4, 4)
        layout = session.board.layout
        assert session.status != "lost"
        assisted = [move for move in moves if move.by == "assist"]
        assert all(move.certain for move in assisted if move.kind == "reveal")
        assert all(layout[move.row, move.col] for move in assisted if move.kind == "flag")
        probabilities = session.probabilities()
        if probabilities is not None:  # nothing certain is left for the player
            hidden = session.grid == HIDDEN
            assert not (hidden & (probabilities == 0.0)).any()
            assert not (hidden & (probabilities == 1.0)).any()


def test_frontier_hints_show_chances_next_to_numbers_only():
    session = GameSession(BoardSpec(9, 9, 10, "opening"), seed=4)
    assert session.frontier_hints() is None  # no position before the first reveal
    session.click(4, 4)
    chances, elsewhere = session.frontier_hints()
    frontier = session.frontier() & (session.grid == HIDDEN)
    assert np.isnan(chances[~frontier]).all()
    assert not np.isnan(chances[frontier]).any()
    probabilities = session.probabilities()
    np.testing.assert_array_equal(chances[frontier], probabilities[frontier])
    off = (session.grid == HIDDEN) & ~frontier
    if off.any():
        assert elsewhere == pytest.approx(probabilities[off].mean())
    row, col = np.argwhere(frontier)[0]
    session.toggle_flag(int(row), int(col))  # a flag hides the hint of its cell
    assert np.isnan(session.frontier_hints()[0][row, col])


def test_an_agent_sees_the_env_observation_and_its_move_is_labelled_with_its_risk():
    agent = ScriptedAgent([0, 35])
    session = GameSession(SPEC, seed=5, agent=agent)
    session.toggle_flag(5, 5)
    first = session.agent_move()
    assert first == Move("reveal", 0, 0, "scripted", 0.0, first.revealed)  # the safe rule: a certain first move
    obs, info = agent.seen[0]
    assert obs.dtype == np.int8 and (obs == HIDDEN).all()  # the player's flag is not shown to the agent
    assert info["mines"] == SPEC.mines and info["first_click"] == "safe"
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (36,)
    risk = session.risk_of(5, 5)
    second = session.agent_move()
    assert (second.row, second.col, second.risk) == (5, 5, risk)
    assert session.grid[5, 5] != FLAG  # the agent's reveal took the player's flag off first
    assert "scripted reveals (5, 5)" in session.message


def test_an_agent_choosing_a_revealed_cell_changes_nothing():
    session = GameSession(SPEC, seed=5, agent=ScriptedAgent([0, 0]))
    session.agent_move()
    before = session.grid.copy()
    assert session.agent_move() is None
    assert "not an unrevealed cell" in session.message
    assert (session.grid == before).all()


@pytest.mark.parametrize("agent", ["solver", "rules", "random"])
def test_a_baseline_agent_plays_to_the_end_and_only_guesses_can_lose(agent):
    session = GameSession(BoardSpec(9, 9, 10, "opening"), seed=21, mode="auto", agent=agent)
    while not session.is_over:
        assert session.agent_move() is not None, session.message
    assert all(move.by == agent and move.risk is not None for move in session.moves)
    guesses = sum(not move.certain for move in session.moves)
    assert session.agent_summary() == f"{len(session.moves) - guesses} certain, {guesses} guess" + "es" * (guesses != 1)
    if session.status == "lost":
        assert not session.moves[-1].certain  # a certain move never hits a mine
    if agent == "solver":
        assert session.moves[0].certain  # the opening rule makes the first click safe


def test_a_no_guess_session_deals_no_guess_boards() -> None:
    from mine_env.analysis.no_guess import no_guess_layout

    session = GameSession(BoardSpec(9, 9, 10, "opening"), seed=4, boards="no_guess")
    assert session.message.endswith("10 mines, no guess needed")
    session.click(0, 0)
    assert (session.board.layout == no_guess_layout(9, 9, 10, 0, layout_key(4))).all()
    session.set_boards("random")
    assert session.board.layout_source is None and session.games == 2


@pytest.mark.parametrize(
    ("spec", "boards", "message"),
    [
        (BoardSpec(9, 9, 10, "opening"), "sometimes", "unknown boards 'sometimes'"),
        (BoardSpec(9, 9, 30, "opening"), "no_guess", "30 mines are too dense"),
        (BoardSpec(9, 9, 10, "safe"), "no_guess", "use first_click='opening'"),
    ],
)
def test_a_session_refuses_boards_it_cannot_deal(spec: BoardSpec, boards: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameSession(spec, boards=boards)
    session = GameSession(spec)
    with pytest.raises(ValueError, match=message):
        session.set_boards(boards)
    assert session.boards == "random" and session.games == 1

"""``Minesweeper-Text-v0``: Minesweeper with text in and text out, every move graded by the exact oracle."""

from __future__ import annotations

import string
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mine_env.engine.constants import DEFAULT_BOARDS, DEFAULT_FIRST_CLICK, FLAG, HIDDEN
from mine_env.engine.starts import STARTS, zero_start_cell
from mine_env.env import MinesweeperEnv
from mine_llm.grading import FlagGrade, GameTally, MoveGrade, TextRewards, grade_flag, grade_reveal, resolve_rewards
from mine_llm.moves import Move, ReplyError, parse_reply, tool_schema
from mine_llm.prompt import render_observation, system_prompt

CHARSET = string.printable
"""The characters of observations (printable ASCII and newlines); bad replies are quoted back escaped to it."""
MAX_REPLY = 8192
"""The action space's length bound, for sampling; longer replies are read all the same."""


class MinesweeperTextEnv(gym.Env):
    """Minesweeper for language-model agents: the board as text, a move as text or a tool call.

    ## Description
    The game of ``Minesweeper-v0`` (the same engine, seeds, presets, first-click rules and no-guess boards: the
    same games for the same seeds) behind a text interface, graded move by move by the exact oracle.

    ## Action Space
    ``Text``: a reply such as ``"reveal 3 4"``, ``"flag 2 2"``, ``'{"action": "reveal", "row": 3, "col": 4}'``
    or a tool call's arguments as a dict (:mod:`mine_llm.moves` says what is read). A reply that names no move,
    a cell off the board, or a move the cell cannot take (already open, flagged) changes nothing: the step pays
    ``rewards.invalid``, ``info["invalid_action"]`` is True and ``info["error"]`` says why in one line. Nothing
    the agent sends raises. The tool's JSON schema is :attr:`tools`; the rules, :attr:`system_prompt`.

    ## Observation Space
    ``Text``: the board with row and column numbers, the mines left to flag, the last move's result and the
    status (:mod:`mine_llm.prompt`; :func:`mine_llm.prompt.parse_observation` reads it back).

    ## Rewards
    ``reward="sparse"`` (default): +1 a win, -1 a loss, 0 otherwise. ``"dense"``: also +0.1 a certainly safe
    reveal, minus the move's avoidable risk, -0.1 a reply that changes nothing or a flag on a cell the oracle
    knows is safe. Or a
    :class:`~mine_llm.grading.TextRewards` / dict of its fields (:data:`mine_llm.grading.REWARD_SCHEMES`).

    ## Episode End
    ``terminated`` on a win or a loss; ``truncated`` after ``max_steps`` replies (default ``4 * rows * cols``),
    invalid ones included. A step after the end changes nothing and pays 0.

    ## Info
    ``move`` (the move read, as the tool's arguments, or None), ``error`` (why nothing changed, or None),
    ``invalid_action``, ``last_move`` (the result line of the observation), ``oracle`` (the move's grade:
    ``safe_available``, ``mine_chance``, ``safest_chance``, ``avoidable_risk``, ``guess``, ``logical``; for a flag
    put on a hidden cell ``mine_chance`` and ``wrong_flag``, True on a cell the oracle knows is safe; None for a
    flag taken off, invalid replies, or with ``grade=False``), ``game`` (the game so far: replies, invalid replies,
    graded moves, logical moves, guesses, avoidable risk, graded and wrong flags, ``logic_score``), and
    ``Minesweeper-v0``'s ``mines``, ``first_click``, ``revealed``, ``flags``, ``is_success``. Never the layout.

    ## Arguments
    ``preset``, ``rows``, ``cols``, ``mines``, ``first_click``, ``boards`` as ``Minesweeper-v0``; ``start``
    (``"agent"``, or ``"zero"``: under ``first_click="none"`` a uniformly drawn zero cell of the layout is opened
    at reset on the agent's behalf, as :mod:`mine_env.engine.starts` says; reset's info names it in
    ``start_cell``); ``flags``
    (default True: flag moves and chords), ``reward``, ``grade`` (default True: ask the oracle about every
    reveal; False skips its cost and the dense reward's terms), ``max_steps``, ``render_mode`` ("ansi").
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        preset: str | None = None,
        rows: int | None = None,
        cols: int | None = None,
        mines: int | None = None,
        first_click: str = DEFAULT_FIRST_CLICK,
        boards: str = DEFAULT_BOARDS,
        flags: bool = True,
        reward: str | TextRewards | dict[str, float] = "sparse",
        grade: bool = True,
        max_steps: int | None = None,
        render_mode: str | None = None,
        start: str = "agent",
    ) -> None:
        self.game = MinesweeperEnv(
            preset=preset, rows=rows, cols=cols, mines=mines, first_click=first_click, boards=boards, flags=flags,
            max_steps=max_steps,
        )  # fmt: skip
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; expected one of {self.metadata['render_modes']}")
        if start not in STARTS:
            raise ValueError(f"unknown start {start!r}; expected one of {', '.join(STARTS)}")
        if start == "zero" and (first_click != "none" or boards != DEFAULT_BOARDS):
            raise ValueError("the zero start opens a zero cell of a uniform layout: it needs first_click='none' "
                             "and random boards")  # fmt: skip
        self.start = start
        if not isinstance(grade, bool):
            raise ValueError(f"grade must be True or False, got {grade!r}")
        self.rewards = resolve_rewards(reward)
        self.grade = grade
        self.render_mode = render_mode
        spec = self.game.spec_board
        self.rows, self.cols, self.mines, self.first_click = spec.rows, spec.cols, spec.mines, spec.first_click
        self.flags = self.game.flags
        self.max_steps = self.game.max_steps
        longest = 512 + (self.rows + 1) * (len(str(self.rows)) + 1 + self.cols * (len(str(self.cols)) + 1))
        self.observation_space = spaces.Text(max_length=longest, min_length=1, charset=CHARSET)
        self.action_space = spaces.Text(max_length=MAX_REPLY, min_length=0, charset=CHARSET)
        self.tools = [tool_schema(self.rows, self.cols)]
        """The ``make_move`` tool, as the ``tools`` of a chat request."""
        self.system_prompt = system_prompt(tools=False)
        """The rules and the text answer format (``mine_llm.prompt.system_prompt(tools=True)`` for tool calls)."""
        self._tally = GameTally()
        self._text = ""
        self._inner_info: dict[str, Any] = {}

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start a new game: the game ``Minesweeper-v0`` starts for the same seed."""
        super().reset(seed=seed)
        _, self._inner_info = self.game.reset(seed=seed)
        self._tally = GameTally()
        last_move, cell = "none", None
        if self.start == "zero":
            last_move, cell = self._open_zero(seed if seed is not None else int(self.np_random.integers(2**62)))
        self._text = self._render(last_move)
        return self._text, {**self._info(None, None, None), "start_cell": cell}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play one reply; see the class docstring for what is read, rewards and info."""
        if self.game.board.is_over:
            return self._refuse(None, "the game is over: reset to play again", final=True)
        self._tally.replies += 1
        try:
            move = parse_reply(action)
        except ReplyError as error:
            return self._refuse(None, str(error))
        index, why_not = self._action_of(move)
        if why_not is not None:
            return self._refuse(move, why_not)
        grid, mask = self.game.board.grid, self._inner_info["action_mask"]
        revealed_before = self._inner_info["revealed"]
        grade, flag = None, None
        if self.grade and move.action == "reveal":
            grade = grade_reveal(grid, self.mines, index, mask, self.first_click != "none")
        elif self.grade and grid[move.row, move.col] == HIDDEN:
            flag = grade_flag(grid, self.mines, move.row * self.cols + move.col)
            self._tally.add_flag(flag)
        _, _, terminated, truncated, self._inner_info = self.game.step(index)
        won = bool(self._inner_info["is_success"])
        lost = terminated and not won
        if grade is not None:
            self._tally.add(grade, lost)
        opened = self._inner_info["revealed"] - revealed_before
        result = self._result(move, grid, opened, won, lost)
        self._text = self._render(result)
        reward = self.rewards.pay(grade, won, lost, invalid=False, wrong_flag=flag is not None and flag.wrong)
        truncated = not terminated and (truncated or self._tally.replies >= self.max_steps)
        return self._text, reward, terminated, truncated, self._info(move, None, grade or flag)

    def render(self) -> str | None:
        """The observation text (``render_mode="ansi"``)."""
        return self._text if self.render_mode == "ansi" else None

    def close(self) -> None:
        self.game.close()

    # ------------------------------------------------------------------ helpers
    def _open_zero(self, seed: int) -> tuple[str, tuple[int, int] | None]:
        """The zero start: a zero cell of the layout, drawn from ``seed`` as the evaluation's grid env draws it,
        revealed on the agent's behalf (not a reply, not graded); its result line and cell (None: no zero)."""
        board = self.game.board
        cell = zero_start_cell(board.layout.ravel(), board.counts.ravel(), seed)
        if cell < 0:
            return "none (the layout has no zero cell to open for you)", None
        _, _, _, _, self._inner_info = self.game.step(cell)
        row, col = divmod(cell, self.cols)
        return f"reveal {row} {col} was played for you (the zero start): opened {self._inner_info['revealed']} cells", (
            row, col)  # fmt: skip

    def _action_of(self, move: Move) -> tuple[int, str | None]:
        """The flat action of a move, and why it cannot be played now (None if it can)."""
        r, c = move.row, move.col
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            return -1, (f"cell ({r}, {c}) is off the board: rows 0-{self.rows - 1}, columns 0-{self.cols - 1}")
        cell = r * self.cols + c
        if move.action == "flag" and not self.flags:
            return -1, "flags are off in this env: reveal a cell"
        index = cell + (self.rows * self.cols if move.action == "flag" else 0)
        if self._inner_info["action_mask"][index]:
            return index, None
        code = int(self.game.board.grid_view[r, c])
        if move.action == "flag":
            return -1, f"cell ({r}, {c}) is open: only a hidden cell takes a flag"
        if code == FLAG:
            return -1, f"cell ({r}, {c}) is flagged: take the flag off with 'flag {r} {c}' first"
        chord = f" (a chord needs exactly {code} flags around it and a hidden neighbour)" if self.flags and code else ""
        return -1, f"cell ({r}, {c}) is already open{chord}"

    def _result(self, move: Move, before: np.ndarray, opened: int, won: bool, lost: bool) -> str:
        """The result line of a move that was played."""
        if move.action == "flag":
            placed = before[move.row, move.col] == HIDDEN
            return f"{move} {'placed a flag' if placed else 'took the flag off'}"
        verb = "chorded and opened" if before[move.row, move.col] >= 0 else "opened"
        if lost:
            return f"{move} hit a mine: game lost"
        cells = f"{opened} cell{'s' if opened != 1 else ''}"
        return f"{move} {verb} {cells}" + (": every safe cell is open, game won" if won else "")

    def _refuse(self, move: Move | None, why: str, final: bool = False) -> tuple[str, float, bool, bool, dict]:
        """A step that changes nothing: the observation says why, as does ``info["error"]``."""
        if not final:
            self._tally.invalid_replies += 1
        self._text = self._render(f"invalid, nothing changed: {why}")
        reward = 0.0 if final else self.rewards.pay(None, False, False, invalid=True)
        truncated = not final and self._tally.replies >= self.max_steps
        return self._text, reward, final, truncated, self._info(move, why, None)

    def _render(self, last_move: str) -> str:
        board = self.game.board
        status = {"won": "won", "lost": "lost"}.get(board.status, "playing")
        return render_observation(board.grid_view, self.mines, self.first_click, last_move, status,
                                  self._tally.replies + 1)  # fmt: skip

    def _info(self, move: Move | None, error: str | None, grade: MoveGrade | FlagGrade | None) -> dict[str, Any]:
        inner = self._inner_info
        return {
            "mines": inner["mines"],
            "first_click": inner["first_click"],
            "revealed": inner["revealed"],
            "flags": inner["flags"],
            "is_success": bool(inner["is_success"]) and error is None,
            "invalid_action": error is not None,
            "move": None if move is None else move.to_dict(),
            "error": error,
            "last_move": self._text.splitlines()[1].removeprefix("Last move: "),
            "oracle": None if grade is None else grade.to_info(),
            "game": self._tally.to_info(),
        }

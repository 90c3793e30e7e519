"""Many games of one program: the display, the program, the restarts, and the report.

Every check that can fail (the program installed, the board, the display, the window, the grid) runs
before the first game, so a bad set-up ends in one line and no game is played. The report is JSON in the
shape of ``minesweeper eval``: a ``results`` list with the win rate and its Wilson interval, plus what a
screen bot adds (clicks and seconds per game, games a minute, unread games, the cross-check).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.solver import SolverAgent
from agents.warm_up import warm_up
from eval.stats import wilson_interval
from screen_bot.capture import Camera, save_png
from screen_bot.display import connect, display_for
from screen_bot.errors import BotSetupError
from screen_bot.fixed_time import build_library
from screen_bot.game import GamePlayer, GameResult
from screen_bot.launcher import RunningProgram, check_installed
from screen_bot.pointer import Pointer
from screen_bot.programs import Board, Program, board_of
from screen_bot.reader import BoardReader, UnreadableBoard

FACE_COLOUR = (255, 255, 0)
"""xdemineur's face, above the board: a click on it starts a new game."""
PAUSE_S = 0.05


@dataclass(frozen=True)
class BotConfig:
    """What one ``minesweeper bot`` run does.

    Attributes:
        program: The program's profile.
        preset: The board's name among the program's presets.
        games: How many games to play.
        seed: The run's seed: sgt-mines' game ids (``<seed>-<game>``), xdemineur's clock, the solver's stream.
        display: An X display to play on (":N"), or None for a private Xvfb.
        watch: Called with every board read, as text (``--watch``), or None.
        screenshots: Where the picture of a game that could not be read is saved.
        strength: The solver's strength.
    """

    program: Program
    preset: str
    games: int
    seed: int = 0
    display: str | None = None
    watch: Callable[[str], None] | None = None
    screenshots: Path = Path("bot-unread")
    strength: str = "strong"


class Session:
    """The display, input, camera and solver shared by every game of a run."""

    def __init__(self, config: BotConfig, display_name: str) -> None:
        self.config = config
        self.board: Board = board_of(config.program, config.preset)
        self.display_name = display_name
        self.display = connect(display_name)
        self.pointer = Pointer(self.display)
        self.camera = Camera(display_name)
        self.agent = SolverAgent(seed=config.seed, strength=config.strength)
        self.warm_up_s = warm_up(("env",))  # compile the solver now, not inside the first game's time

    def launch(self, game_seed: str | int) -> RunningProgram:
        return RunningProgram(self.config.program, self.display, self.display_name, self.config.preset, game_seed)

    def player(self, running: RunningProgram) -> GamePlayer:
        """A player on the program's window (the grid found from a fresh screenshot)."""
        rows, cols, mines = self.board
        try:
            reader = BoardReader(self.camera, self.pointer, self.config.program, running.box(), rows, cols)
        except UnreadableBoard as error:
            path = save_png(error.image, self.config.screenshots / "no-grid.png")
            raise BotSetupError(f"{error}; the window's picture is saved in {path}") from None
        program = self.config.program
        return GamePlayer(reader, self.agent, mines, program.first_click_rule(), program.win_needs_flags,
                          self.config.watch)  # fmt: skip

    def close(self) -> None:
        self.camera.close()
        self.display.close()


def game_ids(config: BotConfig) -> list[str]:
    """The name of each game: sgt-mines' seed text, or the game's number in an xdemineur run."""
    if config.program.process_per_game:
        return [f"{config.seed}-{index}" for index in range(config.games)]
    return [f"{config.seed}/{index}" for index in range(config.games)]


def play_games(config: BotConfig, progress: Callable[[int, GameResult], None] | None = None) -> list[GameResult]:
    """Play ``config.games`` games and return how each went."""
    check_installed(config.program)
    board_of(config.program, config.preset)
    with display_for(config.display) as name, _session(config, name) as session:
        if config.program.process_per_game:
            return _one_process_per_game(session, progress)
        return _one_process_for_all(session, progress)


@contextmanager
def _session(config: BotConfig, name: str) -> Iterator[Session]:
    session = Session(config, name)
    try:
        yield session
    finally:
        session.close()


def _one_process_per_game(session: Session, progress) -> list[GameResult]:
    results = []
    program = session.config.program
    for index, game_id in enumerate(game_ids(session.config)):
        running = session.launch(game_id)
        try:
            player = session.player(running)
            reveal = (lambda: _press(session, program.reveal_all_keys)) if program.reveal_all_keys else None
            result = _play_one(session, player, game_id, reveal)
        except BotSetupError as error:
            if index == 0:  # the set-up itself is wrong: say so before any game is counted
                raise
            result = GameResult("unread", note=str(error), game_id=game_id)  # one window that went wrong
        finally:
            running.stop()
        results.append(result)
        if progress:
            progress(index, result)
    return results


def _one_process_for_all(session: Session, progress) -> list[GameResult]:
    results = []
    running = session.launch(session.config.seed)
    try:
        player = session.player(running)
        for index, game_id in enumerate(game_ids(session.config)):
            if index:
                _new_game_by_face(session, player)
            result = _play_one(session, player, game_id, None)
            results.append(result)
            if progress:
                progress(index, result)
    finally:
        running.stop()
    return results


def _play_one(session: Session, player: GamePlayer, game_id: str, reveal) -> GameResult:
    """One game; an unreadable board becomes an "unread" result with its picture saved."""
    try:
        result = player.play(reveal)
    except UnreadableBoard as error:
        path = save_png(error.image, session.config.screenshots / f"{game_id.replace('/', '_')}.png")
        result = GameResult("unread", note=f"{error} (picture: {path})")
    result.game_id = game_id
    return result


def _press(session: Session, keys: tuple[str, ...]) -> None:
    for key in keys:
        session.pointer.key(key)
        time.sleep(PAUSE_S)


def _new_game_by_face(session: Session, player: GamePlayer) -> None:
    """Click the face above the board (its yellow pixels), as a person starts a new xdemineur game."""
    reader = player.reader
    image = reader.shot()
    above = image[: reader.grid.top]
    ys, xs = np.nonzero(np.all(above == np.array(FACE_COLOUR, dtype=np.uint8), axis=2))
    if len(xs) == 0:
        raise BotSetupError(f"{session.config.program.name}: no face found above the board to start a new game")
    session.pointer.click(reader.box.left + int(xs.mean()), reader.box.top + int(ys.mean()))
    time.sleep(PAUSE_S)


def report(config: BotConfig, results: list[GameResult], seconds: float) -> dict[str, Any]:
    """The run's JSON report (the shape of ``minesweeper eval``'s, plus the screen bot's own figures)."""
    rows, cols, mines = board_of(config.program, config.preset)
    finished = [r for r in results if r.outcome in ("won", "lost")]
    wins = sum(r.outcome == "won" for r in finished)
    checked = [r for r in finished if r.misread is not None]
    entry: dict[str, Any] = {
        "agent": f"solver-{config.strength}" if config.strength != "strong" else "solver",
        "games": len(finished),
        "wins": wins,
        "win_rate": wins / len(finished) if finished else None,
        "ci95": list(wilson_interval(wins, len(finished))) if finished else None,
        "unread_games": len(results) - len(finished),
        "clicks_per_game": _mean([r.clicks for r in finished]),
        "seconds_per_game": _mean([r.seconds for r in finished]),
        "games_per_minute": 60.0 * len(results) / seconds if seconds > 0 else None,
        "crosschecked_games": len(checked),
        "misread_cells": sum(len(r.misread or ()) for r in checked),
    }
    return {
        "suite": {"program": config.program.name, "preset": config.preset, "rows": rows, "cols": cols,
                  "mines": mines, "seed": config.seed, "games": config.games,
                  "first_click": config.program.first_click_rule(), "reproducible": reproducible(config.program)},
        "results": [entry],
        "games": [{"id": r.game_id, "outcome": r.outcome, "clicks": r.clicks, "seconds": round(r.seconds, 3),
                   "misread": r.misread, "note": r.note} for r in results],
    }  # fmt: skip


def reproducible(program: Program) -> bool:
    """Whether the run's games repeat for its seed: always on sgt-mines, on xdemineur where a C compiler
    built the ``time()`` override (:mod:`screen_bot.fixed_time`)."""
    return program.name != "xdemineur" or build_library() is not None


def _mean(values: list[float]) -> float | None:
    return float(np.mean(values)) if values else None

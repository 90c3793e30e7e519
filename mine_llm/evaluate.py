"""Evaluate language models (and baselines, as reference rows) through the text env on a seeded suite.

Game ``i`` of the suite is the text env reset with the suite's env seed of game ``i``: the same game as every
other agent's game ``i`` (:mod:`eval.suites`). Games are played in threads (a model's time is spent waiting on
its server), each game on its own env, and each record depends only on the suite, the player and the game.
The records are :class:`eval.metrics.GameRecord` judged by the same oracle as ``minesweeper eval``, so the
summary has every key of :func:`eval.metrics.summarise`, plus what only a text player has: the logic score,
the avoidable risk per move, invalid replies, tokens, latency, and the games its endpoint ended.

A flaky endpoint does not end the run (:mod:`mine_llm.chat` sorts what goes wrong): a reply with no move is an
invalid reply and the game goes on; a request that fails after its retries ends its game as an **endpoint
failure** (not won, counted apart as ``endpoint_failures``), and the next game is played. The run stops early,
with the games played so far (:class:`RunStopped`), when the endpoint cannot be used at all (connection refused,
HTTP 401, 403, 404) or when ``failure_streak`` games of one player in a row ended by endpoint failures.

With a game log (:mod:`eval.game_log`) every game is written as it ends (its :class:`TextGame`, field by field) and
a resumed run plays only the others; a stop signal (:mod:`eval.stopping`) ends the games in flight at their next
move, unlogged, and keeps the rest.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from eval.game_log import GameLog, from_plain, plain
from eval.metrics import GameRecord, paired_comparison, summarise
from eval.stopping import count_games, threads_deaf_to_stops
from eval.suites import Suite
from mine_llm.chat import EndpointError, ReplyFailed
from mine_llm.policies import TextPolicy, Turn
from mine_llm.text_env import MinesweeperTextEnv

PolicyFactory = Callable[[int], TextPolicy]
"""``factory(agent_seed) -> TextPolicy``: a fresh player for one game, seeded by the suite."""


@dataclass(frozen=True)
class TextGame:
    """One game played through the text env.

    Attributes:
        record: The game as every evaluation records it.
        graded_moves: Reveals graded by the oracle.
        logical_moves: Graded moves with no avoidable risk.
        avoidable_risk: Avoidable risk summed over the graded moves.
        requests: Replies asked for (one per step).
        prompt_tokens: Prompt tokens over the game.
        completion_tokens: Reply tokens over the game.
        latencies: Seconds of each request.
        retries: Failed tries over the game (those of a request that never got an answer included).
        endpoint_failure: Why the endpoint ended the game, in one line (a request that failed after its
            retries: the game is recorded as it stood, not won); None when the game ended on the board.
    """

    record: GameRecord
    graded_moves: int
    logical_moves: int
    avoidable_risk: float
    requests: int
    prompt_tokens: int
    completion_tokens: int
    latencies: tuple[float, ...]
    retries: int
    endpoint_failure: str | None = None


class GameAbandoned(Exception):
    """A game left unfinished because the evaluation is stopping."""


def play_text_game(env: MinesweeperTextEnv, policy: TextPolicy, suite: Suite, game: int, label: str,
                   stop: threading.Event | None = None) -> TextGame:  # fmt: skip
    """Play game ``game`` of ``suite`` with ``policy`` to its end (the suite's first cell played on its behalf);
    :class:`GameAbandoned` before the next move once ``stop`` is set.

    A request of the policy that fails after its retries (:class:`mine_llm.chat.ReplyFailed`) ends the game there,
    not won, with the failure in :attr:`TextGame.endpoint_failure`.
    """
    seeds = suite.game_seeds(game)
    policy.reset()
    start = time.perf_counter()
    observation, info = env.reset(seed=seeds.env)
    turns: list[Turn] = []
    given = info["start_cell"]  # the zero start's cell, opened at reset: a move of the game, as the grid env counts
    first_action = None if given is None else given[0] * env.cols + given[1]
    opening = suite.first_cell
    failure: ReplyFailed | None = None
    while True:
        if stop is not None and stop.is_set():
            raise GameAbandoned(f"game {game} of {label}")
        if opening is not None:
            turn, opening = Turn(f"reveal {opening[0]} {opening[1]}"), None
        else:
            try:
                turn = policy.reply(observation)
            except ReplyFailed as error:
                failure = error
                break
            turns.append(turn)
        observation, _, terminated, truncated, info = env.step(turn.reply)
        if first_action is None and info["move"] is not None and not info["invalid_action"]:
            first_action = info["move"]["row"] * env.cols + info["move"]["col"]
        if terminated or truncated:
            break
    tally = info["game"]
    record = GameRecord(
        agent=label, game=game, seed=seeds.env, won=bool(info["is_success"]),
        steps=tally["replies"] + (given is not None),
        invalid_moves=tally["invalid_replies"], safe_revealed=info["revealed"],
        safe_fraction=info["revealed"] / (env.rows * env.cols - env.mines), guesses=tally["guesses"],
        avoidable_loss=tally["avoidable_loss"], excess_risk=tally["avoidable_risk"],
        time_s=time.perf_counter() - start, first_action=first_action,
    )  # fmt: skip
    return TextGame(
        record, tally["graded_moves"], tally["logical_moves"], tally["avoidable_risk"], len(turns),
        sum(t.prompt_tokens for t in turns), sum(t.completion_tokens for t in turns),
        tuple(t.seconds for t in turns), sum(t.retries for t in turns) + (failure.tries if failure else 0),
        None if failure is None else str(failure),
    )  # fmt: skip


def summarise_text(games: Sequence[TextGame]) -> dict[str, Any]:
    """One player's ``results`` entry: :func:`eval.metrics.summarise` with the oracle, plus

    ``logic_score`` (logical moves over graded moves, all games pooled), ``avoidable_risk_per_move``,
    ``invalid_replies`` and ``invalid_reply_rate`` (per reply), ``tokens`` (prompt and completion, in all and
    per game), ``latency`` (requests, mean, median and 95th percentile seconds), ``retries`` and
    ``endpoint_failures`` (games its endpoint ended, counted among the games and not won).
    """
    summary = summarise([game.record for game in games], oracle=True)
    graded = sum(game.graded_moves for game in games)
    requests = sum(game.requests for game in games)
    latencies = sorted(seconds for game in games for seconds in game.latencies)
    prompt = sum(game.prompt_tokens for game in games)
    completion = sum(game.completion_tokens for game in games)
    replies = sum(game.record.steps for game in games)
    summary.update({
        "interface": "text",
        "logic_score": sum(game.logical_moves for game in games) / graded if graded else None,
        "avoidable_risk_per_move": sum(game.avoidable_risk for game in games) / graded if graded else None,
        "invalid_replies": summary["invalid_moves"],
        "invalid_reply_rate": summary["invalid_moves"] / replies if replies else 0.0,
        "tokens": {"prompt": prompt, "completion": completion, "per_game": (prompt + completion) / len(games)},
        "latency": {
            "requests": requests,
            "mean_s": statistics.fmean(latencies) if latencies else None,
            "median_s": statistics.median(latencies) if latencies else None,
            "p95_s": latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))] if latencies else None,
        },
        "retries": sum(game.retries for game in games),
        "endpoint_failures": sum(game.endpoint_failure is not None for game in games),
    })  # fmt: skip
    return summary


@dataclass(frozen=True)
class TextReport:
    """The outcome of :func:`evaluate_text`: the report as JSON values, and every game's record.

    Attributes:
        summary: ``{"suite", "results", "paired"}`` as :meth:`eval.runner.EvalReport.to_dict`, each result from
            :func:`summarise_text`; a run stopped early adds ``"stopped"``, the line that says why.
        records: Every game's record, by player then game.
        stopped: Why the run stopped before its last game (one line), or None when every game was played.
    """

    summary: dict[str, Any]
    records: tuple[GameRecord, ...]
    stopped: str | None = None


class RunStopped(EndpointError):
    """The run stopped early, on an endpoint that cannot be used: one line, and the games played so far.

    Attributes:
        report: The report of the games that were played (None when none was).
    """

    def __init__(self, message: str, report: TextReport | None) -> None:
        super().__init__(message)
        self.report = report


class FailureStreak:
    """Games in a row of each player that ended by endpoint failures; ``limit`` of them stop the run.

    A model's endpoint that fails game after game (every request answered 500, or refused) is down, not flaky:
    playing on would end every game of the suite the same way.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"the failure streak that stops a run must be at least 1 game, got {limit}")
        self.limit = limit
        self._streaks: dict[str, int] = {}

    def observe(self, label: str, game: TextGame) -> None:
        """Count one finished game; :class:`EndpointError` when it makes ``limit`` endpoint failures in a row."""
        if game.endpoint_failure is None:
            self._streaks[label] = 0
            return
        streak = self._streaks[label] = self._streaks.get(label, 0) + 1
        if streak >= self.limit:
            raise EndpointError(
                f"{label}: {streak} games in a row ended by endpoint failures, the last: {game.endpoint_failure} "
                "(check the server and its log, then run again)"
            )


def evaluate_text(
    players: Sequence[tuple[str, PolicyFactory]],
    suite: Suite,
    *,
    concurrency: int = 4,
    progress: bool = True,
    env_kwargs: dict[str, Any] | None = None,
    failure_streak: int = 5,
    log: GameLog | None = None,
) -> TextReport:
    """Play every game of ``suite`` with every player through the text env.

    Args:
        players: (label, factory) pairs; a factory builds a fresh player for one game from its agent seed.
        suite: The games.
        concurrency: Games in flight at once (threads).
        progress: Show a progress bar.
        env_kwargs: More arguments of :class:`MinesweeperTextEnv` (``reward``, ``max_steps``).
        failure_streak: Games of one player in a row ended by endpoint failures that stop the run.
        log: Write every game there as it ends, and play only the games it does not hold yet.

    Raises:
        RunStopped: a model's endpoint cannot be used (refused, no key, unknown model), or failed
            ``failure_streak`` games in a row; it holds the report of the games played before.
        eval.stopping.Stopped: a stop signal (under :func:`eval.stopping.stop_signals`); the games in flight end
            at their next move and the finished ones stay in the log.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    labels = [label for label, _ in players]
    if len(set(labels)) != len(labels) or not labels:
        raise ValueError(f"give at least one player, each under its own label; got {labels}")
    kwargs = {"rows": suite.rows, "cols": suite.cols, "mines": suite.mines, "first_click": suite.first_click,
              "boards": suite.boards, "start": suite.start, **(env_kwargs or {})}  # fmt: skip
    MinesweeperTextEnv(**kwargs)  # bad options fail here, before a request is sent
    streak = FailureStreak(failure_streak)
    results = {} if log is None else logged_games(log, suite, labels)
    total = suite.games * len(players)
    jobs = [(index, game) for game in range(suite.games) for index in range(len(players))
            if (index, game) not in results]  # fmt: skip
    lock = threading.Lock()
    halted = threading.Event()
    stopping = threading.Event()

    def play(index: int, game: int) -> None:
        if halted.is_set():  # the run is stopping: the games in flight finish, no other starts
            return
        label, factory = players[index]
        env = MinesweeperTextEnv(**kwargs)
        try:
            outcome = play_text_game(env, factory(suite.game_seeds(game).agent), suite, game, label, stopping)
            with lock:
                if log is not None:
                    log.append([{"suite": suite.name, "agent": label, "game": game, "text_game": plain(outcome)}])
                results[index, game] = outcome
                streak.observe(label, outcome)
        except EndpointError:
            halted.set()
            raise

    bar = tqdm(total=total, initial=len(results), desc=suite.name, unit="game", disable=not progress, leave=False)
    prefix = f"text-game-{id(stopping):x}"
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=prefix)
    stopped: str | None = None
    try:
        with bar:
            with threads_deaf_to_stops():  # a stop reaches the main thread, never a game's
                futures = [pool.submit(play, *job) for job in jobs]
            for future in as_completed(futures):
                future.result()  # an endpoint that cannot be used stops the evaluation here
                bar.update(1)
    except EndpointError as error:
        stopped = str(error)
    except KeyboardInterrupt as stop:  # a Stopped, or Ctrl-C without eval.stopping.stop_signals
        stopping.set()  # the games in flight end at their next move, unlogged
        pool.shutdown(wait=True, cancel_futures=True)
        for thread in threading.enumerate():  # one the stop caught while it started is the pool's, yet not joined
            if thread.name.startswith(prefix):
                thread.join()
        count_games(stop, len(results), total)
        raise
    finally:
        halted.set()
        pool.shutdown(wait=True, cancel_futures=True)
    if stopped is None:
        return text_report(suite, len(players), results)
    if not results:
        raise RunStopped(stopped, None)
    line = f"{stopped}; stopped after {len(results)} of {total} games, the report holds them"
    raise RunStopped(line, text_report(suite, len(players), results, line))


def text_report(
    suite: Suite, players: int, results: dict[tuple[int, int], TextGame], stopped: str | None = None
) -> TextReport:
    """The report of the games played (at least one), by (player, game); a run that stopped early leaves out the
    players with no game, pairs each two players on the games both played, and says why it stopped."""
    per_player = [[results[index, game] for game in range(suite.games) if (index, game) in results]
                  for index in range(players)]  # fmt: skip
    records = [[game.record for game in games] for games in per_player if games]
    follows = suite.layout_follows_first_click()
    pairs = [(records[i], records[j]) for i in range(len(records)) for j in range(i + 1, len(records))]
    paired = [_paired_on_common_games(first, second, follows) for first, second in pairs]
    summary: dict[str, Any] = {"suite": suite.to_dict(),
                               "results": [summarise_text(games) for games in per_player if games],
                               "paired": [pair for pair in paired if pair is not None]}  # fmt: skip
    if stopped is not None:
        summary["stopped"] = stopped
    return TextReport(summary, tuple(record for player in records for record in player), stopped)


def _paired_on_common_games(
    first: list[GameRecord], second: list[GameRecord], follows: bool
) -> dict[str, Any] | None:
    """The paired comparison of two players on the games both played (None when they played none in common)."""
    common = {record.game for record in first} & {record.game for record in second}
    if not common:
        return None
    return paired_comparison([r for r in first if r.game in common], [r for r in second if r.game in common], follows)


def logged_games(log: GameLog, suite: Suite, labels: Sequence[str]) -> dict[tuple[int, int], TextGame]:
    """The games of ``log`` that belong to this suite and these players, by (player index, game)."""
    games: dict[tuple[int, int], TextGame] = {}
    for entry in log.games_of(suite.name, labels, suite.games):
        games.setdefault((labels.index(entry["agent"]), entry["game"]), from_plain(TextGame, entry["text_game"]))
    return games


TEXT_COLUMNS = (
    "agent", "logic score", "avoidable risk/move", "invalid replies", "tokens/game", "latency mean s", "p95 s",
    "retries", "endpoint failures",
)  # fmt: skip


def text_table(summary: dict[str, Any]) -> str:
    """The text path's own columns of every player, as a Markdown table."""

    def number(value: float | None, form: str) -> str:
        return "-" if value is None else format(value, form)

    lines = ["| " + " | ".join(TEXT_COLUMNS) + " |", "|---" + "|---:" * (len(TEXT_COLUMNS) - 1) + "|"]
    for result in summary["results"]:
        latency = result["latency"]
        cells = [
            result["agent"], number(result["logic_score"], ".3f"), number(result["avoidable_risk_per_move"], ".4f"),
            f"{result['invalid_replies']} ({100 * result['invalid_reply_rate']:.1f}%)",
            f"{result['tokens']['per_game']:.0f}", number(latency["mean_s"], ".3f"), number(latency["p95_s"], ".3f"),
            str(result["retries"]), str(result["endpoint_failures"]),
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

"""``minesweeper eval`` stopped by SIGINT or SIGTERM sent to its main process alone, on 2 local workers and on
Ray: it keeps the games done, says in one line how to resume, leaks no semaphore, leaves no process behind,
and the resumed run gives the report of an unbroken run without playing a game twice."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from backends import ray_installed
from eval.game_log import read_game_log
from eval.runner import evaluate
from eval.suites import adhoc_suite
from mine_env.engine.spec import BoardSpec

ROOT = Path(__file__).resolve().parents[2]
GAMES = 200
OPTIONS = ["--agent", "solver", "--agent", "random", "--preset", "beginner", "--games", str(GAMES), "--workers", "2",
           "--chunk-games", "5", "--no-progress"]  # fmt: skip
STARTED_S, STOPPED_S, GONE_S = 300.0, 120.0, 15.0
"""Longest waits: for the first games (a cold numba cache compiles), for the stop, for the children to go."""


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (psutil where installed, else /proc)."""
    try:
        import psutil
    except ImportError:
        parents = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(stat.parent.name)] = int(fields[1])
        found, frontier = set(), {pid}
        while frontier:
            frontier = {child for child, parent in parents.items() if parent in frontier} - found
            found |= frontier
        return found
    try:
        return {child.pid for child in psutil.Process(pid).children(recursive=True)}
    except psutil.NoSuchProcess:
        return set()


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` that still run (a zombie awaiting its reaper counts as gone)."""
    running = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            running.add(pid)
    return running


@pytest.fixture(scope="module")
def unbroken() -> dict[str, Any]:
    suite = adhoc_suite(BoardSpec(9, 9, 10, "opening"), GAMES, 0)
    return without_times(evaluate(["solver", "random"], suite, workers=1, progress=False).to_dict())


def without_times(report: dict[str, Any]) -> dict[str, Any]:
    for result in report["results"]:
        result.pop("time_per_game_ms")
    return report


def logged_games(path: Path) -> int:
    try:
        return path.read_text().count("\n") - 1
    except OSError:
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", "ray"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_eval_resumes_to_the_report_of_an_unbroken_run(
    tmp_path: Path, backend: str, signum: int, unbroken: dict[str, Any]
) -> None:
    if backend == "ray" and not ray_installed():
        pytest.skip("ray is not installed (pip install 'minesweeper-rl[ray]')")
    log, report = tmp_path / "run.games.jsonl", tmp_path / "run.json"
    command = [sys.executable, "-m", "minesweeper_cli.main", "eval", *OPTIONS, "--backend", backend,
               "--json", str(report), "--log", str(log)]  # fmt: skip
    run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    began = time.monotonic()
    while logged_games(log) < 20 and run.poll() is None and time.monotonic() - began < STARTED_S:
        time.sleep(0.2)
    children = descendants(run.pid)
    run.send_signal(signum)
    _, stderr = run.communicate(timeout=STOPPED_S)
    assert run.returncode == 128 + signum, stderr
    assert "leaked semaphore" not in stderr and "Traceback" not in stderr, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("interrupted after ") and " of 400 games; resume with: minesweeper eval " in last, last
    done = int(last.split()[2])
    assert 20 <= done < 2 * GAMES and logged_games(log) == done
    began = time.monotonic()
    while alive(children) and time.monotonic() - began < GONE_S:
        time.sleep(0.2)
    assert not alive(children), f"processes left behind: {sorted(alive(children))}"

    resume = shlex.split(last.split("resume with: ", 1)[1])
    assert resume[0] == "minesweeper" and resume[-4:] == ["--log", str(log), "--resume", str(log)]
    finished = subprocess.run([sys.executable, "-m", "minesweeper_cli.main", *resume[1:]], cwd=ROOT,
                              capture_output=True, text=True, timeout=STARTED_S)  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    _, games = read_game_log(log)
    assert len(games) == 2 * GAMES == len({(game["agent"], game["game"]) for game in games})  # none played twice
    assert without_times(json.loads(report.read_text())) == unbroken


@pytest.mark.slow
def test_a_stopped_batched_run_resumes_to_the_games_of_an_unbroken_run(tmp_path: Path) -> None:
    from eval.batched import play_model_batched
    from eval.suites import get_suite

    log, report = tmp_path / "batched.games.jsonl", tmp_path / "batched.jsonl"
    command = [sys.executable, "-m", "eval.batched", "--model", "models/distill_beginner_opening.zip", "--suite",
               "beginner-opening-1k", "--games", "300", "--workers", "2", "--no-progress", "--json", str(report)]
    run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    began = time.monotonic()
    while logged_games(log) < 1 and run.poll() is None and time.monotonic() - began < STARTED_S:
        time.sleep(0.2)
    children = descendants(run.pid)
    run.send_signal(signal.SIGTERM)
    _, stderr = run.communicate(timeout=STOPPED_S)
    assert run.returncode == 143 and "leaked semaphore" not in stderr and "Traceback" not in stderr, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("interrupted after ") and " of 300 games; resume with: python -m eval.batched " in last
    began = time.monotonic()
    while alive(children) and time.monotonic() - began < GONE_S:
        time.sleep(0.2)
    assert not alive(children), f"processes left behind: {sorted(alive(children))}"
    resume = shlex.split(last.split("resume with: ", 1)[1])
    finished = subprocess.run([sys.executable, *resume[1:]], cwd=ROOT, capture_output=True, text=True,
                              timeout=STARTED_S)  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    assert not log.exists()  # the working log beside --json, deleted with the report written
    unbroken = play_model_batched("models/distill_beginner_opening.zip", get_suite("beginner-opening-1k"), 300)
    record = json.loads(report.read_text())
    assert record["won"] == unbroken.won.astype(int).tolist() and record["first_cell"] == unbroken.first_cell.tolist()


def test_a_stop_that_compiled_code_wraps_is_still_a_clean_stop(tmp_path: Path) -> None:
    from eval.stopping import Stopped, interrupt_behind

    def wrapped_stop() -> SystemError:
        try:
            raise Stopped(signal.SIGTERM)
        except Stopped as stop:
            try:
                raise SystemError("CPUDispatcher(...) returned a result with an exception set") from stop
            except SystemError as error:
                return error

    assert isinstance(interrupt_behind(wrapped_stop()), Stopped)
    assert interrupt_behind(SystemError("no stop behind")) is None

    moves = iter(range(10**6))

    def policy(obs: Any, info: dict[str, Any]) -> int:  # plays the first valid cell; stops at its 40th move
        if next(moves) == 40:
            raise wrapped_stop()
        return int(info["action_mask"].argmax())

    log = tmp_path / "run.games.jsonl"
    suite = adhoc_suite(BoardSpec(9, 9, 10, "opening"), 30, seed=3)
    with pytest.raises(Stopped) as stopped:
        evaluate([policy], suite, workers=1, oracle=False, progress=False, chunk_games=2, log=log)
    assert stopped.value.done == logged_games(log) and stopped.value.total == 30

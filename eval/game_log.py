"""Every game of an evaluation written down as it finishes, so that a stopped run loses nothing and resumes.

A game log is a file of JSON lines. The first names the run, ``{"run": {...}}``: whatever decides its games'
outcomes (the suite, the agents, the options that change play), so that a resume with other options is refused
in one line instead of mixing two runs in one report. Every later line is one finished game: the suite and agent
it belongs to, its index, seed and outcome, and every metric the report sums; the evaluation writes it (flushed
and synced to disk) as soon as the game ends, and a resumed run reads the games back and plays only the others.
A line torn by a stop in mid-write (the last one) is dropped on reading, and the file cut back to the good lines.

:func:`plain` and :func:`from_plain` turn a record dataclass into JSON values and back, field by field, so that a
record that gains a field is logged whole without a change here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import typing
from collections.abc import Collection
from pathlib import Path
from typing import Any

RUN_KEY = "run"
"""The key of the header line."""
LOG_SUFFIX = ".games.jsonl"
"""The ending of a game log's name, ``out.json`` -> ``out.games.jsonl`` (:func:`log_beside`)."""
WORKING_PREFIX = "minesweeper-eval-"
"""How the name of a working log in the temporary folder starts (a run given neither a log nor a report file)."""


class GameLog:
    """An open game log: the games already in it (:attr:`games`) and :meth:`append` for the next ones.

    Open one with :func:`open_game_log`; close it (or use ``with``) when the run ends.
    """

    def __init__(self, path: Path, run: dict[str, Any], games: list[dict[str, Any]]) -> None:
        self.path = path
        self.run = run
        self.games = games
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, games: list[dict[str, Any]]) -> None:
        """Write finished games, one line each, in one write, synced to disk before returning."""
        if not games:
            return
        if self._fd is None:
            raise ValueError(f"the game log {self.path} is closed")
        data = "".join(json.dumps(game) + "\n" for game in games).encode()
        written = 0
        while written < len(data):
            written += os.write(self._fd, data[written:])
        os.fsync(self._fd)
        self.games.extend(games)

    def games_of(self, suite: str, agents: Collection[str], games: int) -> list[dict[str, Any]]:
        """The logged games of the suite named ``suite``, played by one of ``agents``, of an index below ``games``."""
        return [entry for entry in self.games if entry.get("suite") == suite and entry.get("agent") in agents
                and isinstance(entry.get("game"), int) and 0 <= entry["game"] < games]  # fmt: skip

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_game_log(path: str | Path, run: dict[str, Any], *, resume: bool) -> GameLog:
    """A new log at ``path`` for the run ``run`` (a JSON-able dict), or with ``resume`` the log of the same run.

    Raises:
        ValueError: a new log over a file that already holds games (it would be lost), a resumed one that does
            not exist, is not a game log, or was written by another run (the message names what differs).
    """
    path = Path(path)
    run = json.loads(json.dumps(run))  # as it reads back: tuples as lists
    if not resume:
        if path.exists() and path.stat().st_size > 0:
            raise ValueError(f"the game log {path} already holds a run: continue it with --resume {path}, "
                             "or give another file (or delete it)")  # fmt: skip
        path.write_text(json.dumps({RUN_KEY: run}) + "\n")
        return GameLog(path, run, [])
    if not path.is_file():
        raise ValueError(f"--resume {path}: no such game log (it is written with --log PATH, or beside --json)")
    logged, games = read_game_log(path)
    difference = run_difference(logged, run)
    if difference:
        raise ValueError(f"--resume {path} is the log of another run ({difference}): give the options it was "
                         "started with, or start a new log")  # fmt: skip
    return GameLog(path, run, games)


def read_game_log(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run and the games of a log; a torn last line is dropped and cut from the file.

    Raises:
        ValueError: the file does not start with a run line, or a line before the last is not JSON.
    """
    path = Path(path)
    lines = path.read_bytes().split(b"\n")
    complete = lines[:-1]  # after the last newline: nothing, or a line torn in mid-write
    entries: list[dict[str, Any]] = []
    for number, line in enumerate(complete, start=1):
        try:
            entries.append(json.loads(line))
        except ValueError:
            if number < len(complete):
                raise ValueError(f"{path}:{number} is not JSON: the game log is damaged") from None
            complete = complete[:-1]  # the last line, torn
    if len(complete) < len(lines) - 1 or lines[-1]:
        os.truncate(path, sum(len(line) + 1 for line in complete))
    if not entries or not isinstance(entries[0], dict) or RUN_KEY not in entries[0]:
        raise ValueError(f"{path} is not a game log: its first line should name the run ({{\"{RUN_KEY}\": ...}})")
    return entries[0][RUN_KEY], entries[1:]


def run_difference(logged: dict[str, Any], run: dict[str, Any]) -> str:
    """What differs between two runs' header values, as ``key: logged -> now`` ("" when they are the same)."""
    for key in sorted(set(logged) | set(run)):
        if logged.get(key) != run.get(key):
            return f"{key}: {_short(logged.get(key))} in the log, {_short(run.get(key))} now"
    return ""


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def log_beside(report: str | Path) -> Path:
    """The default game log of a report file: ``out.json`` -> ``out.games.jsonl`` in the same folder."""
    report = Path(report)
    return report.with_name(report.stem + LOG_SUFFIX)


def choose_log(log: str | None, resume: str | None, report: str | None) -> tuple[Path, bool]:
    """Where a run logs its games (the options ``--log``, ``--resume`` and the report file ``--json``), and whether
    that log is a working file, to delete once the report is written (the default: beside the report, else a new
    file in the temporary folder), rather than one the user named with ``--log``.

    Raises:
        ValueError: ``--log`` and ``--resume`` name two different files.
    """
    if log and resume and Path(log) != Path(resume):
        raise ValueError("--resume LOG continues that log: drop --log, or give it the same path")
    if log:
        return Path(log), False
    if resume:
        resumed = Path(resume)
        beside = report is not None and resumed == log_beside(report)
        return resumed, beside or resumed.name.startswith(WORKING_PREFIX)
    if report:
        return log_beside(report), True
    handle, name = tempfile.mkstemp(LOG_SUFFIX, WORKING_PREFIX)
    os.close(handle)
    return Path(name), True


def drop_if_empty(log: Path) -> None:
    """Delete a working log that holds no game (a run that failed before its first one ended)."""
    try:
        if log.read_text().count("\n") <= 1:
            log.unlink()
    except OSError:
        pass


def plain(record: Any) -> dict[str, Any]:
    """A record dataclass as JSON values, every field (nested dataclasses as dicts, tuples as lists)."""
    return json.loads(json.dumps(dataclasses.asdict(record)))


def from_plain(cls: type, values: dict[str, Any]) -> Any:
    """The dataclass ``cls`` from :func:`plain`'s values: nested dataclasses and tuples rebuilt from their type
    hints; a field missing from an older log takes its default."""
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for field in dataclasses.fields(cls):
        if field.name in values:
            kwargs[field.name] = _value(hints[field.name], values[field.name])
    return cls(**kwargs)


def _value(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    for kind in (hint, *typing.get_args(hint)):  # X, or the X of X | None
        if dataclasses.is_dataclass(kind) and isinstance(value, dict):
            return from_plain(kind, value)  # type: ignore[arg-type]
        if typing.get_origin(kind) is tuple and isinstance(value, list):
            return tuple(value)
    return value

"""The cost of Ray: one suite played on the local process pool and on a private Ray instance, in one run.

Each backend plays the very same games with the same number of workers; the backends take turns
(``--repeats`` rounds of local then Ray) so that a change of load on a shared machine touches both. For each
play the wall-clock time is split into

- ``start``: opening the backend (a Ray instance starts: GCS, raylet, object store; a local pool starts
  lazily, inside ``play``);
- ``play``: every chunk played and gathered, from the first task to the last record (it includes starting
  the worker processes and loading the compiled kernels in each);
- ``replay``: the same games again on the same backend, its workers already running and warm: what is left
  is the play itself and each backend's cost per chunk;

and the records are checked to be the same, game for game (``time_s`` aside). The ratio Ray / local of the
``replay`` times is the overhead of Ray's tasks; the per-game cost of a worker (``replay`` time x workers /
games) feeds the cluster plan of docs/SCALING.md.

Usage::

    python benchmarks/bench_backends.py --preset beginner --games 100000 --seed 2026 --workers 2 --no-oracle \\
        --json docs/results/scaling/backends-beginner-100k.json
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from backends import open_backend
from eval.agent_specs import resolve_agents
from eval.pool import MAX_CHUNK, _tasks, play_on
from eval.suites import adhoc_suite
from mine_env.engine.constants import PRESETS
from mine_env.engine.spec import BoardSpec


def timed_play(backend_name: str, suite: Any, agents: list, workers: int, oracle: bool) -> tuple[dict, list]:
    """One play of the suite on a fresh backend: its start, play and total seconds, and the records."""
    start = time.perf_counter()
    with open_backend(backend_name, workers) as backend:
        opened = time.perf_counter()
        records = play_on(backend, suite, agents, oracle=oracle, progress=False)
        played = time.perf_counter()
        again = play_on(backend, suite, agents, oracle=oracle, progress=False)
        replayed = time.perf_counter()
    closed = time.perf_counter()
    if outcome_list(again) != outcome_list(records):
        raise RuntimeError(f"the {backend_name} backend played different games the second time")
    times = {"backend": backend_name, "start_s": opened - start, "play_s": played - opened,
             "replay_s": replayed - played, "stop_s": closed - replayed}  # fmt: skip
    return times, records


def outcome_list(records: list) -> list[tuple]:
    return [(record.agent, record.game, record.outcome()) for record in records]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="solver")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="beginner")
    parser.add_argument("--first-click", choices=("safe", "opening"), default="opening")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1, help="rounds of local then Ray")
    parser.add_argument("--no-oracle", dest="oracle", action="store_false", help="compiled games, no oracle")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    suite = adhoc_suite(BoardSpec(*PRESETS[args.preset], args.first_click), args.games, args.seed)
    agents = resolve_agents([args.agent], suite.spec())
    chunks = len(_tasks(1, args.games, args.workers))
    oracle = "on" if args.oracle else "off"
    print(f"{suite.name}, {args.agent}, oracle {oracle}, {args.workers} workers, {chunks} chunks of up to "
          f"{MAX_CHUNK} games; load average before {os.getloadavg()[0]:.2f}", flush=True)
    plays, reference = [], None
    for round_ in range(args.repeats):
        for name in ("local", "ray"):
            times, records = timed_play(name, suite, agents, args.workers, args.oracle)
            outcomes = outcome_list(records)
            reference = reference or outcomes
            times.update(round=round_, identical=outcomes == reference, wins=sum(r.won for r in records))
            plays.append(times)
            print(json.dumps(times), flush=True)
    summary = summarise(plays, args.games, args.workers)
    print(json.dumps(summary, indent=2))
    print(f"load average after {os.getloadavg()[0]:.2f}")
    if args.json:
        payload = {"suite": suite.to_dict(), "agent": args.agent, "oracle": args.oracle, "workers": args.workers,
                   "chunks": chunks, "plays": plays, "summary": summary}  # fmt: skip
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n")


def summarise(plays: list[dict], games: int, workers: int) -> dict[str, Any]:
    """Best times per backend, the Ray / local ratios, and a worker's milliseconds per game when warm."""

    def best(key: str) -> dict[str, float]:
        return {name: min(p[key] for p in plays if p["backend"] == name) for name in ("local", "ray")}

    start, play, replay = best("start_s"), best("play_s"), best("replay_s")
    return {
        "start_s": start,
        "play_s": play,
        "replay_s": replay,
        "ray_over_local_replay": replay["ray"] / replay["local"],
        "ray_over_local_play": play["ray"] / play["local"],
        "ray_over_local_with_start": (play["ray"] + start["ray"]) / (play["local"] + start["local"]),
        "worker_ms_per_game_warm": {name: 1000 * replay[name] * workers / games for name in replay},
        "all_identical": all(p["identical"] for p in plays),
    }


if __name__ == "__main__":
    main()

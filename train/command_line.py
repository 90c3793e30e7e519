"""A config dataclass as a command line: one ``--field-name`` option per field, ``--resume``, the config the
options describe, and a run's refusal of a setting as argparse's one-line error."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import threading
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def add_config_arguments(parser: argparse.ArgumentParser, config_class: type) -> None:
    """One ``--field-name`` option per field of a config dataclass; options not given keep the config's value."""
    hints = typing.get_type_hints(config_class)
    for item in dataclasses.fields(config_class):
        flag = "--" + item.name.replace("_", "-")
        kind = hints[item.name]
        help_text = f"{item.metadata['help']} (default: {item.default})"
        if kind is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS, help=help_text)
        else:
            base = next(t for t in typing.get_args(kind) or (kind,) if t is not type(None))
            parser.add_argument(flag, type=base, default=argparse.SUPPRESS, help=help_text)


def add_resume_argument(parser: argparse.ArgumentParser) -> None:
    """``--resume RUN_DIR``: the stable-baselines3 scripts' way to continue a run."""
    parser.add_argument(
        "--resume", type=Path, metavar="RUN_DIR",
        help="continue a run from its checkpoint (a run directory, or a checkpoint .zip in one): the step counter, "
        "optimizer, schedules, replay buffer, random states, games in progress and learning curve carry on; its "
        "config.json is the base that the options given override (typically --steps or --minutes); the network "
        "and the algorithm's settings come from the checkpoint, except DQN's epsilon schedule, which follows the "
        "config",
    )  # fmt: skip


def config_from_args(config_class: type, args: argparse.Namespace, base: Any = None) -> Any:
    """The config the options describe, on top of ``base`` (a resumed run's config) or the defaults."""
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(config_class) if hasattr(args, f.name)}
    return dataclasses.replace(base or config_class(), **given)


def report_run(parser: argparse.ArgumentParser, start: Callable[[], Path]) -> int:
    """Run ``start`` (a training script's run) and print its directory; a setting it refuses (ValueError, a
    missing file) exits with status 2 and the message, as argparse does for a bad option. A ``kill`` (SIGTERM)
    exits as Ctrl-C does, through the run's cleanup, so the worker processes it started stop with it."""
    in_main = threading.current_thread() is threading.main_thread()  # only there can Python handle a signal
    previous = signal.signal(signal.SIGTERM, _exit_on_terminate) if in_main else None
    try:
        run_dir = start()
    except (ValueError, FileNotFoundError) as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)
    print(f"run directory: {run_dir}")
    return 0


def _exit_on_terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def config_script(argv: Sequence[str] | None, prog: str, description: str, config_class: type,
                  run: Callable[[Any], Path]) -> int:  # fmt: skip
    """A training script whose options are exactly ``config_class``'s fields: parse ``argv``, ``run`` the config
    and print its run directory (:func:`report_run`)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    add_config_arguments(parser, config_class)
    args = parser.parse_args(argv)
    return report_run(parser, lambda: run(config_from_args(config_class, args)))

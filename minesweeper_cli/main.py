"""Entry point of the ``minesweeper`` command: builds the parser from the subcommand modules.

Each module named in :data:`COMMANDS` exposes ``register(subparsers)``, which adds its parser and sets
``func(args) -> int`` as the handler. Building the parser loads none of the engine, numba, torch or the OpenAI
SDK (the choices come from :mod:`minesweeper_cli.choices`; each handler imports what it runs), so ``--help``,
``--version`` and a mistyped option are answered at once.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path

COMMANDS: tuple[str, ...] = ("games", "play", "solve", "evaluate", "train", "battle", "bot")


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="minesweeper", description="Minesweeper for reinforcement learning.")
    parser.add_argument("--version", action="version", version=f"minesweeper-rl {package_version()}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"minesweeper_cli.{name}").register(subparsers)
    _describe(subparsers)
    return parser


def package_version() -> str:
    """``mine_env.__version__``, read from its source as setuptools reads it, without importing the engine."""
    spec = importlib.util.find_spec("mine_env")
    assert spec is not None and spec.origin is not None, "mine_env is part of this distribution"
    for node in ast.parse(Path(spec.origin).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(target, "id", None) for target in node.targets] == ["__version__"]:
            return str(ast.literal_eval(node.value))
    raise LookupError(f"{spec.origin} sets no __version__")


def _hidden_packages() -> list[str]:
    """Our packages another installed distribution hides, each said in one line (:mod:`mine_env.name_clash`,
    loaded from its file: importing it through ``mine_env`` would load the engine before the parser)."""
    spec = importlib.util.find_spec("mine_env")
    assert spec is not None and spec.origin is not None, "mine_env is part of this distribution"
    source = Path(spec.origin).parent / "name_clash.py"
    check = importlib.util.spec_from_file_location("minesweeper_cli._name_clash", source)
    assert check is not None and check.loader is not None
    module = importlib.util.module_from_spec(check)
    check.loader.exec_module(module)
    return module.warn_once()


def _describe(subparsers: argparse._SubParsersAction) -> None:
    """A command without a description of its own shows its one-line help at the top of its ``--help``, and
    its errors name it in full (``minesweeper battle eval: error: ...``; a nested command's name wins)."""
    helps = {action.dest: action.help for action in subparsers._choices_actions}
    for name, command in subparsers.choices.items():
        command.description = command.description or helps.get(name)
        command.set_defaults(command_prog=command.prog)
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                _describe(action)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; bad input ends with a message and exit status 2, never a traceback."""
    if _hidden_packages():  # another distribution hides a package of ours: said in one line, then stop
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    args.command_line = list(sys.argv[1:] if argv is None else argv)  # to print a command that resumes it
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # the reader left early, as `| head` does: stop quietly (before OSError, its base)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except (ValueError, OSError) as error:
        parser.exit(2, f"{args.command_prog}: error: {_one_line(error)}\n")


def _one_line(error: Exception) -> str:
    """The error's message; an OS error as "what: path" rather than "[Errno N] what: 'path'"."""
    if isinstance(error, OSError) and error.strerror and error.filename is not None:
        return f"{error.strerror}: {error.filename}"
    return str(error)


if __name__ == "__main__":
    sys.exit(main())

"""A sweep of bad input over every ``minesweeper`` command: each gets one clear line and exit status 2.

Every case runs the command line in this process and asserts status 2, a last line on stderr of the form
``minesweeper COMMAND: error: ...`` (argparse's own errors put a usage line before it) that contains the
expected words, and no traceback. Nothing slow may start first: the cases that would run a long job give it
enough work to show if it did (``--games 1000000``, ``--steps 10000000``), and the outputs of ``eval`` are
checked before any game is played (its stdout stays empty). docs/ERRORS.md counts these cases.

Paths in a case are written relative to a folder of bad files (:func:`bad_files`), ``{dir}`` being that folder.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from minesweeper_cli.main import build_parser
from support import run_cli

COMMANDS = ("games", "solve", "eval", "play", "train")

HAS_TRAIN = all(importlib.util.find_spec(name) for name in ("torch", "stable_baselines3", "sb3_contrib"))
NEEDS_TRAIN = [pytest.mark.train, pytest.mark.skipif(not HAS_TRAIN, reason="needs the train extra")]

GAMES = [
    (["games", "--games", "0"], "--games must be at least 1, got 0"),
    (["games", "--seed", "-1"], "--seed must be non-negative, got -1"),
    (["games", "--rows", "300"], "rows must be between 1 and 256, got 300"),
    (["games", "--mines", "81"], "81 mines do not fit a 9x9 board"),
    (["games", "--agent", "nobody"], "invalid choice: 'nobody'"),
    (["games", "--games", "many"], "invalid int value: 'many'"),
    (["games", "--preset", "huge"], "invalid choice: 'huge'"),
    (["games", "--first-click", "lucky"], "invalid choice: 'lucky'"),
]

SOLVE = [
    (["solve"], "the following arguments are required: file"),
    (["solve", "{dir}/missing.txt"], "no board file {dir}/missing.txt; e.g. minesweeper solve examples/"),
    (["solve", "{dir}"], "{dir} is a folder, not a board file"),
    (["solve", "{dir}/binary.txt"], "{dir}/binary.txt is not a text file"),
    (["solve", "{dir}/empty.txt"], "{dir}/empty.txt: no grid found"),
    (["solve", "{dir}/bad-char.txt"], "{dir}/bad-char.txt: line 2: unknown cell character(s) '?'"),
    (["solve", "{dir}/ragged.txt"], "{dir}/ragged.txt: line 3: row has 3 cells, the first row has 4"),
    (["solve", "{dir}/no-mines.txt"], "needs a 'mines: N' header line"),
    (["solve", "{dir}/mines-word.txt"], "mines must be an integer, got 'ten'"),
    (["solve", "{dir}/too-many.txt"], "mines: 99 does not fit a board of 4 cells"),
    (["solve", "{dir}/bad-header.txt"], "unknown header 'rows'"),
    (["solve", "{dir}/bad-rule.txt"], "unknown first_click 'lucky'"),
    (["solve", "{dir}/total.txt"], "{dir}/total.txt: no layout of 3 mines fits this position: the total mine "
     "count does not fit: the numbers need exactly 1 mine on"),
    (["solve", "{dir}/unsatisfiable.txt"], "{dir}/unsatisfiable.txt: no layout of 2 mines fits this position: "
     "the 3 at (0, 1) cannot be satisfied: it touches 0 known mines and 2 hidden cells"),
    (["solve", "--trust-flags", "{dir}/flags.txt"], "2 known mines but only 1 in total"),
]

EVAL_QUICK = ["--games", "1000000", "--workers", "1", "--no-progress"]
EVAL = [
    (["eval"], "give at least one --agent NAME, --model PATH or --head PATH"),
    (["eval", "--agent", "minimax"], "invalid choice: 'minimax'"),
    (["eval", "--agent", "random", "--suite", "nowhere-1k"], "unknown suite 'nowhere-1k'"),
    (["eval", "--agent", "random", "--games", "0"], "--games must be at least 1, got 0"),
    (["eval", "--agent", "random", "--seed", "-1"], "--seed must be non-negative, got -1"),
    (["eval", "--agent", "random", "--workers", "0"], "--workers must be at least 1, got 0"),
    (["eval", "--agent", "random", "--suite", "beginner-safe-1k", "--games", "5"], "drop --games"),
    (["eval", "--agent", "random", "--mines", "99"], "99 mines do not fit"),
    (["eval", "--agent", "random", "--rows", "0"], "rows must be between 1 and 256, got 0"),
    (["eval", "--agent", "random", *EVAL_QUICK, "--json", "/no/such/dir/out.json"],
     "--json /no/such/dir/out.json: the folder /no/such/dir does not exist; create it first"),
    (["eval", "--agent", "random", *EVAL_QUICK, "--json", "{dir}"], "--json {dir} is a folder; give a file name in it"),
    (["eval", "--agent", "random", *EVAL_QUICK, "--csv", "{dir}/notes.md/games.csv"],
     "--csv {dir}/notes.md/games.csv: {dir}/notes.md is a file, not a folder"),
    (["eval", "--agent", "random", *EVAL_QUICK, "--plot", "/no/such/dir/win.png"],
     "--plot /no/such/dir/win.png: the folder /no/such/dir does not exist"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/notes.md"],
     "{dir}/notes.md is not a model file: a model is a .json model card with its .pt weights (and the training .zip)"),
    (["eval", *EVAL_QUICK, "--model", "{dir}"],
     "{dir} is a folder, not a model file: give a model (its .zip, its .pt or their stem); the models in it: "
     "{dir}/bad-card, {dir}/flags"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/missing.zip"], "model file {dir}/missing.zip does not exist"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/missing"], "model file {dir}/missing.zip does not exist"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/missing.md"],
     "model file {dir}/missing.md does not exist, nor {dir}/missing.md.zip"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/lonely.zip"], "has no metadata file {dir}/lonely.json beside it"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/bad-card.zip"], "model card {dir}/bad-card.json is not valid JSON"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/bad-card.json"], "the model beside it is {dir}/bad-card"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/flags.zip"], "was trained with flag actions"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/pixels.zip"], "obs_mode 'pixels', but the networks of the model"),
    (["eval", *EVAL_QUICK, "--model", "{dir}/not-a-zip.zip"],
     "has no network section (a run saved before the model format): convert it with `python -m train.sb3.export "
     "{dir}/not-a-zip.zip`"),
]

PLAY = [
    (["play", "--rows", "0"], "rows must be between 1 and 256, got 0"),
    (["play", "--mines", "99"], "99 mines do not fit"),
    (["play", "--delay", "-1"], "--delay"),
    (["play", "--seed", "-1"], "--seed"),
    (["play", "--agent", "nobody"], "invalid choice: 'nobody'"),
    (["play", "--mode", "watch"], "invalid choice: 'watch'"),
    (["play", "--mode", "manual"], "interactive terminal"),
    (["play", "--gui", "--cell-px", "4"], "--cell-px"),
    (["play", "--no-guess", "--first-click", "safe"], "use first_click='opening'"),
    (["play", "--no-guess", "--mines", "30"], "30 mines are too dense for no-guess 9x9 boards: at most 18"),
]

TRAIN_QUICK = ["--steps", "10000000", "--runs-dir", "{dir}/runs", "--no-progress-bar"]
TRAIN = [
    (["train"], "the following arguments are required: ALGO"),
    (["train", "sarsa"], "invalid choice: 'sarsa'"),
    (["train", "ppo", "--steps", "0"], "steps must be at least 1, got 0"),
    (["train", "ppo", "--steps", "many"], "invalid int value: 'many'"),
    (["train", "ppo", *TRAIN_QUICK, "--num-envs", "0"], "num_envs must be at least 1, got 0"),
    (["train", "ppo", *TRAIN_QUICK, "--batch-size", "1"], "batch_size must be at least 2, got 1"),
    (["train", "ppo", *TRAIN_QUICK, "--n-steps", "0"], "n_steps must be at least 1, got 0"),
    (["train", "ppo", *TRAIN_QUICK, "--n-epochs", "0"], "n_epochs must be at least 1, got 0"),
    (["train", "ppo", *TRAIN_QUICK, "--gamma", "2"], "gamma must be between 0.0 and 1.0, got 2.0"),
    (["train", "ppo", *TRAIN_QUICK, "--clip-range", "-1"], "clip_range must be positive, got -1.0"),
    (["train", "maskable_ppo", *TRAIN_QUICK, "--learning-rate", "0"], "learning_rate must be positive, got 0.0"),
    (["train", "ppo", *TRAIN_QUICK, "--device", "quantum"], "unknown device 'quantum'"),
    (["train", "ppo", *TRAIN_QUICK, "--seed", "-1"], "seed must be at least 0, got -1"),
    (["train", "ppo", *TRAIN_QUICK, "--mines", "99"], "99 mines do not fit"),
    (["train", "ppo", *TRAIN_QUICK, "--first-click", "lucky"], "unknown first_click rule 'lucky'"),
    (["train", "dqn", *TRAIN_QUICK, "--buffer-size", "0"], "buffer_size must be at least 1, got 0"),
    (["train", "dqn", *TRAIN_QUICK, "--exploration-fraction", "1.5"], "exploration_fraction must be between 0.0"),
    (["train", "dqn", *TRAIN_QUICK, "--max-steps", "0"], "max_steps must be at least 1, got 0"),
    (["train", "dqn", "--steps", "64", "--runs-dir", "{dir}/notes.md"], "runs_dir {dir}/notes.md is a file"),
    (["train", "dqn", *TRAIN_QUICK, "--resume", "{dir}/missing.zip"], "no checkpoint at {dir}/missing.zip"),
    (["train", "dqn", *TRAIN_QUICK, "--resume", "{dir}/lonely.zip"], "no config.json in any folder above"),
    (["train", "dqn", *TRAIN_QUICK, "--resume", "{dir}/ppo-run/model.zip"],
     "{dir}/ppo-run/config.json is not the config of a dqn run (it has n_steps): resume a run with the algorithm"),
    (["train", "ppo", *TRAIN_QUICK, "--resume", "{dir}/ppo-run/model.zip"],
     "cannot resume {dir}/ppo-run/model.zip as a ppo run"),
]

COMMAND = [([], "the following arguments are required: COMMAND"), (["nonsense"], "invalid choice: 'nonsense'")]

CASES = COMMAND + GAMES + SOLVE + EVAL + PLAY + [pytest.param(*case, marks=NEEDS_TRAIN) for case in TRAIN]
"""Every bad input of the sweep, as (argv, words the error must contain)."""

TEXT_FILES = {
    "empty.txt": "# nothing but a comment\n",
    "bad-char.txt": "mines: 1\n. ?\n",
    "ragged.txt": "mines: 1\n. . . .\n. . .\n",
    "no-mines.txt": ". . 1 0\n",
    "mines-word.txt": "mines: ten\n. . 1 0\n",
    "too-many.txt": "mines: 99\n. . 1 0\n",
    "bad-header.txt": "rows: 4\n. . 1 0\n",
    "bad-rule.txt": "mines: 1\nfirst_click: lucky\n. . 1 0\n",
    "total.txt": "mines: 3\n. . 1 0\n. . 1 0\n1 1 1 0\n0 0 0 0\n",
    "unsatisfiable.txt": "mines: 2\n. 3 .\n",
    "flags.txt": "mines: 1\nF F\n2 2\n",
    "notes.md": "# not a board, not a model\n",
}


@pytest.fixture
def bad_files(tmp_path: Path) -> Path:
    """A folder of bad boards, bad models and plain files for the cases to name."""
    for name, text in TEXT_FILES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "binary.txt").write_bytes(bytes(range(128, 256)))
    (tmp_path / "lonely.zip").write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip with no card beside it
    (tmp_path / "bad-card.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (tmp_path / "bad-card.json").write_text("{not json")
    (tmp_path / "ppo-run").mkdir()
    (tmp_path / "ppo-run" / "config.json").write_text(json.dumps({"n_steps": 16, "num_envs": 2}))
    (tmp_path / "ppo-run" / "model.zip").write_bytes(b"not a zip")
    card = {"algo": "ppo", "model_class": "stable_baselines3:PPO", "env_kwargs": {"rows": 9, "cols": 9}}
    for name, env_kwargs in (("flags", {"flags": True}), ("pixels", {"obs_mode": "pixels"}), ("not-a-zip", {})):
        (tmp_path / f"{name}.zip").write_bytes(b"not a zip")
        (tmp_path / f"{name}.json").write_text(json.dumps(card | {"env_kwargs": card["env_kwargs"] | env_kwargs}))
    return tmp_path



def case_id(value: object) -> str | None:
    """A case's id is its command line (the message gets none)."""
    return " ".join(value).replace("{dir}/", "") if isinstance(value, list) else None


@pytest.mark.parametrize(("argv", "message"), CASES, ids=case_id)
def test_every_bad_input_gets_one_clear_error_line(
    argv: list[str], message: str, bad_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [part.replace("{dir}", str(bad_files)) for part in argv]
    status, out, err = run_cli(argv, capsys)
    last_line = err.strip().splitlines()[-1] if err.strip() else ""
    assert status == 2, (status, err)
    assert "Traceback" not in err
    prefix = f"minesweeper {argv[0]}" if argv and argv[0] in COMMANDS else "minesweeper"  # or "minesweeper train ppo"
    assert last_line.startswith(prefix) and ": error: " in last_line
    assert message.replace("{dir}", str(bad_files)) in last_line
    if argv[:1] == ["eval"]:
        assert out == "", "eval printed results before it refused its input"


HELP_PAGES = [
    *[[command, "--help"] for command in ("games", "solve", "eval", "play", "train", "battle", "bot")],
    ["battle", "eval", "--help"],
    ["battle", "play", "--help"],
    *[pytest.param(["train", algo, "--help"], marks=NEEDS_TRAIN) for algo in ("dqn", "ppo", "maskable_ppo", "distill")],
]


@pytest.mark.parametrize("argv", HELP_PAGES, ids=case_id)
def test_every_help_page_prints_its_usage(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(argv, capsys)
    assert status == 0 and out.startswith("usage: minesweeper ") and err == ""


def _commands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                yield command
                yield from _commands(command)


def test_every_command_has_a_description_and_every_option_a_help() -> None:
    """`minesweeper battle eval --help` had no description and its --rows/--cols/--mines no help."""
    for command in _commands(build_parser()):
        assert command.description, command.prog
        unexplained = [action.dest for action in command._actions
                       if not action.help and not isinstance(action, argparse._SubParsersAction)]  # fmt: skip
        assert unexplained == [], (command.prog, unexplained)


def test_a_nested_command_names_itself_in_its_errors(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(["battle", "eval", "--agent", "greedy", "--agent", "random", "--games", "0",
                              "--seed", "0"], capsys)  # fmt: skip
    assert (status, err) == (2, "minesweeper battle eval: error: --games must be at least 1, got 0\n")

"""The compile notice: when it is shown (a cold compile started from Python, once per group) and where."""

from __future__ import annotations

import gc
import io
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from numba.core import event

from mine_env.engine import compilation
from mine_env.engine.compilation import (
    ENV_VAR,
    GC_THRESHOLD_WHILE_COMPILING,
    KernelGroup,
    group_of,
    notice_for,
    notice_line,
    notice_sink,
    threshold_while_compiling,
)

ROOT = Path(__file__).resolve().parents[2]
GROUPS = {
    "mine_env.analysis": KernelGroup("the solver's kernels", "a few seconds"),
    "mine_env.analysis.counting": KernelGroup("the exact-probability kernels", "about 10 s"),
    "agents.solver.guess.choose_guess": KernelGroup("the solver's guess kernels", "about 15 s"),
    "mine_env.engine": KernelGroup("the game engine's kernels", "a few seconds"),
    "agents": KernelGroup("the solver's kernels", "a few seconds"),
}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("name", "group"),
    [
        ("mine_env.analysis.counting.count_board", "mine_env.analysis.counting"),
        ("mine_env.analysis.deduction.certain_moves", "mine_env.analysis"),
        ("agents.solver.guess.choose_guess", "agents.solver.guess.choose_guess"),
        ("agents.solver.guess.choose_guesses", "agents"),  # a sibling name, not below the prefix
        ("mine_env.analysis.counting_base.grown", "mine_env.analysis"),
        ("mine_env.analysis", "mine_env.analysis"),
        ("mine_env.engine.rules.new_game_spread", "mine_env.engine"),
        ("mine_env.env.step", None),
        ("mine_env.analysisx.other.kernel", None),
        ("numba.np.arrayobj.impl", None),
    ],
)
def test_a_kernel_belongs_to_its_longest_prefix(name: str, group: str | None) -> None:
    assert group_of(name, GROUPS) == group


def test_a_compile_started_from_python_is_announced_once_per_group() -> None:
    shown: set[KernelGroup] = set()
    assert notice_for("mine_env.analysis.deduction.certain_moves", 0, GROUPS, shown) == GROUPS["mine_env.analysis"]
    shown.add(GROUPS["mine_env.analysis"])
    assert notice_for("mine_env.analysis.deduction.local_safe", 0, GROUPS, shown) is None  # said already
    guess, count = GROUPS["agents.solver.guess.choose_guess"], GROUPS["mine_env.analysis.counting"]
    assert notice_for("agents.solver.guess.choose_guess", 0, GROUPS, shown) == guess
    assert notice_for("mine_env.analysis.counting.count_board", 0, GROUPS, shown) == count


def test_two_prefixes_that_name_one_group_are_announced_once() -> None:
    games = KernelGroup("the solver's whole-game kernels", "up to about 40 s")
    groups = {"agents.seeding": games, "agents.solver.games": games}
    assert notice_for("agents.seeding.numpy_first_draws", 0, groups, {games}) is None
    assert notice_for("agents.solver.games.play_games", 0, groups, set()) == games


def test_kernels_compiled_inside_another_compile_or_not_ours_are_not_announced() -> None:
    assert notice_for("mine_env.analysis.counting.count_board", 1, GROUPS, set()) is None
    assert notice_for("numba.np.arrayobj.impl", 0, GROUPS, set()) is None
    assert notice_for("my_project.kernels.step", 0, GROUPS, set()) is None


def test_the_notice_says_what_compiles_how_long_and_that_it_happens_once() -> None:
    line = notice_line(GROUPS["agents.solver.guess.choose_guess"])
    assert line == (
        "minesweeper-rl: compiling the solver's guess kernels once (about 15 s; later runs load them from the "
        "cache)"
    )
    assert "\n" not in line


@pytest.mark.parametrize(
    ("setting", "stream", "shown"),
    [
        (None, _Terminal(), True),
        (None, io.StringIO(), True),  # a file or a pipe (a log, a notebook, a cluster job): shown as well
        ("1", io.StringIO(), True),
        ("0", _Terminal(), False),
        ("0", io.StringIO(), False),
        (" 0 ", io.StringIO(), False),
        ("yes", io.StringIO(), True),  # only 0 turns it off
    ],
)
def test_notices_go_to_stderr_wherever_it_goes_unless_the_environment_variable_turns_them_off(
    setting: str | None, stream: io.StringIO, shown: bool
) -> None:
    environ = {} if setting is None else {ENV_VAR: setting}
    sink = notice_sink(environ, stream, None)
    assert (sink is not None) is shown
    if sink is not None:
        sink("a notice")
        assert stream.getvalue() == "a notice\n"


def test_an_app_can_take_the_notices_unless_the_environment_variable_silences_them() -> None:
    lines: list[str] = []
    assert notice_sink({}, io.StringIO(), lines.append) == lines.append  # even when stderr is not a terminal
    assert notice_sink({ENV_VAR: "0"}, _Terminal(), lines.append) is None


KERNEL_CALL = "from mine_env.engine.rng import splitmix64; splitmix64(1)"
ENGINE_NOTICE = notice_line(KernelGroup("the game engine's kernels", "a few seconds"))


def test_kernels_compile_with_fewer_gc_passes_and_the_thresholds_come_back() -> None:
    assert threshold_while_compiling((700, 10, 10)) == (GC_THRESHOLD_WHILE_COMPILING, 10, 10)
    assert threshold_while_compiling((10**6, 5, 3)) == (10**6, 5, 3)  # never lowered


def _compile_event(status: event.EventStatus, module: str) -> event.Event:
    dispatcher = SimpleNamespace(py_func=SimpleNamespace(__module__=module, __qualname__="kernel"))
    return event.Event("numba:compile", status, data={"dispatcher": dispatcher})


@pytest.mark.parametrize(("module", "raised"), [("mine_env.engine.rules", True), ("my_project.kernels", False)])
def test_the_listener_raises_the_threshold_for_our_root_compiles_only(module: str, raised: bool) -> None:
    listener, before = compilation._CompileListener(), gc.get_threshold()
    try:
        listener.on_start(_compile_event(event.EventStatus.START, module))
        listener.on_start(_compile_event(event.EventStatus.START, "mine_env.engine.layout"))  # a callee
        listener.on_end(_compile_event(event.EventStatus.END, "mine_env.engine.layout"))
        assert gc.get_threshold() == (threshold_while_compiling(before) if raised else before)
        listener.on_end(_compile_event(event.EventStatus.END, module))
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*before)


def _compile_one_kernel(cache_dir: Path, setting: str | None, code: str = KERNEL_CALL) -> tuple[str, str]:
    """(stdout, stderr) of a fresh process that calls one engine kernel with numba's cache in ``cache_dir``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    env.pop(ENV_VAR, None)
    if setting is not None:
        env[ENV_VAR] = setting
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return result.stdout, result.stderr


def test_a_cold_cache_prints_one_line_and_a_warm_one_nothing(tmp_path: Path) -> None:
    assert _compile_one_kernel(tmp_path / "cache", None) == ("", ENGINE_NOTICE + "\n")  # stderr is a pipe here
    assert _compile_one_kernel(tmp_path / "cache", None) == ("", "")  # loaded from the cache: nothing compiles
    assert _compile_one_kernel(tmp_path / "quiet", "0") == ("", "")  # turned off


def test_the_notice_reaches_a_file(tmp_path: Path) -> None:
    """stderr to a file, as in `make demo 2> log`, nohup or a cluster job's log: the line is there."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    env.pop(ENV_VAR, None)
    log = tmp_path / "log.txt"
    with log.open("w") as stream:
        subprocess.run([sys.executable, "-c", KERNEL_CALL], env=env, stderr=stream, check=True)
    assert log.read_text() == ENGINE_NOTICE + "\n"


def test_a_handler_gets_the_notice_instead_of_stderr(tmp_path: Path) -> None:
    code = "from mine_env.engine import compilation; compilation.show_notices_with(print); " + KERNEL_CALL
    assert _compile_one_kernel(tmp_path / "cache", None, code) == (ENGINE_NOTICE + "\n", "")

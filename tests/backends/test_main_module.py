"""Parallel work started from anywhere a user types it: a script with or without ``if __name__ == "__main__":``,
``python -c``, standard input. It runs, or stops at once with one line; it never hangs (a ``spawn`` worker
re-imports the caller's script, and an unguarded call at its top level used to restart workers forever)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from backends.main_module import _is_main_guard, main_references

ROOT = Path(__file__).resolve().parents[2]
LIMIT_S = 300
"""Far above a run's few seconds, far below a hang (a hung pool never ends)."""

POLICY = '''from eval.runner import evaluate
from eval.suites import Suite

def first_hidden(obs, info):
    return int(info["action_mask"].argmax())

'''
CALL = '''report = evaluate({agents}, Suite("tiny", 5, 5, 3, "opening", games=8, base_seed=0), oracle=False,
                  progress=False, workers=2)
print(report.to_dict()["results"][0]["games"])
'''


def _run(args: list[str], stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True, env=env,
                          timeout=LIMIT_S, cwd=cwd)  # fmt: skip


def _readme_evaluate_snippet() -> str:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    (snippet,) = [block for block in blocks if "from eval.runner import evaluate" in block]
    return snippet


def test_the_readme_evaluate_snippet_runs_as_a_script_as_pasted(tmp_path: Path) -> None:
    script = tmp_path / "snippet.py"
    script.write_text(_readme_evaluate_snippet())
    result = _run([str(script)], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert 0.9 < float(result.stdout.strip().splitlines()[-1]) <= 1.0  # the solver's beginner win rate


@pytest.mark.parametrize("how", ["stdin", "-c"])
def test_agents_by_name_run_from_stdin_and_dash_c(how: str) -> None:
    """(From an unguarded script: the README's snippet above.)"""
    code = POLICY + CALL.format(agents='["random"]')
    result = _run(["-"] if how == "stdin" else ["-c", code], stdin=code if how == "stdin" else None)
    assert (result.returncode, result.stdout) == (0, "8\n"), result.stderr[-2000:]


def test_a_function_of_a_guarded_script_runs_in_the_workers(tmp_path: Path) -> None:
    script = tmp_path / "guarded.py"
    body = "".join(f"    {line}\n" for line in CALL.format(agents="[first_hidden]").splitlines())
    script.write_text(POLICY + 'if __name__ == "__main__":\n' + body)
    result = _run([str(script)])
    assert (result.returncode, result.stdout) == (0, "8\n"), result.stderr[-2000:]


def test_a_function_of_an_unguarded_script_stops_at_once_with_what_to_do(tmp_path: Path) -> None:
    script = tmp_path / "unguarded.py"
    script.write_text(POLICY + CALL.format(agents="[first_hidden]"))
    result = _run([str(script)])
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        f"ValueError: 'first_hidden' is defined in __main__, and {script}:7 starts worker processes at the "
        'script\'s top level, which every worker re-runs while it starts: put that code under `if __name__ == '
        '"__main__":`, or use workers=1'
    )
    assert "bootstrapping" not in result.stderr  # no worker got as far as failing


@pytest.mark.parametrize("how", ["stdin", "-c"])
def test_a_function_of_a_session_without_a_file_stops_at_once_with_what_to_do(how: str) -> None:
    code = POLICY + CALL.format(agents="[first_hidden]")
    result = _run(["-"] if how == "stdin" else ["-c", code], stdin=code if how == "stdin" else None)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        "ValueError: 'first_hidden' is defined in __main__, which worker processes cannot import (python -c, "
        "standard input or a notebook): define it in a module file and import it from there, or use workers=1"
    )


def _module_function() -> None:
    """A function of an importable module: nothing of __main__."""


def test_main_references_names_the_functions_and_classes_of_main_only() -> None:
    main = sys.modules["__main__"]
    local = type("Local", (), {"__module__": "__main__", "__qualname__": "Local"})
    setattr(main, "Local", local)  # noqa: B010  (pickled by reference: it must be found there)
    try:
        assert main_references([_module_function, {"agents": ("solver", 3)}]) == []
        assert main_references({"policy": local, "again": [local]}) == ["Local"]
    finally:
        delattr(main, "Local")


@pytest.mark.parametrize(
    ("test", "guard"),
    [
        ('__name__ == "__main__"', True),
        ("'__main__' == __name__", True),
        ('__name__ != "__main__"', False),
        ('name == "__main__"', False),
        ("__name__", False),
    ],
)
def test_the_main_guard_is_recognised_either_way_round(test: str, guard: bool) -> None:
    assert _is_main_guard(ast.parse(test, mode="eval").body) is guard


def test_work_holding_a_large_array_is_sent_whole() -> None:
    """A large array pickles as a buffer handed over whole (an agent carrying its weights, as ``guess-value``);
    reading what the work refers to once failed on it."""
    import numpy as np

    weights = np.zeros(1 << 20, np.float32)
    assert main_references({"weights": weights}) == []
    assert main_references([_is_main_guard, weights]) == []

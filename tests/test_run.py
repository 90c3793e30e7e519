"""``python -m tests.run`` (what ``make test`` runs): pytest's status as the process's, after the exit handlers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO

SESSION = '''
import atexit
from pathlib import Path

atexit.register(lambda: Path({marker!r}).write_text("ran"))


def test_it():
    assert {outcome}
'''


def run_session(tmp_path: Path, outcome: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run one test file through the runner, outside this repo's pytest settings; its result and exit marker."""
    marker = tmp_path / "exit-handler-ran"
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_session.py").write_text(SESSION.format(marker=str(marker), outcome=outcome))
    command = [sys.executable, "-m", "tests.run", "-q", "-p", "no:cacheprovider", "-c", str(tmp_path / "pytest.ini"),
               str(tmp_path / "test_session.py")]  # fmt: skip
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120), marker


@pytest.mark.slow  # two pytest processes
@pytest.mark.parametrize(("outcome", "status"), [("True", 0), ("False", 1)])
def test_the_runner_exits_with_pytest_s_status_after_the_exit_handlers(tmp_path: Path, outcome: str,
                                                                       status: int) -> None:  # fmt: skip
    result, marker = run_session(tmp_path, outcome)
    assert result.returncode == status, result.stdout + result.stderr
    assert ("1 passed" if status == 0 else "1 failed") in result.stdout
    assert marker.read_text() == "ran"

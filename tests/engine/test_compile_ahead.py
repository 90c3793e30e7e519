"""Compiling ahead in a second process: when a job starts, how this process waits for its kernels, how a job
compiles and reports them (the solver's job: tests/agents/solver/test_guess_ahead.py)."""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

import pytest
from numba import njit

from mine_env.engine import compile_ahead
from mine_env.engine.compile_ahead import ENV_VAR, Job, Plan, run_job


def _job(script: str) -> Job:
    return Job(Plan("unused", ("a", "b")), [sys.executable, "-c", script], dict(os.environ))


def test_waiting_for_a_kernel_reads_the_jobs_reports_until_it_or_the_end() -> None:
    job = _job("import time; print('a', flush=True); time.sleep(0.2); print('b', flush=True)")
    assert job.wait_for("b") and job.reported == {"a", "b"}
    assert job.wait_for("a")  # already reported: no read
    assert not job.wait_for("c")  # the job ended without it
    job.stop()
    assert job.process.returncode == 0


def test_a_job_silent_for_too_long_is_stopped_and_not_waited_for() -> None:
    job = Job(Plan("unused", ("a",)), [sys.executable, "-c", "import time; time.sleep(60)"], dict(os.environ),
              silence_limit=0.5)  # fmt: skip
    assert not job.wait_for("a")
    assert job.process.returncode is not None  # stopped, not left running


def test_stopping_ends_a_job_that_still_runs() -> None:
    job = _job("import time; time.sleep(60)")
    job.stop()
    assert job.process.returncode is not None


def test_a_miss_of_a_kernel_the_job_compiles_waits_and_looks_again(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[str] = []
    monkeypatch.setattr(compile_ahead, "on_wait", waits.append)  # the compile notice, in a process
    job = _job("print('a', flush=True)")
    cache = {"a": None}
    looked: list[str] = []

    def load(sig: str, context: object) -> str | None:
        looked.append(sig)
        found, cache["a"] = cache["a"], "compiled"  # in the cache once the job has run
        return found

    load_after = compile_ahead._load_after(job, "a", load)
    assert load_after("sig", None) == "compiled" and looked == ["sig", "sig"]
    cache["a"] = None
    assert load_after("other", None) is None and looked == ["sig", "sig", "other"]  # reported: no second look
    assert waits == ["a"]
    job.stop()


def test_a_job_starts_once_on_its_triggers_first_compile_from_python(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[Plan] = []
    monkeypatch.setattr(compile_ahead, "start_job", started.append)
    monkeypatch.setattr(compile_ahead, "_plans", [])
    monkeypatch.delenv(ENV_VAR, raising=False)
    compile_ahead.compile_ahead("pkg.trigger", "pkg.job", ["pkg.kernel"])
    compile_ahead.compile_ahead("pkg.trigger", "pkg.job", ["pkg.kernel"])  # armed twice: one job
    compile_ahead.compile_ahead("pkg.trigger", "pkg.other_job", ["pkg.other"])
    compile_ahead.on_compile_start("pkg.other", 0)
    compile_ahead.on_compile_start("pkg.trigger", 1)  # compiled inside another kernel's compile: not yet
    assert started == []
    compile_ahead.on_compile_start("pkg.trigger", 0)
    compile_ahead.on_compile_start("pkg.trigger", 0)
    assert started == [Plan("pkg.job", ("pkg.kernel",)), Plan("pkg.other_job", ("pkg.other",))]


def test_a_job_that_started_is_not_armed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compile_ahead, "_plans", [])
    monkeypatch.setattr(compile_ahead, "_jobs", [SimpleNamespace(plan=Plan("pkg.job", ("pkg.kernel",)))])
    compile_ahead.compile_ahead("pkg.trigger", "pkg.job", ["pkg.kernel"])
    assert compile_ahead._plans == []


def test_the_environment_variable_turns_jobs_off(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[Plan] = []
    monkeypatch.setattr(compile_ahead, "start_job", started.append)
    monkeypatch.setattr(compile_ahead, "_plans", [])
    monkeypatch.setenv(ENV_VAR, "0")
    compile_ahead.compile_ahead("pkg.trigger", "pkg.job", ["pkg.kernel"])
    compile_ahead.on_compile_start("pkg.trigger", 0)
    assert started == []


@njit
def _add_one(x):
    return x + 1


def test_a_job_compiles_each_kernel_for_its_samples_types_and_reports_it(capsys: pytest.CaptureFixture[str]) -> None:
    run_job([(_add_one, (2,))])
    assert capsys.readouterr().out == f"{__name__}._add_one\n"
    assert [str(signature) for signature in _add_one.signatures] == ["(int64,)"]

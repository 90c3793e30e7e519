"""Streamed distillation (train.distill.stream): the iterated trunk, a short run on the CPU, its resume and model."""

from __future__ import annotations

import json
import queue
from pathlib import Path
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest
import torch as th

from agents.networks.player import load_model_agent
from agents.networks.trunks import TaperedTrunk, set_passes
from mine_env.engine.constants import FLAG, HIDDEN
from train.distill.held_out import HELD_OUT, HELD_OUT_FILE
from train.distill.iterated_trunk import IteratedFeatures
from train.distill.stream import StreamConfig, _feed, _hold_out, main
from train.distill.stream_data import PositionBuffer, mark_known
from train.progress_log import read_log


def test_iterated_trunk_shares_one_block_across_passes() -> None:
    space = gym.spaces.Box(-3, 8, (5, 7), np.int8)
    net = IteratedFeatures(space, channels=8, passes=3, mines=6)
    grid = th.full((2, 5, 7), -1, dtype=th.int8)
    grid[0, 0, 0] = 1
    planes = net.input_planes(grid)
    staged = net.stages(planes, [1, 3])
    assert [tuple(s.shape) for s in staged] == [(2, 8, 5, 7)] * 2
    assert th.allclose(staged[1], net(grid))
    parameters = sum(p.numel() for p in net.parameters())
    net.set_passes(6)  # thinking longer costs no weights
    assert sum(p.numel() for p in net.parameters()) == parameters
    assert not th.allclose(net(grid), staged[1])
    with pytest.raises(ValueError, match="at least 1"):
        net.set_passes(0)


def test_the_progressive_pass_continues_a_state_it_was_handed_and_learns_only_from_its_trained_passes() -> None:
    space = gym.spaces.Box(-3, 8, (5, 7), np.int8)
    th.manual_seed(0)
    net = IteratedFeatures(space, channels=8, passes=3, mines=6)
    grid = th.full((2, 5, 7), HIDDEN, dtype=th.int8)
    grid[0, 0, 0] = 1
    planes = net.input_planes(grid)
    assert th.allclose(net.progressive(planes, 2, 3), net.stages(planes, [5])[0], atol=1e-5)  # 2 + 3 passes
    net.progressive(planes, 2, 1).sum().backward()
    assert net.stem.weight.grad is None  # the frozen passes (and the stem before them) get no gradient
    assert net.mix.weight.grad is not None and net.mix.weight.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="trained >= 1"):
        net.progressive(planes, 2, 0)


def test_a_normalised_state_keeps_its_scale_over_any_number_of_passes_and_is_saved() -> None:
    from agents.networks.saved import build_network, trunk_kwargs
    from agents.networks.spec import NetworkSpec

    space = gym.spaces.Box(-3, 8, (5, 7), np.int8)
    grid = th.full((2, 5, 7), HIDDEN, dtype=th.int8)
    grid[0, :2, :2] = 0
    for state_norm in (True, False):
        th.manual_seed(0)
        net = IteratedFeatures(space, channels=8, passes=3, mines=6, state_norm=state_norm)
        th.nn.init.normal_(net.mix.weight, std=0.5)  # updates as large as a trained block's
        planes = net.input_planes(grid)
        hidden = net.stem(planes)
        with th.no_grad():
            for _ in range(40):
                hidden = net.step(hidden, planes)
        scale = hidden.flatten(1).std(dim=1)
        assert th.allclose(scale, th.ones(2), atol=0.05) == state_norm  # each board's state: unit scale, or not
    _, kwargs = trunk_kwargs(net)
    assert kwargs["state_norm"] is False
    spec = NetworkSpec("iterated", kwargs | {"state_norm": True}, "policy", "x.pt", "0" * 64)
    assert build_network(spec).trunk.state_norm


def test_set_passes_reaches_the_iterated_trunk_and_refuses_others() -> None:
    space = gym.spaces.Box(-3, 8, (5, 7), np.int8)
    net = th.nn.Sequential(IteratedFeatures(space, channels=8, passes=3, mines=6))
    set_passes(net, 7)
    assert net[0].passes == 7
    with pytest.raises(ValueError, match="not the iterated trunk"):
        set_passes(TaperedTrunk((8, 4), mines=6), 7)


def test_tapered_trunk_narrows_to_its_last_width_and_normalises_each_board_alone() -> None:
    net = TaperedTrunk((8, 4, 2), mines=6)
    grids = th.full((3, 5, 7), HIDDEN, dtype=th.int8)
    grids[1, :2, :2] = 0
    features = net(grids)
    assert features.shape == (3, 2, 5, 7) and net.features_dim == 2
    assert th.allclose(net(grids[1:2]), features[1:2], atol=1e-6)  # a board's features do not depend on its batch
    with pytest.raises(ValueError, match="two or more"):
        TaperedTrunk((8,))


def test_a_tapered_trunk_without_a_norm_reads_each_cell_from_its_neighbourhood_and_the_density() -> None:
    grids = th.full((1, 5, 20), HIDDEN, dtype=th.int8)
    grids[0, :, :3] = 0
    grids[0, :, 17:] = 0
    far = grids.clone()
    far[0, 4, 19] = 1  # beyond the reach of five 3x3 layers from columns 0-2; the hidden cells, the density, stay
    for norm, local in (("none", True), ("board", False)):
        th.manual_seed(0)
        net = TaperedTrunk((8, 4, 2), mines=6, norm=norm)
        for block in net.blocks:
            th.nn.init.normal_(block.conv_out.weight, std=0.3)  # no block left at its starting identity
        near = net(grids)[0, :, :, :3]
        assert th.allclose(net(far)[0, :, :, :3], near, atol=1e-6) == local
    with pytest.raises(ValueError, match="norm must be one of"):
        TaperedTrunk((8, 4), norm="batch")


def test_bad_settings_get_one_line(capsys) -> None:  # type: ignore[no-untyped-def]
    init = ["--init", "models/distill_expert_opening.zip", "--trunks", "iterated"]
    for argv, message in ((["--trunks", "dilated,resnet"], "trunks must be distinct names"),
                          (["--producers", "0"], "no positions to start on"),
                          (["--mark-above", "1.5"], "mark threshold"), (init, "--init starts"),
                          (["--widths", "64"], "widths must be two or more"),
                          (["--widths", "64,x"], "widths must be integers"),
                          (["--tapered-norm", "batch"], "tapered_norm must be one of"),
                          (["--progressive", "1"], "progressive is a share of the loss"),
                          (["--log-odds-weight", "-1"], "log_odds_weight must be 0 or more")):  # fmt: skip
        with pytest.raises(SystemExit) as stop:
            main([*argv, "--device", "cpu"])
        assert stop.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="loss pass"):
        StreamConfig(loss_passes="0,2").validate()


@pytest.mark.slow
def test_a_short_run_with_marks_resumes_and_its_models_play(tmp_path: Path) -> None:
    options = ["--preset", "beginner", "--device", "cpu", "--producers", "1", "--producer-boards", "16",
               "--chunk", "256", "--learner-boards", "16", "--learner-workers", "1",
               "--trunks", "tapered,dilated,iterated", "--widths", "8,4,2", "--tapered-norm", "none",
               "--channels", "8", "--dilations", "1,2", "--pooled", "1", "--iterated-channels", "8", "--passes", "3",
               "--loss-passes", "2,3", "--progressive", "0.5", "--batch-size", "32", "--buffer", "5000",
               "--runs-dir", str(tmp_path),
               "--run-name", "run", "--checkpoint-minutes", "0.05", "--mark-above", "0.99"]  # fmt: skip
    assert main([*options, "--minutes", "0.1"]) == 0
    run_dir = tmp_path / "run"
    first = th.load(run_dir / "checkpoint.pt", weights_only=False)
    assert first["step"] > 0 and first["resumes"] == 0
    held = (run_dir / HELD_OUT_FILE).read_bytes()
    assert not first["averages"] and not (run_dir / "dilated_ema.zip").exists()
    assert main(["--resume", str(run_dir), "--minutes", "0.2", "--ema", "0.99"]) == 0  # an average from here on
    assert (run_dir / HELD_OUT_FILE).read_bytes() == held  # the curve is judged on the same positions throughout
    second = th.load(run_dir / "checkpoint.pt", weights_only=False)
    assert second["resumes"] == 1
    assert {name: average["updates"] for name, average in second["averages"].items()} == \
        dict.fromkeys(("tapered", "dilated", "iterated"), second["step"] - first["step"])  # fmt: skip
    assert second["step"] > first["step"] and second["samples"] > first["samples"]
    assert second["seconds"] >= 0.2 * 60 > first["seconds"]
    rows = (run_dir / "progress.csv").read_text().splitlines()
    steps = [int(row.split(",")[0]) for row in rows[1:]]
    assert steps == sorted(steps) and len(steps) >= 2  # the curve carries on
    logged = read_log(run_dir / "progress.csv")
    assert logged[0]["dilated_ema_error"] == "" and float(logged[-1]["dilated_ema_error"]) > 0
    for trunk in ("tapered", "dilated", "iterated", "dilated_ema"):
        card = json.loads((run_dir / f"{trunk}.json").read_text())
        assert card["algo"] == "distill" and card["steps"] == second["samples"]
        assert set(card["eval"]["held_out"]) == {f"{trunk}_error", f"{trunk}_safest"}
        assert card["config"]["mark_above"] == 0.99  # it plays with marks (agents.marks)
        if trunk == "tapered":
            assert card["network"]["trunk_kwargs"]["norm"] == "none"
        agent = load_model_agent(run_dir / f"{trunk}.zip")
        grid = np.full((9, 9), -1, dtype=np.int8)
        action = agent.act(grid, {"mines": 10, "action_mask": np.ones(81, np.int8)})
        assert 0 <= action < 81


def test_training_positions_flag_only_certain_hidden_mines() -> None:
    generator = th.Generator().manual_seed(0)
    grids = th.full((400, 4, 4), HIDDEN, dtype=th.int8)
    grids[:, 0, 0] = 1
    labels = th.full((400, 4, 4), 0.5)
    labels[:, 1, :] = 1.0
    labels[:, 0, 0] = 0.0
    marked = mark_known(grids, labels, generator)
    flagged = marked == FLAG
    assert not flagged[:, 2:].any() and not flagged[:, 0].any()  # uncertain and revealed cells never
    share = flagged[:, 1].float().mean(dim=1)
    assert (share == 1.0).float().mean() > 0.4  # about half the positions have every certain mine flagged
    assert ((share > 0) & (share < 1)).any()  # the others a share of them
    assert (marked[~flagged] == grids[~flagged]).all()


def test_a_resumed_run_takes_from_the_stream_at_the_reuse_rate_not_to_catch_up() -> None:
    stream: queue.Queue[tuple[np.ndarray, np.ndarray]] = queue.Queue()
    for _ in range(20):
        stream.put((np.full((2, 3, 3), HIDDEN, np.int8), np.zeros((2, 3, 3), np.float16)))
    run = SimpleNamespace(config=StreamConfig(reuse=2.0, batch_size=4), step=1, samples=10_000,
                          samples_at_start=10_000, taken=0)  # fmt: skip
    buffer = PositionBuffer(100, 3, 3, th.device("cpu"), th.Generator().manual_seed(0), 0)
    _feed(run, buffer, stream, None)  # type: ignore[arg-type]
    assert buffer.added == 2  # 4 samples to come at 2 a position; 10,000 trained before the resume ask for none
    run.samples += 8
    _feed(run, buffer, stream, None)  # type: ignore[arg-type]
    assert buffer.added == 6


@pytest.mark.parametrize("counted", [True, False])
def test_a_run_draws_its_held_out_positions_once_and_every_resume_reuses_them(tmp_path: Path, counted: bool) -> None:
    def chunk(index: int) -> tuple[np.ndarray | None, ...]:
        counts = np.full(400, 40 + index, np.int16) if counted else None
        return (np.full((400, 2, 2), index, np.int8), np.full((400, 2, 2), index / 10, np.float16),
                np.zeros((400, 2, 2), np.float16), counts)  # fmt: skip

    stream: queue.Queue[tuple[np.ndarray | None, ...]] = queue.Queue()
    for index in range(40):
        stream.put(chunk(index))
    run = SimpleNamespace(run_dir=tmp_path, config=StreamConfig(producers=2), taken=0)
    first_ring = PositionBuffer(10_000, 2, 2, th.device("cpu"), th.Generator().manual_seed(0), 0)
    first = _hold_out(run, first_ring, stream)  # type: ignore[arg-type]
    assert (tmp_path / HELD_OUT_FILE).exists() and run.taken == 16 and stream.qsize() == 24
    assert len(first[0]) == HELD_OUT and first_ring.added == 16 * 400 - HELD_OUT
    assert len(first) == 3 and (first[2] is not None) == counted
    resumed_ring = PositionBuffer(10_000, 2, 2, th.device("cpu"), th.Generator().manual_seed(1), 1)
    again = _hold_out(run, resumed_ring, stream)  # type: ignore[arg-type]
    assert run.taken == 16 and stream.qsize() == 24 and resumed_ring.added == 0  # nothing taken for it
    kept = [part for part in first if part is not None]
    assert len(again) == len(kept) and all(np.array_equal(a, b) for a, b in zip(again, kept, strict=True))


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from Linux's /proc")
def test_a_killed_run_checkpoints_and_stops_its_worker_processes(tmp_path: Path) -> None:
    """SIGTERM sent to the whole process group, as a session's end sends it: the run (not its workers, which ignore
    it) stops after its step with a checkpoint and its model, and takes its workers down with it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    command = [sys.executable, "-m", "train.distill.stream", "--preset", "beginner", "--device", "cpu",
               "--producers", "1", "--producer-boards", "8", "--chunk", "128", "--learner-boards", "8",
               "--learner-workers", "1", "--channels", "8", "--dilations", "1", "--pooled", "", "--batch-size", "16",
               "--buffer", "2000", "--minutes", "5", "--checkpoint-minutes", "5", "--runs-dir", str(tmp_path),
               "--run-name", "run"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert process.stdout is not None
    assert "training" in process.stdout.readline()  # its workers are up and it trains
    workers = _children(process.pid)
    assert workers
    time.sleep(1.0)  # some steps, the learner's pool at work
    os.killpg(process.pid, signal.SIGTERM)
    output = process.stdout.read()
    assert process.wait(timeout=60) == 0, output
    assert "SIGTERM received" in output and f"resume with --resume {tmp_path / 'run'}" in output
    assert (tmp_path / "run" / "checkpoint.pt").is_file() and (tmp_path / "run" / "dilated.zip").is_file()
    deadline = time.monotonic() + 30
    while (left := workers & {int(p.name) for p in Path("/proc").glob("[0-9]*")}) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:  # not left running by a failed test either
        os.kill(pid, signal.SIGKILL)
    assert not left


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from Linux's /proc")
def test_a_run_killed_outright_leaves_no_worker(tmp_path: Path) -> None:
    """SIGKILL gives the run no cleanup; its workers, which ignore SIGTERM, end themselves once it is gone."""
    import os
    import signal
    import subprocess
    import sys
    import time

    command = [sys.executable, "-m", "train.distill.stream", "--preset", "beginner", "--device", "cpu",
               "--producers", "1", "--producer-boards", "8", "--chunk", "128", "--learner-boards", "8",
               "--learner-workers", "1", "--channels", "8", "--dilations", "1", "--pooled", "", "--batch-size", "16",
               "--buffer", "2000", "--minutes", "5", "--runs-dir", str(tmp_path), "--run-name", "run"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert "training" in process.stdout.readline()
    workers = _children(process.pid)
    assert workers
    process.kill()
    process.wait(timeout=10)
    deadline = time.monotonic() + 30
    while (left := workers & {int(p.name) for p in Path("/proc").glob("[0-9]*")}) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left


def test_a_run_started_outside_the_main_thread_still_runs() -> None:
    import argparse
    import threading

    from train.command_line import report_run

    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(report_run(argparse.ArgumentParser(), lambda: Path("x"))))
    thread.start()
    thread.join()
    assert codes == [0]  # no SIGTERM handler where Python cannot install one, and no error for it

"""studies/rl_comparison.py, the comparison's driver: which runs a call trains, their command lines, and a stretch
that starts a run and a later one that resumes it to a larger budget."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

from stable_baselines3 import PPO

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import rl_comparison as comparison  # noqa: E402
from rl_comparison import Board, RunState, command, read_state, status_table, to_train, try_lock  # noqa: E402

pytestmark = pytest.mark.train

TINY = ["--rows", "4", "--cols", "5", "--mines", "3", "--num-envs", "4", "--channels", "8", "--layers", "2",
        "--value-hidden", "8", "--n-steps", "16", "--batch-size", "32", "--eval-games", "10", "--learning-rate",
        "1e-3"]  # fmt: skip


def state(algo: str, steps: int, folder: Path = Path("nowhere")) -> RunState:
    return RunState(algo, folder, steps, None)


def test_the_runs_furthest_behind_train_first() -> None:
    states = [state("dqn", 500), state("ppo", 0), state("maskable_ppo", 900), state("other", 1000)]
    assert [s.algo for s in to_train(states, 1000, 2)] == ["ppo", "dqn"]
    assert [s.algo for s in to_train(states, 1000, 5)] == ["ppo", "dqn", "maskable_ppo"]
    assert to_train([state("dqn", 1000)], 1000, 2) == []


def test_a_run_in_training_elsewhere_is_left_to_it(tmp_path: Path) -> None:
    folder = tmp_path / "intermediate-ppo"
    assert not read_state(tmp_path, "intermediate", "ppo").busy
    held = try_lock(folder)
    assert held is not None and try_lock(folder) is None
    busy = read_state(tmp_path, "intermediate", "ppo")
    assert busy.busy and to_train([busy, state("dqn", 5)], 1000, 2) == [state("dqn", 5)]
    held.close()
    assert not read_state(tmp_path, "intermediate", "ppo").busy


def test_a_new_run_gets_the_boards_options_and_a_started_one_resumes(tmp_path: Path) -> None:
    board = comparison.BOARDS["intermediate"]
    new = command(state("dqn", 0, tmp_path / "intermediate-dqn"), board, "intermediate", 30)
    assert new[:3] == [sys.executable, "-m", "train.sb3.dqn"]
    assert ["--preset", "intermediate", "--steps", str(board.budget)] == new[3:7]
    assert new[new.index("--run-name") + 1] == "intermediate-dqn" and new[-2:] == ["--minutes", "30"]
    assert new[new.index("--lr-drops") + 1] == "1000000:5e-05,2000000:2.5e-05"  # 2.5e-4 / 5, / 10
    (tmp_path / "intermediate-dqn" / "checkpoints").mkdir(parents=True)
    (tmp_path / "intermediate-dqn" / "checkpoints" / "latest.zip").write_bytes(b"")
    resumed = command(state("dqn", 10, tmp_path / "intermediate-dqn"), board, "intermediate", 30)
    assert resumed[3:] == ["--resume", str(tmp_path / "intermediate-dqn"), "--steps", str(board.budget),
                           "--lr-drops", "1000000:5e-05,2000000:2.5e-05", "--minutes", "30"]  # fmt: skip
    (tmp_path / "intermediate-ppo").mkdir()
    (tmp_path / "intermediate-ppo" / "config.json").write_text("{}")
    with pytest.raises(ValueError, match="holds a run without a checkpoint: move it aside"):
        command(state("ppo", 0, tmp_path / "intermediate-ppo"), board, "intermediate", 30)


def test_a_stretch_starts_the_run_and_the_next_resumes_it_to_a_larger_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(comparison, "BOARDS", {"beginner": Board(128, {"ppo": TINY}, every=64)})
    arguments = ["--board", "beginner", "--minutes", "5", "--runs-dir", str(tmp_path)]
    assert comparison.main(arguments) == 0
    first = read_state(tmp_path, "beginner", "ppo")
    assert first.steps == 128 and first.win_rate is not None and first.started
    assert first.safe_fraction is not None and "of the safe cells" in status_table([first], 128)
    assert comparison.main(arguments) == 0  # at the budget: nothing to train
    assert "training" not in capsys.readouterr().out.splitlines()[-1]
    monkeypatch.setattr(comparison, "BOARDS", {"beginner": Board(256, {"ppo": TINY}, every=64)})
    assert comparison.main(arguments) == 0
    assert read_state(tmp_path, "beginner", "ppo").steps == 256
    assert (tmp_path / "beginner-ppo" / "config-until-128.json").is_file()  # resumed, not started anew
    assert json.loads((tmp_path / "beginner-ppo" / "config.json").read_text())["lr_drops"] == "85:0.0002,171:0.0001"
    model = PPO.load(tmp_path / "beginner-ppo" / "final_model.zip", device="cpu")
    assert [group["lr"] for group in model.policy.optimizer.param_groups] == [1e-4]  # the budget's last drop
    curves = tmp_path / "curves.png"
    assert comparison.main([*arguments, "--status", "--curves", str(curves)]) == 0
    assert curves.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "wrote" in capsys.readouterr().out


def test_curves_of_a_board_without_a_logged_run_stop_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        comparison.main(["--board", "expert", "--status", "--runs-dir", str(tmp_path), "--curves", "c.png"])
    assert "no run of this board has logged a step yet" in capsys.readouterr().err


def test_the_larger_boards_have_curriculum_runs_that_start_from_the_board_below(tmp_path: Path) -> None:
    boards = comparison.BOARDS
    assert boards["beginner"].trainers == ["dqn", "ppo", "maskable_ppo"]
    assert boards["intermediate"].trainers[3:] == ["dqn-from-beginner", "maskable_ppo-from-beginner"]
    source = tmp_path / "beginner-dqn" / "best_model.zip"
    run = tmp_path / "intermediate-dqn-from-beginner"
    with pytest.raises(ValueError, match=r"starts from .*beginner-dqn/best_model\.zip, which does not exist yet"):
        boards["intermediate"].options("dqn-from-beginner", "intermediate", run)
    source.parent.mkdir()
    source.write_bytes(b"")
    options = boards["intermediate"].options("dqn-from-beginner", "intermediate", run)
    assert options[options.index("--init") + 1] == str(source)
    assert options[options.index("--layers") + 1] == "5" and "--mine-prior" in options  # the beginner DQN's network
    assert options[options.index("--exploration-initial-eps") + 1] == "0.1"
    assert options[options.index("--run-name") + 1] == "intermediate-dqn-from-beginner"
    # expert's chain goes on from intermediate's curriculum run, with beginner's network
    expert = boards["expert"]
    assert expert.source("maskable_ppo-from-intermediate", tmp_path) == (
        tmp_path / "intermediate-maskable_ppo-from-beginner" / "best_model.zip"
    )
    assert expert.network_options("maskable_ppo-from-intermediate") == boards["beginner"].runs["maskable_ppo"]
    assert expert.source("ppo", tmp_path) is None


def test_a_curriculum_run_waits_for_its_model_then_starts_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny = TINY[TINY.index("--num-envs") :]  # the presets' boards
    boards = {"beginner": Board(64, {"maskable_ppo": tiny}, every=64),
              "intermediate": Board(64, {"maskable_ppo": tiny}, every=64, below="beginner")}  # fmt: skip
    monkeypatch.setattr(comparison, "BOARDS", boards)
    monkeypatch.setattr(comparison, "CURRICULUM", {"maskable_ppo": []})
    arguments = ["--minutes", "5", "--runs-dir", str(tmp_path)]
    assert comparison.main(["--board", "intermediate", *arguments]) == 0
    assert "maskable_ppo-from-beginner waits for" in capsys.readouterr().out
    assert not read_state(tmp_path, "intermediate", "maskable_ppo-from-beginner").started
    assert comparison.main(["--board", "beginner", *arguments]) == 0
    assert comparison.main(["--board", "intermediate", *arguments]) == 0
    started = read_state(tmp_path, "intermediate", "maskable_ppo-from-beginner")
    assert started.steps == 64 and started.started and started.algo == "maskable_ppo"
    config = (started.folder / "config.json").read_text()
    assert str(tmp_path / "beginner-maskable_ppo" / "best_model.zip") in config and '"preset": "intermediate"' in config

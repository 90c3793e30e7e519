"""The training loop end to end: TRL's GRPO trainer on a tiny Llama and a character tokenizer built here (nothing
downloaded), rewarded by the text env playing each completion, a few steps on the CPU; the rewards came from the
env and the weights moved. Skipped, with the reason, without the ``llm-train`` extra."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.suites import adhoc_suite
from mine_env.engine.spec import BoardSpec
from mine_llm.text_env import MinesweeperTextEnv

pytest.importorskip("trl", reason="trl is not installed: pip install -e '.[llm-train]'")
torch = pytest.importorskip("torch")
from mine_llm.grpo import (  # noqa: E402
    char_tokenizer,
    grpo_trainer,
    main,
    move_reward,
    position_dataset,
    tiny_model,
    warm_start,
)

SUITE = adhoc_suite(BoardSpec.from_options(None, 5, 5, 3, "opening"), 4, 2**64 - 1)


def test_the_character_tokenizer_reads_back_every_observation() -> None:
    tokenizer = char_tokenizer()
    observation, _ = MinesweeperTextEnv(rows=5, cols=5, mines=3).reset(seed=0)
    ids = tokenizer(observation)["input_ids"]
    assert len(ids) == len(observation) and tokenizer.decode(ids) == observation
    assert tokenizer.unk_token_id not in ids


def test_the_reward_is_the_env_s_for_the_move_in_its_position() -> None:
    dataset = position_dataset(SUITE, moves_before=(0, 1))
    starts = [row for row in range(len(dataset)) if not dataset[row]["moves"]]
    assert [dataset[row]["seed"] for row in starts] == [str(SUITE.game_seeds(game).env) for game in range(4)]
    assert len(dataset) > 4  # a game won by its opening move has no second position
    second = next(row for row in range(len(dataset)) if dataset[row]["moves"])
    seed, (opening,) = dataset[second]["seed"], dataset[second]["moves"]
    reward = move_reward(SUITE)
    assert reward([opening, "no move here"], [seed, seed], [[], []]) == [pytest.approx(0.1), pytest.approx(-0.1)]
    assert reward([opening], [seed], [[opening]]) == [pytest.approx(-0.1)]  # the cell is open now: no move


@pytest.mark.slow
def test_a_grpo_run_trains_a_tiny_model_on_the_env_s_rewards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    tokenizer = char_tokenizer()
    model = tiny_model(tokenizer)
    assert sum(p.numel() for p in model.parameters()) < 10_000
    warm_start(model, tokenizer, SUITE, str(tmp_path / "warm"), steps=40, per_device_train_batch_size=8,
               learning_rate=0.02, use_cpu=True, seed=0)  # fmt: skip
    before = {name: weight.detach().clone() for name, weight in model.named_parameters()}
    trainer = grpo_trainer(model, tokenizer, SUITE, str(tmp_path), steps=2, num_generations=4,
                           per_device_train_batch_size=4, max_completion_length=12, learning_rate=0.05,
                           use_cpu=True, seed=0)  # fmt: skip
    trainer.train()
    logged = [entry for entry in trainer.state.log_history if "reward" in entry]
    assert len(logged) == 2 and all("rewards/minesweeper_move/mean" in entry for entry in logged)
    assert all(-1.0 <= entry["rewards/minesweeper_move/mean"] <= 1.1 for entry in logged)
    assert any(entry["reward_std"] > 0 for entry in logged)  # the env told a group's replies apart: a gradient
    after = dict(trainer.model.named_parameters())
    assert any(not torch.equal(before[name], after[name].detach()) for name in before)


def test_the_command_answers_bad_input_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for argv, message in (
        (["--tiny", "--games", "0"], "--games and --steps need at least 1"),
        (["--tiny", "--seed", str(2**64)], "--seed 0 to 2**64 - 1"),
        (["--model", str(tmp_path / "no-model")], f"cannot load --model {tmp_path / 'no-model'}: "),
    ):
        with pytest.raises(SystemExit) as stop:
            main([*argv, "--output-dir", str(tmp_path)])
        error = capsys.readouterr().err.strip().splitlines()[-1]
        assert stop.value.code == 2 and message in error, error

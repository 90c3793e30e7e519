"""bf16 autocast where the device runs it natively (train.precision) and the streamed trainer's use of it; its
compiled trunks (--compile)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch as th

from agents.networks.player import load_model_agent
from mine_env.engine.constants import HIDDEN
from train import precision
from train.distill.stream.config import StreamConfig
from train.distill.stream.data import Batch
from train.distill.stream.trainer import StreamRun


def test_the_cpu_flags_are_read_from_cpuinfo(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("flags\t\t: fpu sse2 avx512f avx512_bf16 amx_tile amx_bf16\nflags\t\t: fpu amx_bf16\n")
    assert precision.cpu_bf16_flags(cpuinfo) == ("amx_bf16", "avx512_bf16")
    cpuinfo.write_text("flags\t\t: fpu sse2 avx2\n")
    assert precision.cpu_bf16_flags(cpuinfo) == ()
    assert precision.cpu_bf16_flags(tmp_path / "absent") == ()


def test_bf16_is_native_on_cuda_and_on_a_cpu_with_bf16_instructions_only() -> None:
    assert precision.native_bf16(th.device("cuda"), ())
    assert precision.native_bf16(th.device("cpu"), ("amx_bf16", "avx512_bf16"))
    assert precision.native_bf16(th.device("cpu"), ("avx512_bf16",))  # measured to pay 1.8-2.2 times
    assert not precision.native_bf16(th.device("cpu"), ())
    assert not precision.native_bf16(th.device("meta"), ("amx_bf16",))


@pytest.mark.parametrize(("flags", "wanted", "autocast"), [
    (("amx_bf16",), True, True),
    (("amx_bf16",), False, False),  # --no-bf16 keeps float32 on any CPU
    ((), True, False),  # emulated bf16 would be ten times slower
])  # fmt: skip
def test_the_stream_trains_a_cpu_step_in_bf16_only_where_the_cpu_runs_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: tuple[str, ...], wanted: bool,
        autocast: bool) -> None:  # fmt: skip
    monkeypatch.setattr(precision, "cpu_bf16_flags", lambda: flags)
    config = StreamConfig(preset="beginner", device="cpu", channels=8, dilations="1,2", pooled="1", bf16=wanted)
    run = StreamRun(config, tmp_path, None)
    assert run.bf16 is autocast
    extractor = run.networks["dilated"].trunk
    first_conv = next(module for module in extractor.modules() if isinstance(module, th.nn.Conv2d))
    dtypes: list[th.dtype] = []
    first_conv.register_forward_hook(lambda _module, _inputs, output: dtypes.append(output.dtype))
    grids = th.full((4, 9, 9), HIDDEN, dtype=th.int8)
    grids[:, :2, :2] = 0
    batch = Batch(grids, th.full((4, 9, 9), 10 / 81), None, None)
    loss = run.train_step(batch)["dilated"]
    assert th.isfinite(loss) and loss.dtype == th.float32  # the loss itself is taken in float32
    assert dtypes == [th.bfloat16 if autocast else th.float32]


@pytest.mark.slow  # torch.compile of a small trunk: some 20 s on 2 cores
def test_a_compiled_trunk_trains_as_the_plain_one_and_saves_the_same_weights(tmp_path: Path) -> None:
    config = StreamConfig(preset="beginner", device="cpu", channels=8, dilations="1,2", pooled="1", bf16=False)
    plain = StreamRun(config, tmp_path / "plain", None)
    compiled = StreamRun(dataclasses.replace(config, compile=True), tmp_path / "compiled", None)
    compiled.networks["dilated"].load_state_dict(plain.networks["dilated"].state_dict())
    grids = th.full((4, 9, 9), HIDDEN, dtype=th.int8)
    grids[:, :2, :2] = 0
    batch = Batch(grids, th.full((4, 9, 9), 10 / 81), None, None)
    for _ in range(2):
        assert th.allclose(plain.train_step(batch)["dilated"], compiled.train_step(batch)["dilated"], atol=1e-5)
    trained = compiled.networks["dilated"].state_dict()
    assert trained.keys() == plain.networks["dilated"].state_dict().keys()  # nothing renamed by the compile
    assert all(th.allclose(value, plain.networks["dilated"].state_dict()[key], atol=1e-5)
               for key, value in trained.items())  # fmt: skip
    (tmp_path / "compiled").mkdir()
    compiled.save_models({})
    agent = load_model_agent(tmp_path / "compiled" / "dilated")
    assert 0 <= agent.act(grids[0].numpy(), {"mines": 10, "action_mask": np.ones(81, np.int8)}) < 81


def test_compile_on_a_cpu_without_a_cxx_compiler_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "no-such-compiler")
    with pytest.raises(ValueError, match="needs a C\\+\\+ compiler"):
        StreamConfig(preset="beginner", device="cpu", compile=True).validate()


@pytest.mark.parametrize(("flags", "autocast"), [(("amx_bf16",), True), ((), False)])
def test_an_sb3_run_with_bf16_runs_its_trunk_in_bf16_only_where_the_cpu_runs_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        flags: tuple[str, ...], autocast: bool) -> None:  # fmt: skip
    from train.sb3 import maskable_ppo
    from train.sb3.training import train

    monkeypatch.setattr(precision, "cpu_bf16_flags", lambda: flags)
    dtypes: list[th.dtype] = []
    build = maskable_ppo.ALGORITHM.build

    def build_and_watch(config: object, env: object) -> object:
        model = build(config, env)
        first_conv = next(module for module in model.policy.modules() if isinstance(module, th.nn.Conv2d))
        first_conv.register_forward_hook(lambda _module, _inputs, output: dtypes.append(output.dtype))
        return model

    algorithm = dataclasses.replace(maskable_ppo.ALGORITHM, build=build_and_watch)
    config = maskable_ppo.MaskablePPOConfig(rows=5, cols=5, mines=4, num_envs=4, n_steps=16, batch_size=32,
                                            channels=8, dilations="1,2", value_hidden=8, eval_games=0,
                                            checkpoint_every=0, progress_bar=False, steps=64, bf16=True,
                                            mine_coef=0.5, runs_dir=str(tmp_path), run_name="bf16")  # fmt: skip
    train(algorithm, config)
    assert dtypes and set(dtypes) == {th.bfloat16 if autocast else th.float32}
    assert ("does not run bfloat16 natively" in capsys.readouterr().out) != autocast
    model = maskable_ppo.ALGORITHM.model_class.load(tmp_path / "bf16" / "final_model.zip", device="cpu")
    assert all(not getattr(module, "bf16", False) for module in model.policy.modules())  # a run's, not the model's


def test_a_trunk_in_bf16_hands_on_float32_features_close_to_its_float32_ones() -> None:
    import gymnasium as gym

    from train.sb3.networks import BoardFeatures, set_bf16

    th.manual_seed(0)
    trunk = BoardFeatures(gym.spaces.Box(-3, 8, (9, 9), np.int8), channels=16, dilations=(1, 2), mines=10)
    grids = th.full((3, 9, 9), HIDDEN, dtype=th.int8)
    grids[:, :3, :3] = 0
    plain = trunk(grids)
    set_bf16(trunk, True)
    halved = trunk(grids)
    assert halved.dtype == th.float32 and not th.equal(halved, plain)
    th.testing.assert_close(halved, plain, rtol=0.05, atol=0.05)


def test_the_guess_preference_runs_under_bf16_with_the_trunk_and_keeps_its_weights_and_bound() -> None:
    from agents.networks.layers import GuessPreference
    from train.sb3.networks import ConvHeads, set_bf16

    th.manual_seed(0)
    heads = ConvHeads(16, 8, 81, preference_bound=0.5, mine_head=True, mine_prior=True, detach_prior=True,
                      prior_only=True)  # fmt: skip
    assert heads.preference is not None
    th.nn.init.normal_(heads.preference.net[-1].weight, std=0.5)  # a trained head's, not the neutral start's
    plain_head = GuessPreference(16, 0.5)
    plain_head.load_state_dict(heads.preference.state_dict())  # the same keys as the plain module
    dtypes: list[th.dtype] = []
    heads.preference.net[0].register_forward_hook(lambda _module, _inputs, output: dtypes.append(output.dtype))
    features = th.randn(3, 16, 9, 9)
    plain = heads.forward_actor(features)
    set_bf16(heads, True)
    halved = heads.forward_actor(features)
    assert dtypes == [th.float32, th.bfloat16]
    assert halved.dtype == th.float32 and not th.equal(halved, plain)
    th.testing.assert_close(halved, plain, rtol=0, atol=0.02)  # the preference adds at most 0.5 either way
    safety = -heads.mine_head(features).detach()  # prior_scale 1
    th.testing.assert_close(plain - safety, plain_head(features, safety))

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
from train.distill.stream import StreamConfig, StreamRun
from train.distill.stream_data import Batch


def test_the_cpu_flags_are_read_from_cpuinfo(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("flags\t\t: fpu sse2 avx512f avx512_bf16 amx_tile amx_bf16\nflags\t\t: fpu amx_bf16\n")
    assert precision.cpu_bf16_flags(cpuinfo) == ("amx_bf16", "avx512_bf16")
    cpuinfo.write_text("flags\t\t: fpu sse2 avx2\n")
    assert precision.cpu_bf16_flags(cpuinfo) == ()
    assert precision.cpu_bf16_flags(tmp_path / "absent") == ()


def test_bf16_is_native_on_cuda_and_on_a_cpu_with_amx_only() -> None:
    assert precision.native_bf16(th.device("cuda"), ())
    assert precision.native_bf16(th.device("cpu"), ("amx_bf16", "avx512_bf16"))
    assert not precision.native_bf16(th.device("cpu"), ("avx512_bf16",))  # never measured to pay
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
    extractor = run.models["dilated"].policy.features_extractor
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
    compiled.models["dilated"].policy.load_state_dict(plain.models["dilated"].policy.state_dict())
    grids = th.full((4, 9, 9), HIDDEN, dtype=th.int8)
    grids[:, :2, :2] = 0
    batch = Batch(grids, th.full((4, 9, 9), 10 / 81), None, None)
    for _ in range(2):
        assert th.allclose(plain.train_step(batch)["dilated"], compiled.train_step(batch)["dilated"], atol=1e-5)
    trained = compiled.models["dilated"].policy.state_dict()
    assert trained.keys() == plain.models["dilated"].policy.state_dict().keys()  # nothing renamed by the compile
    assert all(th.allclose(value, plain.models["dilated"].policy.state_dict()[key], atol=1e-5)
               for key, value in trained.items())  # fmt: skip
    (tmp_path / "compiled").mkdir()
    compiled.save_models({})
    agent = load_model_agent(tmp_path / "compiled" / "dilated.zip")
    assert 0 <= agent.act(grids[0].numpy(), {"mines": 10, "action_mask": np.ones(81, np.int8)}) < 81


def test_compile_on_a_cpu_without_a_cxx_compiler_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "no-such-compiler")
    with pytest.raises(ValueError, match="needs a C\\+\\+ compiler"):
        StreamConfig(preset="beginner", device="cpu", compile=True).validate()

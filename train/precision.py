"""Where bfloat16 autocast pays: a device that runs it natively.

On a CUDA GPU it does. On a CPU it depends on the instructions: with AMX (``amx_bf16``) oneDNN runs the trunks'
training passes in bf16 2.6 to 4.7 times as fast as in float32, the wider the trunk the more
(docs/lab/2026-12-03-amx-bf16-on-the-cpu.md); with AVX512-BF16 alone 1.8 to 2.2 times
(docs/lab/2026-12-05-masks-and-the-anchor-recipe.md); without any bf16 instructions torch emulates it, ten
times slower (docs/lab/2026-11-27-cpu-precision.md). The trainers ask :func:`native_bf16` before they turn
autocast on, so that ``--bf16`` means "where it pays".
"""

from __future__ import annotations

from pathlib import Path

import torch as th

BF16_FLAGS = ("amx_bf16", "avx512_bf16")
"""The /proc/cpuinfo flags of bf16 instructions."""
NATIVE_CPU_FLAGS = BF16_FLAGS
"""The flags of which a CPU needs one for bf16 autocast to pay (measured: AMX, and AVX512-BF16 alone)."""


def cpu_bf16_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, ...]:
    """The bf16 instruction flags this CPU has, from ``cpuinfo`` (empty: none, or not Linux)."""
    try:
        flags = set(cpuinfo.read_text().split())
    except OSError:
        return ()
    return tuple(flag for flag in BF16_FLAGS if flag in flags)


def native_bf16(device: th.device, cpu_flags: tuple[str, ...] | None = None) -> bool:
    """Whether ``device`` runs bf16 autocast natively: CUDA, or a CPU with AMX or AVX512-BF16 (``cpu_flags``: its
    bf16 flags, read from /proc/cpuinfo when None)."""
    if device.type == "cuda":
        return True
    if device.type == "cpu":
        flags = cpu_bf16_flags() if cpu_flags is None else cpu_flags
        return any(flag in flags for flag in NATIVE_CPU_FLAGS)
    return False

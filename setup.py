"""What pyproject.toml cannot say: the shipped models (``models/*.json`` cards, the ``.pt`` weights the evaluation
plays and ``--init`` starts from, the ``.npz`` guess-value head) go into the wheel as package data of ``agents``, in
``agents/shipped/``, where :mod:`agents.shipped_models` finds them by short name. A checkout and an editable install
use ``models/`` itself, so nothing is copied for those.

A kernel bundle (the numba kernels compiled ahead, ``make kernel-bundle``: :mod:`mine_env.engine.kernel_bundle`)
goes in as ``mine_env/kernel_bundle/`` when there is one: the folder ``MINESWEEPER_RL_KERNEL_BUNDLE_SOURCE`` names
(a wheel built from the sdist, as ``python -m build`` does, sees no checkout), else ``build/kernel-bundle``."""

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

MODELS = Path(__file__).resolve().parent / "models"
KERNEL_BUNDLE = Path(os.environ.get("MINESWEEPER_RL_KERNEL_BUNDLE_SOURCE") or MODELS.parent / "build" / "kernel-bundle")


class BuildWithModels(build_py):
    """``build_py``, then the shipped models copied into the built ``agents`` package, and the kernel bundle, if
    any, into ``mine_env``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "agents" / "shipped"
        self.mkpath(str(target))
        for source in sorted([*MODELS.glob("*.pt"), *MODELS.glob("*.json"), *MODELS.glob("*.npz")]):
            self.copy_file(str(source), str(target / source.name))
        if (KERNEL_BUNDLE / "manifest.json").is_file():
            self.copy_tree(str(KERNEL_BUNDLE), str(Path(self.build_lib) / "mine_env" / "kernel_bundle"))


setup(cmdclass={"build_py": BuildWithModels})

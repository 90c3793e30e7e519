"""What pyproject.toml cannot say: the shipped models (``models/*.json`` cards, the ``.pt`` weights the evaluation
plays and ``--init`` starts from) go into the wheel as package data of ``agents``, in
``agents/shipped/``, where :mod:`agents.shipped_models` finds them by short name. A checkout and an editable install
use ``models/`` itself, so nothing is copied for those."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

MODELS = Path(__file__).resolve().parent / "models"


class BuildWithModels(build_py):
    """``build_py``, then the shipped models copied into the built ``agents`` package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "agents" / "shipped"
        self.mkpath(str(target))
        for source in sorted([*MODELS.glob("*.pt"), *MODELS.glob("*.json")]):
            self.copy_file(str(source), str(target / source.name))


setup(cmdclass={"build_py": BuildWithModels})

"""train was split by method (train.sb3, train.distill, train.rllib): every old flat module path
still imports, with a DeprecationWarning naming the new one, and gives the moved module itself; the old scripts
still run with ``python -m``; the classes that saved zips pickled under the old paths still load."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from train.moved import MOVED

pytestmark = pytest.mark.train
ROOT = Path(__file__).resolve().parents[2]
NEEDS_RAY = ("train.rllib_ppo",)


def forget(old: str) -> None:
    """Drop the alias's entry, so that the next import goes through the finder again (the module stays)."""
    sys.modules.pop(old, None)


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_the_old_path_warns_and_gives_the_moved_module(old: str, new: str) -> None:
    if old in NEEDS_RAY:
        pytest.importorskip("ray.rllib", reason="RLlib needs the ray extra")
    moved = importlib.import_module(new)
    forget(old)
    with pytest.warns(DeprecationWarning, match=f"^{old} moved to {new}; import it from there$"):
        module = importlib.import_module(old)
    assert module is moved
    assert module.__spec__ is not None and module.__spec__.name == new  # the alias did not take over its spec


def test_a_name_imported_from_the_old_path_is_the_new_one() -> None:
    forget("train.networks")
    with pytest.warns(DeprecationWarning, match="train.networks moved to train.sb3.networks"):
        from train.networks import BoardFeatures, MaskedDQNPolicy
    from train.sb3 import networks

    assert (BoardFeatures, MaskedDQNPolicy) == (networks.BoardFeatures, networks.MaskedDQNPolicy)


def test_classes_pickled_under_the_old_paths_load() -> None:
    """What a training zip of before the move holds (protocol 0 globals, as cloudpickle writes for importable
    classes): train.dqn's MaskedDQN, train.networks' policies."""
    from train.sb3.dqn import MaskedDQN
    from train.sb3.networks import MaskableConvActorCriticPolicy

    policy = MaskableConvActorCriticPolicy
    for old, name, new in [("train.dqn", "MaskedDQN", MaskedDQN), ("train.networks", policy.__name__, policy)]:
        forget(old)
        with pytest.warns(DeprecationWarning):
            assert pickle.loads(f"c{old}\n{name}\n.".encode()) is new


def test_the_packages_that_were_modules_give_their_old_names() -> None:
    """train.distill was the scripts' module: its names still come, with the warning."""
    from train.distill import rounds

    with pytest.warns(DeprecationWarning, match=r"^train.distill.main moved to train.distill.rounds.main"):
        from train.distill import main
    assert main is rounds.main
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        importlib.import_module("train.distill").no_such_name  # noqa: B018


def test_the_new_paths_import_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from train.distill import labels, rounds  # submodules, not the old module's names
        from train.sb3 import dqn
    assert labels.__name__ == "train.distill.labels" and rounds.main and dqn.ALGORITHM


def test_the_old_script_still_runs_with_a_warning() -> None:
    result = subprocess.run([sys.executable, "-m", "train.dqn", "--help"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "usage:" in result.stdout and "--steps" in result.stdout
    assert "DeprecationWarning: python -m train.dqn moved to python -m train.sb3.dqn" in result.stderr

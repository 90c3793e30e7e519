"""The trained models shipped with the package, by short name: ``minesweeper eval --model distill-expert``,
``evaluate(["solver", "distill-beginner"], ...)``, ``minesweeper battle eval --agent model:maskable-ppo-battle``.

In a checkout they are the files of ``models/``; in an installed wheel, copies of those files, package data of
``agents`` in ``agents/shipped/`` (setup.py's build step puts them there), so that no name depends on where the
repository is. Each name maps to one model's stem: its card (``.json``) and weights (``.pt``, the model format that
the evaluation plays and ``train --init`` starts from); no training ``.zip`` is shipped, as nothing resumes a shipped
model. Shipping a new network under a name is a one-line change here. A file of that name in the working directory
(``distill-expert.zip``) wins over the shipped model.
"""

from __future__ import annotations

from pathlib import Path

SHIPPED_MODELS: dict[str, str] = {
    "distill-beginner": "distill_beginner_opening",
    "distill-intermediate": "distill_intermediate_opening",
    "distill-expert": "distill_expert_opening",
    "dqn-beginner": "dqn_beginner_opening",
    "dqn-intermediate": "dqn_intermediate_opening",
    "dqn-expert": "dqn_expert_opening",
    "dqn-expert-curriculum": "dqn_curriculum_expert_opening",
    "ppo-beginner": "ppo_beginner_opening",
    "ppo-intermediate": "ppo_intermediate_opening",
    "maskable-ppo-beginner": "maskable_ppo_beginner_opening",
    "maskable-ppo-intermediate": "maskable_ppo_intermediate_opening",
    "maskable-ppo-expert": "maskable_ppo_expert_opening",
    "rllib-ppo-beginner": "rllib_ppo_beginner_opening",
    "maskable-ppo-battle": "maskable_ppo_battle_16x16",
}
"""Short name -> the model's stem in the shipped folder (its files are ``STEM.json`` and ``STEM.pt``)."""

PACKAGE_DIR = Path(__file__).resolve().parent / "shipped"
"""Where an installed wheel holds the models."""
CHECKOUT_DIR = Path(__file__).resolve().parents[1] / "models"
"""Where a checkout (or an editable install of it) holds them."""


def shipped_dir() -> Path:
    """The folder of the shipped models: the package's copies when installed, else the checkout's ``models/``."""
    return PACKAGE_DIR if PACKAGE_DIR.is_dir() else CHECKOUT_DIR


def shipped_model(name: str | Path) -> Path | None:
    """The path (without suffix) of the shipped model called ``name``, or None when ``name`` is no short name or is
    a file (or ``name.zip`` is one) in the working directory."""
    text = str(name)
    if text not in SHIPPED_MODELS or Path(text).exists() or Path(f"{text}.zip").exists():
        return None
    return shipped_dir() / SHIPPED_MODELS[text]


def shipped_names() -> str:
    """The short names, for messages and help texts."""
    return ", ".join(SHIPPED_MODELS)

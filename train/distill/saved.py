"""A distilled network saved in the model format: its weights (``.pt``) and its card (``.json``), nothing else.

The card (:class:`agents.model_card.ModelCard`, ``algo: "distill"``) describes the plain network in its ``network``
section, so ``minesweeper eval --model`` plays it and ``--init`` starts a distillation or an RL run from it, all with
torch alone. There is no training zip, hence no ``model_class`` (the class that would load one): a distilled network
has no optimiser state worth keeping beside it (a streamed run's checkpoint holds its own).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from agents.model_card import ModelCard
from agents.networks.saved import CellScorer, save_network
from mine_env.engine.spec import BoardSpec


def save_distilled(network: CellScorer, path: Path, spec: BoardSpec, config: Any, steps: int,
                   evaluation: dict[str, Any] | None = None) -> Path:  # fmt: skip
    """Write ``network`` as the distilled model ``path`` (its stem: ``path`` with any suffix or none) trained on
    ``spec``'s boards by the run of settings ``config`` (a dataclass) for ``steps`` positions or samples, with its
    ``evaluation``; returns the card's path."""
    card_path = path.with_suffix(".json")
    card_path.parent.mkdir(parents=True, exist_ok=True)
    card = ModelCard(
        algo="distill",
        model_class=None,
        env_kwargs={"rows": spec.rows, "cols": spec.cols, "mines": spec.mines, "first_click": spec.first_click,
                    "obs_mode": "grid", "flags": False},
        config=dataclasses.asdict(config),
        steps=int(steps),
        eval=evaluation,
        network=save_network(network, "policy", card_path),
    )  # fmt: skip
    card.write(card_path)
    return card_path

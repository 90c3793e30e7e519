"""RLlib checkpoints to the model format: the masking network's playing part as a ``.pt``, and a card beside it.

An RLlib checkpoint (:mod:`train.rllib.ppo`'s ``final/``, or a module's own folder) is pickles: the module's class
and constructor arguments and its state, which only Ray and this package load. What picks a move in
:class:`train.rllib.MaskedCellModule` is a ``cell`` trunk and a 1x1 policy head, the ``cell`` / ``policy`` network of
:class:`agents.networks.saved.CellScorer`; the value head stays behind, as it does for the SB3 models. RLlib pushes
the invalid cells' logits to its ``FLOAT_MIN`` and plays the largest; the player plays the largest valid logit: the
same move, from the same tensors.

The card names the algorithm (``rllib_ppo``), the board the run trained on with the ``grid`` observation (the
network reads the grid of RLlib's dict observation; the mask comes from ``info`` instead), the run's settings, and
the win rate of the converted network on the run's fixed evaluation games (what the run's own greedy evaluation
measures: env seeds ``eval_seed + i``)::

    python -m train.rllib.export runs/rllib-ppo-beginner/final --out runs/rllib-ppo-beginner/final_model.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.model_card import ModelCard
from agents.networks.player import ModelAgent
from agents.networks.saved import CellScorer, save_weights, trunk_kwargs
from agents.networks.spec import FORMAT_VERSION, WEIGHTS_SUFFIX
from agents.networks.trunks import CellTrunk
from train.rllib import MaskedCellModule, RLlibAgent
from train.rllib.ppo import RLlibPPOConfig, greedy_win_rate

ALGO = "rllib_ppo"
"""The card's plain word for the algorithm: PPO, trained under RLlib."""
SETTINGS_FILES = ("run_config.json", "../config.json")
"""Where a checkpoint's run settings are, relative to it: saved inside it, or the run folder's above ``final/``."""


def playing_network(module: Any) -> CellScorer:
    """The trunk and policy head of a :class:`~train.rllib.MaskedCellModule` as a CPU
    :class:`~agents.networks.saved.CellScorer` (copies of its tensors).

    Raises:
        ValueError: a module of another class, whose parts the format does not know.
    """
    if not isinstance(module, MaskedCellModule):
        raise ValueError(f"a {type(module).__name__} is not train.rllib's MaskedCellModule: the model format cannot "
                         "save it")  # fmt: skip
    network = CellScorer(CellTrunk(module.trunk.features_dim, module.trunk.layers))
    network.trunk.load_state_dict(module.trunk.state_dict())
    network.head.load_state_dict(module.policy_head.state_dict())
    return network.cpu().eval()


def run_settings(checkpoint: Path) -> dict[str, Any]:
    """The settings of the run that saved ``checkpoint`` (:data:`SETTINGS_FILES`), as the run wrote them.

    Raises:
        FileNotFoundError: neither file is there.
    """
    for name in SETTINGS_FILES:
        path = (checkpoint / name).resolve()
        if path.is_file():
            return json.loads(path.read_text())
    raise FileNotFoundError(f"no run settings beside the checkpoint {checkpoint} (looked for "
                            f"{' and '.join(SETTINGS_FILES)}): give them with --settings")  # fmt: skip


def run_config(settings: dict[str, Any]) -> RLlibPPOConfig:
    """The settings as a checked :class:`~train.rllib.ppo.RLlibPPOConfig`; ValueError naming an unknown or bad one."""
    known = {item.name for item in dataclasses.fields(RLlibPPOConfig)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise ValueError(f"unknown run settings {', '.join(unknown)}: not a run of train.rllib.ppo")
    config = RLlibPPOConfig(**settings)
    config.board_spec()
    return config


def export_module(module: Any, card_path: Path, settings: dict[str, Any], steps: int | None = None) -> ModelCard:
    """Write ``module``'s playing network to ``card_path``'s ``.pt`` and its card to ``card_path``; returns the card.

    The card's ``eval`` is the converted network's greedy win rate on the run's evaluation games."""
    config = run_config(settings)
    network = playing_network(module)
    weights = card_path.with_suffix(WEIGHTS_SUFFIX)
    sha256 = save_weights(network, weights)
    name, kwargs = trunk_kwargs(network.trunk)
    section = {"format": FORMAT_VERSION, "weights": weights.name, "sha256": sha256, "trunk": name,
               "trunk_kwargs": kwargs, "head": "policy", "preference_bound": 0.0}  # fmt: skip
    win_rate = greedy_win_rate(ModelAgent(network, card_path.stem), config)
    evaluation = {"games": config.eval_games, "seed": config.eval_seed, "win_rate": win_rate}
    env_kwargs = {**config.board_kwargs(), "obs_mode": "grid", "flags": False}
    card = ModelCard(ALGO, None, env_kwargs, config=settings, steps=steps, eval=evaluation, network=section)
    card.write(card_path)
    return card


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.rllib.export", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path, help="an RLlib algorithm checkpoint or a module's folder")
    parser.add_argument("--out", type=Path, required=True, help="the card to write (.json; the .pt goes beside it)")
    parser.add_argument("--settings", type=Path, help="the run's settings (default: beside the checkpoint)")
    parser.add_argument("--steps", type=int, help="environment steps the run trained for, for the card")
    args = parser.parse_args(argv)
    if args.out.suffix != ".json":
        parser.exit(2, f"{parser.prog}: error: --out {args.out} is not a .json card path\n")
    try:
        settings = json.loads(args.settings.read_text()) if args.settings else run_settings(args.checkpoint)
        module = RLlibAgent.from_checkpoint(args.checkpoint).module
        card = export_module(module, args.out, settings, args.steps)
    except (FileNotFoundError, ValueError, TypeError) as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    assert card.eval is not None
    weights = args.out.with_suffix(WEIGHTS_SUFFIX)
    games, win_rate = card.eval["games"], card.eval["win_rate"]
    print(f"{weights} and the card {args.out}: greedy win rate {win_rate:.3f} on {games} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())

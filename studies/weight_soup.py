"""The plain mean of several saved models' weights, saved as a model of its own (a weight soup).

    python studies/weight_soup.py maskable-ppo-expert runs/RUN/best_model.pt runs/RUN/final_model.pt \
        --out runs/soup/expert-three

A run that wanders along a plateau (its evaluations up and down by more than their noise) leaves models whose
average may play better than any one of them, as a moving average of the weights does in training. The models must
share one network (the same card ``network`` architecture and board) and should share a start (a run and its
continuations), or their mean is no network of either. The soup's card is the first model's, its ``network``
section naming the mean weights, with no training zip, step count or evaluation of its own; it plays as the first
model does (its marks included) wherever a model goes: ``minesweeper eval --model OUT.pt``.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path

from agents.model_card import ModelCard, model_paths
from agents.networks.saved import load_network, save_network
from agents.networks.spec import NetworkSpec

ARCHITECTURE_KEYS = ("trunk", "trunk_kwargs", "head", "preference_bound", "loss_reward", "advantage_bound")
"""The ``network`` entries that must agree for a mean of weights to be a network."""


def network_of(path: str) -> tuple[ModelCard, NetworkSpec, Path]:
    """A model's card, its network section and the folder of its weights; ValueError for a card without one."""
    card = ModelCard.of_model(path)
    spec = card.network_spec
    if spec is None:
        raise ValueError(f"{path}: its card has no network section (convert it with python -m train.sb3.export)")
    return card, spec, model_paths(path)[1].parent


def check_same_network(cards: Sequence[ModelCard], paths: Sequence[str]) -> None:
    """ValueError naming the first model whose network architecture or board is not the first model's."""
    first = cards[0]
    for card, path in zip(cards[1:], paths[1:], strict=True):
        for key in ARCHITECTURE_KEYS:
            if (card.network or {}).get(key) != (first.network or {}).get(key):
                raise ValueError(f"{path}: its network's {key} is not {paths[0]}'s; a soup averages one network")
        if card.board != first.board:
            raise ValueError(f"{path}: trained on a {card.board} board, {paths[0]} on {first.board}")


def soup(paths: Sequence[str], out: Path) -> Path:
    """Average the weights of the models ``paths`` into the model ``out`` (its card and ``.pt``); returns the card."""
    if len(paths) < 2:
        raise ValueError("a soup averages at least two models")
    loaded = [network_of(path) for path in paths]
    check_same_network([card for card, _, _ in loaded], paths)
    networks = [load_network(spec, folder) for _, spec, folder in loaded]
    states = [network.state_dict() for network in networks]
    mean = {key: sum(state[key].double() for state in states) / len(states) for key in states[0]}
    soup_network = networks[0]
    soup_network.load_state_dict({key: value.to(states[0][key].dtype) for key, value in mean.items()})
    card_path = model_paths(out)[1]
    first_card, first_spec, _ = loaded[0]
    section = save_network(soup_network, first_spec.head, card_path)
    card = dataclasses.replace(first_card, model_class=None, steps=None, eval=None, network=section)
    card.write(card_path)
    return card_path


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="saved models (.pt, .zip or a card's stem, or a shipped name)")
    parser.add_argument("--out", required=True, help="the soup's stem: OUT.json and OUT.pt are written")
    args = parser.parse_args(argv)
    try:
        card = soup(args.models, Path(args.out))
    except (ValueError, FileNotFoundError) as error:
        raise SystemExit(f"weight_soup: {error}") from None
    print(f"wrote {card} and its weights: the mean of {len(args.models)} models")


if __name__ == "__main__":
    main()

"""A distilled model read back as its playing network: what ``--init`` starts every method from.

Read from the model format, as ``eval`` plays it: the card (``.json``) and the weights (``.pt``) beside it, loaded
with torch alone (:func:`agents.networks.saved.load_network`). The path is a shipped model's short name
(``distill-beginner``), a card's stem, or its ``.pt`` or ``.zip`` path. :mod:`train.distill` grows a new network from
it, :mod:`train.sb3.warm_start` copies it into an SB3 policy.
"""

from __future__ import annotations

from pathlib import Path

from agents.model_card import ModelCard, model_paths
from agents.networks.saved import CellScorer, load_network
from agents.networks.trunks import set_mine_count


def distilled_network(path: str | Path, mines: int) -> CellScorer:
    """The playing network of the distilled model ``path`` (its card and weights, on CPU), told that its boards hold
    ``mines`` mines.

    Raises:
        FileNotFoundError: no such model, card or weights file.
        ValueError: the model is not a distilled one (another algorithm, another observation, another trunk), or its
            card has no network section, or the weights are not the card's.
    """
    card = ModelCard.of_model(path)
    archive, card_path = model_paths(path)
    model = card_path.with_suffix("")
    if card.algo != "distill":
        raise ValueError(
            f"--init {model} is a {card.algo} model, not a distilled one: --init takes a model written by "
            "'minesweeper train distill' (its network reads the board, the mine density and the edge)"
        )
    if card.obs_mode != "grid" or card.flags:
        raise ValueError(f"--init {model} observes {card.obs_mode!r} with flags={card.flags}; runs observe the grid")
    spec = card.network_spec
    if spec is None:
        raise ValueError(f"--init {model}: its card has no network section (a run saved before the model format): "
                         f"convert it with `python -m train.sb3.export {archive}`")  # fmt: skip
    if spec.trunk != "board":
        raise ValueError(f"--init {model}: its network is a {spec.trunk} trunk, not the distillation trunk (board)")
    network = load_network(spec, card_path.parent)
    set_mine_count(network, mines)
    return network

"""A saved model as an agent: the playing network loaded with torch alone, checked against its card, played greedily.

A model is its card (:class:`agents.model_card.ModelCard`, ``foo.json``) and the weights file the card's ``network``
section names (``foo.pt``, the model format of :mod:`agents.networks`), as the training scripts of :mod:`train` write
them. Neither stable-baselines3 nor the training code is imported to play one: the card says how to rebuild the
network (:mod:`agents.networks.spec`) and the weights load with ``torch.load(weights_only=True)``. A card without the
section is an older run's: ``python -m train.sb3.export`` converts its zip.

Every network of the format is fully convolutional (one score per cell whatever the board's size), so a model plays
any board. The agent picks the best *valid* action by the network's scores -- the action logits of an actor-critic
policy (PPO, MaskablePPO, a distilled network's safety logits), the Q-values of a DQN -- with invalid actions masked
out, so no learned policy loses games to moves that change nothing. torch is imported only when a model is loaded.

Playing a network is an agent's job, so the player sits in the agents layer, below the evaluation that names it
(:mod:`eval.agent_specs`) and the training that saves it; the average over symmetries is
:mod:`agents.networks.mirrored_play`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from agents.marks import score_marked, sure_logit
from agents.model_card import ModelCard, model_paths
from agents.networks.mirrored_play import averaged_scores, gated_scores
from agents.opening import LearntOpening
from agents.shipped_models import shipped_model
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from mine_env.engine.symmetry import check_symmetries


def model_label(path: str | Path, symmetries: int = 1, sure: float = 0.0, opening: bool = False) -> str:
    """The name a model goes by in reports: its folder and file stem (``ppo-run/best_model``) or the short name
    of a shipped model (``distill-expert``), ``+sym8`` when
    it plays averaged over 8 symmetries, ``-sure1e-05`` when only where it is less sure than that, and ``+opening``
    when it opens on its learnt first cell.

    The folder is kept because training runs save ``best_model`` and ``final_model`` in every run directory.
    """
    archive = model_paths(path)[0]
    label = f"{archive.parent.name}/{archive.stem}" if archive.parent.name else archive.stem
    if shipped_model(path) is not None:
        label = str(path)  # a shipped model goes by its short name, wherever it is installed
    if symmetries > 1:
        label += f"+sym{symmetries}"
    if sure:
        label += f"-sure{sure:g}"
    return f"{label}+opening" if opening else label


def check_card_env(card: ModelCard, card_path: Path) -> None:
    """ValueError unless the card's env is one a network of the format plays: reveals only, the ``grid``
    observation, a board of a size the engine accepts."""
    if card.flags:
        raise ValueError(f"model {card_path} was trained with flag actions; the player plays reveals only")
    rows, cols = card.board
    try:
        BoardSpec(rows, cols, 0, "none")
    except (TypeError, ValueError) as error:
        raise ValueError(f"model card {card_path}: env_kwargs give no board: {error}") from None
    if card.obs_mode != "grid":
        raise ValueError(f"model card {card_path}: obs_mode {card.obs_mode!r}, but the networks of the model format "
                         "read the 'grid' observation")  # fmt: skip


def load_model_agent(
    path: str | Path, spec: BoardSpec | None = None, symmetries: int = 1, sure: float = 0.0, opening: bool = False
) -> ModelAgent:
    """Load a saved model as an agent that plays the env's grid observations greedily over valid actions.

    It sets torch to one CPU thread (``torch.set_num_threads(1)``) for the whole process: see the comment below.

    Args:
        path: The model: its ``.zip``, ``.pt`` or stem (the card and the weights are found beside it), or the short
            name of a shipped model.
        spec: The board it will play (any size: the networks are fully convolutional); the card's by default.
        symmetries: Average the policy's scores over this many of the board's symmetries (1, 2, 4, or 8 on a
            square board: :mod:`mine_env.engine.symmetry`).
        sure: With ``symmetries`` > 1 and scores that are safety logits (:func:`scores_are_safety_logits`): play the
            board as it is alone when the network gives its chosen cell a mine chance below this, and average only
            otherwise (:func:`agents.networks.mirrored_play.gated_scores`); 0 (the default) always averages.
        opening: Play the card's learnt first cell (:mod:`agents.opening`) on an untouched board.

    Raises:
        FileNotFoundError: the model, its card or its weights do not exist.
        ValueError: the path is not a model, the card is wrong or has no ``network`` section, the weights are not
            the card's, ``sure`` is out of (0, 1), without symmetries or for scores that are not safety logits, or
            ``opening`` for a card without one or a board or rule other than the one it was learnt on.
    """
    card = ModelCard.of_model(path)
    archive, card_path = model_paths(path)
    check_sure(sure, symmetries, card, archive)
    learnt = checked_opening(card, archive, spec) if opening else None
    check_card_env(card, card_path)
    network_spec = card.network_spec
    if network_spec is None:
        raise ValueError(f"model card {card_path} has no network section (a run saved before the model format): "
                         f"convert it with `python -m train.sb3.export {archive}`")  # fmt: skip
    import torch

    from agents.networks.saved import load_network

    # One position at a time through small convolutions: more threads only wait on each other, and on a busy
    # machine OpenMP's spinning threads made a beginner game of the distilled model take 1.6 s instead of 11 ms.
    # Parallel evaluation comes from the runner's processes.
    torch.set_num_threads(1)
    agent = ModelAgent(load_network(network_spec, card_path.parent), model_label(archive, symmetries, sure, opening))
    if learnt is not None:
        agent.opening = learnt.action(learnt.board[1])
    if card.mark_above:
        agent.use_marks(card.mark_above)
    if symmetries != 1:
        rows, cols = card.board if spec is None else (spec.rows, spec.cols)
        agent.use_symmetries(symmetries, rows, cols, sure)
    return agent


def scores_are_safety_logits(card: ModelCard) -> bool:
    """Whether a model's scores read as safety logits (``-logit`` of its cell's mine chance): a distilled network's,
    or the policy of a PPO or MaskablePPO run with the mine prior (``--mine-prior``), whose logits are its mine
    head's safety logits plus a guess preference held within ``preference_bound``, as its marks read them."""
    network = card.network or {}
    return card.algo == "distill" or (network.get("head") == "policy" and bool((card.config or {}).get("mine_prior")))


def check_sure(sure: float, symmetries: int, card: ModelCard, archive: Path) -> None:
    """ValueError unless ``sure`` is off (0) or a mine chance in (0, 1) for a model whose scores are safety logits
    (:func:`scores_are_safety_logits`), over symmetries."""
    if not sure:
        return
    if not 0 < sure < 1:
        raise ValueError(f"sure is a mine chance between 0 and 1 (0: always average), got {sure:g}")
    if symmetries == 1:
        raise ValueError("sure gates the average over symmetries: give symmetries 2, 4 or 8 with it")
    if not scores_are_safety_logits(card):
        raise ValueError(f"model {archive} was trained by {card.algo!r}: only the scores of a distilled model or of a "
                         "mine-prior policy are safety logits that sure can read as mine chances")  # fmt: skip


def checked_opening(card: ModelCard, archive: Path, spec: BoardSpec | None) -> LearntOpening:
    """The card's learnt opening, checked to be for the board and rule ``spec`` (the card's own when None)."""
    learnt = card.learnt_opening
    if learnt is None:
        raise ValueError(f"model {archive} has no learnt opening: learn one from its games with "
                         f"`python -m eval.opening {archive.with_suffix('')}`")  # fmt: skip
    if spec is not None and not learnt.plays_on(spec):
        rows, cols, mines = learnt.board
        raise ValueError(f"model {archive} learnt its opening on {rows}x{cols} with {mines} mines under the "
                         f"{learnt.first_click!r} rule, not on {spec.rows}x{spec.cols} with {spec.mines} under "
                         f"{spec.first_click!r}: play it there without the opening")  # fmt: skip
    return learnt


class ModelAgent(Agent):
    """A saved model's playing network (:class:`agents.networks.saved.CellScorer`) playing greedily over the valid
    actions.

    Args:
        network: Grids (N, rows, cols) to one score per cell (N, rows * cols), on any board size.
        name: The agent's name in reports.
    """

    def __init__(self, network: Any, name: str) -> None:
        self.network = network.eval()
        self.name = name
        self.symmetries = 1
        self.sure = 0.0
        self.mark_above: float | None = None
        self.marks: np.ndarray | None = None
        self.opening: int | None = None  # the action played first on an untouched board (agents.opening)

    def reset(self) -> None:
        self.marks = None

    def use_marks(self, mark_above: float) -> None:
        """Play with marks (:mod:`agents.marks`) from now on: the cells the network gives a mine chance above
        ``mark_above`` are kept, shown to it as flags and not revealed while another cell is hidden."""
        sure_logit(mark_above)
        self.mark_above = mark_above

    def use_symmetries(self, count: int, rows: int, cols: int, sure: float = 0.0) -> None:
        """Average the scores over ``count`` symmetries of the ``rows`` x ``cols`` board from now on, only where
        the board as it is leaves the network less sure than ``sure`` when that is not 0.

        Raises:
            ValueError: no such count on this board.
        """
        check_symmetries(count, rows, cols)
        self.symmetries = count
        self.sure = sure

    def action_scores(self, obs: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        """The network's preference for every action (logits or Q-values), float array (n_actions,), on a board of
        any size; ``info["mines"]``, when given, is the game's mine count a distilled network reads."""
        if "mines" in info:
            tell_mine_count(self.network, int(info["mines"]))
        if self.symmetries > 1 and self.sure:
            valid = info["action_mask"].astype(bool)
            return gated_scores(self.batch_scores, obs, self.symmetries, valid, self.sure)
        if self.symmetries > 1:
            return averaged_scores(self.batch_scores, obs, self.symmetries)
        return self.batch_scores(obs[None])[0]

    def batch_scores(self, grids: np.ndarray) -> np.ndarray:
        """Scores (N, n_actions) of a batch of grids (N, rows, cols), on the network's device."""
        import torch

        device = next(self.network.parameters()).device
        with torch.no_grad():
            return self.network(torch.as_tensor(grids, device=device)).cpu().numpy()

    def act(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        valid = info["action_mask"].astype(bool)
        if self.opening is not None and valid[self.opening] and (obs == HIDDEN).all():
            return self.opening
        if self.mark_above is None:
            scores = self.action_scores(obs, info)
        else:  # flags are off (a model trained with flag actions is refused), so the valid cells are the hidden ones
            if self.marks is None or self.marks.shape != (1, obs.size):
                self.marks = np.zeros((1, obs.size), dtype=bool)
            scores, self.marks, playable = score_marked(lambda grids: self.action_scores(grids[0], info)[None],
                                                        obs[None], self.marks, self.mark_above)  # fmt: skip
            scores, valid = scores[0], valid & playable[0]
        return int(np.where(valid, scores, -np.inf).argmax())


def tell_mine_count(network: Any, mines: int) -> None:
    """Give the game's mine count to every part of the network that reads it (a distilled network's input
    has the remaining-mine density; it declares ``reads_mine_count`` and ``set_mine_count``)."""
    from agents.networks.trunks import set_mine_count

    set_mine_count(network, mines)

"""A model's learnt opening: the card's section, and the player opening on it.

Needs torch (the player loads a network): skipped without it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.model_card import ModelCard
from agents.networks.player import load_model_agent
from agents.opening import CandidateReturns, LearntOpening
from mine_env.engine.constants import HIDDEN
from mine_env.engine.spec import BoardSpec
from tests.agents.test_network_player import save_tiny_model

SPEC = BoardSpec(4, 4, 2, "opening")


def opening_section(cell: tuple[int, int] = (1, 2), board: tuple[int, int, int] = (4, 4, 2)) -> dict:
    candidates = (CandidateReturns(cell, 40, 30), CandidateReturns((0, 0), 20, 10))
    return LearntOpening(cell, board, "opening", 1, 0.0, 5, candidates).to_dict()


def with_opening(card_path: Path, section: dict) -> None:
    card = json.loads(card_path.read_text())
    card_path.write_text(json.dumps({**card, "opening": section}))


def untouched(spec: BoardSpec) -> tuple[np.ndarray, dict]:
    return np.full((spec.rows, spec.cols), HIDDEN, np.int8), {"action_mask": np.ones(spec.rows * spec.cols, np.int8),
                                                              "mines": spec.mines}  # fmt: skip


def test_the_section_round_trips_through_the_card(tmp_path: Path) -> None:
    card_path = save_tiny_model(tmp_path, "tiny")
    with_opening(card_path, opening_section())
    learnt = ModelCard.read(card_path).learnt_opening
    assert learnt is not None and learnt.cell == (1, 2) and learnt.plays_on(SPEC)
    assert not learnt.plays_on(BoardSpec(4, 4, 3, "opening")) and not learnt.plays_on(BoardSpec(4, 4, 2, "safe"))
    assert LearntOpening.from_dict(learnt.to_dict()) == learnt


@pytest.mark.parametrize(
    ("section", "match"),
    [
        ({"cell": [1, 2]}, "exactly the keys"),
        ({**opening_section(), "cell": [4, 0]}, "lies off the 4x4 board"),
        ({**opening_section(), "cell": "1,2"}, "pair of integers"),
        ({**opening_section(), "board": [4, 4]}, r"board is \[rows, cols, mines\]"),
        ({**opening_section(), "first_click": "sometimes"}, "first"),
    ],
)
def test_a_malformed_section_is_refused_in_one_line(tmp_path: Path, section: dict, match: str) -> None:
    card_path = save_tiny_model(tmp_path, "tiny")
    with_opening(card_path, section)
    with pytest.raises(ValueError, match=match):
        ModelCard.read(card_path)


def test_the_player_opens_on_the_learnt_cell_only_when_asked(tmp_path: Path) -> None:
    card_path = save_tiny_model(tmp_path, "tiny")
    obs, info = untouched(SPEC)
    own = load_model_agent(card_path.with_suffix(".pt")).act(obs, info)
    cell = divmod((own + 5) % 16, 4)  # another cell than the network's own
    with_opening(card_path, opening_section(cell))
    assert load_model_agent(card_path.with_suffix(".pt")).act(obs, info) == own
    agent = load_model_agent(card_path.with_suffix(".pt"), SPEC, opening=True)
    assert agent.act(obs, info) == cell[0] * 4 + cell[1] and agent.name.endswith("+opening")
    obs[cell] = 0  # once a cell is open, the network plays its own scores again
    assert agent.act(obs, info) == load_model_agent(card_path.with_suffix(".pt")).act(obs, info)


def test_the_opening_is_refused_without_one_or_on_another_board(tmp_path: Path) -> None:
    card_path = save_tiny_model(tmp_path, "tiny")
    with pytest.raises(ValueError, match="no learnt opening: learn one"):
        load_model_agent(card_path.with_suffix(".pt"), SPEC, opening=True)
    with_opening(card_path, opening_section())
    with pytest.raises(ValueError, match="learnt its opening on 4x4 with 2 mines"):
        load_model_agent(card_path.with_suffix(".pt"), BoardSpec(5, 5, 2, "opening"), opening=True)

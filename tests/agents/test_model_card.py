"""The model card: one format written by train/ and read by eval/, the shipped cards, clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.model_card import ModelCard, model_paths

MODELS = Path(__file__).resolve().parents[2] / "models"
MODEL_CARDS = [path for path in sorted(MODELS.glob("*.json")) if path.with_suffix(".pt").is_file()]
"""The shipped networks' cards (a card beside its weights); the value head's card stands beside its ``.npz``."""
CARD = {
    "algo": "ppo",
    "model_class": "stable_baselines3.ppo.ppo:PPO",
    "env_kwargs": {"rows": 4, "cols": 5, "mines": 3, "first_click": "opening", "obs_mode": "grid", "flags": False},
}


def shipped_board(name: str) -> tuple[int, int]:
    """The board a shipped model's file name promises: its preset, or the battle baseline's 16x16."""
    boards = {"beginner": (9, 9), "intermediate": (16, 16), "expert": (16, 30), "battle_16x16": (16, 16)}
    return next(board for key, board in boards.items() if key in name)


def test_every_shipped_card_is_a_network_card_or_a_value_heads_own() -> None:
    heads = [path for path in sorted(MODELS.glob("*.json")) if path not in MODEL_CARDS]
    assert MODEL_CARDS and all(path.with_suffix(".npz").is_file() for path in heads)
    for path in heads:
        with np.load(path.with_suffix(".npz")) as head:
            assert json.loads(str(head["about"])) == {
                key: value for key, value in json.loads(path.read_text()).items() if key != "eval"
            }, f"{path.name} is not the card its head was saved with"


@pytest.mark.parametrize("path", MODEL_CARDS, ids=lambda path: path.stem)
def test_the_shipped_cards_load_and_write_back_byte_for_byte(path: Path, tmp_path: Path) -> None:
    card = ModelCard.read(path)
    assert card.board == shipped_board(path.stem) and card.obs_mode == "grid" and not card.flags
    assert card.eval is not None and 0.0 <= card.eval["win_rate"] <= 1.0
    card.write(tmp_path / "card.json")
    assert (tmp_path / "card.json").read_text() == path.read_text()


@pytest.mark.parametrize("path", sorted(MODELS.glob("distill_*.json")), ids=lambda path: path.stem)
def test_a_shipped_distilled_card_names_no_training_class_and_an_older_one_still_reads(path: Path) -> None:
    card = ModelCard.read(path)
    assert card.algo == "distill" and card.model_class is None and "sb3_contrib" not in path.read_text()
    older = {**card.to_dict(), "model_class": "sb3_contrib.ppo_mask.ppo_mask:MaskablePPO"}  # before 0.2.0
    assert ModelCard.from_dict(older).network_spec == card.network_spec


def test_a_card_keeps_what_it_was_given_and_leaves_out_what_was_not(tmp_path: Path) -> None:
    card = ModelCard(**CARD, steps=256)
    assert card.to_dict() == {**CARD, "steps": 256}
    card.write(tmp_path / "m.json")
    assert ModelCard.read(tmp_path / "m.json") == card
    assert ModelCard.from_dict({**CARD, "env_kwargs": {"rows": 2, "cols": 3}}).obs_mode == "grid"


def test_a_card_without_model_class_loads_and_writes_without_it(tmp_path: Path) -> None:
    """model_class is the training zip's loader: a card with no zip leaves it out, and an older card keeps it."""
    bare = {key: value for key, value in CARD.items() if key != "model_class"}
    card = ModelCard.from_dict(bare)
    assert card.model_class is None and card.to_dict() == bare
    card.write(tmp_path / "m.json")
    assert "model_class" not in (tmp_path / "m.json").read_text()
    assert ModelCard.from_dict(CARD).model_class == CARD["model_class"]


@pytest.mark.parametrize(
    "path", [path for path in MODEL_CARDS if not path.stem.startswith("distill_")],
    ids=lambda path: path.stem,
)
def test_the_shipped_cards_name_their_algorithm_and_no_library_class(path: Path) -> None:
    """No zip is shipped, so nothing would load a model_class: the card says the algorithm as a plain word."""
    card = ModelCard.read(path)
    assert card.model_class is None
    assert card.algo.replace("_", "").isalpha() and card.network is not None


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"algo": ""}, "algo must be a non-empty string"),
        ({"model_class": "PPO"}, "model_class must look like 'module.path:ClassName'"),
        ({"env_kwargs": {"rows": 4}}, "at least rows and cols"),
        ({"env_kwargs": {"rows": 4, "cols": 4, "obs_mode": 3}}, "obs_mode must be a string"),
        ({"steps": "many"}, "steps must be an integer"),
        ({"eval": [0.5]}, "eval must be an object"),
        ({"notes": "x"}, "unknown model card keys notes"),
    ],
)
def test_a_malformed_card_is_refused_saying_why(change: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ModelCard.from_dict({**CARD, **change})


def test_a_card_without_its_required_keys_or_not_json_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="keys algo, env_kwargs"):
        ModelCard.from_dict({"algo": "ppo"})
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match=r"bad\.json is not valid JSON"):
        ModelCard.read(path)


def test_the_card_of_a_model_lies_beside_its_zip(tmp_path: Path) -> None:
    archive, card_path = model_paths(tmp_path / "run" / "best_model")
    assert (archive.name, card_path.name) == ("best_model.zip", "best_model.json")
    with pytest.raises(FileNotFoundError, match=r"best_model\.zip does not exist"):
        ModelCard.of_model(archive)
    archive.parent.mkdir()
    archive.write_bytes(b"zip")
    with pytest.raises(FileNotFoundError, match="no metadata file"):
        ModelCard.of_model(archive)
    ModelCard(**CARD).write(card_path)
    assert ModelCard.of_model(tmp_path / "run" / "best_model") == ModelCard(**CARD)

"""agents.networks: the plain modules and the card's network section (the model format's checks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.model_card import ModelCard
from agents.networks.spec import NetworkSpec
from mine_env.env import PLANE_CODES

SECTION: dict[str, Any] = {
    "format": 1, "weights": "tiny.pt", "sha256": "0" * 64, "trunk": "cell",
    "trunk_kwargs": {"channels": 4, "layers": 1}, "head": "policy", "preference_bound": 0.0,
}  # fmt: skip
CARD = {"algo": "ppo", "model_class": "stable_baselines3.ppo.ppo:PPO", "env_kwargs": {"rows": 4, "cols": 4}}


def test_the_input_planes_are_the_envs() -> None:
    from agents.networks.layers import PLANE_CODES as NETWORK_CODES

    assert NETWORK_CODES == PLANE_CODES  # saved weights read the planes in this order


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"format": 2}, "network format 2 is not 1"),
        ({"trunk": "mlp"}, "network trunk 'mlp' is none of cell, board, iterated"),
        ({"trunk_kwargs": {"channels": 4, "width": 3}}, "trunk_kwargs must be an object with keys among"),
        ({"head": "value"}, "network head 'value' is none of policy, q"),
        ({"weights": "../elsewhere.pt"}, "must be a .pt file name beside the card"),
        ({"sha256": "abc"}, "sha256 must be the weights file's 64 hex digits"),
        ({"preference_bound": -1.0}, "preference_bound must be 0"),
        ({"advantage_bound": 0.1}, "advantage_bound must be 0, or above 0 for a q_risk head"),
        ({"head": "q_risk", "advantage_bound": -0.1}, "advantage_bound must be 0, or above 0"),
        ({"extra": 1}, "unknown network keys extra"),
    ],
)
def test_a_wrong_network_section_is_refused_saying_why(change: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        NetworkSpec.from_dict(SECTION | change)
    with pytest.raises(ValueError, match=match):
        ModelCard.from_dict(CARD | {"network": SECTION | change})


def test_a_card_keeps_its_network_section(tmp_path: Path) -> None:
    card = ModelCard.from_dict(CARD | {"network": SECTION})
    card.write(tmp_path / "tiny.json")
    assert ModelCard.read(tmp_path / "tiny.json").network_spec == NetworkSpec(**SECTION)
    assert ModelCard.from_dict(CARD).network_spec is None


def test_only_the_trunks_of_the_format_are_saved() -> None:
    torch = pytest.importorskip("torch")
    from agents.networks.saved import build_network, trunk_kwargs

    with pytest.raises(ValueError, match=r"a Linear is no trunk of agents\.networks\.trunks"):
        trunk_kwargs(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="do not build a cell trunk: channels and layers must be positive"):
        build_network(NetworkSpec(**SECTION | {"trunk_kwargs": {"channels": 0, "layers": 1}}))
    network = build_network(NetworkSpec(**SECTION))
    assert network(torch.full((2, 3, 5), -1, dtype=torch.int8)).shape == (2, 15)  # any board size


def test_a_bounded_spread_keeps_the_mean_of_the_valid_cells_and_each_within_the_bound() -> None:
    torch = pytest.importorskip("torch")
    from agents.networks.layers import bounded_spread

    scores = torch.tensor([[5.0, -3.0, 0.5, 100.0], [1.0, 1.0, 1.0, 1.0], [2.0, 4.0, 6.0, 8.0]])
    valid = torch.tensor([[True, True, True, False], [True, True, True, True], [False, False, False, False]])
    bounded = bounded_spread(scores, valid, 0.1)
    level = torch.tensor([2.5 / 3, 1.0, 0.0]).unsqueeze(1)
    assert ((bounded - level).abs() <= 0.1 + 1e-6).all()
    torch.testing.assert_close(bounded[1], scores[1])  # equal scores stay as they are
    assert bounded[0, 0] > bounded[0, 2] > bounded[0, 1]  # the order of the cells kept


@pytest.mark.parametrize("name", ["cell", "board", "iterated", "tapered"])
def test_a_trunk_made_to_read_flags_as_hidden_reads_a_flag_as_a_hidden_cell(name: str) -> None:
    torch = pytest.importorskip("torch")
    from agents.networks.trunks import BoardTrunk, CellTrunk, IteratedTrunk, TaperedTrunk, read_flags_as_hidden
    from mine_env.engine.constants import FLAG, HIDDEN

    trunks = {"cell": lambda: CellTrunk(8, 2), "board": lambda: BoardTrunk(8, (1, 2), mines=6),
              "iterated": lambda: IteratedTrunk(8, passes=2, mines=6), "tapered": lambda: TaperedTrunk((8, 4), 6)}
    torch.manual_seed(0)
    trunk = trunks[name]().eval()
    hidden = torch.tensor([[[HIDDEN, 1, HIDDEN, 0], [HIDDEN, 2, HIDDEN, 1], [HIDDEN, HIDDEN, HIDDEN, HIDDEN]]])
    flagged = hidden.clone()
    flagged[0, 0, 0] = flagged[0, 2, 1] = FLAG
    with torch.no_grad():
        assert not torch.allclose(trunk(flagged), trunk(hidden))  # a fresh flag plane reads as noise
        read_flags_as_hidden(trunk)
        torch.testing.assert_close(trunk(flagged), trunk(hidden))

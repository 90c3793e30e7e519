"""studies/mirror_distill.py: the positions recorded are the mirrored play's, with the scores it played from; the
positions rescored by the model that recorded them keep their scores; the loss is least where the student is the
teacher; a trained student is a model that loads and plays; a model whose scores are no mine chances is refused in
one line."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.model_card import ModelCard  # noqa: E402
from agents.networks.mirrored_play import averaged_batch_scores  # noqa: E402
from agents.networks.player import load_model_agent  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import mirror_distill  # noqa: E402

MODEL = "maskable-ppo-beginner"


@pytest.fixture(scope="module")
def positions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("md") / "positions.npz"
    mirror_distill.main(["play", MODEL, "--games", "12", "--seed", "5", "--batch", "6", "--out", str(out)])
    return out


def test_the_positions_are_scored_as_mirrored_play_scores_them(positions: Path) -> None:
    grids, scores = mirror_distill.load_positions([positions])
    agent = load_model_agent(MODEL)
    np.testing.assert_allclose(scores, averaged_batch_scores(agent.batch_scores, grids, 4), rtol=1e-5, atol=1e-4)
    scale = mirror_distill.prior_scale(ModelCard.of_model(MODEL))
    assert 0 < mirror_distill.guesses(grids, scores, scale).sum() < len(grids)  # the guesses and a share of the rest


def test_rescoring_by_the_recording_model_gives_back_its_scores(positions: Path, tmp_path: Path) -> None:
    out = tmp_path / "again.npz"
    mirror_distill.main(["rescore", MODEL, str(positions), "--batch", "7", "--out", str(out)])
    grids, scores = mirror_distill.load_positions([positions])
    again_grids, again = mirror_distill.load_positions([out])
    np.testing.assert_array_equal(again_grids, grids)
    np.testing.assert_allclose(again, scores, rtol=1e-5, atol=1e-4)


def test_the_loss_is_least_where_the_student_scores_as_the_teacher(positions: Path) -> None:
    grids, scores = mirror_distill.load_positions([positions])
    valid = torch.as_tensor(mirror_distill.playable(grids))
    teacher = torch.as_tensor(scores)
    _, kl, same = mirror_distill.distill_loss(teacher, teacher, valid, 3.0, 1.0)
    _, _, moved = mirror_distill.distill_loss(teacher + torch.randn_like(teacher), teacher, valid, 3.0, 1.0)
    assert abs(kl.item()) < 1e-5 and same.item() < moved.item()


def test_a_trained_student_is_a_model_that_plays(positions: Path, tmp_path: Path) -> None:
    report = mirror_distill.train(MODEL, [positions], positions, tmp_path / "student", epochs=1, lr=1e-4, batch=64,
                                  kl_weight=0.0, seed=0)  # fmt: skip
    assert report["before"]["regret"] >= 0.0 and 0.0 <= report["epoch1"]["same_pick"] <= 1.0
    student = load_model_agent(tmp_path / "student.pt")
    assert student.mark_above == load_model_agent(MODEL).mark_above
    config = dict(ModelCard.read(tmp_path / "student.json").config or {})
    lessons = config.pop(mirror_distill.LESSONS_KEY)
    assert config == ModelCard.of_model(MODEL).config  # the teacher's run settings, and how it was taught
    assert [(lesson["teacher"], lesson["epochs"]) for lesson in lessons] == [(MODEL, 1)]


def test_a_model_without_the_mine_prior_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="mirror_distill: the model was not trained with --mine-prior"):
        mirror_distill.main(["play", "distill-beginner", "--games", "2", "--seed", "1", "--out", str(tmp_path / "x")])

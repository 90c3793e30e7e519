"""A model's mirrored play taught back to its own network (self-distillation over the board's symmetries).

    python studies/mirror_distill.py play maskable-ppo-expert --games 2000 --seed 7001 --out runs/md/pos-7001.npz
    python studies/mirror_distill.py play maskable-ppo-expert --games 300 --seed 7003 --keep-sure 1 \
        --out runs/md/held-7003.npz
    python studies/mirror_distill.py train maskable-ppo-expert runs/md/pos-7001.npz --held-out runs/md/held-7003.npz \
        --out runs/md/student
    python studies/mirror_distill.py rescore runs/md/student.pt runs/md/pos-7001.npz --out runs/md/pos-7001-r2.npz

Played averaged over the board's images (``--symmetries 4``), a PPO model wins several points more than its one
pass does: its errors differ from image to image and the average cancels part of them. ``play`` records the
positions that mirrored play meets (the grids as the network sees them, marks shown) with the averaged scores it
played from; ``train`` fits the model's own network, from its own weights, to those scores: read as mine chances
(the mine prior's part of a ``--mine-prior`` model's scores), a cross-entropy over the cells it may reveal. No
oracle and no solver: the targets are the model's own play. ``rescore`` scores recorded positions by another
model mirrored (the student as the next round's teacher). The student plays wherever a model goes
(``minesweeper eval --model OUT.pt``), mirrored too.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch as th
import torch.nn.functional as F

from agents.model_card import ModelCard, model_paths
from agents.networks.mirrored_play import gated_batch_scorer
from agents.networks.saved import CellScorer, load_network, save_network
from eval.batched import card_mark_above, model_scorer, play_batched
from eval.suites import adhoc_suite
from mine_env.engine.constants import FLAG, HIDDEN
from mine_env.engine.spec import BoardSpec

GUESS_CHANCE = 1e-3
"""A position is a guess where its safest hidden cell has at least this mine chance (by the scores' prior)."""

LESSONS_KEY = "mirror_distill"
"""The card config's list of the rounds of mirrored teaching a student went through, first round first."""


def prior_scale(card: ModelCard) -> float:
    """How many safety logits one unit of the model's scores is: its mine prior's scale (``--prior-scale``).
    ValueError for a model trained without the mine prior, whose scores are no safety logits."""
    config = card.config or {}
    if not config.get("mine_prior"):
        raise ValueError("the model was not trained with --mine-prior: its scores say no mine chance to tell "
                         "guesses by")  # fmt: skip
    return float(config.get("prior_scale", 1.0))


def mine_chance(scores: np.ndarray, scale: float) -> np.ndarray:
    """The mine chance the mine prior's part of ``scores`` says (the bounded preference ignored)."""
    return 1.0 / (1.0 + np.exp(np.clip(scores / scale, -50.0, 50.0)))


def playable(grids: np.ndarray | th.Tensor) -> np.ndarray | th.Tensor:
    """The cells (N, cells) a marked player may reveal in grids (N, rows, cols) shown to its network: the hidden
    ones, or the marked ones where every hidden cell is marked (:func:`agents.marks.mark_cells`)."""
    flat = grids.reshape(len(grids), -1)
    hidden = flat == HIDDEN
    stuck = ~hidden.any(1, keepdims=True) if isinstance(hidden, np.ndarray) else ~hidden.any(1, keepdim=True)
    return hidden | (stuck & (flat == FLAG))


def guesses(grids: np.ndarray, scores: np.ndarray, scale: float, below: float = GUESS_CHANCE) -> np.ndarray:
    """Whether each position is a guess: the best hidden cell's mine chance is ``below`` or more."""
    hidden = playable(grids)
    return mine_chance(np.where(hidden, scores, -np.inf).max(axis=1), scale) >= below


def play(model: str, games: int, seed: int, symmetries: int, out: Path, batch: int,
         keep_sure: float) -> dict[str, float]:  # fmt: skip
    """Play ``games`` games of the model's own board (seed ``seed``) mirrored over ``symmetries`` images and save
    the scored positions: every guess (:func:`guesses`) and a ``keep_sure`` share of the others, drawn from
    ``seed``; ``grids`` (N, rows, cols) int8 and ``scores`` (N, cells) float32."""
    card = ModelCard.of_model(model)
    scale = prior_scale(card)
    rng = np.random.default_rng(seed)
    spec = BoardSpec(**{key: card.env_kwargs[key] for key in ("rows", "cols", "mines", "first_click")})
    suite = adhoc_suite(spec, games, seed)
    mirrored = gated_batch_scorer(model_scorer(model, "cpu", spec.mines), symmetries)
    grids: list[np.ndarray] = []
    scores: list[np.ndarray] = []

    def recording(batch_grids: np.ndarray) -> np.ndarray:
        batch_scores = np.asarray(mirrored(batch_grids), dtype=np.float32)
        kept = guesses(batch_grids, batch_scores, scale) | (rng.random(len(batch_grids)) < keep_sure)
        grids.append(np.array(batch_grids[kept], dtype=np.int8))
        scores.append(batch_scores[kept])
        return batch_scores

    mark_above = card_mark_above(model) or None
    result = play_batched(recording, suite, batch=batch, mark_above=mark_above)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, grids=np.concatenate(grids), scores=np.concatenate(scores))
    summary = result.summary()
    return {"games": games, "won": summary["win_rate"], "positions": sum(len(g) for g in grids),
            "seconds": summary["seconds"]}  # fmt: skip


def rescore(model: str, positions: Path, symmetries: int, out: Path, batch: int) -> dict[str, float]:
    """Score the positions of a ``play`` file by ``model`` played mirrored over ``symmetries`` images and save them
    as a ``play`` file of its own: a second round's targets (the student, mirrored, as the next teacher) on the
    positions its teacher met, without playing the games again."""
    card = ModelCard.of_model(model)
    scale = prior_scale(card)
    mines = int(card.env_kwargs["mines"])
    mirrored = gated_batch_scorer(model_scorer(model, "cpu", mines), symmetries)
    grids, _ = load_positions([positions])
    began = time.perf_counter()
    scores = np.concatenate([np.asarray(mirrored(grids[start : start + batch]), dtype=np.float32)
                             for start in range(0, len(grids), batch)])  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, grids=grids, scores=scores)
    return {"positions": len(grids), "guesses": int(guesses(grids, scores, scale).sum()),
            "seconds": round(time.perf_counter() - began, 1)}  # fmt: skip


def load_positions(paths: Sequence[Path]) -> tuple[np.ndarray, np.ndarray]:
    """The grids and scores of several ``play`` files, in order."""
    files = [np.load(path) for path in paths]
    return np.concatenate([f["grids"] for f in files]), np.concatenate([f["scores"] for f in files])


def distill_loss(student: th.Tensor, teacher: th.Tensor, valid: th.Tensor, scale: float,
                 kl_weight: float) -> tuple[th.Tensor, th.Tensor, th.Tensor]:  # fmt: skip
    """The cross-entropy of the student's mine chances against the teacher's over the ``valid`` cells (scores read
    as ``scale`` times safety logits), the KL divergence from the teacher's policy to the student's there, and the
    loss ``cross-entropy + kl_weight * kl``.

    The cross-entropy weighs every cell by what its mine chance means: two cells a thousand and a million to one
    differ little, where two softmax scores of sure cells would; the KL adds the policy's own view, which among
    many sure cells is mostly noise."""
    mine_logits = -student[valid] / scale
    cross_entropy = F.binary_cross_entropy_with_logits(mine_logits, th.sigmoid(-teacher[valid] / scale))
    masked_teacher = teacher.masked_fill(~valid, -th.inf)
    target = F.softmax(masked_teacher, dim=1)
    log_target = F.log_softmax(masked_teacher, dim=1).masked_fill(~valid, 0.0)
    log_student = F.log_softmax(student.masked_fill(~valid, -th.inf), dim=1).masked_fill(~valid, 0.0)
    kl = (target * (log_target - log_student)).sum(dim=1).mean()
    return cross_entropy, kl, cross_entropy + kl_weight * kl


def pick_regret(network: CellScorer, grids: np.ndarray, scores: np.ndarray, scale: float,
                batch: int = 2048) -> dict[str, float]:  # fmt: skip
    """How much worse than the teacher's pick the network's is, by the teacher: the mine chance the teacher gives
    the network's best hidden cell less the chance of its own best, a position's mean (``regret``), the same at the
    guesses alone (``regret_at_guesses``), and the share of positions where both pick the very same cell."""
    regret, same = [], 0
    with th.no_grad():
        for start in range(0, len(grids), batch):
            g = grids[start : start + batch]
            teacher = scores[start : start + batch].astype(np.float64)
            hidden = playable(g)
            mine = np.where(hidden, network(th.as_tensor(g)).numpy(), -np.inf).argmax(axis=1)
            theirs = np.where(hidden, teacher, -np.inf).argmax(axis=1)
            rows = np.arange(len(g))
            regret.append(mine_chance(teacher[rows, mine], scale) - mine_chance(teacher[rows, theirs], scale))
            same += int((mine == theirs).sum())
    gaps = np.concatenate(regret)
    at_guesses = guesses(grids, scores, scale)
    return {"regret": float(gaps.mean()), "regret_at_guesses": float(gaps[at_guesses].mean()),
            "same_pick": same / len(grids)}  # fmt: skip


def train(model: str, paths: Sequence[Path], held_out: Path, out: Path, epochs: int, lr: float, batch: int,
          kl_weight: float, seed: int) -> dict[str, object]:  # fmt: skip
    """Fit ``model``'s network, from its weights, to the recorded mirrored scores ``paths``; judge it after every
    epoch on the positions ``held_out`` (a ``play`` file of another seed) and save it as the model ``out`` after
    every epoch (:func:`save_student`)."""
    card = ModelCard.of_model(model)
    spec = card.network_spec
    if spec is None:
        raise ValueError(f"{model}: its card has no network section")
    scale = prior_scale(card)
    network = load_network(spec, model_paths(model)[1].parent)
    grids, scores = load_positions(paths)
    judge_grids, judge_scores = load_positions([held_out])
    report: dict[str, object] = {"positions": len(grids), "held_out": len(judge_grids),
                                 "before": pick_regret(network, judge_grids, judge_scores, scale)}  # fmt: skip
    print(report, flush=True)
    lesson = {"teacher": str(model), "positions": [str(path) for path in paths], "held_out": str(held_out),
              "epochs": epochs, "lr": lr, "batch": batch, "kl": kl_weight, "seed": seed}  # fmt: skip
    th.manual_seed(seed)
    rng = np.random.default_rng(seed)
    optimizer = th.optim.Adam(network.parameters(), lr=lr)
    for epoch in range(1, epochs + 1):
        began, totals, steps = time.perf_counter(), np.zeros(2), 0
        network.train()
        order = rng.permutation(len(grids))
        for start in range(0, len(grids), batch):
            chosen = order[start : start + batch]
            g = th.as_tensor(grids[chosen])
            cross_entropy, kl, loss = distill_loss(network(g), th.as_tensor(scores[chosen]), playable(g), scale,
                                                   kl_weight)  # fmt: skip
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            totals += (cross_entropy.item(), kl.item())
            steps += 1
        network.eval()
        report[f"epoch{epoch}"] = pick_regret(network, judge_grids, judge_scores, scale)
        print(f"epoch {epoch}: cross-entropy {totals[0] / steps:.5f}, kl {totals[1] / steps:.4f}, held out "
              f"{report[f'epoch{epoch}']} ({time.perf_counter() - began:.0f} s)", flush=True)  # fmt: skip
        save_student(card, network, out, {**lesson, "epochs": epoch})
    return report


def save_student(card: ModelCard, network: CellScorer, out: Path, lesson: dict[str, object]) -> None:
    """Write ``network`` as the model ``out``: ``card`` (the teacher's) naming its weights, without the teacher's
    training zip, step count or evaluation, its config keeping the teacher's run settings with ``lesson`` (how the
    student was taught) appended to its ``mirror_distill`` list (a student of a student keeps both rounds)."""
    assert card.network_spec is not None
    card_path = model_paths(out)[1]
    section = save_network(network, card.network_spec.head, card_path)
    config = dict(card.config or {})
    config[LESSONS_KEY] = [*config.get(LESSONS_KEY, []), lesson]
    dataclasses.replace(card, model_class=None, steps=None, eval=None, network=section, config=config).write(card_path)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    record = commands.add_parser("play", help="record the positions of the model's mirrored play")
    record.add_argument("model")
    record.add_argument("--games", type=int, default=1000)
    record.add_argument("--seed", type=int, required=True, help="the games' seed (keep it off the suites' 20261121)")
    record.add_argument("--symmetries", type=int, default=4)
    record.add_argument("--batch", type=int, default=500)
    record.add_argument("--keep-sure", type=float, default=0.2, help="share of the positions that are no guess kept")
    record.add_argument("--out", type=Path, required=True)
    again = commands.add_parser("rescore", help="score a play file's positions by another model played mirrored")
    again.add_argument("model")
    again.add_argument("positions", type=Path)
    again.add_argument("--symmetries", type=int, default=4)
    again.add_argument("--batch", type=int, default=500)
    again.add_argument("--out", type=Path, required=True)
    fit = commands.add_parser("train", help="fit the model's network to recorded mirrored scores")
    fit.add_argument("model")
    fit.add_argument("positions", nargs="+", type=Path)
    fit.add_argument("--out", type=Path, required=True, help="the student's stem: OUT.json and OUT.pt are written")
    fit.add_argument("--epochs", type=int, default=3)
    fit.add_argument("--lr", type=float, default=1e-4)
    fit.add_argument("--batch", type=int, default=256)
    fit.add_argument("--kl", type=float, default=0.0, help="weight of the policies' KL beside the cross-entropy")
    fit.add_argument("--held-out", type=Path, required=True, help="a play file of another seed, to judge by")
    fit.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    th.set_num_threads(1)
    try:
        if args.command == "play":
            print(play(args.model, args.games, args.seed, args.symmetries, args.out, args.batch, args.keep_sure))
        elif args.command == "rescore":
            print(rescore(args.model, args.positions, args.symmetries, args.out, args.batch))
        else:
            print(train(args.model, args.positions, args.held_out, args.out, args.epochs, args.lr, args.batch,
                        args.kl, args.seed))  # fmt: skip
    except (ValueError, FileNotFoundError) as error:
        raise SystemExit(f"mirror_distill: {error}") from None


if __name__ == "__main__":
    main()

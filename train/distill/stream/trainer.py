"""A streamed run's networks in training: built, stepped on the same minibatches, judged, checkpointed and saved.

Each trunk (``--trunks``) is a plain :class:`agents.networks.saved.CellScorer` with an Adam optimiser over its trunk
and its safety head; :class:`StreamRun` holds them with the run's counters, and its checkpoint
(``RUN_DIR/checkpoint.pt``) holds their weights, the optimisers, the counters and torch's RNG state, so that
``--resume`` continues where the run stopped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch as th

from agents.networks.saved import CellScorer
from agents.networks.trunks import BoardTrunk, IteratedTrunk, TaperedTrunk
from train.distill.network import dilation_list, new_network, pooled_list, start_from, torch_device
from train.distill.saved import save_distilled
from train.distill.stream.config import StreamConfig
from train.distill.stream.data import Batch
from train.distill.stream.held_out import judge
from train.distill.stream.levers import board_density, lever_loss
from train.precision import native_bf16
from train.weight_average import WeightAverage

POLICY_KEYS = (("features_extractor.", "trunk."), ("mlp_extractor.policy_head.", "head."))
"""The prefixes of a trunk's and its safety head's weights in a checkpoint of the policies trained before, and now."""


def build_network(config: StreamConfig, trunk: str, device: th.device) -> CellScorer:
    """A new network of the ``trunk`` named (``dilated``, ``iterated``, ``tapered``) on the run's board, its weights
    drawn from ``--seed``, on ``device``."""
    mines = config.board_spec().mines
    if trunk == "dilated":
        module: th.nn.Module = BoardTrunk(config.channels, dilation_list(config.dilations), mines,
                                          pooled_list(config.pooled, config.dilations))  # fmt: skip
    elif trunk == "tapered":
        module = TaperedTrunk(config.width_list(), mines, config.tapered_norm)
    else:
        module = IteratedTrunk(config.iterated_channels, config.passes, mines, config.state_norm)
    return new_network(module, config.seed, device=str(device))


def compile_trunk(network: CellScorer) -> None:
    """Compile the passes of ``network``'s trunk (``torch.compile``, static shapes: a graph for each batch size and
    grad mode the run uses): the iterated trunk's block, the others' whole trunk. Its weights stay where they are
    (the state dict, the checkpoint and the saved model do not change)."""
    trunk = network.trunk
    name = "step" if isinstance(trunk, IteratedTrunk) else "trunk"
    setattr(trunk, name, th.compile(getattr(trunk, name), dynamic=False))


def trunk_logits(network: CellScorer, grids: th.Tensor, loss_passes: Sequence[int],
                 density: th.Tensor | None = None) -> list[th.Tensor]:  # fmt: skip
    """The safety logits (N, cells) the loss is taken on: the iterated trunk's at each of ``loss_passes``, the
    dilated trunk's once; ``density`` (N,) overrides the density plane (positions of other mine counts)."""
    extractor, head = network.trunk, network.head
    planes = extractor.input_planes(grids, density)
    if isinstance(extractor, IteratedTrunk):
        return [head(features) for features in extractor.stages(planes, loss_passes)]
    return [head(extractor.trunk(planes))]


def progressive_logits(network: CellScorer, grids: th.Tensor, most: int,
                       rng: np.random.Generator, density: th.Tensor | None = None) -> th.Tensor:  # fmt: skip
    """The iterated trunk's safety logits after a random number of passes without gradient and then a random
    number with it, ``most`` passes at most in all (:meth:`agents.networks.trunks.IteratedTrunk.progressive`)."""
    extractor, head = network.trunk, network.head
    frozen = int(rng.integers(0, most))
    trained = int(rng.integers(1, most - frozen + 1))
    return head(extractor.progressive(extractor.input_planes(grids, density), frozen, trained))


def scheduled_rate(config: StreamConfig, step: int, seconds: float) -> float:
    """Linear warm-up over ``warmup_steps``, then a cosine over the wall-clock budget down to 5%."""
    progress = min(1.0, seconds / (config.minutes * 60.0))
    rate = config.learning_rate * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * progress)))
    return rate * min(1.0, (step + 1) / max(config.warmup_steps, 1))


class StreamRun:
    """One run: its directory, models, optimisers, counters and the files it writes."""

    def __init__(self, config: StreamConfig, run_dir: Path, resume: dict[str, Any] | None) -> None:
        self.config = config
        self.run_dir = run_dir
        self.spec = config.board_spec()
        self.device = torch_device(config.device)
        self.bf16 = config.bf16 and native_bf16(self.device)  # autocast only where the device runs it natively
        self.names = config.trunk_list()
        self.networks = {name: build_network(config, name, self.device) for name in self.names}
        self.optimizers = {name: th.optim.Adam(self.parameters(name), lr=config.learning_rate) for name in self.names}
        self.step, self.samples, self.seconds, self.taken, self.resumes = 0, 0, 0.0, 0, 0
        th.manual_seed(config.seed)
        if resume is not None:
            self.load(resume)
        elif config.init:
            start_from(self.networks["dilated"], config.init, self.spec.mines)
        saved = {} if resume is None else resume.get("averages", {})  # a run that kept none starts one here
        self.averages = {name: WeightAverage(self.networks[name], config.ema,
                                             network_state(saved.get(name, {}).get("weights")),
                                             saved.get(name, {}).get("updates", 0))
                         for name in self.names} if config.ema else {}  # fmt: skip
        if config.compile:
            for network in self.networks.values():
                compile_trunk(network)
        self.samples_at_start = self.samples  # trained before this start: the refilled ring counts from here
        self.generator = th.Generator(device=self.device)
        self.generator.manual_seed(config.seed * 1_000_003 + self.resumes)
        self.rng = np.random.default_rng([config.seed, self.resumes, 17])  # the progressive loss's pass counts

    def parameters(self, name: str) -> list[th.nn.Parameter]:
        """What the optimiser of the trunk ``name`` trains: its trunk and its safety head."""
        network = self.networks[name]
        return [*network.trunk.parameters(), *network.head.parameters()]

    def train_step(self, batch: Batch) -> dict[str, th.Tensor]:
        """One optimiser step of every trunk on the same minibatch; returns each trunk's loss (on the device)."""
        config = self.config
        rate = scheduled_rate(config, self.step, self.seconds)
        grids = batch.grids
        flat_grids, flat_labels = grids.flatten(1), batch.labels.flatten(1)
        flat_truth = None if batch.truth is None else batch.truth.flatten(1)
        density = None if batch.counts is None else board_density(grids, batch.counts)
        losses: dict[str, th.Tensor] = {}

        def loss_of(logits: th.Tensor) -> th.Tensor:
            return lever_loss(logits.float(), flat_grids, flat_labels, flat_truth, config.targets,
                              config.revealed_weight, config.choice_weight, config.log_odds_weight,
                              config.per_position)  # fmt: skip

        for name in self.names:
            network = self.networks[name]
            progressive = config.progressive if isinstance(network.trunk, IteratedTrunk) else 0.0
            with th.autocast(self.device.type, dtype=th.bfloat16, enabled=self.bf16):
                logits = trunk_logits(network, grids, config.loss_pass_list(), density)
                late = progressive_logits(network, grids, max(config.loss_pass_list()), self.rng, density) \
                    if progressive else None
            loss = sum(loss_of(each) for each in logits) / len(logits)
            if late is not None:
                loss = (1.0 - progressive) * loss + progressive * loss_of(late)
            optimizer = self.optimizers[name]
            for group in optimizer.param_groups:
                group["lr"] = rate
            optimizer.zero_grad(set_to_none=True)
            loss.backward()  # type: ignore[union-attr]
            th.nn.utils.clip_grad_norm_(self.parameters(name), 1.0)
            optimizer.step()
            if name in self.averages:
                self.averages[name].update()
            losses[name] = loss.detach()  # type: ignore[union-attr]  (read at log time: no sync each step)
        self.step += 1
        self.samples += len(grids)
        return losses

    def drop_diverged(self, losses: dict[str, float]) -> None:
        """Stop training a trunk whose loss is no longer finite (the others go on); it is not saved."""
        for name, loss in losses.items():
            if not np.isfinite(loss) and len(self.names) > 1:
                print(f"{name}: loss {loss} at step {self.step}: dropped", flush=True)
                self.names = tuple(other for other in self.names if other != name)

    def scorer(self, name: str) -> Any:
        """The trunk's safety logits of a batch of numpy grids, as numpy: how it plays (the iterated trunk with
        its ``passes``); ``counts`` (N,), where given, are the grids' own mine counts."""
        network = self.networks[name]
        extractor, head = network.trunk, network.head

        def scores(grids: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
            with th.no_grad(), th.autocast(self.device.type, dtype=th.bfloat16, enabled=self.bf16):
                grids_t = th.as_tensor(grids, device=self.device)
                density = None if counts is None else board_density(grids_t, th.as_tensor(counts, device=self.device))
                logits = head(extractor.trunk(extractor.input_planes(grids_t, density)))
            return logits.float().cpu().numpy()

        return scores

    def held_out(self, grids: np.ndarray, labels: np.ndarray, counts: np.ndarray | None = None) -> dict[str, float]:
        """Each trunk's mean absolute error of the mine chance over hidden cells, and how often its pick is one of
        the oracle's safest cells (``counts``: the positions' mine counts, where they vary)."""
        out: dict[str, float] = {}
        if not len(grids):
            return out
        for name in self.names:
            out.update(named(name, judge(self.scorer(name), grids, labels, counts)))
            if name in self.averages:
                with self.averages[name].applied():
                    out.update(named(f"{name}_ema", judge(self.scorer(name), grids, labels, counts)))
        return out

    def state(self) -> dict[str, Any]:
        return {"step": self.step, "samples": self.samples, "seconds": self.seconds, "taken": self.taken,
                "resumes": self.resumes, "config": dataclasses.asdict(self.config),
                "models": {name: self.networks[name].state_dict() for name in self.names},
                "optimizers": {name: self.optimizers[name].state_dict() for name in self.names},
                "torch_rng": th.get_rng_state(),
                "averages": {name: {"weights": average.state_dict(), "updates": average.updates}
                             for name, average in self.averages.items()}}  # fmt: skip

    def save_checkpoint(self) -> None:
        path = self.run_dir / "checkpoint.pt"
        partial = path.with_suffix(".partial")
        th.save(self.state(), partial)
        partial.replace(path)

    def load(self, state: dict[str, Any]) -> None:
        self.names = tuple(name for name in self.names if name in state["models"]) or self.names
        for name in self.names:
            if name not in state["models"]:
                raise ValueError(f"the checkpoint holds no {name!r} trunk (it has {', '.join(state['models'])})")
            self.networks[name].load_state_dict(network_state(state["models"][name]))
            self.optimizers[name].load_state_dict(state["optimizers"][name])
        self.step, self.samples, self.seconds = state["step"], state["samples"], state["seconds"]
        self.taken, self.resumes = state["taken"], state["resumes"] + 1
        th.set_rng_state(state["torch_rng"])

    def save_models(self, evaluation: dict[str, float]) -> None:
        """Write each trunk as a distilled model, ``<trunk>.pt`` with its card ``<trunk>.json``, and its average as
        ``<trunk>_ema`` where one is kept, each with its figures of ``evaluation`` (:meth:`held_out`) on its card."""
        for name in self.names:
            self._save_model(name, name, evaluation)
            if name in self.averages:
                with self.averages[name].applied():
                    self._save_model(name, f"{name}_ema", evaluation)

    def _save_model(self, name: str, saved: str, evaluation: dict[str, float]) -> None:
        figures = {key: evaluation[key] for key in (f"{saved}_error", f"{saved}_safest") if key in evaluation}
        save_distilled(self.networks[name], self.run_dir / saved, self.spec, self.config, self.samples,
                       {"held_out": figures})  # fmt: skip


def network_state(weights: dict[str, th.Tensor] | None) -> dict[str, th.Tensor] | None:
    """A checkpoint's weights of one trunk by the plain network's keys. A checkpoint written while the networks were
    trained as stable-baselines3 policies holds them by the policy's keys: its trunk and its safety head are taken
    (under the same names, and the optimiser's state follows the same parameters in the same order), the rest of the
    policy, which the distillation never trained, is left."""
    if weights is None or not any(key.startswith(POLICY_KEYS[0][0]) for key in weights):
        return weights
    return {plain + key.removeprefix(policy): value for key, value in weights.items()
            for policy, plain in POLICY_KEYS if key.startswith(policy)}  # fmt: skip


def named(name: str, figures: dict[str, float]) -> dict[str, float]:
    """``figures`` keyed as the progress log's columns: ``<name>_error``, ``<name>_safest``."""
    return {f"{name}_{key}": value for key, value in figures.items()}



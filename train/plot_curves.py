"""Learning curves of training runs: the fixed-set win rate against environment steps and against the wall time the
run trained (summed over its resumed stretches), the share of safe cells the fixed-set games revealed (what moves
while no game is won yet) and the training success rate against steps.

Reads each run's ``logs/progress.csv`` (written by SB3's CSV logger during training) and draws one PNG.

Run: ``python -m train.plot_curves runs/RUN_A runs/RUN_B --out docs/results/learning_curves.png``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from train.progress_log import read_log

STEPS = ("time/total_timesteps", "environment steps", 1.0)
HOURS = ("time/wall_seconds", "wall-clock hours of training", 3600.0)
CURVES = (("eval/win_rate", STEPS, "win rate, fixed evaluation set (masked greedy)"),
          ("eval/win_rate", HOURS, "the same against wall-clock time"),
          ("eval/safe_fraction", STEPS, "safe cells revealed, fixed evaluation set (mean share)"),
          ("rollout/success_rate", STEPS, "win rate while training (sampling, last 100 games)"))  # fmt: skip
"""Each panel: the logged key, its x axis (the logged key, its label, the unit it is divided by) and its title."""


def read_curve(log_dir: Path, key: str, x_key: str = STEPS[0]) -> tuple[list[float], list[float]]:
    """(x, values) of one logged key against ``x_key`` over every ``progress*.csv`` of a run (resumes included),
    sorted by x.

    A row without the step (an evaluation logged between two rollouts by an older version of the callback) takes
    the step of the row before it, at most one rollout early; rows without another ``x_key`` (runs from before
    ``time/wall_seconds`` was logged) are left out.
    """
    points = []
    for progress_csv in log_dir.glob("progress*.csv"):
        step = 0.0
        for row in read_log(progress_csv):
            step = float(row[STEPS[0]]) if row.get(STEPS[0]) else step
            x = step if x_key == STEPS[0] else float(row[x_key]) if row.get(x_key) else None
            if row.get(key) and x is not None:
                points.append((x, float(row[key])))
    points.sort()
    return [x for x, _ in points], [value for _, value in points]


def plot_runs(run_dirs: list[Path], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, grid = plt.subplots(2, 2, figsize=(12, 8), sharey=True)
    axes = grid.ravel()
    for axis, (key, (x_key, x_label, unit), title) in zip(axes, CURVES, strict=True):
        for run_dir in run_dirs:
            xs, values = read_curve(run_dir / "logs", key, x_key)
            axis.plot([x / unit for x in xs], values, label=run_dir.name, marker="." if len(xs) < 50 else None)
        axis.set_title(title)
        axis.set_xlabel(x_label)
        axis.grid(alpha=0.3)
    for axis in grid[:, 0]:
        axis.set_ylabel("share")
    axes[0].legend(fontsize=8)
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories")
    parser.add_argument("--out", type=Path, default=Path("docs/results/learning_curves.png"))
    args = parser.parse_args()
    for run_dir in args.runs:
        if not list((run_dir / "logs").glob("progress*.csv")):
            parser.error(f"{run_dir} has no logs/progress*.csv")
    plot_runs(args.runs, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

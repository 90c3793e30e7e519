"""Learning curves of training runs: the fixed-set win rate and the training success rate against steps.

Reads each run's ``logs/progress.csv`` (written by SB3's CSV logger during training) and draws one PNG.

Run: ``python -m train.plot_curves runs/RUN_A runs/RUN_B --out docs/results/learning_curves.png``.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

CURVES = (("eval/win_rate", "win rate, fixed evaluation set (masked greedy)"),
          ("rollout/success_rate", "win rate while training (sampling, last 100 games)"))  # fmt: skip


def read_curve(log_dir: Path, key: str) -> tuple[list[int], list[float]]:
    """(steps, values) of one logged key over every ``progress*.csv`` of a run (resumes included), by step.

    A row without ``time/total_timesteps`` (an evaluation logged between two rollouts by an older version
    of the callback) takes the step of the row before it, at most one rollout early.
    """
    points = []
    for progress_csv in log_dir.glob("progress*.csv"):
        step = 0
        with progress_csv.open(newline="") as handle:
            for row in csv.DictReader(handle):
                step = int(float(row["time/total_timesteps"])) if row.get("time/total_timesteps") else step
                if row.get(key):
                    points.append((step, float(row[key])))
    points.sort()
    return [step for step, _ in points], [value for _, value in points]


def plot_runs(run_dirs: list[Path], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(CURVES), figsize=(6 * len(CURVES), 4), sharey=True)
    for axis, (key, title) in zip(axes, CURVES, strict=True):
        for run_dir in run_dirs:
            steps, values = read_curve(run_dir / "logs", key)
            axis.plot(steps, values, label=run_dir.name, marker="." if len(steps) < 50 else None)
        axis.set_title(title)
        axis.set_xlabel("environment steps")
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("win rate")
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

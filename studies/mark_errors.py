"""Models played with marks on the same fixed games: the share won, the safe cells revealed, and the share of games
in which a mark fell on a safe cell (such a game is almost surely lost).

    python studies/mark_errors.py runs/RUN/best_model.pt models/maskable_ppo_expert_opening.pt --preset expert \
        --games 1000 --seed 999 --mark-above 0.999999

Board i plays game ``--seed + i`` of ``--preset`` under the opening rule, every model the same games, as the runs
evaluate (:func:`train.played_games.play_games`). Each model plays with its card's mark threshold, or
``--mark-above`` for all (the threshold reads the saved network's logits, as :mod:`agents.marks` plays).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from agents.networks.player import load_model_agent
from mine_env.engine.constants import PRESETS
from mine_env.engine.spec import BoardSpec
from train.played_games import play_games


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="saved models (.pt, .zip or a card's stem, or a shipped name)")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="expert")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=999)
    parser.add_argument("--mark-above", type=float, default=0.0,
                        help="play every model with marks at this mine chance (default: each card's)")
    args = parser.parse_args(argv)
    spec = BoardSpec.from_options(args.preset, None, None, None, "opening")
    print(f"{args.games} games of {args.preset}, seeds {args.seed}..{args.seed + args.games - 1}")
    print("| model | marks above | won | safe cells revealed | games with a wrong mark |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for path in args.models:
        agent = load_model_agent(path, spec)
        mark_above = args.mark_above or agent.mark_above or 0.0
        if not mark_above:
            raise SystemExit(f"{path} plays without marks: give --mark-above")
        played = play_games(agent.batch_scores, spec, args.games, args.seed, mark_above)
        print(f"| {path} | {mark_above:.10g} | {played.win_rate:.1%} | {played.safe_fraction:.1%} "
              f"| {played.wrong_mark_games:.1%} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()

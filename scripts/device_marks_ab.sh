#!/usr/bin/env bash
# A prepared GPU A/B of marks (agents.marks) for the expert network, on one lent machine (at most 10 minutes).
#
# Two streamed distillations (train.distill.stream) run side by side on the GPU, the same in all but marks: both
# start from the shipped expert network grown to 128 channels (train.distill.grow), both draw on the same seed positions
# and oracle workers of their own; one trains on positions whose certain mines are shown as flags and plays (its
# learner's boards, then the evaluation) marking the cells it gives a mine chance above 0.99, the other reads the
# numbers alone. Both are then played on expert-opening-10k under our opening rule and the anchor's zero start
# (eval.batched). The marks run comes back whole in 15 MiB parts (checkpoint included, to resume it), the other's
# model beside it:
#
#     MINUTES=5 bash scripts/device_marks_ab.sh          # on the lent machine, from the repository root
#     cat OUT/part.* | tar x -C runs/marks                 # here, afterwards
#
# It needs, carried with the tree: .whl/ (the wheels that machine lacks: gymnasium, farama-notifications,
# stable-baselines3, sb3-contrib) and $SEED_DATA (oracle positions, train.distill's dataset format: how they are
# made is in docs/lab/2026-11-27-expert-stream-gpu.md). DEVICE=cpu with tiny MINUTES, EVAL_GAMES and EXTRA="--batch-size 16" tries it here.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:?set OUT to the folder that comes back}
source scripts/device_site.sh
RUNS=${RUNS:-/tmp/runs}
SUITE=${SUITE:-expert-opening-10k}
common=(--preset expert --device "${DEVICE:-cuda}" --minutes "${MINUTES:-5}" --producers "${PRODUCERS:-6}"
        --learner-workers 1 --channels 128 --init distill-expert --learning-rate 5e-4
        --dataset "${SEED_DATA:-runs/s3/SEED.npz}" --buffer 3000000 --checkpoint-minutes 2 --seed 1 --runs-dir "$RUNS" ${EXTRA:-})
python3 -m train.distill.stream "${common[@]}" --run-name marks --mark-above 0.99 > "$OUT/train-marks.txt" 2>&1 &
python3 -m train.distill.stream "${common[@]}" --run-name plain > "$OUT/train-plain.txt" 2>&1 &
wait
tail -2 "$OUT/train-marks.txt" "$OUT/train-plain.txt"
(cd "$RUNS/marks" && tar c config.json checkpoint.pt progress.csv dilated.json dilated.pt | split -b 15m - "$OUT/part.")
(cd "$RUNS/plain" && tar cf "$OUT/plain.tar" config.json progress.csv dilated.json dilated.pt)
games=()
[ -n "${EVAL_GAMES:-}" ] && games=(--games "$EVAL_GAMES")
evaluate() { python3 -m eval.batched --suite "$SUITE" --device "${DEVICE:-cuda}" --json "$OUT/eval.jsonl" "${games[@]}" "$@" \
  2>&1 | tee -a "$OUT/eval.txt"; }
evaluate --model "$RUNS/marks/dilated.pt" --model "$RUNS/plain/dilated.pt" --start agent --start zero
# the marks network without its marks, and at other thresholds: what the memory adds, and where to mark
[ -n "${EVAL_GAMES:-}" ] || games=(--games 3000)
for above in 0 0.95 0.999; do evaluate --model "$RUNS/marks/dilated.pt" --mark-above "$above"; done

#!/usr/bin/env bash
# A prepared GPU A/B of the two levers of train.distill.stream.levers for the expert network, on one lent machine, in one
# call of at most about 9 minutes (MINUTES=4 of training, then about 3 of evaluation on an H200-class machine).
#
# Three streamed distillations (train.distill.stream) run side by side on the GPU from the same start (the shipped
# expert network, $INIT), the same seed, the same seed positions and the same settings but one lever each:
#   plain  the oracle's exact chances as targets, every board with the preset's 99 mines (the control);
#   range  --mine-range 40,160: each oracle game draws its mine count (the network reads each position's own count
#          through its density plane; it still plays with 99);
#   mines  --targets mines: the per-cell loss against the layout's true mines instead of the exact chances.
# (ARMS="plain range mines both published logodds" also knows "both": --targets both, "published": range and mines
# together, the published agent's recipe, and "logodds": --log-odds-weight $LOG_ODDS, 0.02 by default, the small
# chances' precision.) Each model is then played on $SUITE under our opening rule
# (eval.batched). Every arm's run comes back in 15 MiB parts (checkpoint included, to resume the winner):
#
#     MINUTES=4 bash scripts/device_levers_ab.sh       # on the lent machine, from the repository root
#     cat OUT/part.range.* | tar x -C runs/levers-range   # here, afterwards (likewise plain and mines)
#
# It needs, carried with the tree: .whl/ (the wheels that machine lacks: gymnasium, farama-notifications,
# stable-baselines3, sb3-contrib) and, where SEED_DATA names one, the seed positions (train.distill's dataset
# format, runs/s3/SEED.npz here: the held-out positions then are the same 99-mine ones for every arm, and training
# starts before the workers warm up). INIT is the model the arms start from (a short name, a card or its .pt),
# as train.distill.stream's --init reads it. A dry run here:
#     OUT=/tmp/out DEVICE=cpu PRESET=beginner SUITE=beginner-opening-1k INIT=distill-beginner \
#       CHANNELS=48 MINUTES=0.3 PRODUCERS=1 EVAL_GAMES=50 SEED_DATA= EXTRA="--batch-size 32 --buffer 20000 \
#       --learner-boards 32" RANGE=4,16 bash scripts/device_levers_ab.sh
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:?set OUT to the folder that comes back}
source scripts/device_site.sh
RUNS=${RUNS:-/tmp/runs-levers}
SUITE=${SUITE:-expert-opening-10k}
DEVICE=${DEVICE:-cuda}
INIT=${INIT:-distill-expert}
SEED_DATA=${SEED_DATA-runs/s3/SEED.npz}
data=()
if [ -n "$SEED_DATA" ]; then
  [ -f "$SEED_DATA" ] || { echo "SEED_DATA=$SEED_DATA: no such file (carry it, or set SEED_DATA= to start without)"; exit 1; }
  data=(--dataset "$SEED_DATA")
fi
common=(--preset "${PRESET:-expert}" --device "$DEVICE" --minutes "${MINUTES:-4}" --producers "${PRODUCERS:-4}"
        --learner-workers 1 --channels "${CHANNELS:-128}" --init "$INIT" --learning-rate "${LR:-3e-4}"
        "${data[@]}" --buffer "${BUFFER:-2000000}" --checkpoint-minutes 2 --seed 1 --runs-dir "$RUNS" ${EXTRA:-})
lever() {
  case $1 in
    plain) ;;
    range) echo --mine-range "${RANGE:-40,160}" ;;
    mines) echo --targets mines ;;
    both) echo --targets both ;;
    published) echo --mine-range "${RANGE:-40,160}" --targets mines ;;
    logodds) echo --log-odds-weight "${LOG_ODDS:-0.02}" ;;
    *) echo "unknown arm $1 (plain, range, mines, both, published, logodds)" >&2; return 1 ;;
  esac
}
arms=(${ARMS:-plain range mines})
for arm in "${arms[@]}"; do lever "$arm" >/dev/null || exit 1; done
for arm in "${arms[@]}"; do
  python3 -m train.distill.stream "${common[@]}" --run-name "$arm" $(lever "$arm") > "$OUT/train-$arm.txt" 2>&1 &
done
wait
models=()
for arm in "${arms[@]}"; do
  echo "== $arm $(lever "$arm")"; tail -2 "$OUT/train-$arm.txt"
  [ -f "$RUNS/$arm/dilated.pt" ] || continue
  models+=(--model "$RUNS/$arm/dilated.pt")
  (cd "$RUNS/$arm" && tar c config.json checkpoint.pt progress.csv dilated.json dilated.pt \
    | split -b 15m - "$OUT/part.$arm.")
done
[ ${#models[@]} -gt 0 ] || { echo "no arm finished: see $OUT/train-*.txt"; exit 1; }
games=()
[ -n "${EVAL_GAMES:-}" ] && games=(--games "$EVAL_GAMES")
python3 -m eval.batched --suite "$SUITE" --device "$DEVICE" --json "$OUT/eval.jsonl" "${games[@]}" "${models[@]}" \
  --start agent 2>&1 | cut -c1-300 | tee "$OUT/eval.txt"

#!/usr/bin/env bash
# A prepared GPU run of streamed expert distillation (train.distill.stream), resumable across lent machines.
#
# The GPU trains while the machine's CPU cores play and label positions; at the end the run's files come back
# through $OUT in parts of at most 15 MiB (a lent machine returns files of at most 16 MiB), checkpoint included,
# so the next lent machine continues the same run. Run it from the repository root, with the wheels of the
# packages that machine lacks in .whl/ (gymnasium, farama-notifications: the stream needs no stable-baselines3; `make
# device-wheels` makes it) and, to resume, the parts a previous run returned in .resume/ (both carried with the tree).
# Without .resume/ a new run starts from the shipped expert network (INIT: a short name or a card, grown to CHANNELS,
# 128 by default; LR: its peak learning rate, lower than a run from nothing so that the start is kept), or from
# nothing with INIT=none; MARK_ABOVE=0.99 trains it to play with marks (agents.marks: its sure mines kept as flags),
# EXTRA="--learner-rescue" plays the network's own boards to their end (a move onto a mine replaced by its best
# safe cell) so it trains on the middle and endgame of its own play. The run keeps the average of its weights over
# about the last thousand steps (EMA=0.999; 0: none) as dilated_ema.pt, evaluated beside dilated.pt, and its
# held-out positions (held_out.npz) travel with it, so every machine's progress log judges the same ones:
#
#     MINUTES=8 bash scripts/device_expert_stream.sh            # a new run, or the one in .resume/
#     cat OUT/part.* | tar x -C runs/expert-stream              # here, afterwards: the run directory again
#
# Evaluation follows on the same machine (eval.batched: expert-opening-10k and its zero start, one batched
# forward pass a move; then the zero start with every cell under a 1% mine chance revealed after each pass, the
# anchor's whole rule; then both starts mirrored where the network is unsure, --symmetries 4 --sure 1e-5; EVALS=plain:
# the first alone, for a machine whose minutes go to training).
# Measured on 2026-11-27 (docs/lab): one trunk with the H200 to itself trained 39,000 samples/s. A dry run here (the CPU, a few seconds of training, 20 games; EXTRA goes to the trainer):
#     OUT=/tmp/out DEVICE=cpu MINUTES=0.3 PRODUCERS=1 LEARNER_WORKERS=1 EVAL_GAMES=20 \
#       EXTRA="--batch-size 32 --buffer 20000 --learner-boards 16" bash scripts/device_expert_stream.sh
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:?set OUT to the folder that comes back}
source scripts/device_site.sh
DEVICE=${DEVICE:-cuda}
RUN=${RUNS:-/tmp/runs}/expert-stream
mkdir -p "$RUN"
if ls .resume/part.* >/dev/null 2>&1; then
  cat .resume/part.* | tar x -C "$RUN" || exit 1
  # --minutes is the run's whole budget: what it trained before plus this machine's share
  TOTAL=$(python3 -c "import torch; s = torch.load('$RUN/checkpoint.pt', weights_only=False); print(s['seconds'] / 60 + ${MINUTES:-8})")
  START=(--resume "$RUN")
else
  START=(--runs-dir "$(dirname "$RUN")" --run-name expert-stream --trunks "${TRUNKS:-dilated}"
         --channels "${CHANNELS:-128}" --mark-above "${MARK_ABOVE:-0}" --learning-rate "${LR:-3e-4}")
  [ "${INIT:-distill-expert}" != none ] && START+=(--init "${INIT:-distill-expert}")
fi
python3 -m train.distill.stream --preset expert --device "$DEVICE" --minutes "${TOTAL:-${MINUTES:-8}}" \
  --producers "${PRODUCERS:-12}" --learner-workers "${LEARNER_WORKERS:-2}" --ema "${EMA:-0.999}" "${START[@]}" ${EXTRA:-} \
  > "$OUT/train-log.txt" 2>&1
tail -3 "$OUT/train-log.txt"
# the saved models: each card beside its weights (config.json is the run's settings, checkpoint.pt no model)
cards=$(ls "$RUN"/*.json 2>/dev/null | grep -v '/config\.json$')
[ -n "$cards" ] || { echo "no model was saved: see $OUT/train-log.txt"; exit 1; }
(cd "$RUN" && tar c config.json checkpoint.pt progress.csv held_out.npz ./*.json ./*.pt | split -b 15m - "$OUT/part.")
models=$(echo "$cards" | sed 's/\.json$/.pt/; s/^/--model /')
games=()
[ -n "${EVAL_GAMES:-}" ] && games=(--games "$EVAL_GAMES")
python3 -m eval.batched --suite expert-opening-10k --device "$DEVICE" --json "$OUT/eval-10k.jsonl" "${games[@]}" \
  $models --start agent --start zero 2>&1 | cut -c1-300
[ "${EVALS:-all}" = plain ] && exit 0
# and under the anchor's whole rule: its start, every cell under a 1% mine chance revealed after one call
python3 -m eval.batched --suite expert-opening-10k --device "$DEVICE" --json "$OUT/eval-10k.jsonl" "${games[@]}" \
  $models --start zero --reveal-below 0.01 2>&1 | cut -c1-300
# mirrored where unsure: the other three images averaged in where its pick's mine chance is 1e-5 or more
python3 -m eval.batched --suite expert-opening-10k --device "$DEVICE" --json "$OUT/eval-10k.jsonl" "${games[@]}" \
  $models --start agent --start zero --symmetries 4 --sure 1e-5 2>&1 | cut -c1-300

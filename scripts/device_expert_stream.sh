#!/usr/bin/env bash
# A prepared GPU run of streamed expert distillation (train.distill.stream), resumable across lent machines.
#
# The GPU trains while the machine's CPU cores play and label positions; at the end the run's files come back
# through $OUT in parts of at most 15 MiB (a lent machine returns files of at most 16 MiB), checkpoint included,
# so the next lent machine continues the same run. Run it from the repository root, with the wheels of the
# packages that machine lacks in .whl/ (gymnasium, farama-notifications, stable-baselines3, sb3-contrib; `make
# device-wheels` makes it) and, to resume, the parts a previous run returned in .resume/ (both carried with the tree).
# Without .resume/ a new run starts from the shipped expert network (INIT, a short name or a card; LR its peak
# learning rate, lower than a run from nothing so that the start is kept), not from nothing:
#
#     MINUTES=8 bash scripts/device_expert_stream.sh            # a new run, or the one in .resume/
#     cat OUT/part.* | tar x -C runs/expert-stream              # here, afterwards: the run directory again
#
# Evaluation follows on the same machine (eval.batched: expert-opening-10k and its zero start, one batched
# forward pass a move). Measured on 2026-11-27 (docs/lab): two trunks side by side beside a PPO run trained about
# 7,600 samples/s each on an H200; one trunk alone should have the GPU to itself.
set -u
export PYTHONUNBUFFERED=1
source scripts/device_site.sh
RUN=/tmp/runs/expert-stream
mkdir -p "$RUN"
if ls .resume/part.* >/dev/null 2>&1; then
  cat .resume/part.* | tar x -C "$RUN" || exit 1
  # --minutes is the run's whole budget: what it trained before plus this machine's share
  TOTAL=$(python3 -c "import torch; s = torch.load('$RUN/checkpoint.pt', weights_only=False); print(s['seconds'] / 60 + ${MINUTES:-8})")
  RESUME="--resume $RUN"
else
  RESUME="--runs-dir /tmp/runs --run-name expert-stream --trunks ${TRUNKS:-dilated} --channels 128
    --init ${INIT:-distill-expert} --learning-rate ${LR:-3e-4}"
fi
python3 -m train.distill.stream --preset expert --device cuda --minutes "${TOTAL:-${MINUTES:-8}}" --producers 12 \
  --learner-workers 2 $RESUME > "$OUT/train-log.txt" 2>&1
tail -3 "$OUT/train-log.txt"
(cd "$RUN" && tar c config.json checkpoint.pt progress.csv ./*.zip ./*.json | split -b 15m - "$OUT/part.")
models=$(ls "$RUN"/*.zip | sed 's/^/--model /')
python3 -m eval.batched --suite expert-opening-10k --device cuda --json "$OUT/eval-10k.jsonl" $models \
  --start agent --start zero 2>&1 | cut -c1-300

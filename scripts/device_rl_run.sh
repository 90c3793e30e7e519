#!/usr/bin/env bash
# A prepared GPU run of MaskablePPO from scratch (issue 45), resumable across lent machines.
#
# The GPU trains the residual trunk with its true-mine head while the machine's CPU cores step the boards; at
# the end the run directory (checkpoint included) comes back through $OUT/rl in parts of at most 15 MiB (a lent
# machine returns files of at most 16 MiB), so the next lent machine continues the same run: the step counter,
# optimizer, schedules, random states and games in progress carry on (train.checkpoints). Run it from the
# repository root with the wheels that machine lacks in .whl/ (gymnasium, farama-notifications,
# stable-baselines3, sb3-contrib) and, to resume, the parts a previous run returned in .resume-rl/:
#
#     MINUTES=8 PRESET=intermediate bash scripts/device_rl_run.sh     # a new run, or the one in .resume-rl/
#     MINUTES=8 RECIPE=anchor bash scripts/device_rl_run.sh           # the published PPO's recipe (train.sb3.recipes)
#     WEIGHT_AVERAGE=0.98 ...                                           # and keep a moving average of the weights
#     mkdir -p runs/rl-gpu && cat OUT/rl/part.* | tar x -C runs/rl-gpu   # here, afterwards: the run again
#
# It can share one call with scripts/device_expert_stream.sh (`A & B; wait`): their files do not collide.
set -u
export PYTHONUNBUFFERED=1
PRESET=${PRESET:-intermediate}
RECIPE=${RECIPE:-}
NAME=mppo-$PRESET-gpu${RECIPE:+-$RECIPE}
DEST="$OUT/rl"
mkdir -p "$DEST" /tmp/runs
source scripts/device_site.sh
if ls .resume-rl/part.* >/dev/null 2>&1; then
  mkdir -p "/tmp/runs/$NAME"
  cat .resume-rl/part.* | tar x -C "/tmp/runs/$NAME" || exit 1
  ARGS=(--resume "/tmp/runs/$NAME")
elif [ -n "$RECIPE" ]; then
  # the recipe's board, network and update; the evaluation and checkpoints of the runs here
  ARGS=(--recipe "$RECIPE" --steps 40000000 --eval-games 500 --eval-every 500000 --checkpoint-every 1000000
        --seed 1 --runs-dir /tmp/runs --run-name "$NAME")
else
  ARGS=(--preset "$PRESET" --first-click opening --channels 96 --dilations 1,1,1,2,2,4,4,1,1 --pooled 4,7
        --value-hidden 128 --mine-coef 0.5 --num-envs 256 --n-steps 32 --batch-size 1024 --n-epochs 4
        --learning-rate 3e-4 --ent-coef 0.01 --steps 100000000 --eval-games 500 --eval-every 500000
        --checkpoint-every 1000000 --seed 1 --runs-dir /tmp/runs --run-name "$NAME")
fi
python3 -m train.sb3.maskable_ppo "${ARGS[@]}" --device "${DEVICE:-cuda}" --torch-threads 2 --minutes "${MINUTES:-8}" \
  ${WEIGHT_AVERAGE:+--weight-average "$WEIGHT_AVERAGE"} --no-progress-bar > "$DEST/train-log.txt" 2>&1
tail -3 "$DEST/train-log.txt"
# the .pt + card of each model come back; their SB3 zips (written again when a resumed run ends) stay behind
(cd "/tmp/runs/$NAME" && tar c --exclude="./*_model.zip" . | split -b 15m - "$DEST/part.")
ls -la "$DEST"

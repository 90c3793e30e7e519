# The two set-up commands of the README: `make demo` (the main job) and `make test` (the tests).
# Where things go: into the virtual environment that is active ($$VIRTUAL_ENV), else into .venv in this checkout,
# made on first use. It sees the system's packages (a torch installed beforehand is used, not fetched again)
# and installs into itself alone: the interpreter first on PATH is never changed. PYTHON=... picks another.
VENV = .venv
ifdef VIRTUAL_ENV
PYTHON ?= python
else
PYTHON ?= $(VENV)/bin/python
endif
PIP = $(PYTHON) -m pip
MINESWEEPER = $(PYTHON) -m minesweeper_cli.main

.PHONY: venv install install-dev install-train demo test lint bench solver-strength solver-first-click bot-results no-guess

venv:
	@if [ "$(PYTHON)" = "$(VENV)/bin/python" ] && [ ! -x "$(VENV)/bin/python" ]; then \
	  echo "making the virtual environment $(VENV) (activate one first to install there instead)"; \
	  python3 -m venv --system-site-packages $(VENV) \
	    || { echo "python3 -m venv failed: install it (apt-get install python3-venv) or activate a virtual environment"; \
	         rm -rf $(VENV); exit 1; }; \
	fi

# Then the solver's kernels are compiled once, so that its first game starts at once (docs/COLD_START.md).
install: venv
	$(PIP) install -q -e .
	$(PYTHON) -m agents.warm_up

# torch first, pinned, unless one is installed (a CPU or GPU build of the user's choice): the machines carry its
# CPU build, and an unpinned install pulls GBs of CUDA packages.
install-dev: venv
	$(PYTHON) -c "import torch" 2>/dev/null || $(PIP) install -q torch==2.13.0
	$(PIP) install -q -e ".[dev,train,bench,ray,llm,llm-train]"
	command -v tmux >/dev/null || (apt-get update -qq && apt-get install -y -qq tmux) >/dev/null 2>&1 \
	  || echo "tmux is not available: the terminal-game tests will be skipped"
	command -v Xvfb >/dev/null && test -x /usr/games/xdemineur && test -x /usr/games/sgt-mines \
	  || (apt-get update -qq && apt-get install -y -qq --no-install-recommends xvfb xdemineur sgt-puzzles) >/dev/null 2>&1 \
	  || echo "Xvfb, xdemineur or sgt-mines is not available (apt-get install xvfb xdemineur sgt-puzzles): the screen-bot tests will be skipped"

# The package with its training extra (torch pinned as for install-dev).
install-train: venv
	$(PYTHON) -c "import torch" 2>/dev/null || $(PIP) install -q torch==2.13.0
	$(PIP) install -q -e ".[train]"

# The main job: the solver, the rule agent, random play and the shipped trained models on the same 1,000 games.
demo: install-train
	$(PYTHON) -m eval.demo

# ruff, then the layers of docs/ARCHITECTURE.md (import-linter's contracts in pyproject.toml).
lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -c "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"

# The typed public API (py.typed): mine_env, agents and eval's runner, as [tool.mypy] in pyproject.toml lists them.
.PHONY: typecheck wheel-check
typecheck: install-dev
	$(PYTHON) -m mypy

# tests/run.py: pytest, then the exit handlers, then the process ends with pytest's status without the
# interpreter's teardown (which once crashed after a green session); a crash before that prints every stack.
test: install-dev lint typecheck
	PYTHONFAULTHANDLER=1 $(PYTHON) -m tests.run

# The suite without the slow and statistical tests (under a minute on 2 cores), for the edit-test loop.
.PHONY: test-fast
test-fast: venv
	PYTHONFAULTHANDLER=1 $(PYTHON) -m tests.run -q -m "not slow and not statistical and not docs"

# The documentation site into site/ (mkdocs-material; the API reference from the docstrings), built with
# --strict, then its pages opened in headless Chromium (tests/docs; screenshots in site/screenshots/).
.PHONY: docs
docs: venv
	$(PYTHON) -c "import mkdocs, material, mkdocstrings" 2>/dev/null || $(PIP) install -q -e ".[docs]"
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium) >/dev/null 2>&1 \
	  || echo "chromium is not available (apt-get install chromium): the rendering checks will be skipped"
	$(PYTHON) -m mkdocs build --strict
	PYTHONFAULTHANDLER=1 $(PYTHON) -m tests.run -q -m docs tests/docs
# The numba kernels of a first hour compiled ahead for a generic x86-64 CPU (scripts/build_kernel_bundle.py), for
# a wheel to carry: an install loads them at its first game instead of compiling (docs/COLD_START.md).
.PHONY: kernel-bundle wheel
kernel-bundle: install-dev
	$(PYTHON) scripts/build_kernel_bundle.py build/kernel-bundle

# The release into dist/: the sdist, and the wheel with the kernel bundle.
wheel: kernel-bundle
	MINESWEEPER_RL_KERNEL_BUNDLE_SOURCE=$(CURDIR)/build/kernel-bundle $(PYTHON) -m build --outdir dist .

# The release: the sdist and the wheel built, the wheel installed into a fresh virtual environment outside the
# checkout, and the README's snippets, eval with the shipped models, solve and play run from there (.ci/check-wheel).
wheel-check: install-dev
	PYTHON=$(PYTHON) .ci/check-wheel

bench: install
	$(PYTHON) benchmarks/bench_env.py

# Solver strength for docs/SOLVER.md: 100,000 seeded games per board and rule (about 45 minutes on 2 cores).
STRENGTH_DIR = docs/results/solver
solver-strength: install
	mkdir -p $(STRENGTH_DIR)
	for preset in beginner intermediate expert; do for rule in opening safe; do \
	  $(MINESWEEPER) eval --agent solver --preset $$preset --first-click $$rule --games 100000 --seed 2026 \
	    --workers 2 --no-oracle --no-progress --json $(STRENGTH_DIR)/$$preset-$$rule.json || exit 1; \
	done; done

# The first-click study of docs/SOLVER.md: 10,000 games per first cell, board and rule (about 20 minutes on 2 cores).
solver-first-click: install
	mkdir -p $(STRENGTH_DIR)
	for preset in beginner intermediate expert; do for rule in safe opening; do \
	  $(PYTHON) studies/first_click.py --preset $$preset --first-click $$rule --games 10000 --seed 2026 \
	    --json $(STRENGTH_DIR)/first-click-$$preset-$$rule.json || exit 1; \
	done; done

# solver-search (or SEARCH_AGENT=solver-search-quick) against solver on the same boards (issue 80), a run over
# sessions: each call plays for MINUTES on SEARCH_WORKERS processes, then stops with every finished game kept in the
# log, and the next call resumes it. `python studies/paired_log.py $(SEARCH_LOG)` reads the paired test on the games
# finished so far.
SEARCH_SUITE ?= expert-opening-10k
SEARCH_AGENT ?= solver-search
SEARCH_LOG ?= runs/search/$(SEARCH_SUITE)-$(SEARCH_AGENT).games.jsonl
SEARCH_WORKERS ?= 1
.PHONY: search-eval
search-eval: install
	@mkdir -p $(dir $(SEARCH_LOG))
	if [ -f $(SEARCH_LOG) ]; then start="--resume $(SEARCH_LOG)"; else start="--log $(SEARCH_LOG)"; fi; \
	timeout --signal=TERM --kill-after=120 $$(( $(MINUTES) * 60 )) $(MINESWEEPER) eval --suite $(SEARCH_SUITE) \
	  --agent solver --agent $(SEARCH_AGENT) --workers $(SEARCH_WORKERS) --chunk-games 4 --no-oracle --no-progress $$start \
	  --json $(basename $(basename $(SEARCH_LOG))).json; \
	$(PYTHON) studies/paired_log.py $(SEARCH_LOG)

# The local pool against a private Ray instance on the same 100,000 games (docs/SCALING.md; about 5 minutes).
.PHONY: scaling-bench rllib-train
scaling-bench: install
	$(PYTHON) benchmarks/bench_backends.py --preset beginner --games 100000 --seed 2026 --workers 2 --repeats 2 \
	  --no-oracle --json docs/results/scaling/backends-beginner-100k-compiled.json

# The distillation labels on the local pool against a private Ray instance (docs/SCALING.md; under a minute).
.PHONY: scaling-labels
scaling-labels: install
	$(PYTHON) benchmarks/bench_label_backends.py --preset beginner --positions 32768 --workers 2 --repeats 5 \
	  --json docs/results/scaling/labels-beginner-32k.json

# RLlib PPO with the action-masking network, 25 minutes (docs/lab/2026-11-21-rl-from-scratch-beginner.md, "RLlib").
rllib-train: install
	$(PYTHON) -m train.rllib.ppo --preset beginner --minutes 25 --run-name rllib-ppo-beginner

# The wheels a lent GPU machine lacks, in .whl/ (carried with the tree by the scripts/device_*.sh runs): the versions
# installed here, so the device trains with the very packages the tests pass with.
.PHONY: device-wheels
device-wheels: install-train
	rm -rf .whl && $(PIP) download -q --no-deps -d .whl $$($(PYTHON) -c "from importlib.metadata import version; \
	  print(' '.join(f'{p}=={version(p)}' for p in ('gymnasium', 'farama-notifications', 'stable-baselines3', 'sb3-contrib')))")

# The design card's comparison on one board (studies/rl_comparison.py: its budget and settings): the runs furthest
# from the budget trained two at a time for MINUTES, each resuming where it stopped; `--status` alone shows them.
# Intermediate and expert add curriculum runs, started from the board below's models once those exist.
BOARD ?= beginner
MINUTES ?= 60
.PHONY: rl-comparison
rl-comparison: install-train
	$(PYTHON) studies/rl_comparison.py --board $(BOARD) --minutes $(MINUTES) --runs-dir runs/comparison

# MaskablePPO on intermediate toward masked DQN's 80% (issue 81): the mine-prior recipe (train/sb3/recipes.py: the
# policy is the true-mine head plus a bounded preference; the head's extra steps on a replay of past positions) from
# seed 1, bf16 where the CPU runs it natively, the learning rate a fifth from 1M steps and a tenth from 2M. Each call
# starts or resumes it for MINUTES on one core (it stops with a checkpoint); progress: $(PPO_INTERMEDIATE_RUN).log
# and its logs/progress.csv (docs/lab/2026-12-05-the-mine-head-is-the-player.md and the pages it follows).
# PPO_MARK_ABOVE (here and in ppo-expert-cpu): a new run trains and plays with marks at that threshold
# (train/sb3/marks.py; 0.999999 is the mine head sure at about 0.99 under the recipe's prior weight 3).
PPO_RUNS ?= runs/ppo-intermediate
PPO_MARK_ABOVE ?=
PPO_INTERMEDIATE_RUN ?= $(PPO_RUNS)/replay-positions-s1
.PHONY: ppo-intermediate-cpu
ppo-intermediate-cpu: install-train
	@mkdir -p $(PPO_RUNS)
	if [ -f $(PPO_INTERMEDIATE_RUN)/checkpoints/latest.zip ]; then start="--resume $(PPO_INTERMEDIATE_RUN)"; else \
	  start="--recipe mine-prior --preset intermediate --steps 20000000 --seed 1 --eval-games 500 \
	    --eval-every 200000 --checkpoint-every 100000 --bf16 --torch-threads 1 --no-progress-bar \
	    $(if $(PPO_MARK_ABOVE),--mark-above $(PPO_MARK_ABOVE)) \
	    --runs-dir $(dir $(PPO_INTERMEDIATE_RUN)) --run-name $(notdir $(PPO_INTERMEDIATE_RUN))"; fi; \
	$(PYTHON) -m train.sb3.maskable_ppo $$start --minutes $(MINUTES) >> $(PPO_INTERMEDIATE_RUN).log 2>&1; \
	tail -n 1 $(PPO_INTERMEDIATE_RUN).log

# The same recipe on beginner from scratch (issue 81, the shipped maskable-ppo-beginner: seed 1's best model at 1.2M
# steps), to the comparison's budget of 3M steps; each call starts or resumes it for MINUTES on one core.
PPO_BEGINNER_RUN ?= runs/beg-prior/prior-s1
.PHONY: ppo-beginner-cpu
ppo-beginner-cpu: install-train
	@mkdir -p $(dir $(PPO_BEGINNER_RUN))
	if [ -f $(PPO_BEGINNER_RUN)/checkpoints/latest.zip ]; then start="--resume $(PPO_BEGINNER_RUN)"; else \
	  start="--recipe mine-prior --preset beginner --steps 3000000 --seed 1 --eval-games 500 --eval-seed 10000019 \
	    --eval-every 100000 --checkpoint-every 100000 --bf16 --torch-threads 1 --first-click opening --no-progress-bar \
	    --runs-dir $(dir $(PPO_BEGINNER_RUN)) --run-name $(notdir $(PPO_BEGINNER_RUN))"; fi; \
	$(PYTHON) -m train.sb3.maskable_ppo $$start --minutes $(MINUTES) >> $(PPO_BEGINNER_RUN).log 2>&1; \
	tail -n 1 $(PPO_BEGINNER_RUN).log

# MaskablePPO on expert toward 40% (issue 81), a curriculum by RL alone: the mine-prior recipe at prior weight 3, its
# whole network started from the intermediate run's best model (PPO_EXPERT_INIT, made by ppo-intermediate-cpu), at
# learning rate PPO_EXPERT_LR with the drops PPO_EXPERT_LR_DROPS (a model taken late in its run, already trained at a
# lower rate, starts at that rate). Each call starts or resumes it for MINUTES on one core; progress:
# $(PPO_EXPERT_RUN).log. PPO_EXPERT_INIT=maskable-ppo-expert PPO_EXPERT_WARMUP=20000 goes on from the shipped model
# (its playing network: the value head starts fresh, the actor held for PPO_EXPERT_WARMUP steps).
PPO_EXPERT_RUN ?= runs/ppo-expert/curriculum
PPO_EXPERT_INIT ?= $(PPO_INTERMEDIATE_RUN)/best_model.zip
PPO_EXPERT_LR ?= 5e-4
PPO_EXPERT_LR_DROPS ?= 1000000:1e-4,2000000:5e-5
PPO_EXPERT_WARMUP ?=
.PHONY: ppo-expert-cpu
ppo-expert-cpu: install-train
	@mkdir -p $(dir $(PPO_EXPERT_RUN))
	if [ -f $(PPO_EXPERT_RUN)/checkpoints/latest.zip ]; then start="--resume $(PPO_EXPERT_RUN)"; \
	elif [ "$(suffix $(PPO_EXPERT_INIT))" = .zip ] && [ ! -f $(PPO_EXPERT_INIT) ]; then \
	  echo "no $(PPO_EXPERT_INIT): run make ppo-intermediate-cpu first"; exit 1; \
	else start="--recipe mine-prior --preset expert --prior-scale 3 --init $(PPO_EXPERT_INIT) --steps 20000000 \
	  --seed 1 --learning-rate $(PPO_EXPERT_LR) --lr-drops $(PPO_EXPERT_LR_DROPS) \
	  $(if $(PPO_MARK_ABOVE),--mark-above $(PPO_MARK_ABOVE)) $(if $(PPO_EXPERT_WARMUP),--critic-warmup $(PPO_EXPERT_WARMUP)) \
	  --eval-games 500 --eval-every 200000 --checkpoint-every 100000 --bf16 --torch-threads 1 --no-progress-bar \
	  --runs-dir $(dir $(PPO_EXPERT_RUN)) --run-name $(notdir $(PPO_EXPERT_RUN))"; fi; \
	$(PYTHON) -m train.sb3.maskable_ppo $$start --minutes $(MINUTES) >> $(PPO_EXPERT_RUN).log 2>&1; \
	tail -n 1 $(PPO_EXPERT_RUN).log

# The expert network's training continued on this machine's CPU, a call at a time (bf16 where the CPU has AMX:
# train.precision; compiled, about 100 samples a second on 2 such cores, a fifth of that in float32). The first call
# starts $(EXPERT_CPU_RUN) from the shipped network on a cosine schedule of EXPERT_CPU_SCHEDULE minutes of training;
# each later call resumes it. A call trains for MINUTES, then stops it (SIGTERM: a checkpoint and its model,
# $(EXPERT_CPU_RUN)/dilated.zip, which `python -m eval.batched --model` plays, and the average of its weights over
# about the last thousand steps, dilated_ema.zip); progress: $(EXPERT_CPU_RUN).log.
# Its network's own boards are fewer and move more often than on a GPU, so that they give the ring the GPU recipe's
# share of its positions (docs/lab/2026-12-03-amx-bf16-on-the-cpu.md), and weighs every position alike (--per-position), as the
# GPU run behind the shipped network did. Its run from the network shipped before, annealed at 2.2M samples, played level with
# that network (44.9% against 45.25% on the same 2,000 expert boards): docs/lab/2026-12-03-where-the-expert-network-loses.md.
EXPERT_CPU_RUN ?= runs/expert-cpu
EXPERT_CPU_SCHEDULE ?= 1200
.PHONY: expert-cpu
expert-cpu: install-train
	@mkdir -p $(dir $(EXPERT_CPU_RUN))
	if [ -f $(EXPERT_CPU_RUN)/checkpoint.pt ]; then start="--resume $(EXPERT_CPU_RUN)"; else \
	  start="--preset expert --device cpu --init distill-expert --learning-rate 5e-5 --batch-size 256 \
	    --buffer 200000 --learner-rescue --per-position --learner-boards 128 --learner-every 2 --producers 1 --learner-workers 1 \
	    --torch-threads 2 --minutes $(EXPERT_CPU_SCHEDULE) --checkpoint-minutes 5 --seed 43 \
	    --runs-dir $(dir $(EXPERT_CPU_RUN)) --run-name $(notdir $(EXPERT_CPU_RUN))"; fi; \
	timeout --signal=TERM --kill-after=300 $$(( $(MINUTES) * 60 )) $(PYTHON) -m train.distill.stream $$start --compile \
	  --ema 0.999 \
	  >> $(EXPERT_CPU_RUN).log 2>&1; status=$$?; tail -2 $(EXPERT_CPU_RUN).log; [ $$status = 0 ] || [ $$status = 124 ]

# The screen bot's results for docs/BOT.md: 200 games per program and board, seed 2026, the reference runs of
# the solver on xdemineur's start, and the table (about an hour on 2 shared cores; needs Xvfb and the programs).
BOT_DIR = docs/results/bot
bot-results: install
	mkdir -p $(BOT_DIR)
	for run in xdemineur:expert xdemineur:intermediate sgt-mines:beginner sgt-mines:intermediate sgt-mines:expert \
	  sgt-mines:beginner-guess sgt-mines:intermediate-guess sgt-mines:expert-guess; do \
	  program=$${run%%:*}; preset=$${run#*:}; \
	  $(MINESWEEPER) bot --program $$program --preset $$preset --games 200 --seed 2026 --quiet \
	    --json $(BOT_DIR)/$$program-$$preset.json || exit 1; \
	done
	$(PYTHON) studies/bot_reference.py --rows 16 --cols 30 --mines 99 --games 2000 --seed 2026 \
	  --json $(BOT_DIR)/reference-xdemineur-start-expert.json
	$(PYTHON) studies/bot_reference.py --rows 16 --cols 16 --mines 40 --games 2000 --seed 2026 \
	  --json $(BOT_DIR)/reference-xdemineur-start-intermediate.json
	$(PYTHON) studies/bot_table.py $(BOT_DIR)/*.json

# No-guess boards for docs/NO_GUESS.md: the checks on 10,000 games per preset, then the speed against ms-toollib.
NO_GUESS_DIR = docs/results/no_guess
no-guess: install
	mkdir -p $(NO_GUESS_DIR)
	$(PYTHON) studies/no_guess_check.py --games 10000 --oracle-games 300 --bound-study 4000 \
	  --json $(NO_GUESS_DIR)/check.json
	$(PYTHON) benchmarks/bench_no_guess.py --repeats 3 --json $(NO_GUESS_DIR)/bench.json

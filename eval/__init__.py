"""One seeded evaluation suite for every policy: suites, a parallel runner, statistics and reports.

- :mod:`eval.suites`: named, versioned suites and the per-game seed derivation.
- :mod:`eval.runner`: :func:`~eval.runner.evaluate` plays any agent through the real env, in parallel, on
  :mod:`eval.agent_specs` (what counts as an agent), :mod:`eval.player` (one process's games, each played by
  :func:`agents.episode.play_episode`), :mod:`eval.judge` (the oracle metrics of a game) and :mod:`eval.pool`
  (worker processes).
- :mod:`eval.metrics` / :mod:`eval.stats`: win rates with Wilson intervals, oracle metrics, McNemar's test.
- :mod:`eval.report`: Markdown, JSON, CSV and PNG reports. Saved models play as agents through
  :mod:`agents.networks.player` (:mod:`eval.agent_specs` names them, :mod:`eval.batched` plays them in batches).
- :mod:`eval.demo`: the README's default comparison.

Battle minesweeper's tournament is the battle package's (:mod:`battle.tournament`), on this package.

Import the modules themselves (``from eval.runner import evaluate``): this package name shadows the builtin
``eval`` only as a module name.
"""

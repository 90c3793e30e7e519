"""Play the games of one suite in the current process, one record per game.

Game ``i`` always uses the seeds :meth:`eval.suites.Suite.game_seeds` ``(i)``. Agents built by name (and any
:class:`~eval.agent_specs.AgentSpec` with ``seeded=True``) are built afresh for every game from that game's
agent seed, so a random agent's moves in game ``i`` do not depend on the games played before it. An
:class:`~agents.base.Agent` instance or a function is only ``reset()`` between games: it must not carry
randomness across games for the records to be the same in any order of play.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

import numpy as np

from agents.base import Agent, CompiledGames, compiled_player
from agents.episode import play_episode
from eval.agent_specs import AgentSpec
from eval.judge import OracleTally
from eval.metrics import GameRecord
from eval.suites import Suite
from mine_env.engine.starts import zero_start_cell
from mine_env.env import MinesweeperEnv


class GamePlayer:
    """Plays the games of one suite for a list of agents in the current process.

    Args:
        suite: The suite whose games are played.
        agents: The agents, by index.
        oracle: Judge every move with the exact oracle to count guesses, avoidable losses and excess risk
            (slower); without it those metrics are None.
    """

    def __init__(self, suite: Suite, agents: Sequence[AgentSpec], oracle: bool = True) -> None:
        self.suite = suite
        self.agents = list(agents)
        self.oracle = oracle
        self.env = MinesweeperEnv(
            rows=suite.rows, cols=suite.cols, mines=suite.mines, first_click=suite.first_click, boards=suite.boards
        )
        self._n_safe = suite.spec().n_safe
        self._built: dict[int, Agent] = {}

    def play_games(self, agent_index: int, games: Iterable[int]) -> list[GameRecord]:
        """Play the given games (indices into the suite) with one agent.

        Without the oracle, an agent that plays whole games in compiled code (:func:`agents.base.compiled_player`,
        the solver) plays them there: the same moves as through the env, many times faster.
        """
        games = list(games)
        player = self._compiled_player(agent_index)
        if player is not None:
            return self._play_compiled(agent_index, player, games)
        return [self.play(agent_index, game) for game in games]

    def _compiled_player(self, agent_index: int) -> CompiledGames | None:
        """The agent as a player of compiled games, when no per-move judgement is asked for and it opens where
        the suite says, or None."""
        spec = self.agents[agent_index]
        if self.oracle or not spec.seeded or self.suite.start != "agent":
            return None
        player = compiled_player(spec.build(0))
        suite = self.suite
        if player is None or suite.first_cell is None:
            return player
        # Compiled games open on the player's own cell; through the env the suite's cell is played first.
        return player if player.first_click(suite.rows, suite.cols, suite.first_click) == suite.first_cell else None

    def _play_compiled(self, agent_index: int, player: CompiledGames, games: list[int]) -> list[GameRecord]:
        """Play the games in one compiled call; each record's time is the call's mean per game."""
        suite = self.suite
        seeds = [suite.game_seeds(game) for game in games]
        keys = np.array([suite.layout_key(game) for game in games], dtype=np.int64)
        start = time.perf_counter()
        won, revealed, steps = player.play_compiled(
            suite.rows, suite.cols, suite.mines, suite.first_click, keys, [seed.agent for seed in seeds], suite.boards
        )
        per_game = (time.perf_counter() - start) / max(len(games), 1)
        row, col = player.first_click(suite.rows, suite.cols, suite.first_click)
        return [
            GameRecord(
                agent=self.agents[agent_index].label,
                game=game,
                seed=seed.env,
                won=bool(won[j]),
                steps=int(steps[j]),
                invalid_moves=0,
                safe_revealed=int(revealed[j]),
                safe_fraction=int(revealed[j]) / self._n_safe,
                guesses=None,
                avoidable_loss=None,
                excess_risk=None,
                time_s=per_game,
                first_action=row * suite.cols + col,
            )
            for j, (game, seed) in enumerate(zip(games, seeds, strict=True))
        ]

    def _agent(self, agent_index: int, agent_seed: int) -> Agent:
        spec = self.agents[agent_index]
        if spec.seeded:
            return spec.build(agent_seed)
        if agent_index not in self._built:
            self._built[agent_index] = spec.build(None)
        return self._built[agent_index]

    def zero_start(self, seed: int) -> int | None:
        """The zero start's first cell of the game of reset seed ``seed`` (its layout is placed at reset under the
        ``none`` rule), or None when the layout has no zero cell."""
        self.env.reset(seed=seed)
        board = self.env.board
        cell = zero_start_cell(board.layout.ravel(), board.counts.ravel(), seed)
        return None if cell < 0 else cell

    def play(self, agent_index: int, game: int) -> GameRecord:
        """Play game ``game`` of the suite with agent ``agent_index`` through the env and record how it went."""
        label = self.agents[agent_index].label
        seeds = self.suite.game_seeds(game)
        agent = self._agent(agent_index, seeds.agent)
        given_opening = self.suite.first_click != "none" or self.suite.start == "zero"
        tally = OracleTally(self.suite.mines, given_opening) if self.oracle else None
        opening = self.suite.first_action() if self.suite.start == "agent" else self.zero_start(seeds.env)
        episode = play_episode(self.env, agent, seeds.env, observer=tally, name=label, opening=opening)
        return GameRecord(
            agent=label,
            game=game,
            seed=seeds.env,
            won=episode.won,
            steps=episode.steps,
            invalid_moves=episode.invalid_moves,
            safe_revealed=episode.safe_revealed,
            safe_fraction=episode.safe_revealed / self._n_safe,
            guesses=None if tally is None else tally.guesses,
            avoidable_loss=None if tally is None else tally.avoidable_loss,
            excess_risk=None if tally is None else tally.excess_risk,
            time_s=episode.seconds,
            first_action=episode.first_action,
        )

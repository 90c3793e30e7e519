"""Minesweeper for language-model agents: a text and tool-call interface on the same engine, graded move by
move by the exact oracle (docs/LLM.md).

- :mod:`mine_llm.prompt`: the board as text (the observation) and the rules as a system prompt;
- :mod:`mine_llm.moves`: a reply (``reveal 3 4``, ``flag 2 2`` or a tool call's JSON) as a move, the tool schema;
- :mod:`mine_llm.grading`: the oracle's grade of every move, the game's logic score, the reward schemes;
- :mod:`mine_llm.text_env`: ``Minesweeper-Text-v0``, the Gymnasium env of text in, text out;
- :mod:`mine_llm.chat` and :mod:`mine_llm.policies`: players of that env (an OpenAI-compatible endpoint, or a
  baseline agent reading the text);
- :mod:`mine_llm.evaluate`: a seeded suite played through the text path, with the statistics of ``eval``;
- :mod:`mine_llm.reference_server`: an OpenAI-compatible server whose "model" is the solver or random play;
- :mod:`mine_llm.verifiers_env` (with :mod:`mine_llm.verifiers_tools`), :mod:`mine_llm.openenv_env` and
  :mod:`mine_llm.textarena_env`: the adapters to verifiers 0.4, OpenEnv and TextArena (the ``llm`` extra);
- :mod:`mine_llm.grpo`: a GRPO run of a language model through the text env's rewards (the ``llm-train`` extra).

The package sits above ``eval`` (it reports with eval's statistics) beside ``screen_bot``; nothing below
imports it. ``import mine_env`` registers ``Minesweeper-Text-v0`` by an entry-point string, without importing
this package.
"""

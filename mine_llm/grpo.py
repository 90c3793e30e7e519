"""A GRPO run of a language model through the text env's rewards (TRL's ``GRPOTrainer``; the ``llm-train`` extra).

Each prompt is one position of a seeded game (:func:`position_dataset`): the board after a few moves of the
solver, as the text env renders it. The model writes one reply; :func:`move_reward` replays the position in
:class:`mine_llm.text_env.MinesweeperTextEnv` and plays the reply there, and the env's reward is the reward (the
``dense`` scheme by default: +0.1 a certainly safe reveal, minus the avoidable risk, -1 a mine, -0.1 a reply that
names no possible move or a flag on a cell the oracle knows is safe, +1 a win). So what GRPO ranks within a group
is the oracle's grade of each move.

On a GPU with a model of the hub (docs/LLM.md)::

    python -m mine_llm.grpo --model Qwen/Qwen3-0.6B --preset beginner --games 256 --steps 200 --output-dir runs/grpo

``--tiny`` builds a two-layer Llama of a few thousand weights and a character tokenizer here, from a config
(nothing downloaded): the loop end to end on a CPU in a minute, as tests/llm/test_grpo.py runs it.
``--warm-start N`` first teaches the model the solver's moves for N supervised steps (:func:`warm_start`), so that
a model that has never seen the answer format names possible moves often enough for GRPO to rank them.
"""

from __future__ import annotations

import argparse
import string
from collections.abc import Callable
from typing import Any

from agents.registry import make_agent
from eval.suites import Suite, adhoc_suite
from mine_env.engine.spec import BoardSpec
from mine_llm.policies import agent_move
from mine_llm.prompt import system_prompt
from mine_llm.text_env import MinesweeperTextEnv

CHARACTERS = string.printable
"""The tiny model's vocabulary, besides its special tokens: every character an observation or a reply holds."""
SPECIAL_TOKENS = {"pad_token": "<pad>", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}


def char_tokenizer() -> Any:
    """A character-level tokenizer built in code (one token a printable character, and the special tokens)."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocabulary = {token: index for index, token in enumerate([*SPECIAL_TOKENS.values(), *CHARACTERS])}
    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token=SPECIAL_TOKENS["unk_token"]))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tokenizer.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, padding_side="left", **SPECIAL_TOKENS)


def tiny_model(tokenizer: Any, hidden: int = 16, layers: int = 2, seed: int = 0) -> Any:
    """A Llama of ``layers`` layers and width ``hidden`` over ``tokenizer``'s vocabulary, its weights drawn
    from ``seed``: a few thousand weights, enough to run the loop, not to play."""
    from transformers import LlamaConfig, LlamaForCausalLM, set_seed

    set_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=1024,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
    )  # fmt: skip
    return LlamaForCausalLM(config)


def position_dataset(suite: Suite, moves_before: tuple[int, ...] = (0, 2, 4), rules: bool = False) -> Any:
    """One prompt per game and number of solver moves played before it (a game ended sooner gives none).

    Columns: ``prompt`` (the observation, after the rules when ``rules``), ``seed`` (the game's env seed as a
    decimal string: seeds reach 2**64 - 1, past what Arrow's integers hold), ``moves`` (the solver's moves, as
    text, that lead to the position) and ``answer`` (the solver's move in it).
    """
    from datasets import Dataset

    rows: dict[str, list[Any]] = {"prompt": [], "seed": [], "moves": [], "answer": []}
    for game in range(suite.games):
        seed = suite.game_seeds(game).env
        env = _suite_env(suite)
        observation, _ = env.reset(seed=seed)
        solver, played = make_agent("solver", seed=game), []
        for count in range(max(moves_before) + 1):
            played.append(agent_move(solver, observation))
            if count in moves_before:
                rows["prompt"].append(f"{system_prompt()}\n\n{observation}\n" if rules else f"{observation}\n")
                rows["seed"].append(str(seed))
                rows["moves"].append(played[:-1])
                rows["answer"].append(played[-1])
            observation, _, terminated, truncated, _ = env.step(played[-1])
            if terminated or truncated:
                break
    return Dataset.from_dict(rows)


def _suite_env(suite: Suite, **env_kwargs: Any) -> MinesweeperTextEnv:
    return MinesweeperTextEnv(rows=suite.rows, cols=suite.cols, mines=suite.mines, first_click=suite.first_click,
                              boards=suite.boards, start=suite.start, **env_kwargs)  # fmt: skip


def move_reward(suite: Suite, reward: str = "dense") -> Callable[..., list[float]]:
    """TRL's reward function: each completion played as the next move of its row's position in the text env
    (``reward`` scheme); the env's reward for that move."""
    env = _suite_env(suite, reward=reward)

    def minesweeper_move(completions: list[Any], seed: list[str], moves: list[list[str]], **_: Any) -> list[float]:
        rewards = []
        for completion, game_seed, played in zip(completions, seed, moves, strict=True):
            env.reset(seed=int(game_seed))
            for move in played:
                env.step(move)
            rewards.append(float(env.step(_text(completion))[1]))
        return rewards

    return minesweeper_move


def _text(completion: Any) -> str:
    """A completion's text (a conversational one is a list of messages: its last one's content)."""
    if isinstance(completion, list):
        return str(completion[-1].get("content") or "") if completion else ""
    return str(completion)


def warm_start(model: Any, tokenizer: Any, suite: Suite, output_dir: str, steps: int, **config: Any) -> Any:
    """A few steps of supervised learning of the solver's move in each position (TRL's ``SFTTrainer``, the loss
    on the completion alone), so that a model that has never seen the format sometimes names a possible move and
    GRPO's groups differ in reward (a group of equal rewards teaches nothing); the model, trained in place."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    rules = config.pop("rules", False)
    positions = position_dataset(suite, rules=rules)
    completions = [f"{answer}{tokenizer.eos_token}" for answer in positions["answer"]]
    data = Dataset.from_dict({"prompt": positions["prompt"], "completion": completions})
    arguments = SFTConfig(output_dir=output_dir, max_steps=steps, report_to=[], save_strategy="no", logging_steps=1,
                          completion_only_loss=True, **config)  # fmt: skip
    SFTTrainer(model=model, args=arguments, train_dataset=data, processing_class=tokenizer).train()
    return model


def grpo_trainer(model: Any, tokenizer: Any, suite: Suite, output_dir: str, steps: int, **config: Any) -> Any:
    """TRL's ``GRPOTrainer`` on :func:`position_dataset` of ``suite`` rewarded by :func:`move_reward`;
    ``config`` goes to ``GRPOConfig`` (``num_generations``, ``max_completion_length``, ``learning_rate``...)."""
    from trl import GRPOConfig, GRPOTrainer

    rules = config.pop("rules", False)
    arguments = GRPOConfig(output_dir=output_dir, max_steps=steps, report_to=[], save_strategy="no",
                           logging_steps=1, **config)  # fmt: skip
    return GRPOTrainer(model=model, reward_funcs=move_reward(suite), args=arguments,
                       train_dataset=position_dataset(suite, rules=rules), processing_class=tokenizer)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """``python -m mine_llm.grpo --model NAME | --tiny [--preset P] [--games N] [--steps N] --output-dir DIR``."""
    parser = argparse.ArgumentParser(prog="python -m mine_llm.grpo", description=__doc__.split("\n")[0])
    model = parser.add_mutually_exclusive_group(required=True)
    model.add_argument("--model", help="a causal language model by hub name or local folder (a GPU advised)")
    model.add_argument("--tiny", action="store_true", help="a tiny model and character tokenizer built here (CPU)")
    parser.add_argument("--preset", default="beginner", choices=("beginner", "intermediate", "expert"))
    parser.add_argument("--games", type=int, default=64, help="seeded games whose positions are the prompts")
    parser.add_argument("--seed", type=int, default=0, help="the suite's seed (0 to 2**64 - 1)")
    parser.add_argument("--steps", type=int, default=100, help="optimizer steps")
    parser.add_argument("--generations", type=int, default=8, help="completions per prompt (GRPO's group)")
    parser.add_argument("--max-completion-length", type=int, default=256, help="tokens a reply may take")
    parser.add_argument("--learning-rate", type=float, default=1e-6)
    parser.add_argument("--warm-start", type=int, default=0, metavar="STEPS",
                        help="supervised steps on the solver's moves first (default 0; --tiny needs some, e.g. 40)")
    parser.add_argument("--output-dir", required=True, help="where the trained model is saved")
    args = parser.parse_args(argv)
    if args.games < 1 or args.steps < 1 or args.generations < 2 or args.warm_start < 0 or not 0 <= args.seed < 2**64:
        parser.error("--games and --steps need at least 1, --generations at least 2, --warm-start at least 0, "
                     "--seed 0 to 2**64 - 1")  # fmt: skip
    suite = adhoc_suite(BoardSpec.from_options(args.preset, None, None, None, "opening"), args.games, args.seed)
    from transformers.utils import is_torch_cuda_available

    cuda = is_torch_cuda_available()
    device = {"use_cpu": not cuda, "bf16": cuda}  # TRL's configs default to bf16, which a CPU run refuses
    if args.tiny:
        tokenizer = char_tokenizer()
        network = tiny_model(tokenizer)
    else:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(args.model, padding_side="left")
            network = AutoModelForCausalLM.from_pretrained(args.model)
        except (OSError, ValueError) as error:  # not on the hub, offline, or not a causal language model
            parser.exit(2, f"{parser.prog}: error: cannot load --model {args.model}: {str(error).splitlines()[0]}\n")
    if args.warm_start:
        warm_start(network, tokenizer, suite, f"{args.output_dir}/warm-start", args.warm_start,
                   rules=not args.tiny, per_device_train_batch_size=args.generations,
                   learning_rate=args.learning_rate, **device)  # fmt: skip
    trainer = grpo_trainer(network, tokenizer, suite, args.output_dir, args.steps, rules=not args.tiny,
                           num_generations=args.generations, per_device_train_batch_size=args.generations,
                           max_completion_length=args.max_completion_length,
                           learning_rate=args.learning_rate, **device)  # fmt: skip
    trainer.train()
    trainer.save_model(args.output_dir)
    print(f"saved to {args.output_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

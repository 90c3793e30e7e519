"""Batched play of a suite (eval.batched) against the per-game runner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from eval.agent_specs import AgentSpec
from eval.batched import PlayRule, card_mark_above, main, model_scorer, play_batched, play_model_batched
from eval.player import GamePlayer
from eval.suites import Suite, get_suite
from mine_env.engine.constants import FLAG

BEGINNER_MODEL = "models/distill_beginner_opening.zip"


def runner_outcomes(suite: Suite, games: int) -> tuple[list[bool], list[int]]:
    player = GamePlayer(suite, [AgentSpec.model(BEGINNER_MODEL, suite.spec())], oracle=False)
    records = [player.play(0, game) for game in range(games)]
    return [record.won for record in records], [record.first_action for record in records]


@pytest.mark.parametrize("start", ["agent", "zero"])
def test_batched_games_are_the_runners_games(start: str) -> None:
    suite = get_suite("beginner-opening-1k")
    if start == "zero":
        suite = suite.with_zero_start()
    result = play_batched(model_scorer(BEGINNER_MODEL, "cpu", suite.mines), suite, games=60, batch=25)
    won, first = runner_outcomes(suite, 60)
    assert result.won.tolist() == won
    assert result.first_cell.tolist() == first
    assert 0.5 < result.won.mean() < 1.0  # a real network on real games: neither all lost nor all won


def test_games_split_over_processes_are_the_games_of_one() -> None:
    suite = get_suite("beginner-zero-1k")
    alone = play_model_batched(BEGINNER_MODEL, suite, games=30, batch=7)
    split = play_model_batched(BEGINNER_MODEL, suite, games=30, batch=7, workers=2)
    for column in ("won", "first_cell", "moves"):
        assert getattr(split, column).tolist() == getattr(alone, column).tolist()
    assert 0 < alone.won.sum() < 30
    with pytest.raises(ValueError, match="drop --workers"):
        play_model_batched(BEGINNER_MODEL, suite, games=4, device="cuda", workers=2)


def test_batched_command_line(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "eval.jsonl"
    code = main(
        [
            "--model",
            BEGINNER_MODEL,
            "--suite",
            "beginner-opening-1k",
            "--games",
            "20",
            "--start",
            "agent",
            "--start",
            "zero",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["suite"]["name"] for line in lines] == ["beginner-opening-1k", "beginner-zero-1k"]
    assert all(len(line["won"]) == 20 for line in lines)
    assert main(["--model", "no/such.zip", "--suite", "beginner-opening-1k"]) == 2
    assert "error:" in capsys.readouterr().err


def test_marks_are_shown_to_the_network_and_change_nothing_when_nothing_is_sure() -> None:
    suite = get_suite("beginner-opening-1k")
    network = model_scorer(BEGINNER_MODEL, "cpu", suite.mines)
    seen: list[np.ndarray] = []

    def scorer(grids: np.ndarray) -> np.ndarray:
        seen.append(grids.copy())
        return network(grids)

    def unsure(grids: np.ndarray) -> np.ndarray:  # never a mine chance above 0.95
        return np.maximum(network(grids), -3.0)

    plain = play_batched(unsure, suite, games=40)
    never = play_batched(unsure, suite, games=40, mark_above=0.99)
    assert never.won.tolist() == plain.won.tolist() and never.moves.tolist() == plain.moves.tolist()
    marked = play_batched(scorer, suite, games=40, mark_above=0.99)
    assert any((grids == FLAG).any() for grids in seen)  # the network read its own marks
    assert marked.won.size == 40 and (marked.moves > 0).all()


def test_a_model_that_plays_with_marks_plays_the_same_games_batched_and_one_by_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    card = json.loads(Path("models/distill_beginner_opening.json").read_text())
    card["config"]["mark_above"] = 0.9  # the card of a network trained with marks (agents.marks)
    card["network"]["weights"] = "marked.pt"
    (tmp_path / "marked.json").write_text(json.dumps(card))
    shutil.copy("models/distill_beginner_opening.pt", tmp_path / "marked.pt")
    model = str(tmp_path / "marked.pt")
    suite = get_suite("beginner-opening-1k")
    assert card_mark_above(model) == 0.9
    batched = play_batched(model_scorer(model, "cpu", suite.mines), suite, games=30, mark_above=0.9)
    player = GamePlayer(suite, [AgentSpec.model(model, suite.spec())], oracle=False)
    records = [player.play(0, game) for game in range(30)]
    assert batched.won.tolist() == [record.won for record in records]
    assert batched.first_cell.tolist() == [record.first_action for record in records]
    plain = play_batched(model_scorer(model, "cpu", suite.mines), suite, games=30)
    assert plain.moves.tolist() != batched.moves.tolist()  # the marks changed how it played


def test_an_iterated_network_plays_the_passes_asked_and_other_networks_refuse_them(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import torch as th

    from train.distill.saved import save_distilled
    from train.distill.stream.config import StreamConfig
    from train.distill.stream.trainer import build_network

    config = StreamConfig(preset="beginner", trunks="iterated", iterated_channels=8, passes=3, device="cpu")
    network = build_network(config, "iterated", th.device("cpu"))
    save_distilled(network, tmp_path / "iterated", config.board_spec(), config, 0, {})
    suite = get_suite("beginner-opening-1k")
    games = {passes: play_model_batched(str(tmp_path / "iterated"), suite, games=20, passes=passes)
             for passes in (None, 3, 9)}  # fmt: skip
    assert games[None].moves.tolist() == games[3].moves.tolist()  # its card's passes by default
    assert games[9].moves.tolist() != games[3].moves.tolist()
    with pytest.raises(ValueError, match="drop --passes"):
        play_model_batched(BEGINNER_MODEL, suite, games=2, passes=9, workers=2)
    assert main(["--model", BEGINNER_MODEL, "--suite", "beginner-opening-1k", "--passes", "9"]) == 2
    assert "not the iterated trunk" in capsys.readouterr().err


def test_the_reveal_rule_takes_the_safest_cell_then_every_cell_below_the_chance_safest_first() -> None:
    logit_of = lambda chance: float(np.log((1 - chance) / chance))  # noqa: E731
    scores = np.array([[logit_of(0.3), logit_of(0.001), logit_of(0.2), logit_of(0.005), logit_of(0.0001)],
                       [logit_of(0.3), logit_of(0.2), logit_of(0.4), logit_of(0.5), logit_of(0.6)]])  # fmt: skip
    playable = np.array([[True, True, True, True, False], [True, True, True, True, True]])
    assert PlayRule(reveal_below=0.01).cells(scores, playable).tolist() == [[1, 3], [1, -1]]
    assert PlayRule().cells(scores, playable).tolist() == [[1], [1]]
    untouched = np.ones_like(playable)  # the first click vouches for the clicked cell alone
    assert PlayRule(reveal_below=0.01).cells(scores, untouched).tolist() == [[4], [1]]
    with pytest.raises(ValueError, match="a mine chance between 0 and"):
        PlayRule(reveal_below=0.7)


def test_revealing_every_sure_cell_plays_in_fewer_calls_and_changes_nothing_when_nothing_is_sure(capsys) -> None:  # type: ignore[no-untyped-def]
    suite = get_suite("beginner-opening-1k")
    network = model_scorer(BEGINNER_MODEL, "cpu", suite.mines)

    def unsure(grids: np.ndarray) -> np.ndarray:  # never a mine chance below 0.047
        return np.minimum(network(grids), 3.0)

    plain = play_batched(unsure, suite, games=40)
    never = play_batched(unsure, suite, games=40, reveal_below=0.01)
    assert never.won.tolist() == plain.won.tolist() and never.moves.tolist() == plain.calls.tolist()
    eager = play_batched(network, suite, games=40, reveal_below=0.01)
    assert eager.calls.sum() < eager.moves.sum() and (eager.calls <= eager.moves).all()
    assert 0 < eager.won.sum() < 40
    assert main(["--model", "models/dqn_beginner_opening", "--suite", "beginner-opening-1k", "--reveal-below",
                 "0.01"]) == 2  # fmt: skip
    assert "drop --reveal-below" in capsys.readouterr().err


def test_mirrored_play_batched_is_the_runners_mirrored_play() -> None:
    suite = get_suite("beginner-opening-1k")
    batched = play_model_batched(BEGINNER_MODEL, suite, games=30, batch=12, symmetries=8, sure=1e-5)
    player = GamePlayer(suite, [AgentSpec.model(BEGINNER_MODEL, suite.spec(), symmetries=8, sure=1e-5)], oracle=False)
    records = [player.play(0, game) for game in range(30)]
    assert batched.won.tolist() == [record.won for record in records]
    assert batched.first_cell.tolist() == [record.first_action for record in records]
    plain = play_model_batched(BEGINNER_MODEL, suite, games=30, batch=12)
    assert plain.moves.tolist() != batched.moves.tolist()  # the mirrored games are not the plain ones


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--sure", "1e-5"], "give symmetries 2, 4 or 8 with it"),
        (["--symmetries", "3"], "symmetries must be one of 1, 2, 4, 8"),
        (["--symmetries", "8", "--suite", "expert-opening-10k"], "8 symmetries need a square board"),
        (["--symmetries", "4", "--sure", "2"], "a mine chance between 0 and 1"),
    ],
)
def test_a_mirrored_play_that_cannot_work_is_one_clear_line(flags: list[str], message: str, capsys) -> None:  # type: ignore[no-untyped-def]
    suite = [] if "--suite" in flags else ["--suite", "beginner-opening-1k"]
    assert main(["--model", BEGINNER_MODEL, "--games", "2", *suite, *flags]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--device", "quantum"], "--device 'quantum' is not a torch device; expected cpu, cuda or cuda:N"),
        (["--games", "-3"], "--games must be at least 1, got -3"),
        (["--batch", "0"], "--batch must be at least 1, got 0"),
        (["--workers", "0"], "--workers must be at least 1, got 0"),
        (["--mark-above", "1.5"], "--mark-above is a mine chance from 0 to below 1, got 1.5"),
        (["--log", "a.jsonl", "--resume", "b.jsonl"], "--resume LOG continues that log: drop --log"),
        (["--resume", "nowhere.jsonl"], "--resume nowhere.jsonl: no such game log"),
    ],
)
def test_bad_options_are_one_line_each(flags: list[str], message: str, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["--model", BEGINNER_MODEL, "--suite", "beginner-opening-1k", *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_presets_games_of_a_seed_are_the_games_minesweeper_eval_plays(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "preset.json"
    assert main(["--model", BEGINNER_MODEL, "--preset", "beginner", "--games", "40", "--seed", "77", "--json",
                 str(out), "--no-progress"]) == 0  # fmt: skip
    record = json.loads(out.read_text())
    suite = Suite("9x9-10-opening-40-seed77", 9, 9, 10, "opening", 40, 77, "adhoc")
    won, first = runner_outcomes(suite, 40)
    assert record["suite"]["name"] == suite.name
    assert [bool(w) for w in record["won"]] == won and record["first_cell"] == first


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "give the games to play: --suite NAME, or --preset with --games and --seed"),
        (["--suite", "beginner-opening-1k", "--preset", "beginner"], "give the games to play"),
        (["--preset", "beginner", "--games", "5"], "--preset beginner needs --games and --seed"),
        (["--suite", "beginner-opening-1k", "--seed", "3"], "a named suite has its own: drop --seed"),
    ],
)
def test_the_games_are_a_suite_or_a_presets_seed_and_not_both(flags: list[str], message: str, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["--model", BEGINNER_MODEL, *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cuda_where_there_is_none_is_one_line(capsys) -> None:  # type: ignore[no-untyped-def]
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert main(["--model", BEGINNER_MODEL, "--suite", "beginner-opening-1k", "--device", "cuda"]) == 2
    assert "--device cuda: CUDA is not available here" in capsys.readouterr().err


@pytest.mark.parametrize("workers", [1, 2])
def test_a_resumed_run_plays_only_the_games_its_log_lacks_and_reports_the_same(tmp_path, workers) -> None:  # type: ignore[no-untyped-def]
    options = ["--model", BEGINNER_MODEL, "--suite", "beginner-opening-1k", "--games", "30", "--batch", "7",
               "--workers", str(workers), "--no-progress"]  # fmt: skip
    log, whole, resumed = tmp_path / "run.games.jsonl", tmp_path / "whole.jsonl", tmp_path / "resumed.jsonl"
    assert main([*options, "--log", str(log), "--json", str(whole)]) == 0
    lines = log.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + 30 and not (tmp_path / "whole.games.jsonl").exists()
    log.write_text("".join(lines[:12]) + lines[12][:20])  # eleven games kept, and a line torn in mid-write
    assert main([*options, "--resume", str(log), "--json", str(resumed)]) == 0
    assert sorted(json.loads(line)["game"] for line in log.read_text().splitlines()[1:]) == list(range(30))
    first, again = json.loads(whole.read_text()), json.loads(resumed.read_text())
    for key in ("won", "first_cell", "wins", "moves", "calls"):
        assert first[key] == again[key]
    assert "games_read_back" not in first and again["games_read_back"] == 11  # its seconds time the other 19
    assert main([*options, "--passes", "2", "--resume", str(log)]) == 2  # another run's options: refused


def test_a_learnt_opening_played_batched_is_the_runners(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from agents.opening import CandidateReturns, LearntOpening

    for suffix in (".json", ".pt"):
        shutil.copy(Path(BEGINNER_MODEL).with_suffix(suffix), tmp_path)
    model = tmp_path / Path(BEGINNER_MODEL).with_suffix(".pt").name
    card = json.loads(model.with_suffix(".json").read_text())
    opening = LearntOpening((0, 8), (9, 9, 10), "opening", 1, 0.0, 1, (CandidateReturns((0, 8), 10, 9),))
    model.with_suffix(".json").write_text(json.dumps({**card, "opening": opening.to_dict()}))
    suite = get_suite("beginner-opening-1k")
    batched = play_model_batched(str(model), suite, games=30, batch=12, opening=True)
    player = GamePlayer(suite, [AgentSpec.model(model, suite.spec(), opening=True)], oracle=False)
    records = [player.play(0, game) for game in range(30)]
    assert batched.won.tolist() == [record.won for record in records]
    assert batched.first_cell.tolist() == [record.first_action for record in records] == [8] * 30
    assert batched.moves.tolist() == [record.steps for record in records]
    zero = suite.with_zero_start()  # the start opens a cell for the agent: the opening is not played
    opened = play_model_batched(str(model), zero, games=5, opening=True).first_cell
    assert opened.tolist() == play_model_batched(str(model), zero, games=5).first_cell.tolist()
    with pytest.raises(ValueError, match="no learnt opening"):
        play_model_batched(BEGINNER_MODEL, suite, games=2, opening=True)

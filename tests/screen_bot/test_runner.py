"""The run's bookkeeping: an unreadable game is kept with its picture, and the report's figures."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np

from screen_bot.game import GameResult
from screen_bot.programs import XDEMINEUR
from screen_bot.reader import UnreadableBoard
from screen_bot.runner import BotConfig, _play_one, report


class UnreadablePlayer:
    """A player whose board never settles."""

    def play(self, reveal_all=None) -> GameResult:
        raise UnreadableBoard("the board did not settle within 3 s", np.zeros((4, 6, 3), dtype=np.uint8))


def test_a_game_that_cannot_be_read_is_kept_as_unread_with_its_picture(tmp_path: Path) -> None:
    session = SimpleNamespace(config=BotConfig(XDEMINEUR, "expert", 1, screenshots=tmp_path))
    result = _play_one(session, UnreadablePlayer(), "7/3", None)
    assert result.outcome == "unread" and result.game_id == "7/3"
    assert (tmp_path / "7_3.png").read_bytes().startswith(b"\x89PNG")
    assert "did not settle" in result.note


def test_the_report_leaves_unread_games_out_of_the_win_rate() -> None:
    config = BotConfig(XDEMINEUR, "expert", 4, seed=1)
    results = [
        GameResult("won", clicks=300, seconds=1.0, misread=[]),
        GameResult("lost", clicks=100, seconds=0.5, misread=[(0, 0)]),
        GameResult("won", clicks=200, seconds=1.5, misread=None),  # its end picture could not be checked
        GameResult("unread"),
    ]
    data = report(config, results, seconds=60.0)
    entry = data["results"][0]
    assert (entry["games"], entry["wins"], entry["unread_games"]) == (3, 2, 1)
    assert entry["win_rate"] == 2 / 3 and entry["ci95"][0] < 2 / 3 < entry["ci95"][1]
    assert entry["clicks_per_game"] == 200 and entry["games_per_minute"] == 4.0
    assert (entry["crosschecked_games"], entry["misread_cells"]) == (2, 1)
    assert data["suite"]["rows"] == 16 and data["suite"]["cols"] == 30 and data["suite"]["mines"] == 99

"""The board as text and a reply as a move: the format round trip, what is read, and one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mine_llm.moves import Move, ReplyError, parse_reply, quote, tool_schema
from mine_llm.prompt import parse_observation, render_observation, system_prompt
from support import grid_from_rows


def test_an_observation_reads_back_to_its_grid() -> None:
    grid = grid_from_rows("0 1 F .", "0 1 . .", "X 2 . .")
    text = render_observation(grid, 3, "safe", "reveal 0 0 opened 4 cells", "lost", 3)
    assert text.splitlines() == [
        "Minesweeper 3x4, 3 mines, 2 left to flag, first click: safe",
        "Last move: reveal 0 0 opened 4 cells",
        "   0 1 2 3",
        " 0 0 1 F .",
        " 1 0 1 . .",
        " 2 X 2 . .",
        "Status: lost, after 2 moves",
    ]
    board = parse_observation("Here is the board:\n" + text + "\nYour move?")
    assert np.array_equal(board.grid, grid)
    assert (board.mines, board.first_click, board.status) == (3, "safe", "lost")


def test_wide_boards_keep_every_cell_under_its_column_number() -> None:
    grid = np.full((11, 12), -1, dtype=np.int8)
    grid[10, 11] = 3
    lines = render_observation(grid, 20, "opening", "none", "playing", 1).splitlines()
    assert lines[2].endswith(" 10 11") and lines[-2] == " 10" + "  ." * 11 + "  3"
    assert len(lines[2]) == len(lines[-2])  # the last cell right under its column's number
    assert np.array_equal(parse_observation("\n".join(lines)).grid, grid)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("no board here", "no 'Minesweeper RxC"),
        ("Minesweeper 2x2, 1 mines, 1 left to flag, first click: none\nLast move: none\n   0 1\n 0 . .", "only 1 row"),
        ("Minesweeper 2x2, 1 mines, 1 left to flag, first click: none\nLast move: none\n   0 1\n 0 . .\n 1 . ?",
         "row 1 does not hold 2 cells"),
    ],
)  # fmt: skip
def test_a_text_that_is_not_an_observation_says_what_is_wrong(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        parse_observation(text)


@pytest.mark.parametrize(
    ("reply", "move"),
    [
        ("reveal 3 4", Move("reveal", 3, 4)),
        ("  FLAG 2 2\n", Move("flag", 2, 2)),
        ("unflag (1, 0)", Move("flag", 1, 0)),
        ("open 5,6", Move("reveal", 5, 6)),
        ("(2,2) looks safe, but first reveal 0 0. Final answer: reveal 1 1", Move("reveal", 1, 1)),
        ('{"action": "reveal", "row": 3, "col": 4}', Move("reveal", 3, 4)),
        ('I pick:\n```json\n{"action": "flag", "row": "2", "col": 7.0}\n```', Move("flag", 2, 7)),
        ('reveal 0 0 was my first idea; {"action": "reveal", "row": 1, "col": 2}', Move("reveal", 1, 2)),
        ({"action": "reveal", "row": 3, "col": 4}, Move("reveal", 3, 4)),
        ({"name": "make_move", "arguments": '{"action": "flag", "row": 0, "col": 1}'}, Move("flag", 0, 1)),
        ({"name": "make_move", "arguments": {"action": "reveal", "row": 8, "col": 8}}, Move("reveal", 8, 8)),
    ],
)  # fmt: skip
def test_what_a_reply_is_read_as(reply: object, move: Move) -> None:
    assert parse_reply(reply) == move


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("", "empty reply: answer 'reveal ROW COL'"),
        ("   \n", "empty reply"),
        ("I would click somewhere in the middle", "no move found in 'I would click"),
        ("dig 3 4", "no move found"),
        ('{"action": "reveal", "row": 3}', "lacks col"),
        ('{"action": "explode", "row": 3, "col": 4}', "unknown action '\"explode\"'"),
        ({"action": "reveal", "row": True, "col": 4}, "row must be an integer, got true"),
        ({"action": "reveal", "row": 2.5, "col": 4}, "row must be an integer, got '2.5'"),
        ({"name": "make_move", "arguments": "{not json"}, "arguments are not JSON"),
        ({"name": "make_move", "arguments": "[1, 2]"}, "arguments must be an object"),
        (None, "a reply must be text or a tool call's arguments"),
        (17, "got int"),
    ],
)  # fmt: skip
def test_a_reply_that_names_no_move_says_why_in_one_line(reply: object, error: str) -> None:
    with pytest.raises(ReplyError, match=error.replace("(", r"\(").replace("[", r"\[")) as caught:
        parse_reply(reply)
    assert "\n" not in str(caught.value)


def test_a_huge_reply_is_read_in_linear_time() -> None:
    assert parse_reply("}" * 200_000 + "{" * 200_000 + " reveal 1 2") == Move("reveal", 1, 2)
    with pytest.raises(ReplyError, match="lacks action, row, col"):
        parse_reply("{}" * 100_000)


def test_a_long_or_odd_reply_is_quoted_short_on_one_line() -> None:
    quoted = quote("é\n" + "x" * 200)
    assert quoted.startswith("'\\xe9\\nxxx") and quoted.endswith("...'") and len(quoted) < 70
    assert quoted.isascii()


def test_the_tool_schema_is_an_openai_function_with_bounds() -> None:
    schema = tool_schema(9, 16)
    json.dumps(schema)  # plain JSON
    function = schema["function"]
    assert schema["type"] == "function" and function["name"] == "make_move"
    parameters = function["parameters"]
    assert parameters["required"] == ["action", "row", "col"]
    assert parameters["properties"]["action"]["enum"] == ["reveal", "flag"]
    assert parameters["properties"]["row"]["maximum"] == 8 and parameters["properties"]["col"]["maximum"] == 15
    assert "maximum" not in tool_schema()["function"]["parameters"]["properties"]["row"]


def test_the_system_prompt_states_the_answer_format() -> None:
    assert "reveal ROW COL" in system_prompt() and "make_move" in system_prompt(tools=True)

"""A model's reply as a move: ``reveal 3 4``, ``flag 2 2``, or the JSON of a tool call; and the tool's schema.

What is read, in this order:

1. a dict (a tool call's arguments, as a function-calling API hands them over): ``{"action": "reveal",
   "row": 3, "col": 4}``; a whole call ``{"name": "make_move", "arguments": {...}}`` (arguments as a dict or
   a JSON string) is opened first;
2. a string holding such a JSON object (the last ``{...}`` in it, so a fenced block or prose around it is fine);
3. a string with commands: the *last* ``reveal R C`` / ``flag R C`` in it is played (``unflag`` and ``open``
   are read as ``flag`` and ``reveal``; ``R C`` may be written ``R C``, ``R,C`` or ``(R, C)``), so a model may
   reason in prose and end with its move.

Anything else gives a :class:`ReplyError` whose message says in one line what was wrong and what to write.
Whether the cell is on the board and can take the move is the env's to say (it knows the board).
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

TOOL_NAME = "make_move"
ACTIONS = ("reveal", "flag")
_ALIASES = {"reveal": "reveal", "open": "reveal", "flag": "flag", "unflag": "flag"}
_COMMAND = re.compile(r"\b(reveal|open|flag|unflag)\b\W{0,3}?\(?\s*(-?\d+)\s*[,;\s]\s*(-?\d+)", re.IGNORECASE)
_ECHO = 60
"""Characters of a bad reply quoted back in its error message."""
ANSWER_HINT = "answer 'reveal ROW COL' or 'flag ROW COL' (0-based), or {\"action\": \"reveal\", \"row\": 3, \"col\": 4}"


class Move(NamedTuple):
    """One move: ``action`` (``"reveal"`` or ``"flag"``) on cell (``row``, ``col``)."""

    action: str
    row: int
    col: int

    def __str__(self) -> str:
        return f"{self.action} {self.row} {self.col}"

    def to_dict(self) -> dict[str, Any]:
        """The move as the tool's arguments."""
        return {"action": self.action, "row": self.row, "col": self.col}


class ReplyError(ValueError):
    """A reply that names no move; its message is one line: what was wrong, what to write."""


def parse_reply(reply: Any) -> Move:
    """The move a reply names (see the module docstring); :class:`ReplyError` if it names none."""
    if isinstance(reply, dict):
        return _from_arguments(reply)
    if not isinstance(reply, str):
        raise ReplyError(f"a reply must be text or a tool call's arguments (a dict), got {type(reply).__name__}")
    text = reply.strip()
    if not text:
        raise ReplyError(f"empty reply: {ANSWER_HINT}")
    commands = _COMMAND.findall(text)
    json_text = _last_json_object(text)
    if json_text is not None and (not commands or text.rfind("{") > _last_command_end(text)):
        try:
            value = json.loads(json_text)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return _from_arguments(value)
    if commands:
        action, row, col = commands[-1]
        return Move(_ALIASES[action.lower()], int(row), int(col))
    raise ReplyError(f"no move found in {quote(text)}: {ANSWER_HINT}")


def _last_command_end(text: str) -> int:
    ends = [match.end() for match in _COMMAND.finditer(text)]
    return ends[-1] if ends else -1


def _last_json_object(text: str) -> str | None:
    """The last outermost ``{...}`` of the text, braces balanced (a tool call's JSON inside prose or a fenced
    block), found in one pass: a reply of any length costs time in proportion to it."""
    depth, start, last = 0, 0, None
    for index, char in enumerate(text):
        if char == "{":
            start = index if depth == 0 else start
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                last = (start, index)
    return None if last is None else text[last[0] : last[1] + 1]


def _from_arguments(value: dict[str, Any]) -> Move:
    """A move from a tool call's arguments, or from a whole call ``{"name", "arguments"}``."""
    if "arguments" in value:
        arguments = value["arguments"]
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError:
                raise ReplyError(f"the tool call's arguments are not JSON: {quote(arguments)}") from None
        if not isinstance(arguments, dict):
            raise ReplyError(f"the tool call's arguments must be an object, got {quote(json.dumps(arguments))}")
        value = arguments
    missing = [key for key in ("action", "row", "col") if key not in value]
    if missing:
        raise ReplyError(f"the move {quote(json.dumps(value))} lacks {', '.join(missing)}: {ANSWER_HINT}")
    action = value["action"]
    if not isinstance(action, str) or action.lower() not in _ALIASES:
        raise ReplyError(f"unknown action {quote(json.dumps(action))}: expected 'reveal' or 'flag'")
    row, col = (_integer(value[key], key) for key in ("row", "col"))
    return Move(_ALIASES[action.lower()], row, col)


def _integer(value: Any, name: str) -> int:
    """An integer coordinate: an int, an integral float (3.0) or a numeral string ("3")."""
    if isinstance(value, bool):
        raise ReplyError(f"{name} must be an integer, got {json.dumps(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    raise ReplyError(f"{name} must be an integer, got {quote(json.dumps(value))}")


def quote(text: str) -> str:
    """A reply quoted on one line in an error message: ASCII, newlines escaped, cut at :data:`_ECHO` characters."""
    flat = text.encode("ascii", "backslashreplace").decode("ascii").replace("\r", "\\r").replace("\n", "\\n")
    return "'" + (flat if len(flat) <= _ECHO else flat[: _ECHO - 3] + "...") + "'"


def tool_schema(rows: int | None = None, cols: int | None = None) -> dict[str, Any]:
    """The ``make_move`` tool in the OpenAI function-calling format (``tools=[tool_schema(9, 9)]``).

    With the board's size the coordinates carry their bounds; without it the schema fits any board.
    """
    row: dict[str, Any] = {"type": "integer", "minimum": 0, "description": "row, counted from 0 at the top"}
    col: dict[str, Any] = {"type": "integer", "minimum": 0, "description": "column, counted from 0 at the left"}
    if rows is not None and cols is not None:
        row["maximum"], col["maximum"] = rows - 1, cols - 1
    return {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": "Play one Minesweeper move: reveal a hidden cell, or put or take off a flag on one.",
            "parameters": {
                "type": "object",
                "properties": {
                    "action": {
                        "type": "string", "enum": list(ACTIONS),
                        "description": "'reveal' opens the cell (on an open number with its flags placed: a chord); "
                        "'flag' puts a flag on a hidden cell or takes it off",
                    },
                    "row": row,
                    "col": col,
                },
                "required": ["action", "row", "col"],
                "additionalProperties": False,
            },
        },
    }  # fmt: skip

"""An OpenAI-compatible chat server whose "model" is a baseline: the whole model path, without a model.

``POST /v1/chat/completions`` reads the board from the last user message (:func:`mine_llm.prompt.parse_observation`)
and answers the move of the baseline named by the request's ``model`` (``solver``, ``random``, or any name of
:mod:`agents.registry`), as text (``reveal R C`` after a line of prose) or, when the request offers tools, as a
``make_move`` tool call. ``GET /v1/models`` lists the names. The model ``nonsense`` answers text with no move, to
see invalid replies counted. Every move is computed afresh from the board (no state between requests), so any
number of games may share the server.

Run it and evaluate through it, as a first check of a set-up::

    python -m mine_llm.reference_server --port 8000 &
    minesweeper eval --llm-endpoint http://127.0.0.1:8000/v1 --llm-model solver --preset beginner --games 20

It serves on loopback only (127.0.0.1), for tests and local checks.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agents.registry import AGENTS, make_agent
from mine_llm.moves import TOOL_NAME, parse_reply
from mine_llm.policies import agent_move

NONSENSE = "nonsense"
"""The model that never names a move."""
MODELS = (*sorted(AGENTS), NONSENSE)


class UnknownModel(ValueError):
    """The request names a model this server does not play: answered 404, as vLLM and hosted APIs answer it."""


class ReferenceServer(ThreadingHTTPServer):
    """The server; ``fail_first`` requests are answered 503 first (to exercise a client's retries)."""

    daemon_threads = True

    def __init__(self, port: int = 0, fail_first: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.fail_first = fail_first
        self.requests = 0
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        """The base URL of the API (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The chat completion a request gets (a ValueError says what is wrong with the request)."""
    model = body.get("model")
    if model not in MODELS:
        raise UnknownModel(f"unknown model {model!r}; this server plays {', '.join(MODELS)}")
    messages = body.get("messages")
    users = [m for m in messages or [] if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        raise ValueError("no user message: the last one must hold the board")
    observation = users[-1].get("content")
    if not isinstance(observation, str):
        raise ValueError("the last user message must be text holding the board")
    if model == NONSENSE:
        text = "I am not sure what to do here."
    else:
        seed = zlib.crc32(observation.encode())
        text = "The safest cell I see.\n" + agent_move(make_agent(model, seed), observation)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if body.get("tools") and model != NONSENSE:
        move = parse_reply(text)
        call = {"id": "call_0", "type": "function",
                "function": {"name": TOOL_NAME, "arguments": json.dumps(move.to_dict())}}  # fmt: skip
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
    prompt = sum(len(str(m.get("content") or "").split()) for m in messages)
    completion = len(text.split())
    finish = "tool_calls" if "tool_calls" in message else "stop"
    return {
        "id": "chatcmpl-reference", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    server: ReferenceServer

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._send(200, {"object": "list", "data": [{"id": name, "object": "model"} for name in MODELS]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}: POST /v1/chat/completions"}})
            return
        with self.server.lock:
            self.server.requests += 1
            failing = self.server.requests <= self.server.fail_first
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if failing:
            self._send(503, {"error": {"message": "warming up, try again"}})
            return
        try:
            self._send(200, answer(json.loads(raw)))
        except UnknownModel as error:
            self._send(404, {"error": {"message": str(error)}})
        except (ValueError, AttributeError) as error:
            self._send(400, {"error": {"message": str(error)}})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # quiet: a test's output stays readable
        return


@contextlib.contextmanager
def running_server(port: int = 0, fail_first: int = 0) -> Iterator[ReferenceServer]:
    """A server on 127.0.0.1 (``port=0``: an ephemeral port) in a thread, shut down on exit."""
    server = ReferenceServer(port, fail_first)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def main(argv: list[str] | None = None) -> int:
    """``python -m mine_llm.reference_server [--port N]``: serve until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m mine_llm.reference_server", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0 picks one)")
    args = parser.parse_args(argv)
    try:
        server = ReferenceServer(args.port)
    except OSError as error:
        parser.exit(2, f"cannot serve on 127.0.0.1:{args.port}: {error.strerror}\n")
    print(f"serving {', '.join(MODELS)} at {server.url}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

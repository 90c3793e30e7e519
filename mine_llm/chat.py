"""One chat completion from an OpenAI-compatible endpoint (vLLM, llama.cpp's server, hosted APIs), with retries.

Plain ``urllib`` on purpose: the evaluation of a model needs no optional package, and a failure is answered in
one line that says what to do, never a traceback. What goes wrong falls in three kinds:

- **The model's fault, an invalid reply** (returned, for the env to count; the game goes on): ``null`` or empty
  content, a tool call whose arguments are not a move (not JSON, not an object), a reply cut at ``max_tokens``
  before its move, a body over ``max_reply_bytes`` (read as a note that names no move).
- **This request failed, :class:`ReplyFailed`** (after the retries; the game it was for ends as an endpoint
  failure, the run goes on): a time-out (no whole answer within ``timeout`` seconds), a dropped connection, HTTP
  408, 409, 425, 429 or any 5xx, a body that is not JSON or not a chat completion (no ``choices[0].message``),
  all retried; and, without a retry, any other HTTP 4xx (the request refused as it stood: a prompt over the
  context length).
- **The endpoint cannot be used, :class:`EndpointError`** (at once, no retry; the run stops): connection refused,
  a host that does not resolve, HTTP 401, 403 and 404 (no key, a wrong URL or an unknown model).
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, NamedTuple

RETRIED_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
"""HTTP statuses worth another try (overload, rate limits, a server restarting); every other 5xx is retried too."""
FATAL_STATUS = frozenset({401, 403, 404})
"""HTTP statuses that no request of the run will get past (no key, a wrong URL, an unknown model)."""
MAX_BACKOFF = 30.0
"""The longest wait between two tries, in seconds."""


class EndpointError(ValueError):
    """The endpoint cannot be used (unreachable, no key, a wrong URL or model): one line; the run stops."""


class ReplyFailed(EndpointError):
    """One request got no answer after its retries, or was refused as it stood: one line.

    The game it was asked for ends as an endpoint failure; the endpoint may answer the next game.

    Attributes:
        tries: Requests sent, every one failed.
    """

    def __init__(self, message: str, tries: int) -> None:
        super().__init__(message)
        self.tries = tries


@dataclass(frozen=True)
class Endpoint:
    """Where and how to ask a model.

    Attributes:
        url: The API's base URL (``http://127.0.0.1:8000/v1``) or its ``/chat/completions`` URL.
        model: The model name the server knows.
        api_key: Sent as ``Authorization: Bearer``; None sends none (local servers).
        tools: Offer the ``make_move`` tool (function calling) instead of asking for a text answer.
        max_tokens: The most tokens of one reply (None: the server's default).
        temperature: Sampling temperature (None: the server's default).
        timeout: Seconds to wait for one whole answer (each try).
        retries: More tries after a failure that may pass (a dropped connection, a time-out, 429, 5xx, a body
            that is not a chat completion).
        backoff: Seconds before the first retry; doubled each time, at most 30 (a ``Retry-After`` header wins).
        max_reply_bytes: The largest answer read; a longer one is an invalid reply, unread.
    """

    url: str
    model: str
    api_key: str | None = None
    tools: bool = False
    max_tokens: int | None = None
    temperature: float | None = None
    timeout: float = 120.0
    retries: int = 3
    backoff: float = 1.0
    max_reply_bytes: int = 1 << 20

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"the model endpoint must be an http:// or https:// URL, got {self.url!r}")
        if not self.model:
            raise ValueError("give the model's name as the endpoint knows it (--llm-model NAME)")
        if self.retries < 0:
            raise ValueError(f"retries must be 0 or more, got {self.retries}")
        if self.timeout <= 0:
            raise ValueError(f"the time-out must be positive, got {self.timeout}")
        if self.max_reply_bytes < 1:
            raise ValueError(f"max_reply_bytes must be at least 1, got {self.max_reply_bytes}")

    @property
    def completions_url(self) -> str:
        """The ``/chat/completions`` URL of the endpoint."""
        base = self.url.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"


class ChatReply(NamedTuple):
    """One answer of the model.

    Attributes:
        reply: The text of the answer, or the last tool call as ``{"name", "arguments"}``.
        prompt_tokens: Tokens of the prompt, as the server counts them (0 when it does not say).
        completion_tokens: Tokens of the answer (0 when the server does not say).
        seconds: Wall time of the request, its retries included.
        retries: Tries that failed before this answer.
    """

    reply: str | dict[str, Any]
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    retries: int


def complete(
    endpoint: Endpoint, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> ChatReply:
    """Ask the model once for the next message, retried as :class:`Endpoint` says.

    Raises:
        ReplyFailed: no answer after the retries, or the request refused as it stood (the game ends).
        EndpointError: the endpoint cannot be used at all (the run stops).
    """
    body: dict[str, Any] = {"model": endpoint.model, "messages": messages}
    if endpoint.tools and tools:
        body["tools"] = tools
    if endpoint.max_tokens is not None:
        body["max_tokens"] = endpoint.max_tokens
    if endpoint.temperature is not None:
        body["temperature"] = endpoint.temperature
    data = json.dumps(body).encode()
    start = time.perf_counter()
    failures = 0
    while True:
        try:
            reply, usage = _ask(endpoint, data)
            break
        except ReplyFailed as refused:  # refused as it stood, perhaps after tries that may have passed
            raise ReplyFailed(str(refused), failures + 1) from None
        except _Retryable as error:
            failures += 1
            if failures > endpoint.retries:
                raise ReplyFailed(
                    f"the model endpoint {endpoint.completions_url} failed {failures} times, the last: {error}",
                    failures,
                ) from None
            wait = endpoint.backoff * 2 ** (failures - 1) if error.wait is None else error.wait
            time.sleep(min(MAX_BACKOFF, wait))
    return ChatReply(reply, _count(usage, "prompt_tokens"), _count(usage, "completion_tokens"),
                     time.perf_counter() - start, failures)  # fmt: skip


class _Retryable(Exception):
    """A failure that another try may not meet; ``wait``: the seconds the server asked for (``Retry-After``)."""

    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


def _ask(endpoint: Endpoint, data: bytes) -> tuple[str | dict[str, Any], dict[str, Any]]:
    """One try: the reply and the usage, or why not."""
    raw = _post(endpoint, data)
    if raw is None:
        return f"(a reply of over {endpoint.max_reply_bytes} bytes, not read)", {}
    try:
        answer = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past the parser's depth
        raise _Retryable(f"the answer is not JSON: {raw[:80]!r}") from None
    return _read_answer(answer)


def _post(endpoint: Endpoint, data: bytes) -> bytes | None:
    """The body of the answer to one request (None when it is over ``max_reply_bytes``)."""
    headers = {"Content-Type": "application/json"}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    request = urllib.request.Request(endpoint.completions_url, data, headers, method="POST")
    deadline = time.monotonic() + endpoint.timeout
    try:
        with urllib.request.urlopen(request, timeout=endpoint.timeout) as response:
            return _read_body(response, endpoint, deadline)
    except urllib.error.HTTPError as error:
        raise _http_failure(error, endpoint) from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        reason = getattr(error, "reason", error)
        if isinstance(reason, ConnectionRefusedError):
            raise EndpointError(
                f"cannot reach the model endpoint {endpoint.completions_url}: connection refused "
                "(is the server running?)"
            ) from None
        if isinstance(reason, socket.gaierror):
            raise EndpointError(
                f"cannot reach the model endpoint {endpoint.completions_url}: its host does not resolve "
                "(check the URL)"
            ) from None
        if isinstance(reason, TimeoutError):
            raise _Retryable(f"no answer within {endpoint.timeout:g} s (--llm-timeout)") from None
        raise _Retryable(f"{type(reason).__name__}: {reason}") from None


def _read_body(response: http.client.HTTPResponse, endpoint: Endpoint, deadline: float) -> bytes | None:
    """Read the answer piece by piece, so that neither a huge body nor a trickling one holds the client."""
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read1(1 << 16):
        size += len(chunk)
        if size > endpoint.max_reply_bytes:
            return None
        if time.monotonic() > deadline:
            raise _Retryable(f"no whole answer within {endpoint.timeout:g} s (--llm-timeout)")
        chunks.append(chunk)
    return b"".join(chunks)


def _http_failure(error: urllib.error.HTTPError, endpoint: Endpoint) -> Exception:
    """What an HTTP error status means: retry, end this game, or stop the run."""
    detail = _error_detail(error)
    code = error.code
    if code in RETRIED_STATUS or 500 <= code < 600:
        return _Retryable(f"HTTP {code} {detail}", _retry_after(error.headers.get("Retry-After")))
    if code in FATAL_STATUS:
        hint = {401: " (give the key with --llm-api-key or OPENAI_API_KEY)",
                403: " (the key is not allowed this model: check --llm-api-key and --llm-model)",
                404: " (check the URL: an OpenAI-compatible base URL usually ends in /v1, and the model name)"}
        return EndpointError(
            f"the model endpoint {endpoint.completions_url} refused the request: HTTP {code} {detail}{hint[code]}"
        )  # fmt: skip
    return ReplyFailed(f"the model endpoint {endpoint.completions_url} refused the request: HTTP {code} {detail}", 1)


def _retry_after(value: str | None) -> float | None:
    """The seconds of a ``Retry-After`` header (None when absent or a date)."""
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _error_detail(error: urllib.error.HTTPError) -> str:
    """The server's own message of an HTTP error, on one line."""
    try:
        payload = json.loads(error.read(1 << 16) or b"{}")
        message = payload.get("error", payload)
        message = message.get("message", message) if isinstance(message, dict) else message
    except (ValueError, AttributeError, OSError, http.client.HTTPException):
        message = ""
    text = f"{error.reason}: {message}" if message else str(error.reason)
    return " ".join(str(text).split())[:200]


def _read_answer(answer: Any) -> tuple[str | dict[str, Any], dict[str, Any]]:
    """The reply (text, or the last tool call) and the usage of a chat completion; retried when it is none."""
    try:
        message = answer["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        message = None
    if not isinstance(message, dict):
        raise _Retryable(f"the answer is not a chat completion (no choices[0].message in {json.dumps(answer)[:120]})")
    usage = answer.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        call = calls[-1] if isinstance(calls[-1], dict) else {}
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        return {"name": function.get("name"), "arguments": function.get("arguments", "")}, usage
    content = message.get("content") or message.get("refusal") or ""  # null content: an empty reply
    if isinstance(content, list):  # content parts, as some servers send them: their text, in order
        content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else str(content), usage


def _count(usage: dict[str, Any], key: str) -> int:
    """A token count of the usage, 0 when the server gives none or something else than a count."""
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

"""One chat completion from an OpenAI-compatible endpoint (vLLM, llama.cpp's server, hosted APIs), with retries.

Plain ``urllib`` on purpose: the evaluation of a model needs no optional package, and a failure is answered in
one line that says what to do (:class:`EndpointError`), never a traceback.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, NamedTuple

RETRIED_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
"""HTTP statuses worth another try (overload, rate limits, a server restarting); others are the request's fault."""


class EndpointError(ValueError):
    """The endpoint cannot answer (unreachable, refused the request, or failed every retry); one line."""


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
        timeout: Seconds to wait for one reply.
        retries: More tries after a failure that may pass (a dropped connection, a time-out, 429, 5xx).
        backoff: Seconds before the first retry; doubled each time, at most 30.
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

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"the model endpoint must be an http:// or https:// URL, got {self.url!r}")
        if not self.model:
            raise ValueError("give the model's name as the endpoint knows it (--llm-model NAME)")
        if self.retries < 0:
            raise ValueError(f"retries must be 0 or more, got {self.retries}")
        if self.timeout <= 0:
            raise ValueError(f"the time-out must be positive, got {self.timeout}")

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
    """Ask the model once for the next message; retried as :class:`Endpoint` says, else :class:`EndpointError`."""
    body: dict[str, Any] = {"model": endpoint.model, "messages": messages}
    if endpoint.tools and tools:
        body["tools"] = tools
    if endpoint.max_tokens is not None:
        body["max_tokens"] = endpoint.max_tokens
    if endpoint.temperature is not None:
        body["temperature"] = endpoint.temperature
    start = time.perf_counter()
    failures = 0
    while True:
        try:
            answer = _post(endpoint, body)
            break
        except _Retryable as error:
            failures += 1
            if failures > endpoint.retries:
                raise EndpointError(
                    f"the model endpoint {endpoint.completions_url} failed {failures} times, the last: {error}"
                ) from None
            time.sleep(min(30.0, endpoint.backoff * 2 ** (failures - 1)))
    reply, usage = _read_answer(answer, endpoint)
    return ChatReply(reply, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0),
                     time.perf_counter() - start, failures)  # fmt: skip


class _Retryable(Exception):
    """A failure that another try may not meet."""


def _post(endpoint: Endpoint, body: dict[str, Any]) -> dict[str, Any]:
    headers = {"Content-Type": "application/json"}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    request = urllib.request.Request(endpoint.completions_url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=endpoint.timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        detail = _error_detail(error)
        if error.code in RETRIED_STATUS:
            raise _Retryable(f"HTTP {error.code} {detail}") from None
        hint = {401: " (give the key with --llm-api-key or OPENAI_API_KEY)",
                404: " (check the URL: an OpenAI-compatible base URL usually ends in /v1, and the model name)"}
        raise EndpointError(
            f"the model endpoint {endpoint.completions_url} refused the request: HTTP {error.code} {detail}"
            f"{hint.get(error.code, '')}"
        ) from None  # fmt: skip
    except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
        reason = getattr(error, "reason", error)
        if isinstance(reason, ConnectionRefusedError):
            raise EndpointError(
                f"cannot reach the model endpoint {endpoint.completions_url}: connection refused "
                "(is the server running?)"
            ) from None
        raise _Retryable(f"{type(reason).__name__}: {reason}") from None
    try:
        answer = json.loads(raw)
    except json.JSONDecodeError:
        raise _Retryable(f"the answer is not JSON: {raw[:80]!r}") from None
    if not isinstance(answer, dict):
        raise _Retryable(f"the answer is not a JSON object: {raw[:80]!r}")
    return answer


def _error_detail(error: urllib.error.HTTPError) -> str:
    """The server's own message of an HTTP error, on one line."""
    try:
        payload = json.loads(error.read() or b"{}")
        message = payload.get("error", payload)
        message = message.get("message", message) if isinstance(message, dict) else message
    except (json.JSONDecodeError, AttributeError, OSError):
        message = ""
    text = f"{error.reason}: {message}" if message else str(error.reason)
    return " ".join(str(text).split())[:200]


def _read_answer(answer: dict[str, Any], endpoint: Endpoint) -> tuple[str | dict[str, Any], dict[str, Any]]:
    """The reply (text, or the last tool call) and the usage of a chat completion."""
    try:
        message = answer["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise EndpointError(
            f"the model endpoint {endpoint.completions_url} did not answer as a chat completion "
            f"(no choices[0].message in {json.dumps(answer)[:120]})"
        ) from None
    usage = answer.get("usage") or {}
    calls = message.get("tool_calls") or []
    if calls:
        function = calls[-1].get("function") or {}
        return {"name": function.get("name"), "arguments": function.get("arguments", "")}, usage
    content = message.get("content") or ""
    if isinstance(content, list):  # content parts, as some servers send them: their text, in order
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else str(content), usage

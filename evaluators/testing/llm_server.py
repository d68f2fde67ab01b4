"""A loopback OpenAI-compatible chat-completions server for tests and benchmarks.

The real ``openai`` and ``groq`` SDKs talk to it over HTTP on 127.0.0.1 — nothing is mocked.
Part of the package's testing helpers (``evaluators.testing``), so your own test suite and
``bench/`` can use it; this repository's pytest fixtures (``llm_server``, ``loopback_settings``,
``close_llm_clients``) are in ``tests/llm_server.py``.

API
---
``srv = llm_server`` (or ``with LLMServer() as srv:`` outside pytest, e.g. in bench/)

* ``srv.base_url``       -> ``"http://127.0.0.1:PORT/v1"``: give it to ``openai.OpenAI(base_url=...)``
  or ``LLMSettings(provider="openai_compatible"|"openai", base_url=srv.base_url)``.
* ``srv.groq_base_url``  -> ``"http://127.0.0.1:PORT"``: the groq SDK appends ``/openai/v1/...``
  itself (``LLMSettings(provider="groq", base_url=srv.groq_base_url)``).
  Any POST path ending in ``/chat/completions`` is served.
* ``srv.queue(*replies)``: FIFO of scripted replies, consumed one per request before the responder.
  A reply is a :class:`Reply`, or a ``str`` (shorthand for a 200 chat completion whose message
  content is that string), or a ``dict`` (a JSON object sent as that completion's content).
* ``srv.respond(fn)``: ``fn(request_json) -> Reply | str | dict`` answers when the queue is empty
  (default responder: content ``"{}"``). It runs in the server thread; keep it quick and pure.
* ``Reply(status=200, body=None, headers={}, delay=0.0, content=None, prompt_tokens=10,
  completion_tokens=5)``: ``content`` builds a chat completion body; ``body`` (dict or raw str)
  overrides it verbatim (use it for error payloads: ``Reply(429, body={"error": {...}},
  headers={"Retry-After": "1"})``). ``delay`` sleeps (seconds) before answering — a reply slower
  than the client's timeout is just ``Reply(content=..., delay=5)``.
* ``Reply.error(status, message="...", headers=None, delay=0.0)``: an OpenAI-style error reply.
* ``srv.latency``: extra seconds added to every reply (benchmarks use 0.2).
* ``srv.requests``: list of :class:`Recorded` (``path``, ``headers`` (lower-case keys), ``json``,
  ``t_received``, ``t_replied``, ``status``) in arrival order; ``srv.count`` is ``len(requests)``.
  Timestamps are ``time.monotonic()`` values.
* ``srv.reset()`` clears queue, responder, latency and records.
* Helpers: ``completion(content, prompt_tokens=10, completion_tokens=5, model="loopback")`` ->
  a chat-completion JSON body; ``last_user_message(request_json)`` -> text of the last user turn;
  ``labels_reply(relevant, utilized, {"a": (["0a"], True), ...})`` -> a gpt_labeling reply dict;
  ``max_in_flight(requests)`` -> the most requests the server was answering at once;
  ``keyed_labels_responder`` -> a responder that reads the sentence keys from a gpt_labeling prompt
  and answers valid labels (first document sentence relevant, utilized and supporting every
  response sentence).

Shared set-up of the LLM tests
------------------------------
* ``loopback_settings(**kw)`` (fixture) -> ``LLMSettings`` aimed at ``llm_server``: provider
  ``openai_compatible``, model ``"loopback-model"``, a per-test cache file, fast retries
  (``retry_base_s=0.05``) and a 5 s timeout; ``kw`` override any field.
* ``close_llm_clients`` (fixture): closes the shared LLM clients after the test; a module opts in
  with ``pytestmark = pytest.mark.usefixtures("close_llm_clients")``.
* ``PARIS_CASE``: a case with response sentences a, b, c and document sentences 0a-0c, 1a-1b;
  ``PARIS_LABELS``: its gpt_labeling reply (a and b supported, c not).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from ..types import TestCase

__all__ = ["LLMServer", "PARIS_CASE", "PARIS_LABELS", "Recorded", "Reply", "completion", "keyed_labels_responder",
           "labels_reply", "last_user_message", "max_in_flight", "read_json_body"]


def completion(content: str, prompt_tokens: int = 10, completion_tokens: int = 5,
               model: str = "loopback") -> dict[str, Any]:
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def last_user_message(request_json: dict[str, Any]) -> str:
    for m in reversed(request_json.get("messages") or []):
        if m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, list):  # content parts
                return "".join(p.get("text", "") for p in c if isinstance(p, dict))
            return str(c or "")
    return ""


def labels_reply(relevant: list[str], utilized: list[str],
                 sentences: dict[str, tuple[list[str], bool]], overall: bool | None = None) -> dict[str, Any]:
    """A gpt_labeling reply: ``sentences`` maps response key -> (supporting keys, fully_supported)."""
    info = [{"response_sentence_key": k, "explanation": f"explains {k}",
             "supporting_sentence_keys": list(keys), "fully_supported": full}
            for k, (keys, full) in sentences.items()]
    return {
        "relevance_explanation": "scripted",
        "all_relevant_sentence_keys": list(relevant),
        "overall_supported_explanation": "scripted",
        "overall_supported": all(f for _, f in sentences.values()) if overall is None else overall,
        "sentence_support_information": info,
        "all_utilized_sentence_keys": list(utilized),
    }


_DOC_LINE = re.compile(r"^(\d+[a-z]+)\. ", re.MULTILINE)
_RESP_LINE = re.compile(r"^([a-z]+)\. ", re.MULTILINE)


_FACT_LINE = re.compile(r"^(r\d+)\. ", re.MULTILINE)


def correctness_reply(text: str) -> dict[str, Any]:
    """A reply to the answer-correctness prompt (``evaluators.answers.llm``): every reference fact stated
    by the first response sentence, every response sentence backed by the first fact."""
    head, _, tail = text.partition("\nResponse:\n")
    facts = _FACT_LINE.findall(head.partition("Reference answer:")[2])
    sents = _RESP_LINE.findall(tail.split("\n\n", 1)[0])
    first = sents[:1]
    return {"reference_facts": [{"key": k, "explanation": "stated", "stated_by": first, "stated": bool(first)}
                                for k in facts],
            "response_sentences": [{"key": k, "explanation": "backed", "backed_by": facts[:1], "declines": False,
                                    "states_nothing": False, "backed": bool(facts)} for k in sents]}


def keyed_labels_responder(request_json: dict[str, Any]) -> dict[str, Any]:
    """A well-formed reply to whatever the product asks: the labeling prompt (the first document
    sentence relevant, used and supporting every response sentence) or the answer-correctness prompt."""
    text = last_user_message(request_json)
    if "\nReference answer:\n" in text:
        return correctness_reply(text)
    head, _, tail = text.partition("\nResponse:\n")
    doc_keys = _DOC_LINE.findall(head)
    resp_keys = _RESP_LINE.findall(tail.split("\n\n", 1)[0])
    first = doc_keys[:1]
    return labels_reply(first, first, {k: (first, bool(first)) for k in resp_keys})


def max_in_flight(requests: list["Recorded"]) -> int:
    events = sorted([(r.t_received, 1) for r in requests] +
                    [(r.t_replied, -1) for r in requests if r.t_replied is not None],
                    key=lambda e: (e[0], e[1]))
    cur = best = 0
    for _, d in events:
        cur += d
        best = max(best, cur)
    return best


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content: str | None = None
    prompt_tokens: int = 10
    completion_tokens: int = 5

    @classmethod
    def error(cls, status: int, message: str = "scripted error", headers: dict[str, str] | None = None,
              delay: float = 0.0) -> "Reply":
        return cls(status=status, body={"error": {"message": message, "type": "scripted",
                                                  "code": str(status)}},
                   headers=dict(headers or {}), delay=delay)

    def payload(self) -> bytes:
        if self.body is not None:
            return (self.body if isinstance(self.body, str) else json.dumps(self.body)).encode()
        return json.dumps(completion(self.content if self.content is not None else "{}",
                                     self.prompt_tokens, self.completion_tokens)).encode()


def read_json_body(handler: BaseHTTPRequestHandler) -> Any:
    """The JSON body of the request ``handler`` is serving (Content-Length bytes); a body that is no
    JSON as ``{"_raw": its text}``, an empty one as ``{}``."""
    n = int(handler.headers.get("Content-Length") or 0)
    raw = handler.rfile.read(n) if n else b""
    try:
        return json.loads(raw or b"{}")
    except ValueError:
        return {"_raw": raw.decode("utf-8", "replace")}


def _as_reply(r: Reply | str | dict[str, Any]) -> Reply:
    if isinstance(r, Reply):
        return r
    if isinstance(r, str):
        return Reply(content=r)
    if isinstance(r, dict):
        return Reply(content=json.dumps(r))
    raise TypeError(f"a scripted reply must be Reply, str or dict, not {type(r).__name__}")


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    json: dict[str, Any]
    t_received: float
    t_replied: float | None = None
    status: int | None = None


class LLMServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if host not in ("127.0.0.1", "localhost"):
            raise ValueError("the loopback server only binds to 127.0.0.1")
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._responder: Callable[[dict[str, Any]], Reply | str | dict[str, Any]] | None = None
        self.latency = 0.0
        self.requests: list[Recorded] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, data: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

            def do_GET(self) -> None:
                self._send(200, json.dumps({"object": "list", "data": [{"id": "loopback"}]}).encode(), {})

            def do_POST(self) -> None:
                t0 = time.monotonic()
                body = read_json_body(self)
                rec = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body, t0)
                with server._lock:
                    server.requests.append(rec)
                    reply = server._queue.popleft() if server._queue else None
                    responder = server._responder
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    reply = Reply.error(404, f"no route {self.path}")
                elif reply is None:
                    try:
                        reply = _as_reply(responder(body)) if responder else Reply(content="{}")
                    except Exception as exc:  # noqa: BLE001 - a broken responder is a 500, visible in the test
                        reply = Reply.error(500, f"responder raised {type(exc).__name__}: {exc}")
                wait = reply.delay + server.latency
                if wait > 0:
                    time.sleep(wait)
                # recorded before the bytes leave, so a client that got the reply sees the record
                rec.t_replied = time.monotonic()
                rec.status = reply.status
                try:
                    self._send(reply.status, reply.payload(), reply.headers)
                except (BrokenPipeError, ConnectionResetError):  # client gave up (timeout)
                    self.close_connection = True

        class _Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128

        self._httpd = _Server((host, port), Handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="llm-loopback", daemon=True)

    # -- scripting -------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def groq_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def queue(self, *replies: Reply | str | dict[str, Any]) -> "LLMServer":
        with self._lock:
            self._queue.extend(_as_reply(r) for r in replies)
        return self

    def respond(self, fn: Callable[[dict[str, Any]], Reply | str | dict[str, Any]] | None) -> "LLMServer":
        with self._lock:
            self._responder = fn
        return self

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self._responder = None
            self.requests.clear()
            self.latency = 0.0

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> "LLMServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "LLMServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


PARIS_CASE = TestCase(
    id="paris",
    question="What is the capital of France and what is it known for?",
    response="Paris is the capital of France. It is known for its museums. It has ten million cats.",
    documents=(
        "Paris is the capital of France. It is known for its many museums. The Seine flows through it.",
        "Berlin is the capital of Germany. It is large.",
    ),
)
PARIS_LABELS = labels_reply(["0a", "0b"], ["0a", "1a"],
                            {"a": (["0a"], True), "b": (["0b"], True), "c": ([], False)})

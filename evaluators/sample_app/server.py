"""The sample app over HTTP, on 127.0.0.1 only: in a thread of this process, or as its own process
(``python -m evaluators.sample_app``).

Contract:

* ``POST /v1/ask`` and ``POST /v2/ask`` (``/ask``: the default version) with a JSON body
  ``{"question": text, "history": [turns], "k": int}`` answer :meth:`SampleApp.ask`'s reply; a body
  that is not JSON, lacks the question or has a bad ``k`` is a 400 with ``{"error": ...}``; any other
  path a 404. ``GET /health`` answers ``{"status": "ok", "versions", "default", "passages", "calls",
  "injected"}`` (calls to an ask endpoint so far; the faults injected, by status).
* :class:`Faults` make it misbehave on purpose, to see retries at work: a delay on every call, and
  replies of a given status (503, 429, …) at a given rate with an optional ``Retry-After``.
* :func:`serve_in_thread` starts it in a daemon thread and returns a :class:`RunningApp` (its
  ``url_for(version)``, ``stop()``; a context manager) — the dashboard's and the tests' way.
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .app import VERSIONS, SampleApp
from .corpus import load_corpus

HOST = "127.0.0.1"
MAX_BODY = 1 << 20


@dataclass
class Faults:
    """Misbehaviour on purpose: ``delay_s`` before every reply; ``rates`` {status: share of calls}
    answered with that status (``Retry-After: retry_after_s`` when given); deterministic per seed."""

    delay_s: float = 0.0
    rates: dict[int, float] = field(default_factory=dict)
    retry_after_s: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if sum(self.rates.values()) > 1 or any(r < 0 for r in self.rates.values()):
            raise ValueError("fault rates are shares of calls: each ≥ 0, together ≤ 1")
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()
        #: How many calls got each injected status.
        self.injected: dict[int, int] = {}

    def draw(self) -> int | None:
        """The status this call is answered with, or None (a normal reply)."""
        if not self.rates:
            return None
        with self._lock:
            x = self._rng.random()
            for status, rate in sorted(self.rates.items()):
                if x < rate:
                    self.injected[status] = self.injected.get(status, 0) + 1
                    return status
                x -= rate
        return None


def make_server(app: SampleApp, port: int = 0, default: str = "v1",
                faults: Faults | None = None) -> ThreadingHTTPServer:
    """An HTTP server of ``app`` bound to 127.0.0.1:``port`` (0: any free port); not started."""
    if default not in VERSIONS:
        raise ValueError(f"unknown version {default!r}; versions: {', '.join(VERSIONS)}")
    fx = faults or Faults()
    calls = {"n": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "rag-eval-sample-app"

        def log_message(self, *args: Any) -> None:  # quiet: a call is not worth a line
            pass

        def _send(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.split("?")[0].rstrip("/") == "/health":
                self._send(200, {"status": "ok", "versions": list(VERSIONS), "default": default,
                                 "passages": len(app.passages), "calls": calls["n"],
                                 "injected": {str(k): v for k, v in fx.injected.items()}})
            else:
                self._send(404, {"error": f"no page {self.path}; POST /v1/ask or /v2/ask, GET /health"})

        def do_POST(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(min(n, MAX_BODY)) if n else b""
            route = self.path.split("?")[0].rstrip("/")
            version = {"/ask": default, "/v1/ask": "v1", "/v2/ask": "v2"}.get(route)
            if version is None:
                self._send(404, {"error": f"no endpoint {route}; POST /v1/ask or /v2/ask"})
                return
            with lock:
                calls["n"] += 1
            if fx.delay_s:
                time.sleep(fx.delay_s)
            status = fx.draw()
            if status is not None:
                headers = {"Retry-After": f"{fx.retry_after_s:g}"} if fx.retry_after_s is not None else {}
                self._send(status, {"error": f"injected {status} (a fault of the sample app, on purpose)"}, headers)
                return
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                self._send(400, {"error": "the body is not JSON"})
                return
            if not isinstance(body, dict) or not isinstance(body.get("question"), str) or not body["question"].strip():
                self._send(400, {"error": "give a JSON object with a non-empty 'question'"})
                return
            k = body.get("k", 5)
            if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 50:
                self._send(400, {"error": "'k' is a whole number from 1 to 50"})
                return
            history: list[Any] = body["history"] if isinstance(body.get("history"), list) else []
            self._send(200, app.ask(body["question"], version, history, k))

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

        def handle_error(self, request: Any, client_address: Any) -> None:
            import sys

            if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):  # a client gone: fine
                super().handle_error(request, client_address)

    return Server((HOST, port), Handler)


@dataclass
class RunningApp:
    """A sample app serving in a thread of this process."""

    server: ThreadingHTTPServer
    thread: threading.Thread
    faults: Faults

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def url_for(self, version: str) -> str:
        return f"{self.base_url}/{version}/ask"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> RunningApp:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def serve_in_thread(corpus: str | Path | None = None, port: int = 0, default: str = "v1",
                    faults: Faults | None = None, app: SampleApp | None = None) -> RunningApp:
    """Start the sample app (over ``corpus``: the sample's documents by default) in a daemon thread."""
    fx = faults or Faults()
    server = make_server(app or SampleApp(load_corpus(corpus)), port, default, fx)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name="sample-app", daemon=True)
    thread.start()
    return RunningApp(server, thread, fx)

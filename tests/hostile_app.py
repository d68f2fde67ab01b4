"""A RAG app that misbehaves on purpose (stdlib HTTP server on 127.0.0.1): what the runner must
survive without losing a question, leaking a token, following a redirect it should not, holding
more memory than it may, or running past its deadline (issue 56).

    with HostileApp() as app:                 # or: python -m tests.hostile_app --port 0 (bench/)
        app.url("/deep")                      # http://127.0.0.1:PORT/deep

Every path answers a POST (JSON body with ``question``) and a GET. The question's number (the
first integer in it) picks per-question behaviour where a path says so; ``first_ok=1`` on any path
answers question 1 as ``/ok``, ``delay=S`` waits S seconds before any other reply. Paths:

* ``/ok`` — ``{"answer": "An answer to: <question>", "contexts": [{"id", "text"}]}``.
* ``/deep?every=N`` — JSON nested 100,000 deep (``every=N``: only for questions whose number is a
  multiple of N, others ``/ok``); ``status=`` sends it as an error reply.
* ``/trickle?seconds=S`` — a 200 with a JSON start, then one byte a second for up to S seconds.
* ``/big?mb=M&length=1`` — a JSON answer M MB long, with (``length=1``) or without Content-Length,
  sent in 1 MB writes (stops when the client hangs up; :attr:`sent` counts what went out).
* ``/bomb?mb=M`` — gzip of M MB of zeros inside a JSON string, ``Content-Encoding: gzip``
  (``layers=2``: gzip of gzip; ``status=`` sends it as an error reply).
* ``/badutf8`` — JSON whose answer holds bytes that are not UTF-8, and a lone surrogate escape.
* ``/contexts?n=N`` — N passages.
* ``/redirect?status=S&to=URL`` — S with ``Location: URL``.
* ``/echo?status=S&form=F`` — an error reply that repeats every request header: ``plain`` text
  (the token lands across the 80th / 200th character), ``json`` with escaped slashes (``\\/``),
  ``jsonraw`` (the same without an error message: shown raw), ``html`` (``&#x2F;``), ``url``
  (URL-encoded), ``basic`` (the Basic credentials decoded, and their base64 again), ``unicode``
  (JSON with every character as ``\\uXXXX``, shown raw).
* ``/cut`` — announces 10,000 bytes, sends 100, closes the connection.
* ``/status?code=S`` — an empty JSON error reply with that status.
* ``/object`` — ``{"result": ...}`` without an answer (the same error for every question).

:attr:`requests` records (method, path, headers with lower-case names, body) in arrival order.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
import socket
import threading
import time
import urllib.parse
import zlib
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evaluators.testing.llm_server import read_json_body

DEPTH = 100_000
_MB = 1024 * 1024


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


def number(question: str) -> int:
    m = re.search(r"\d+", question or "")
    return int(m.group()) if m else 0


def deep_json(depth: int = DEPTH) -> bytes:
    return b'{"answer": ' + b"[" * depth + b"]" * depth + b"}"


_BOMBS: dict[tuple[int, int], bytes] = {}
_BOMB_LOCK = threading.Lock()


def gzip_bomb(mb: int, layers: int = 1) -> bytes:
    """gzip of ``{"answer": "000…"}`` (``mb`` MB of zeros), gzipped ``layers`` times (made once, cached)."""
    key = (mb, layers)
    with _BOMB_LOCK:
        return _BOMBS[key] if key in _BOMBS else _BOMBS.setdefault(key, _make_bomb(mb, layers))


def _make_bomb(mb: int, layers: int) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    parts = [c.compress(b'{"answer": "')]
    block = b"0" * _MB
    for _ in range(mb):
        parts.append(c.compress(block))
    parts.append(c.compress(b'"}') + c.flush())
    data = b"".join(parts)
    for _ in range(layers - 1):
        data = gzip.compress(data, 9)
    return data


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # 64 calls connecting at once (the default backlog of 5 resets some)
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, OSError)):  # a client hanging up is normal here
            super().handle_error(request, client_address)


class HostileApp:
    def __init__(self, port: int = 0) -> None:
        self.requests: list[Request] = []
        self.sent: dict[str, int] = {}
        self._lock = threading.Lock()
        app = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._handle({})

            def do_POST(self) -> None:
                self._handle(read_json_body(self))

            def _handle(self, body: Any) -> None:
                parts = urllib.parse.urlsplit(self.path)
                q = {k: v[-1] for k, v in urllib.parse.parse_qs(parts.query).items()}
                with app._lock:
                    app.requests.append(Request(self.command, self.path,
                                                {k.lower(): v for k, v in self.headers.items()}, body))
                question = body.get("question", "") if isinstance(body, dict) else ""
                handler = getattr(self, "h_" + (parts.path.strip("/").replace("-", "_") or "ok"), None)
                if q.get("first_ok") == "1" and number(question) == 1:
                    handler = self.h_ok  # one question answered: a run goes on past fail-fast (bench/)
                elif q.get("delay"):
                    time.sleep(float(q["delay"]))  # (bench/: after that first answer)
                try:
                    if handler is None:
                        self._json(404, {"error": "no such path"})
                    else:
                        handler(q, question)
                except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                    self.close_connection = True

            # -- helpers ------------------------------------------------------------------------
            def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None,
                      content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                self._count(len(data))

            def _json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
                self._send(status, json.dumps(value).encode(), headers)

            def _count(self, n: int) -> None:
                with app._lock:
                    app.sent[self.path] = app.sent.get(self.path, 0) + n

            # -- paths --------------------------------------------------------------------------
            def h_ok(self, q: dict[str, str], question: str) -> None:
                self._json(200, {"answer": f"An answer to: {question or '?'}",
                                 "contexts": [{"id": "d1", "text": f"A passage about {question}"}]})

            def h_deep(self, q: dict[str, str], question: str) -> None:
                every = int(q.get("every", "1"))
                if every > 1 and number(question) % every:
                    return self.h_ok(q, question)
                self._send(int(q.get("status", "200")), deep_json())

            def h_trickle(self, q: dict[str, str], question: str) -> None:
                seconds = float(q.get("seconds", "60"))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(10 + int(seconds) + 4))
                self.end_headers()
                self.wfile.write(b'{"answer":"')
                self.wfile.flush()
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    time.sleep(1.0)
                    self.wfile.write(b"a")
                    self.wfile.flush()
                    self._count(1)
                self.close_connection = True

            def h_big(self, q: dict[str, str], question: str) -> None:
                mb = int(q.get("mb", "500"))
                head, tail = b'{"answer": "', b'"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if q.get("length") == "1":
                    self.send_header("Content-Length", str(len(head) + mb * _MB + len(tail)))
                else:
                    self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(head)
                block = b"x" * _MB
                for _ in range(mb):
                    self.wfile.write(block)
                    self._count(_MB)
                self.wfile.write(tail)
                self.close_connection = True

            def h_bomb(self, q: dict[str, str], question: str) -> None:
                layers = int(q.get("layers", "1"))
                data = gzip_bomb(int(q.get("mb", "1024")), layers)
                self._send(int(q.get("status", "200")), data, {"Content-Encoding": ", ".join(["gzip"] * layers)})

            def h_badutf8(self, q: dict[str, str], question: str) -> None:
                body = (b'{"answer": "caf\xe9 \xff\xfe na\xc3\xafve \\ud800 end", "contexts": ["ok \xc3"]}')
                self._send(200, body)

            def h_contexts(self, q: dict[str, str], question: str) -> None:
                n = int(q.get("n", "50000"))
                self._json(200, {"answer": "Many.", "contexts": [{"id": f"d{i}", "text": f"passage {i}"}
                                                                 for i in range(n)]})

            def h_redirect(self, q: dict[str, str], question: str) -> None:
                self._send(int(q.get("status", "302")), b"", {"Location": q.get("to", "/ok")})

            def h_echo(self, q: dict[str, str], question: str) -> None:
                status = int(q.get("status", "400"))
                form = q.get("form", "plain")
                first = ("authorization", "x-api-key")  # the credentials first: inside the excerpt a message shows
                headers = dict(sorted(self.headers.items(), key=lambda kv: kv[0].lower() not in first))
                if form == "plain":
                    # the key crosses the 80th character and the token the 200th (where excerpts are cut)
                    lines = "".join(f"{k}: {v}; " for k, v in headers.items() if k.lower() not in
                                    ("authorization", "x-api-key"))
                    auth = headers.get("Authorization", "")
                    text = "Bad request, key=".ljust(60, ".") + headers.get("X-Api-Key", "")
                    scheme = auth.split()[0] + " " if " " in auth else ""
                    text += " " + "y" * max(1, 180 - len(text) - len(" auth=") - len(scheme) - 1) + " auth=" + auth
                    self._send(status, f"{text} {lines}".encode(), content_type="text/plain")
                elif form == "json":
                    text = json.dumps({"error": {"message": f"bad request with headers {headers}"},
                                       "headers": headers}).replace("/", "\\/")
                    self._send(status, text.encode())
                elif form == "jsonraw":  # no error / detail / message: the runner shows the raw text
                    self._send(status, json.dumps({"echo": headers}).replace("/", "\\/").encode())
                elif form == "html":
                    rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v).replace('/', '&#x2F;')}"
                                   f"</td></tr>" for k, v in headers.items())
                    self._send(status, f"<html><body><h1>Error</h1><table>{rows}</table></body></html>".encode(),
                               content_type="text/html")
                elif form == "url":
                    self._send(status, urllib.parse.urlencode(headers).encode(),
                               content_type="application/x-www-form-urlencoded")
                elif form == "basic":
                    auth = headers.get("Authorization", "")
                    decoded = base64.b64decode(auth.split()[-1]).decode() if auth.lower().startswith("basic") else ""
                    again = base64.b64encode(f"user={decoded}".encode()).decode()
                    self._json(status, {"detail": f"credentials {decoded!r} refused; as sent {auth}; {again}"})
                elif form == "unicode":
                    text = json.dumps({"echo": "".join(f"\\u{ord(c):04x}" for c in json.dumps(headers))})
                    self._send(status, text.replace("\\\\u", "\\u").encode())
                else:
                    self._json(400, {"error": f"unknown form {form}"})

            def h_cut(self, q: dict[str, str], question: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "10000")
                self.end_headers()
                self.wfile.write(b'{"answer": "' + b"z" * 88)
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True

            def h_status(self, q: dict[str, str], question: str) -> None:
                self._json(int(q.get("code", "500")), {"detail": f"status {q.get('code')}"})

            def h_object(self, q: dict[str, str], question: str) -> None:
                self._json(200, {"result": {"text": "no answer field"}})

        self._httpd = _Server(("127.0.0.1", port), Handler)
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="hostile-app", daemon=True)

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def paths(self) -> list[str]:
        with self._lock:
            return [r.path for r in self.requests]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.sent.clear()

    def start(self) -> HostileApp:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> HostileApp:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def main() -> None:
    import argparse

    p = argparse.ArgumentParser(description="serve the hostile app on 127.0.0.1 (prints the port)")
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args()
    with HostileApp(args.port) as app:
        print(app.port, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()

"""One question put to the app: the request, its retries, and what came back.

Contract: :meth:`Caller.call` never raises for anything the app does; it returns an :class:`Outcome`
— the answer, or the error in words — with the number of attempts, the last attempt's latency and
the whole time including waits. Every text in it has been through :meth:`Secrets.redact`.

* Retried (``retries`` times, tenacity): 408, 425, 429 and 5xx replies, timeouts, broken and refused
  connections. The wait is the reply's ``Retry-After`` (seconds or an HTTP date; at most
  ``max_retry_wait_s``), else ``retry_wait_s`` doubled each time, with ±20 % jitter. A rate limit
  (``rpm``, aiolimiter: attempts evenly spaced, 60 / rpm seconds apart) is taken before every
  attempt. Python targets: ``TimeoutError`` and ``ConnectionError`` are retried, any other exception
  is the question's error.
* Not retried: 401 / 403 (the credentials), 404 / 405 (the endpoint), other 4xx, a reply that is not
  JSON or lacks the answer path (:mod:`.extract`).
* ``Outcome.fatal``: the run cannot go on — the app cannot be reached (after the retries), refuses
  the credentials, or has no such endpoint. The runner stops there (the question is not written, so
  ``--resume`` asks it again).

Messages show the URL as the target file writes it (``${VAR}`` names, never their values) and at
most 200 characters of an error reply, redacted.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Mapping

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from . import guard
from .extract import Answer, ReplyError, extract
from .model import Target
from .stream import StreamError, is_event_stream, read_stream
from .template import Filler, Secrets

#: Kinds of failure that stop the whole run.
FATAL_KINDS = frozenset({"unreachable", "auth", "endpoint"})
_EXCERPT = 200


class CallFailure(Exception):
    """One attempt that failed: ``kind`` says whether it is retried or stops the run."""

    def __init__(self, message: str, kind: str = "question", *, transient: bool = False,
                 retry_after: float | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.transient = transient
        self.retry_after = retry_after
        self.status = status


@dataclass(frozen=True)
class Outcome:
    answer: Answer | None
    error: str | None
    attempts: int
    #: Seconds of the last attempt (the app's own latency when it answered).
    latency_s: float | None
    #: Seconds from the first attempt to the end, waits included.
    elapsed_s: float
    status: int | None = None
    fatal: bool = False


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds (a number, or an HTTP date), None when absent or unreadable."""
    if not value:
        return None
    v = value.strip()
    try:
        return max(0.0, float(v))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _one_line(text: str, secrets: Secrets) -> str:
    s = " ".join(secrets.redact(text).split())
    return s if len(s) <= _EXCERPT else s[: _EXCERPT - 1] + "…"


def _error_text(resp: httpx.Response, secrets: Secrets) -> str:
    """The app's own words about an error reply (its ``error`` / ``detail`` / ``message``, or the
    start of the body), redacted."""
    try:
        body = resp.json()
    except ValueError:
        return _one_line(resp.text, secrets)
    if isinstance(body, dict):
        for k in ("error", "detail", "message"):
            v = body.get(k)
            if isinstance(v, dict):
                v = v.get("message") or v.get("detail")
            if isinstance(v, str) and v.strip():
                return _one_line(v, secrets)
    return _one_line(resp.text, secrets)


class Caller:
    """Calls one target for one run (an HTTP client or a Python function, shared by its calls)."""

    def __init__(self, target: Target, environ: Mapping[str, str], secrets: Secrets, *,
                 client: httpx.AsyncClient | None = None, function: Callable[..., Any] | None = None,
                 executor: ThreadPoolExecutor | None = None, limiter: Any = None) -> None:
        self.target = target
        self.spec = target.spec
        self.environ = environ
        self.secrets = secrets
        self.client = client
        self.function = function
        self.executor = executor
        self.limiter = limiter

    # -- one attempt ---------------------------------------------------------------------------
    async def _http(self, row: Mapping[str, Any], client: httpx.AsyncClient | None) -> tuple[Any, int]:
        http = self.spec.http
        client = client or self.client
        assert http is not None and client is not None
        fill = Filler(row, self.environ, self.secrets)
        url = fill.string(http.url, url=True)
        headers = fill.headers(http.headers)
        params = {k: fill.string(v) if isinstance(v, str) else fill.as_text(v) for k, v in http.query.items()}
        body = fill.value(http.body) if http.body is not None and http.method != "GET" else None
        shown = http.url
        try:
            request = client.build_request(http.method, url, headers=headers, params=params or None, json=body)
            resp = await client.send(request, stream=True)
            try:
                content = await guard.read_capped(resp)
            finally:
                await resp.aclose()
        except httpx.TimeoutException:
            raise CallFailure(f"no reply within {http.timeout_s:g} s (http.timeout_s)", transient=True) from None
        except httpx.ConnectError as exc:
            reason = _one_line(str(exc) or type(exc).__name__, self.secrets)
            raise CallFailure(f"cannot connect to {shown} ({reason}): is the app running?", "unreachable",
                              transient=True) from None
        except (httpx.InvalidURL, httpx.UnsupportedProtocol):
            raise CallFailure(f"{shown} is not an address that can be called (http.url)", "endpoint") from None
        except httpx.TransportError as exc:
            reason = _one_line(str(exc) or type(exc).__name__, self.secrets)
            raise CallFailure(f"the connection to the app broke ({type(exc).__name__}: {reason})",
                              transient=True) from None
        status = resp.status_code
        said = f"{status} {resp.reason_phrase}".strip()
        if content is None:
            raise CallFailure(f"the app's reply ({said}) is over {guard.MAX_REPLY_BYTES:,} bytes: not read",
                              status=status)
        resp._content = content  # the body read above, for .json() / .text
        if status in (401, 403):
            raise CallFailure(f"the app refused the request: {said} (check the target's headers / credentials)",
                              "auth", status=status)
        if status in (404, 405):
            raise CallFailure(f"the app has no such endpoint: {said} for {http.method} {shown} "
                              "(check http.url and http.method)", "endpoint", status=status)
        if status in (408, 425, 429) or status >= 500:
            detail = _error_text(resp, self.secrets)
            raise CallFailure(f"the app answered {said}" + (f": {detail}" if detail else ""), transient=True,
                              retry_after=retry_after_seconds(resp.headers.get("retry-after")), status=status)
        if 300 <= status < 400:
            raise CallFailure(f"the app answered {said} (a redirect, not followed for this target)", status=status)
        if status >= 400 or status < 200:
            detail = _error_text(resp, self.secrets)
            raise CallFailure(f"the app answered {said}" + (f": {detail}" if detail else ""), status=status)
        if is_event_stream(resp.headers.get("content-type")):  # server-sent events, read to the end
            try:
                return read_stream(content), status
            except StreamError as exc:
                raise CallFailure(_one_line(str(exc), self.secrets), status=status) from None
        try:
            return resp.json(), status
        except ValueError:
            kind = resp.headers.get("content-type", "no content type")
            start = _one_line(resp.text[:80], self.secrets)
            raise CallFailure(f"the app's reply is not JSON ({kind}; it starts {start!r})", status=status) from None

    async def _python(self, row: Mapping[str, Any], _client: Any = None) -> tuple[Any, int | None]:
        fn = self.function
        assert fn is not None
        try:
            if inspect.iscoroutinefunction(fn):
                result = await fn(dict(row))
            else:
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(self.executor, fn, dict(row))
            if inspect.isawaitable(result):
                result = await result
        except (TimeoutError, ConnectionError) as exc:
            raise CallFailure(_one_line(f"{type(exc).__name__}: {exc}", self.secrets), transient=True) from None
        except Exception as exc:  # noqa: BLE001 - the function's own error is this question's error
            raise CallFailure(_one_line(f"{self.spec.python} raised {type(exc).__name__}: {exc}",
                                        self.secrets)) from None
        return result, None

    # -- with retries ----------------------------------------------------------------------------
    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        ra = getattr(exc, "retry_after", None)
        if ra is not None:
            return min(float(ra), self.spec.max_retry_wait_s)
        base = self.spec.retry_wait_s * 2 ** max(0, state.attempt_number - 1)
        return min(base, self.spec.max_retry_wait_s) * random.uniform(0.8, 1.2)

    async def call(self, row: Mapping[str, Any], client: httpx.AsyncClient | None = None) -> Outcome:
        """Ask one question (``client``: the HTTP client to use, else the caller's own)."""
        t0 = time.perf_counter()
        attempts = 0
        latency: float | None = None
        status: int | None = None
        once = self._http if self.spec.http is not None else self._python
        retrying = AsyncRetrying(stop=stop_after_attempt(self.spec.retries + 1), wait=self._wait, reraise=True,
                                 retry=retry_if_exception(lambda e: isinstance(e, CallFailure) and e.transient))
        try:
            async for attempt in retrying:
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    if self.limiter is not None:
                        await self.limiter.acquire()
                    t1 = time.perf_counter()
                    try:
                        reply, status = await once(row, client)
                    except CallFailure as exc:
                        status = exc.status
                        raise
                    finally:
                        latency = time.perf_counter() - t1
                    answer = extract(reply, self.target.paths, python=self.spec.python is not None)
        except CallFailure as exc:
            tried = f" (after {attempts} attempts)" if attempts > 1 else ""
            return Outcome(None, self.secrets.redact(exc.message) + tried, attempts, latency,
                           time.perf_counter() - t0, status, fatal=exc.kind in FATAL_KINDS)
        except ReplyError as exc:
            return Outcome(None, self.secrets.redact(str(exc)), attempts, latency, time.perf_counter() - t0, status)
        s = self.secrets
        answer = Answer(s.redact(answer.text), tuple(s.redact(c) for c in answer.contexts),
                        tuple(s.redact(i) for i in answer.context_ids), s.redact_obj(answer.usage), answer.notes,
                        answer.context_scores,
                        tuple(type(c).model_validate(s.redact_obj(c.model_dump())) for c in answer.tool_calls))
        return Outcome(answer, None, attempts, latency, time.perf_counter() - t0, status)

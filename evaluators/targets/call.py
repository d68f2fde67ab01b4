"""One question put to the app: the request, its retries, and what came back.

Contract: :meth:`Caller.call` never raises for anything the app does; it returns an :class:`Outcome`
— the answer, or the error in words — with the number of attempts, the last attempt's latency, the
whole time including waits, and ``cause``: a short key that is the same for calls that failed for
the same reason (the runner's fail-fast compares them). Every text in it has been masked by
:class:`~.secrets.Secrets` (every form of every secret) before it was cut or kept, and every string
is writable as UTF-8.

* Deadline: an HTTP attempt ends within ``http.timeout_s`` from connecting to the reply's last byte
  (redirects included) — a reply trickled one byte a second is cut there; a Python call within the
  target's ``timeout_s`` (default :data:`PYTHON_TIMEOUT_S`): an overrunning call is abandoned (a sync
  function's thread is left to finish on its own, a daemon thread that never holds the process; an
  async one is cancelled) and is the question's error, not retried.
* Retried (``retries`` times, tenacity): 408, 425, 429 and 5xx replies, HTTP timeouts, broken and
  refused connections. The wait is the reply's ``Retry-After`` (seconds or an HTTP date; at most
  ``max_retry_wait_s``), else ``retry_wait_s`` doubled each time, with ±20 % jitter. A rate limit
  (``rpm``, aiolimiter: attempts evenly spaced, 60 / rpm seconds apart) is taken before every
  attempt. Python targets: ``TimeoutError`` and ``ConnectionError`` it raises are retried, any other
  exception is the question's error.
* Not retried: 401 / 403 (the credentials), 404 / 405 (the endpoint), other 4xx, a redirect
  (:mod:`.redirects`: followed only when the target says so), a reply that is too large, not JSON,
  nested too deep (:mod:`.reply`), with more than :data:`MAX_PASSAGES` passages, or without the answer
  path (:mod:`.extract`).
* ``Outcome.fatal``: the run cannot go on — the app cannot be reached (after the retries), refuses
  the credentials, or has no such endpoint. The runner stops there (the question is not written, so
  ``--resume`` asks it again).

Messages show the URL as the target file writes it (``${VAR}`` names, never their values) and at
most 200 characters of an error reply, masked before they are cut.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import re
import threading
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Mapping

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from . import redirects
from .extract import Answer, ReplyError, extract
from .guard import guarded_transport
from .model import Target
from .reply import (
    ACCEPT_ENCODING,
    MAX_REPLY_BYTES,
    BadReply,
    NotJSON,
    ReplyTooLarge,
    check_depth,
    clean_obj,
    clean_text,
    decode_text,
    parse_json,
    read_body,
    reply_limit,
)
from .stream import StreamError, is_event_stream, read_stream
from .template import Filler, Secrets

#: Kinds of failure that stop the whole run.
FATAL_KINDS = frozenset({"unreachable", "auth", "endpoint"})
#: A Python target's seconds per call when its file gives no ``timeout_s``.
PYTHON_TIMEOUT_S = 30.0
#: Passages read from one reply (more is the question's error: is the app's k applied?).
MAX_PASSAGES = 1000
_EXCERPT = 200


class CallFailure(Exception):
    """One attempt that failed: ``kind`` says whether it is retried or stops the run; ``cause`` is
    the same for failures of the same reason."""

    def __init__(self, message: str, kind: str = "question", *, transient: bool = False,
                 retry_after: float | None = None, status: int | None = None, cause: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.transient = transient
        self.retry_after = retry_after
        self.status = status
        self.cause = cause or (f"http {status}" if status is not None else kind)


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
    #: Why it failed, as a key equal for failures of the same reason (None when answered).
    cause: str | None = None


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


def reply_cause(message: str) -> str:
    """The cause key of a reply that could not be read: its message with numbers taken out."""
    return "reply: " + re.sub(r"\d+", "#", message)[:120]


class Caller:
    """Calls one target for one run (an HTTP client or a Python function, shared by its calls).
    ``concurrency``: the calls in flight, which share the read budget (:func:`.reply.reply_limit`)."""

    def __init__(self, target: Target, environ: Mapping[str, str], secrets: Secrets, *,
                 client: httpx.AsyncClient | None = None, function: Callable[..., Any] | None = None,
                 limiter: Any = None, concurrency: int = 1) -> None:
        self.target = target
        self.spec = target.spec
        self.environ = environ
        self.secrets = secrets
        self.client = client
        self.function = function
        self.limiter = limiter
        self.concurrency = concurrency
        http = self.spec.http
        self.read_limit = reply_limit(int(http.max_reply_mb * 1024 * 1024) if http else MAX_REPLY_BYTES, concurrency)
        self.allowed = redirects.origins(http.redirect_origins) if http else set()

    def _line(self, text: str) -> str:
        return self.secrets.excerpt(text, _EXCERPT)

    def _error_text(self, content: bytes, content_type: str | None) -> str:
        """The app's own words about an error reply (its ``error`` / ``detail`` / ``message``, or the
        start of the body), masked then cut."""
        text, _ = decode_text(content[:1_000_000], content_type)
        try:
            body = parse_json(text)
        except BadReply:
            return self._line(text)
        if isinstance(body, dict):
            for k in ("error", "detail", "message"):
                v = body.get(k)
                if isinstance(v, dict):
                    v = v.get("message") or v.get("detail")
                if isinstance(v, str) and v.strip():
                    return self._line(v)
        return self._line(text)

    # -- one HTTP attempt ----------------------------------------------------------------------
    async def _http(self, row: Mapping[str, Any], client: httpx.AsyncClient | None) -> tuple[Any, int, tuple[str, ...]]:
        http = self.spec.http
        client = client or self.client
        assert http is not None and client is not None
        fill = Filler(row, self.environ, self.secrets)
        url = fill.string(http.url, url=True)
        headers = fill.headers(http.headers)
        if not any(k.lower() == "accept-encoding" for k in headers):
            headers["Accept-Encoding"] = ACCEPT_ENCODING  # what read_body undoes within its limit
        params = {k: fill.string(v) if isinstance(v, str) else fill.as_text(v) for k, v in http.query.items()}
        body = fill.value(http.body) if http.body is not None and http.method != "GET" else None
        shown = http.url
        try:
            request = client.build_request(http.method, url, headers=headers, params=params or None, json=body)
            async with asyncio.timeout(http.timeout_s):
                resp, content = await self._exchange(client, request, set(k.lower() for k in http.headers))
        except (TimeoutError, httpx.TimeoutException):
            raise CallFailure(f"no whole reply within {http.timeout_s:g} s (http.timeout_s)", transient=True,
                              cause="timeout") from None
        except httpx.ConnectError as exc:
            reason = self._line(str(exc) or type(exc).__name__)
            raise CallFailure(f"cannot connect to {shown} ({reason}): is the app running?", "unreachable",
                              transient=True) from None
        except (httpx.InvalidURL, httpx.UnsupportedProtocol):
            raise CallFailure(f"{shown} is not an address that can be called (http.url)", "endpoint") from None
        except httpx.TransportError as exc:
            reason = self._line(str(exc) or type(exc).__name__)
            raise CallFailure(f"the connection to the app broke ({type(exc).__name__}: {reason})",
                              transient=True, cause=f"broken {type(exc).__name__}") from None
        status = resp.status_code
        said = f"{status} {resp.reason_phrase}".strip()
        # an error status says what went wrong whatever its body: one that cannot be read is left out
        unread, content = (content, b"") if isinstance(content, BadReply) else (None, content)
        content_type = resp.headers.get("content-type")
        if status in (401, 403):
            raise CallFailure(f"the app refused the request: {said} (check the target's headers / credentials)",
                              "auth", status=status)
        if status in (404, 405):
            raise CallFailure(f"the app has no such endpoint: {said} for {http.method} {shown} "
                              "(check http.url and http.method)", "endpoint", status=status)
        if status in (408, 425, 429) or status >= 500:
            detail = self._error_text(content, content_type)
            raise CallFailure(f"the app answered {said}" + (f": {detail}" if detail else ""), transient=True,
                              retry_after=retry_after_seconds(resp.headers.get("retry-after")), status=status)
        if status >= 400 or status < 200:
            detail = self._error_text(content, content_type)
            raise CallFailure(f"the app answered {said}" + (f": {detail}" if detail else ""), status=status)
        if unread is not None:
            more = ""
            if isinstance(unread, ReplyTooLarge) and unread.limit < int(http.max_reply_mb * 2**20):
                more = (f" (the most one reply may hold with {self.concurrency} calls in flight: fewer "
                        f"(--concurrency) read larger ones, up to http.max_reply_mb)")
            raise CallFailure(f"the app's reply ({said}) {unread}: not read{more}", status=status,
                              cause=reply_cause(str(unread)))
        if is_event_stream(content_type):  # server-sent events, read to the end (within the limits above)
            try:
                value = read_stream(content)
                check_depth(value, "the app's event stream is")
            except StreamError as exc:
                raise CallFailure(self._line(str(exc)), status=status, cause=reply_cause(str(exc))) from None
            except BadReply as exc:
                raise CallFailure(str(exc), status=status, cause=reply_cause(str(exc))) from None
            return value, status, ()
        text, note = decode_text(content, content_type)
        del content
        try:
            return parse_json(text), status, (note,) if note else ()
        except NotJSON:
            kind = resp.headers.get("content-type", "no content type")
            start = self._line(text)[:80]
            raise CallFailure(f"the app's reply is not JSON ({kind}; it starts {start!r})", status=status,
                              cause=reply_cause(f"not JSON {kind}")) from None
        except BadReply as exc:
            raise CallFailure(f"the app's reply ({said}) {exc}: not read", status=status,
                              cause=reply_cause(str(exc))) from None

    async def _exchange(self, client: httpx.AsyncClient, request: httpx.Request,
                        own_headers: set[str]) -> tuple[httpx.Response, bytes | BadReply]:
        """Send ``request``, following redirects as :mod:`.redirects` allows; (the last reply, its body
        or why it was not read)."""
        http = self.spec.http
        assert http is not None
        start = request.url
        kept = True
        hop_client: httpx.AsyncClient | None = None
        try:
            for hops in range(redirects.MAX_HOPS + 1):
                try:
                    resp = await (hop_client or client).send(request, stream=True)
                except httpx.ConnectError as exc:
                    if not hops:
                        raise
                    where = self.secrets.excerpt(str(request.url), 120)
                    raise CallFailure(f"cannot connect to {where}, where the app redirected "
                                      f"({self._line(str(exc) or type(exc).__name__)})", transient=True,
                                      cause="redirect unreachable") from None
                try:
                    if resp.status_code not in redirects.REDIRECTS:
                        try:
                            return resp, await read_body(resp, self.read_limit)
                        except BadReply as exc:
                            return resp, exc.with_traceback(None)  # its frames (and what they read) let go
                    try:  # in a thread: checking the hop's address resolves its name
                        hop = await asyncio.to_thread(
                            redirects.next_hop, resp.status_code, resp.headers.get("location"), request.url, start,
                            hops, follow=http.follow_redirects, allowed=self.allowed, policy=self.target.policy,
                            headers_kept=kept, show=lambda u: self.secrets.excerpt(u, 120))
                    except redirects.RedirectRefused as exc:
                        raise CallFailure(self.secrets.redact(str(exc)), status=resp.status_code,
                                          cause=f"redirect {resp.status_code}") from None
                finally:
                    await resp.aclose()
                kept = hop.same_origin
                dropped = {"host", "content-length", "cookie"} | (set() if kept else own_headers)
                headers = {k: v for k, v in request.headers.items() if k.lower() not in dropped}
                if hop_client is None and not hop.same_origin:
                    hop_client = self._hop_client()
                request = (hop_client or client).build_request(request.method, hop.url, headers=headers,
                                                                content=request.content)
            raise AssertionError("unreachable: next_hop refuses the hop after MAX_HOPS")
        finally:
            if hop_client is not None:
                await hop_client.aclose()

    def _hop_client(self) -> httpx.AsyncClient:
        """A client for a redirect to another origin: every connection checked (link-local always)."""
        policy = self.target.policy
        http = self.spec.http
        assert http is not None
        typed = policy.typed_url
        transport = guarded_transport(allow_private=policy.allow_private if typed else True,
                                      allow_loopback=policy.allow_loopback if typed else True)
        return httpx.AsyncClient(timeout=http.timeout_s, follow_redirects=False, trust_env=False, transport=transport)

    # -- one Python call -------------------------------------------------------------------------
    async def _python(self, row: Mapping[str, Any], _client: Any = None) -> tuple[Any, int | None, tuple[str, ...]]:
        fn = self.function
        assert fn is not None
        limit = self.spec.timeout_s or PYTHON_TIMEOUT_S
        deadline = asyncio.timeout(limit)
        try:
            async with deadline:
                if inspect.iscoroutinefunction(fn):
                    result = await fn(dict(row))
                else:
                    result = await _in_thread(fn, dict(row))
                if inspect.isawaitable(result):
                    result = await result
        except TimeoutError as exc:
            if deadline.expired():
                raise CallFailure(f"no answer within {limit:g} s (timeout_s): the call was abandoned",
                                  cause="timeout") from None
            raise CallFailure(self._line(f"{type(exc).__name__}: {exc}"), transient=True,
                              cause="python TimeoutError") from None
        except ConnectionError as exc:
            raise CallFailure(self._line(f"{type(exc).__name__}: {exc}"), transient=True,
                              cause=f"python {type(exc).__name__}") from None
        except Exception as exc:  # noqa: BLE001 - the function's own error is this question's error
            raise CallFailure(self._line(f"{self.spec.python} raised {type(exc).__name__}: {exc}"),
                              cause=f"python {type(exc).__name__}") from None
        try:
            check_depth(result, "the function's return value is")
        except BadReply as exc:
            raise CallFailure(str(exc), cause=reply_cause(str(exc))) from None
        return result, None, ()

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
        notes: tuple[str, ...] = ()
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
                        reply, status, notes = await once(row, client)
                    except CallFailure as exc:
                        status = exc.status
                        raise
                    finally:
                        latency = time.perf_counter() - t1
                    answer = extract(reply, self.target.paths, python=self.spec.python is not None)
        except CallFailure as exc:
            tried = f" (after {attempts} attempts)" if attempts > 1 else ""
            return Outcome(None, clean_text(self.secrets.redact(exc.message)) + tried, attempts, latency,
                           time.perf_counter() - t0, status, fatal=exc.kind in FATAL_KINDS, cause=exc.cause)
        except ReplyError as exc:
            message = clean_text(self.secrets.redact(str(exc)))
            return Outcome(None, message, attempts, latency, time.perf_counter() - t0, status,
                           cause=reply_cause(message))
        if len(answer.contexts) > MAX_PASSAGES:
            message = (f"the app gave {len(answer.contexts):,} passages: more than {MAX_PASSAGES:,} are not read "
                       "(is its number of passages, k, applied?)")
            return Outcome(None, message, attempts, latency, time.perf_counter() - t0, status,
                           cause=reply_cause(message))
        s = self.secrets

        def out(text: str) -> str:
            return clean_text(s.redact(text))

        calls = tuple(type(c).model_validate(clean_obj(s.redact_obj(c.model_dump()))) for c in answer.tool_calls)
        answer = Answer(out(answer.text), tuple(out(c) for c in answer.contexts),
                        tuple(out(i) for i in answer.context_ids), clean_obj(s.redact_obj(answer.usage)),
                        tuple(answer.notes) + notes, answer.context_scores, calls)
        return Outcome(answer, None, attempts, latency, time.perf_counter() - t0, status)


async def _in_thread(fn: Callable[..., Any], arg: Any) -> Any:
    """``fn(arg)`` on a daemon thread of its own: a call abandoned at its deadline goes on there
    without holding a worker of the run, nor the process when it exits."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def run() -> None:
        try:
            result: tuple[bool, Any] = (True, fn(arg))
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting call
            result = (False, exc)
        try:
            loop.call_soon_threadsafe(settle, *result)
        except RuntimeError:
            pass  # the run ended (its loop closed) while this call was abandoned

    threading.Thread(target=run, name="target-call", daemon=True).start()
    return await future



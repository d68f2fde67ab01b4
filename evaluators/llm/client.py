"""``LLMClient``: the only code that talks to an LLM SDK.

One client per ``LLMSettings`` owns:

* the SDK client (``groq.AsyncGroq`` or ``openai.AsyncOpenAI``; ``openai_compatible`` = the openai
  SDK with a base URL), created with ``max_retries=0`` so that retries happen here only — once, with
  rate limiting and accounting on every attempt — and with the per-call timeout;
* a private event loop in a daemon thread. Every request runs there, so the client works the same
  from plain scripts, from a running event loop (Jupyter) and from Streamlit's script thread, and
  chunks of one run share connections, limiter and semaphore;
* bounded concurrency (``asyncio.Semaphore(settings.concurrency)``, and ``run_all`` uses that many
  workers — never an unbounded gather);
* client-side rate limits with ``aiolimiter``: requests/min as evenly spaced requests (a leaky
  bucket of size 1 draining 0.98 x ``rpm``/60 per second: never more than ``rpm`` in any minute,
  nor a burst), tokens/min as a leaky bucket of ``tpm`` tokens (each request reserves its estimated prompt
  tokens + up to 1,024 output tokens);
* retries (tenacity) on 408/409/429/5xx, timeouts and connection errors: exponential backoff with
  jitter, or exactly the server's ``Retry-After`` / ``retry-after-ms`` when given (then every
  request of this client pauses until that moment, not only the one that got the 429);
* the persistent SQLite cache (``cache.py``) and usage/cost accounting (``prices.py``).

The API key is held in memory only: it is never part of a cache key, a log line, an exception
message (it is redacted) or ``public_dict``.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence, TypeVar

from pydantic import BaseModel, ValidationError

from ..types import Usage
from . import prices
from .cache import ReplyCache, make_key, open_cache, schema_fingerprint
from .errors import StructuredCallError
from .keys import check_settings, resolve_api_key
from .parsing import ReplyError, format_validation_error, parse_reply
from .retry import MAX_RETRY_AFTER_S, class_names, is_retryable, retry_after_s, should_retry, status_code, wait_s
from .settings import DUMMY_KEY, LLMSettings, settings_credentials
from .tokens import approx_message_tokens, approx_tokens

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Requests are spaced for 98 % of the requests/min limit, so network jitter between us and the
#: server cannot push a server-side minute window over the limit.
RPM_SAFETY = 0.98
#: Output tokens reserved per request by the tokens/min limiter.
TPM_OUTPUT_RESERVE = 1024
REASK = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with only the corrected JSON object, following the format asked for above."
)


@dataclass(frozen=True)
class StructuredResult:
    value: BaseModel
    usage: Usage
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Reply:
    text: str
    usage: Usage
    finish_reason: str | None


class _NeedsFallback(Exception):
    """The server rejected an optional parameter; retry without it."""


class LLMClient:
    """See the module docstring. Construct via :func:`get_client` to share one client (and its
    rate limits) per settings in a process."""

    def __init__(self, settings: LLMSettings) -> None:
        self._api_key = check_settings(settings, "an LLM client")
        self.settings = settings
        self.provider = settings.provider
        self.model = settings.model.strip()
        #: Where requests go (None = the SDK's official endpoint), by the same rule as the key.
        self.base_url = settings_credentials(settings).base_url
        self.cache_warning: str | None = None
        try:
            self.cache: ReplyCache | None = open_cache(settings.cache_path)
        except (OSError, sqlite3.Error) as exc:  # e.g. a read-only home on a hosted Space
            self.cache = None
            self.cache_warning = f"LLM cache disabled: cannot open {settings.cache_path or 'default path'}: {exc}"
            log.warning(self.cache_warning)
        self.concurrency = max(1, int(settings.concurrency))
        self._usage = Usage()
        self._usage_lock = threading.Lock()
        self._json_mode_ok = settings.json_mode is not False
        self._dropped: set[str] = set()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._sdk: Any = None
        self._sem: asyncio.Semaphore | None = None
        self._rpm: Any = None
        self._tpm: Any = None
        self._pause_until = 0.0
        self._closed = False

    # ------------------------------------------------------------------ public API
    @property
    def usage(self) -> Usage:
        with self._usage_lock:
            return self._usage

    def describe(self) -> str:
        return f"{self.provider}/{self.model}"

    async def complete(self, messages: list[dict[str, Any]], *, json_mode: bool = False,
                       temperature: float | None = None, cache_salt: str = "") -> tuple[str, Usage]:
        """Free-text (or JSON-mode) completion, cached. Raises StructuredCallError on permanent failure."""
        return await self._on_loop(self._complete(messages, json_mode, temperature, cache_salt))

    async def structured(self, messages: list[dict[str, Any]], schema: type[BaseModel], *,
                         temperature: float | None = None, cache_salt: str = "",
                         validate: Callable[[BaseModel], BaseModel] | None = None) -> StructuredResult:
        """A reply parsed into ``schema`` (then passed through ``validate``, which may return another
        model or raise ValueError). Fence-strip, json-repair, validate; on failure re-ask once with
        the error; raises StructuredCallError(reason) when it still fails or the call fails for good.
        Only a reply that validated is cached."""
        return await self._on_loop(self._structured(messages, schema, temperature, cache_salt, validate))

    def run_all(self, fns: Sequence[Callable[[], Awaitable[T]]]) -> list[T | Exception]:
        """Run zero-arg async callables with at most ``concurrency`` in flight; results (or the
        exception each raised) in order. Blocking; callable from any thread but the client's own."""
        fns = list(fns)
        if not fns:
            return []
        loop, inside = self._loop_and_inside()
        if inside:
            raise RuntimeError("run_all() cannot be called from inside the client's own loop; "
                               "await the calls instead")

        async def runner() -> list[Any]:
            results: list[Any] = [None] * len(fns)
            todo = iter(range(len(fns)))

            async def worker() -> None:
                for i in todo:  # one shared iterator: each index is taken once
                    try:
                        results[i] = await fns[i]()
                    except Exception as exc:  # noqa: BLE001 - reported per item
                        results[i] = exc

            await asyncio.gather(*(worker() for _ in range(min(self.concurrency, len(fns)))))
            return results

        fut = asyncio.run_coroutine_threadsafe(runner(), loop)
        try:
            return fut.result()
        except BaseException:
            fut.cancel()
            raise

    def close(self) -> None:
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
            self._closed = True
        if loop is None:
            return
        if self._sdk is not None:
            try:
                asyncio.run_coroutine_threadsafe(self._sdk.close(), loop).result(timeout=5)
            except Exception:  # noqa: BLE001
                pass
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=5)
        loop.close()

    def __enter__(self) -> "LLMClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ cache keys
    def _key(self, kind: str, messages: list[dict[str, Any]], **params: Any) -> str:
        return make_key(kind=kind, provider=self.provider, model=self.model, base_url=self.base_url,
                        max_tokens=self.settings.max_tokens, messages=messages, **params)

    def structured_key(self, messages: list[dict[str, Any]], schema: type[BaseModel],
                       temperature: float | None = None, cache_salt: str = "") -> str:
        return self._key("structured", messages, schema=schema_fingerprint(schema),
                         temperature=self._temp(temperature), salt=cache_salt)

    def is_cached(self, key: str) -> bool:
        return self.cache is not None and self.cache.contains(key)

    # ------------------------------------------------------------------ loop plumbing
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise RuntimeError("this LLMClient is closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                self._thread = threading.Thread(target=run, name=f"llm-{self.describe()}", daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    def _loop_and_inside(self) -> tuple[asyncio.AbstractEventLoop, bool]:
        """The client's loop (started if need be), and whether the caller runs on it."""
        loop = self._ensure_loop()
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        return loop, running is loop

    async def _on_loop(self, coro: Awaitable[T]) -> T:
        loop, inside = self._loop_and_inside()
        if inside:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))  # type: ignore[arg-type]

    def _setup_on_loop(self) -> None:
        if self._sem is not None:
            return
        from aiolimiter import AsyncLimiter

        s = self.settings
        self._sem = asyncio.Semaphore(self.concurrency)
        self._rpm = AsyncLimiter(1, 60.0 / (s.rpm * RPM_SAFETY)) if s.rpm else None
        self._tpm = AsyncLimiter(s.tpm, 60.0) if s.tpm else None
        self._sdk = self._make_sdk()

    def _make_sdk(self) -> Any:
        s = self.settings
        kw: dict[str, Any] = {"api_key": self._api_key, "timeout": s.timeout_s, "max_retries": 0}
        if self.base_url:
            kw["base_url"] = self.base_url
        if self.provider == "groq":
            import groq

            return groq.AsyncGroq(**kw)
        import openai

        return openai.AsyncOpenAI(**kw)

    # ------------------------------------------------------------------ calls
    def _temp(self, temperature: float | None) -> float:
        return self.settings.temperature if temperature is None else float(temperature)

    def _redact(self, text: str) -> str:
        if self._api_key and self._api_key != DUMMY_KEY and len(self._api_key) >= 4:
            text = text.replace(self._api_key, "***")
        return text

    def _add_usage(self, u: Usage) -> None:
        with self._usage_lock:
            self._usage = self._usage + u

    def _request_kwargs(self, messages: list[dict[str, Any]], json_mode: bool, temperature: float) -> dict:
        kw: dict[str, Any] = {"model": self.model, "messages": messages}
        if "temperature" not in self._dropped:
            kw["temperature"] = temperature
        mt = self.settings.max_tokens
        if mt:
            if self.provider == "openai" or "max_tokens" in self._dropped:
                kw["max_completion_tokens"] = mt
            else:
                kw["max_tokens"] = mt
        if json_mode and self._json_mode_ok:
            kw["response_format"] = {"type": "json_object"}
        return kw

    def _fallback_for(self, exc: BaseException, kw: dict[str, Any]) -> bool:
        """True (after adjusting state) when a 400/422 names an optional parameter we can drop."""
        if status_code(exc) not in (400, 422):
            return False
        msg = str(getattr(exc, "message", "") or exc).lower()
        if "response_format" in kw and ("response_format" in msg or "json" in msg) \
                and self.settings.json_mode is None:
            self._json_mode_ok = False
            log.warning("%s rejected JSON mode; continuing without it", self.describe())
            return True
        if "temperature" in kw and "temperature" in msg and "temperature" not in self._dropped:
            self._dropped.add("temperature")
            return True
        if "max_tokens" in kw and "max_tokens" in msg and "max_tokens" not in self._dropped:
            self._dropped.add("max_tokens")
            return True
        return False

    def _describe_error(self, exc: BaseException, attempts: int) -> str:
        s = status_code(exc)
        msg = str(getattr(exc, "message", None) or exc).strip().splitlines()[0:1]
        detail = (msg[0] if msg else "")[:300]
        names = class_names(exc)
        if "APITimeoutError" in names or isinstance(exc, asyncio.TimeoutError):
            what = f"timed out after {self.settings.timeout_s:g} s"
        elif s is not None:
            what = f"HTTP {s} ({type(exc).__name__})"
        elif "APIConnectionError" in names:
            what = "connection failed"
        else:
            what = type(exc).__name__
        tries = f" after {attempts} attempt{'s' if attempts != 1 else ''}"
        ra = retry_after_s(exc)
        if ra is not None and ra > MAX_RETRY_AFTER_S:
            tries += f" (the server asks to retry after {ra:.0f} s: quota exhausted?)"
        return self._redact(f"{self.describe()}: {what}{tries}" + (f": {detail}" if detail else ""))

    async def _send(self, messages: list[dict[str, Any]], json_mode: bool, temperature: float,
                    est_tokens: int) -> tuple[Any, float]:
        """One HTTP request under the semaphore and the rate limits."""
        assert self._sem is not None
        async with self._sem:
            while True:  # a 429's Retry-After pauses every request of this client
                pause = self._pause_until - time.monotonic()
                if pause <= 0:
                    break
                await asyncio.sleep(pause)
            if self._rpm is not None:
                await self._rpm.acquire()
            if self._tpm is not None:
                await self._tpm.acquire(min(est_tokens, self.settings.tpm or est_tokens))
            kw = self._request_kwargs(messages, json_mode, temperature)
            t0 = time.perf_counter()
            try:
                resp = await self._sdk.chat.completions.create(**kw)
            except Exception as exc:
                ra = retry_after_s(exc)
                if ra is not None and ra <= MAX_RETRY_AFTER_S:  # pause the others before they go
                    self._pause_until = max(self._pause_until, time.monotonic() + ra)
                if self._fallback_for(exc, kw):
                    raise _NeedsFallback() from exc
                raise
            return resp, time.perf_counter() - t0

    async def _call(self, messages: list[dict[str, Any]], json_mode: bool, temperature: float) -> _Reply:
        """Request with retries; raises StructuredCallError when it fails for good."""
        from tenacity import AsyncRetrying, RetryError, retry_if_exception, stop_after_attempt

        self._setup_on_loop()
        est = approx_message_tokens(messages) + min(self.settings.max_tokens or TPM_OUTPUT_RESERVE,
                                                    TPM_OUTPUT_RESERVE)
        attempts = 0
        t_start = time.perf_counter()

        def wait(state: Any) -> float:
            exc = state.outcome.exception() if state.outcome else None
            return wait_s(state.attempt_number, exc, self.settings.retry_base_s, self.settings.retry_max_s)

        fallbacks = 0
        while True:
            try:
                async for attempt in AsyncRetrying(
                    stop=stop_after_attempt(max(1, self.settings.max_retries + 1)),
                    wait=wait,
                    retry=retry_if_exception(should_retry),
                    reraise=True,
                ):
                    with attempt:
                        attempts += 1
                        resp, _latency = await self._send(messages, json_mode, temperature, est)
                break
            except _NeedsFallback:
                fallbacks += 1
                if fallbacks > 3:
                    raise StructuredCallError(f"{self.describe()}: the server rejected the request "
                                              "parameters", self._failed_usage(attempts, t_start)) from None
                continue
            except RetryError as exc:  # pragma: no cover - reraise=True makes this rare
                raise StructuredCallError(self._describe_error(exc, attempts),
                                          self._failed_usage(attempts, t_start)) from None
            except Exception as exc:  # noqa: BLE001
                raise StructuredCallError(self._describe_error(exc, attempts),
                                          self._failed_usage(attempts, t_start)) from None
        choice = resp.choices[0] if getattr(resp, "choices", None) else None
        text = (choice.message.content if choice is not None and choice.message is not None else None) or ""
        finish = getattr(choice, "finish_reason", None) if choice is not None else None
        u = getattr(resp, "usage", None)
        pt = int(getattr(u, "prompt_tokens", 0) or 0) or approx_message_tokens(messages)
        ct = int(getattr(u, "completion_tokens", 0) or 0) or approx_tokens(text)
        usage = Usage(calls=1, retries=attempts - 1, prompt_tokens=pt, completion_tokens=ct,
                      cost_usd=prices.cost_usd(pt, ct, self.model, self.provider,
                                               self.settings.price_per_mtok),
                      latency_s=time.perf_counter() - t_start)
        self._add_usage(usage)
        return _Reply(text, usage, finish)

    def _failed_usage(self, attempts: int, t_start: float) -> Usage:
        u = Usage(retries=attempts, latency_s=time.perf_counter() - t_start)
        self._add_usage(u)
        return u

    async def _complete(self, messages: list[dict[str, Any]], json_mode: bool,
                        temperature: float | None, cache_salt: str) -> tuple[str, Usage]:
        t = self._temp(temperature)
        key = self._key("complete", messages, json_mode=json_mode, temperature=t, salt=cache_salt)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                u = Usage(cached_calls=1)
                self._add_usage(u)
                return hit[0], u
        reply = await self._call(messages, json_mode, t)
        if self.cache is not None:
            self.cache.put(key, "complete", self.model, reply.text, {"finish_reason": reply.finish_reason})
        return reply.text, reply.usage

    @staticmethod
    def _parse(text: str, schema: type[BaseModel],
               validate: Callable[[BaseModel], BaseModel] | None) -> tuple[BaseModel, list[str]]:
        value, notes = parse_reply(text, schema)
        if validate is not None:
            try:
                value = validate(value)
            except ValidationError as exc:
                raise ReplyError(format_validation_error(exc)) from None
            except (ValueError, TypeError, KeyError) as exc:
                raise ReplyError(str(exc)) from None
        return value, notes

    async def _structured(self, messages: list[dict[str, Any]], schema: type[BaseModel],
                          temperature: float | None, cache_salt: str,
                          validate: Callable[[BaseModel], BaseModel] | None) -> StructuredResult:
        t = self._temp(temperature)
        key = self.structured_key(messages, schema, temperature, cache_salt)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                try:
                    value, notes = self._parse(hit[0], schema, validate)
                    u = Usage(cached_calls=1)
                    self._add_usage(u)
                    return StructuredResult(value, u, tuple(hit[1].get("notes", [])) + tuple(notes))
                except ReplyError:
                    pass  # validation rules changed since it was cached: ask again
        first = await self._call(messages, True, t)
        usage = first.usage
        pre_notes: list[str] = []
        try:
            value, notes = self._parse(first.text, schema, validate)
            final = first.text
        except ReplyError as e1:
            err = str(e1)
            if first.finish_reason == "length":
                err += " (the reply was cut off at the output token limit: answer more briefly)"
            convo = [*messages, {"role": "assistant", "content": first.text[:8000]},
                     {"role": "user", "content": REASK.format(error=err)}]
            try:
                second = await self._call(convo, True, t)
            except StructuredCallError as exc:
                raise StructuredCallError(f"reply unusable ({e1}); the re-ask failed: {exc.reason}",
                                          usage + exc.usage) from None
            usage = usage + second.usage
            try:
                value, notes = self._parse(second.text, schema, validate)
            except ReplyError as e2:
                raise StructuredCallError(
                    self._redact(f"{self.describe()}: reply unusable after one re-ask: {e2} "
                                 f"(first reply: {e1})"), usage) from None
            final = second.text
            pre_notes.append(f"re-asked once after: {err}")
        if self.cache is not None:
            self.cache.put(key, "structured", self.model, final, {"notes": pre_notes})
        return StructuredResult(value, usage, tuple(pre_notes) + tuple(notes))


__all__ = ["LLMClient", "StructuredResult", "check_settings", "is_retryable", "resolve_api_key", "retry_after_s"]

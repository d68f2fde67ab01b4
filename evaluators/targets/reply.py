"""An app's reply body: read within its limit, decoded, parsed — whatever the app sends.

Contract:

* :func:`read_body` reads a streamed reply's raw bytes and undoes its ``Content-Encoding``
  (``gzip`` / ``x-gzip``, ``deflate``, ``identity``, several in a row) piece by piece: no decompression
  step yields more than 64 KB, and the body stops at ``limit`` bytes compressed *and* decoded — a
  reply over it raises :class:`ReplyTooLarge` (a declared ``Content-Length`` over it before
  anything is read), so a gzip bomb costs at most ``limit`` bytes, however many calls are in
  flight. Another encoding (``br``, ``zstd``) or broken compressed data raises :class:`BadReply`.
  The request says what is read: :data:`ACCEPT_ENCODING`.
* :func:`reply_limit` — the most one reply may hold: ``http.max_reply_mb``, and no more than a
  share of :data:`READ_BUDGET_BYTES` per call in flight, so the bytes held at once stay under the
  budget at any concurrency.
* :func:`decode_text` — the body as text: the declared charset, else UTF-8; bytes that are not
  valid are read as U+FFFD and said in a note.
* :func:`parse_json` — the text as JSON; :class:`BadReply` for what is not JSON, a number too long,
  or nesting over :data:`MAX_DEPTH` (a reply nested 100,000 deep is refused, never a
  ``RecursionError``). :func:`check_depth` checks any value (a Python target's return) the same
  way, without recursion (a value that contains itself is "too deep").
* :func:`clean_text` — a string with lone surrogates (``"\\ud800"`` in JSON) replaced, so every
  string can be written as UTF-8.
"""

from __future__ import annotations

import codecs
import json
import zlib
from typing import Any, AsyncIterator, Iterator

import httpx

#: The Accept-Encoding of every request: the encodings :func:`read_body` undoes within its limit.
ACCEPT_ENCODING = "gzip, deflate"
#: The largest reply one call reads by default (``http.max_reply_mb``).
MAX_REPLY_BYTES = 32 * 1024 * 1024
#: Reply bytes the calls in flight may hold together: each reads at most its share (8 calls: 8 MB
#: each; 2: 32 MB). Measured (bench/hostile_memory.py): 64 calls each reading a reply over its share
#: hold ~1.5x the budget above the process's floor.
READ_BUDGET_BYTES = 64 * 1024 * 1024
#: The smallest share a call gets, whatever the concurrency (256 calls in flight: 64 MB).
MIN_SHARE_BYTES = 256 * 1024
#: Deepest nesting of lists / objects read in a reply.
MAX_DEPTH = 100
#: Most lists / objects walked in one value (a Python object sharing its parts could be walked forever).
MAX_NODES = 2_000_000
_STEP = 64 * 1024


class BadReply(ValueError):
    """A reply that cannot be read (the message says why, never quoting it)."""


class NotJSON(BadReply):
    """A body that does not parse as JSON."""


class ReplyTooLarge(BadReply):
    def __init__(self, limit: int, what: str = "") -> None:
        self.limit = limit
        super().__init__(f"is over {limit:,} bytes{what}")


def reply_limit(max_reply_bytes: int, concurrency: int) -> int:
    """What one reply may hold (see the module doc)."""
    share = max(MIN_SHARE_BYTES, READ_BUDGET_BYTES // max(1, concurrency))
    return max(1, min(max_reply_bytes, share))


def _codings(header: str | None) -> list[str]:
    names = [c.strip().lower() for c in (header or "").split(",") if c.strip()]
    return [c for c in names if c != "identity"]


class _Inflate:
    """One decompression step (gzip, or deflate with or without its zlib header), bounded per call."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.first = True
        self.d = zlib.decompressobj(zlib.MAX_WBITS | 16 if coding in ("gzip", "x-gzip") else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.coding == "deflate" and self.first and data:
            self.first = False
            try:  # "deflate" is sent with the zlib header or (wrongly, often) without
                zlib.decompressobj().decompress(data[:64], 0)
            except zlib.error:
                self.d = zlib.decompressobj(-zlib.MAX_WBITS)
        while data:
            try:
                piece = self.d.decompress(data, _STEP)
            except zlib.error:
                raise BadReply(f"has broken {self.coding} data") from None
            if piece:
                yield piece
            if self.d.eof and self.d.unused_data and self.coding in ("gzip", "x-gzip"):
                data = self.d.unused_data  # another gzip member
                self.d = zlib.decompressobj(zlib.MAX_WBITS | 16)
            else:
                data = self.d.unconsumed_tail

    def finish(self) -> None:
        if not self.d.eof:
            raise BadReply(f"ends before its {self.coding} data does")


async def read_body(resp: httpx.Response, limit: int) -> bytes:
    """The decoded body of a streamed reply (see the module doc)."""
    declared = resp.headers.get("content-length", "").strip()
    if declared.isdigit() and int(declared) > limit:
        raise ReplyTooLarge(limit, " (its Content-Length)")
    codings = _codings(resp.headers.get("content-encoding"))
    unknown = [c for c in codings if c not in ("gzip", "x-gzip", "deflate")]
    if unknown:
        raise BadReply(f"is compressed with {unknown[0]!r}, which is not read (the request accepts "
                       f"{ACCEPT_ENCODING})")
    steps = [_Inflate(c) for c in reversed(codings)]  # the last encoding applied is undone first
    # pieces kept apart until the end: one buffer grown by 64 KB steps in each of 64 calls at once
    # fragments the heap (measured: peak RSS 2.5x the bytes held)
    body: list[bytes] = []
    size = 0
    raw = 0

    def through(data: bytes, i: int) -> Iterator[bytes]:
        if i == len(steps):
            yield data
            return
        for piece in steps[i].feed(data):
            yield from through(piece, i + 1)

    chunks: AsyncIterator[bytes] = resp.aiter_raw()
    async for chunk in chunks:
        raw += len(chunk)
        if raw > limit:
            raise ReplyTooLarge(limit, " (compressed)" if steps else "")
        for piece in through(chunk, 0):
            size += len(piece)
            if size > limit:
                body.clear()  # freed now, not when the error's traceback (a cycle) is collected
                raise ReplyTooLarge(limit, f" once decompressed ({', '.join(codings)})" if steps else "")
            body.append(piece)
    for step in steps:
        step.finish()
    return b"".join(body)


def _charset(content_type: str | None) -> str:
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset":
            name = value.strip().strip('"').lower()
            try:
                return codecs.lookup(name).name
            except LookupError:
                return "utf-8"
    return "utf-8"


def decode_text(content: bytes, content_type: str | None = None) -> tuple[str, str | None]:
    """(the body as text, a note when some bytes were not valid in its charset)."""
    charset = _charset(content_type)
    if charset == "utf-8":
        charset = "utf-8-sig"
    try:
        return content.decode(charset), None
    except UnicodeDecodeError as exc:
        text = content.decode(charset, errors="replace")
        return text, (f"the reply is not valid {exc.encoding.replace('-sig', '').upper()} (a bad byte at "
                      f"{exc.start:,}): its bad bytes are read as U+FFFD")


def parse_json(text: str) -> Any:
    """The text as JSON (see the module doc)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise BadReply(f"is JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise NotJSON(f"is not JSON ({str(exc).split(':')[0]})") from None
    check_depth(value, "is JSON")
    return value


def check_depth(value: Any, what: str) -> None:
    """:class:`BadReply` ("``what`` nested deeper than …") when ``value`` nests lists / dicts / tuples
    deeper than :data:`MAX_DEPTH`, or holds more than :data:`MAX_NODES` of them."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen = 0
    while stack:
        v, depth = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise BadReply(f"{what} too large: more than {MAX_NODES:,} lists and objects")
        if isinstance(v, dict):
            children: Any = v.values()
        elif isinstance(v, (list, tuple)):
            children = v
        else:
            continue
        if depth > MAX_DEPTH:
            raise BadReply(f"{what} nested deeper than {MAX_DEPTH} levels")
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list, tuple)))


def clean_text(s: str) -> str:
    """``s`` with lone surrogates replaced by U+FFFD (every string writable as UTF-8)."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def clean_obj(obj: Any) -> Any:
    """A JSON value (already depth-checked) with :func:`clean_text` applied to every string."""
    if isinstance(obj, str):
        return clean_text(obj)
    if isinstance(obj, list):
        return [clean_obj(x) for x in obj]
    if isinstance(obj, dict):
        return {clean_text(str(k)): clean_obj(v) for k, v in obj.items()}
    return obj

"""The values a run must never show — an app's token, a ``${VAR}`` value — masked in every form an
app may repeat them in, before any text is cut, written or printed.

Contract of :class:`Secrets`:

* :meth:`~Secrets.add` a value as sent (a ``${VAR}`` value, a credential header's value, each of
  its words of 8 characters or more); :meth:`~Secrets.add_header` also reads ``Basic`` credentials
  (base64 of ``user:password``) and adds what they decode to, and the password alone.
* :meth:`~Secrets.redact` replaces every occurrence with ``***`` in any of these forms, and in any
  mix of them character by character: as sent; JSON-escaped (``\\/``, ``\\u002f``, with one to eight
  backslashes: a JSON string inside JSON); URL-encoded (``%2F`` / ``%2f``, ``%252F``, ``+`` for a
  space, UTF-8 bytes); HTML character references (``&#47;``, ``&#x2F;``, ``&amp;``); and base64
  (standard and URL-safe alphabets, at the three byte alignments it can start at inside a longer
  encoded text, e.g. ``user:<token>`` in a ``Basic`` header).
* ``redact(text, cut=True)`` is for a text that is itself the start of a longer one (a body read
  up to a limit): what may be the start of a secret at its end is dropped too.
* :meth:`~Secrets.excerpt` — at most N characters of a text on one line, masked *before* it is cut.

Values shorter than :data:`MIN_SECRET_CHARS` are not masked in free text (a one-letter value would
mangle every reply); base64 forms shorter than 8 characters are not masked.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

MASK = "***"
#: Secrets shorter than this are not masked in free text (a one-letter value would mangle every reply).
MIN_SECRET_CHARS = 4
#: A base64 form shorter than this is not masked (too likely to occur by chance).
MIN_BASE64_CHARS = 8
#: Words of a credential header value at least this long are secrets on their own ("Bearer <token>").
MIN_WORD_CHARS = 8
_BACKSLASHES = r"\\{1,8}"
_NAMED = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "(?:apos|#39)"}


def _char(c: str) -> tuple[str, int]:
    """(regex of every form of one character, the longest text it may match)."""
    cp = ord(c)
    alts = [re.escape(c)]
    if cp > 0xFFFF:
        hi, lo = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
        alts.append(f"{_BACKSLASHES}(?i:u{hi:04x}){_BACKSLASHES}(?i:u{lo:04x})")
        longest = 2 * (8 + 5)
    else:
        alts.append(f"{_BACKSLASHES}(?i:u{cp:04x})")
        longest = 8 + 5
    if c in '/"\\':
        alts.append(_BACKSLASHES + re.escape(c))
    raw = c.encode("utf-8", "surrogatepass")
    alts.append("".join(f"%(?:25)?(?i:{b:02x})" for b in raw))
    longest = max(longest, 5 * len(raw))
    if c == " ":
        alts.append(r"\+")
    alts.append(f"&#0*{cp};")
    alts.append(f"&#(?i:x)0*(?i:{cp:x});")
    longest = max(longest, len(f"&#x0{cp:x};") + 4)
    if c in _NAMED:
        alts.append(f"&{_NAMED[c]};")
    return "(?:" + "|".join(alts) + ")", longest


def _pattern(value: str) -> tuple[str, int]:
    parts = [_char(c) for c in value]
    return "".join(p for p, _ in parts), sum(n for _, n in parts)


def base64_forms(value: str) -> list[str]:
    """The base64 text ``value``'s bytes become wherever they start in an encoded text: for each of
    the three alignments, the characters that depend on ``value`` alone (standard and URL-safe)."""
    raw = value.encode("utf-8", "surrogatepass")
    out: list[str] = []
    for offset in range(3):
        enc = base64.b64encode(b"\0" * offset + raw + b"\0\0").decode("ascii")
        first = -(-8 * offset // 6)  # ceil: the first character made of value's bits only
        last = (8 * (offset + len(raw))) // 6  # exclusive
        core = enc[first:last]
        if len(core) >= MIN_BASE64_CHARS:
            out.append(core)
            safe = core.translate(str.maketrans("+/", "-_"))
            if safe != core:
                out.append(safe)
    return out


class Secrets:
    """The values that must never be shown (see the module doc)."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._longest = 0

    def add(self, value: str) -> None:
        """A value as sent, masked in every form (see the module doc)."""
        if len(value) < MIN_SECRET_CHARS or value in self._values:
            return
        self._values.add(value)
        self._pattern = None

    def add_header(self, value: str) -> None:
        """A credential header's value: the whole, each long word, and ``Basic`` credentials decoded."""
        self.add(value)
        words = value.split()
        for word in words:
            if len(word) >= MIN_WORD_CHARS:
                self.add(word)
        if len(words) == 2 and words[0].lower() == "basic":
            try:
                decoded = base64.b64decode(words[1] + "=" * (-len(words[1]) % 4), validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                return
            self.add(decoded)
            password = decoded.partition(":")[2]
            self.add(password)

    def __bool__(self) -> bool:
        return bool(self._values)

    def _compiled(self) -> re.Pattern[str]:
        if self._pattern is None:
            forms = {f for v in self._values for f in (v, *base64_forms(v))}
            built = sorted((_pattern(f) for f in forms), key=lambda p: p[1], reverse=True)
            # every form starts with its first character, or with how it is escaped: a lookahead on
            # that set lets the scan skip other positions without trying each form (4x faster)
            first = {f[0] for f in forms} | {"\\", "%", "&", "+"}
            starts = "[" + "".join(re.escape(c) for c in sorted(first)) + "]"
            self._pattern = re.compile(f"(?={starts})(?:" + "|".join(p for p, _ in built) + ")")
            self._longest = max(n for _, n in built)
        return self._pattern

    @property
    def longest(self) -> int:
        """The most characters one masked occurrence may take, in any of its forms."""
        if not self._values:
            return 0
        self._compiled()
        return self._longest

    def redact(self, text: str, cut: bool = False) -> str:
        """``text`` with every form of every secret masked. ``cut``: ``text`` is the start of a longer
        text, so its last :attr:`longest` characters may hold the start of a secret: they are dropped
        unless masked whole."""
        if not self._values or not text:
            return text
        pattern = self._compiled()
        if not cut:
            return pattern.sub(MASK, text)
        keep = len(text) - self._longest
        out: list[str] = []
        pos = 0
        for m in pattern.finditer(text):
            if m.start() >= keep:
                break
            out.append(text[pos:m.start()])
            out.append(MASK)
            pos = m.end()
        if pos < keep:
            out.append(text[pos:keep])
        return "".join(out)

    def excerpt(self, text: str, limit: int) -> str:
        """At most ``limit`` characters of ``text`` on one line (``…`` when cut), masked before cutting.
        Only the first 64 KB (and what a secret there may reach) are read."""
        window = 65536 + self.longest
        s = self.redact(text[:window], cut=len(text) > window)
        s = " ".join(s.split())
        return s if len(s) <= limit else s[: limit - 1] + "…"

    def redact_obj(self, obj: Any) -> Any:
        """``obj`` (a JSON value) with every string redacted."""
        if not self._values:
            return obj
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, list):
            return [self.redact_obj(x) for x in obj]
        if isinstance(obj, dict):
            return {self.redact(str(k)): self.redact_obj(v) for k, v in obj.items()}
        return obj

"""A lenient JSON reader that keeps where every value sits in the original text.

``scan(text)`` returns the top-level values of ``text`` (one for a JSON document, several for JSON
Lines) as :class:`Node` trees whose every node carries its ``(start, end)`` character span, and an
object member its key's span too — what ``json.loads`` cannot give. It never recurses (a document
nested 100,000 deep costs a list, not the interpreter's stack) and runs in time linear in the text.

Lenient where a person's "JSON" usually is: trailing commas, ``//`` and ``/* */`` comments,
single-quoted strings, Python's ``True`` / ``False`` / ``None``, ``NaN`` / ``Infinity``, and a
document cut short (open strings and brackets are closed at the end; ``Scan.repairs`` says so).
Anything else raises :class:`ScanError` with the offset where reading stopped; the caller
(``detect``) then tries ``json_repair`` or treats the text as prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from json import JSONDecodeError
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

_WS = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)+", re.S)
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None,
             "NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_LITERAL = re.compile(r"-?Infinity|NaN|true|false|null|True|False|None")
_SQ_ESC = re.compile(r"\\(.)", re.S)


class ScanError(ValueError):
    """The text is not (lenient) JSON; ``pos`` is where reading stopped."""

    def __init__(self, msg: str, pos: int) -> None:
        super().__init__(f"{msg} at character {pos}")
        self.pos = pos


@dataclass
class Node:
    """One JSON value: ``kind`` is "object", "array" or "scalar"; ``value`` the Python value of a
    scalar; ``items`` the members: (key, key_start, child) for an object, (None, -1, child) for an
    array. ``raw_escaped``: a string scalar whose source text holds escapes (offsets of its decoded
    value then need :func:`source_offsets`)."""

    kind: str
    start: int
    end: int = -1
    value: Any = None
    items: list[tuple[str | None, int, "Node"]] = field(default_factory=list)
    quoted: bool = False
    raw_escaped: bool = False


@dataclass
class Scan:
    roots: list[Node]
    repairs: list[str]


def _skip(text: str, pos: int) -> int:
    m = _WS.match(text, pos)
    return m.end() if m else pos


def _string(text: str, pos: int, repairs: list[str]) -> tuple[str, int, bool]:
    """(decoded value, end offset, source holds escapes) of the string that opens at ``pos``."""
    quote = text[pos]
    if quote == '"':
        try:
            value, end = scanstring(text, pos + 1, False)
        except JSONDecodeError as exc:
            close = text.find('"', pos + 1)
            if close >= 0:  # a control character or a bad escape inside: read it as written
                raw = text[pos + 1:close]
                return raw, close + 1, "\\" in raw
            if "Unterminated" not in exc.msg:
                raise ScanError(exc.msg, exc.pos) from None
            repairs.append("closed an unterminated string")
            return text[pos + 1:], len(text), "\\" in text[pos + 1:]
        return value, end, "\\" in text[pos + 1:end - 1]
    i = pos + 1
    n = len(text)
    while i < n and text[i] != "'":
        i += 2 if text[i] == "\\" else 1
    raw = text[pos + 1:min(i, n)]
    if i >= n:
        repairs.append("closed an unterminated string")
    value = _SQ_ESC.sub(lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), raw)
    return value, min(i + 1, n), "\\" in raw


def _scalar(text: str, pos: int, repairs: list[str]) -> Node:
    ch = text[pos]
    if ch in "\"'":
        text_value, end, esc = _string(text, pos, repairs)
        return Node("scalar", pos, end, text_value, quoted=True, raw_escaped=esc)
    m = _NUMBER.match(text, pos)
    lit = _LITERAL.match(text, pos)
    if lit and (not m or lit.end() > m.end()):
        return Node("scalar", pos, lit.end(), _LITERALS[lit.group(0)])
    if m:
        raw = m.group(0)
        value: Any = float(raw) if any(c in raw for c in ".eE") else int(raw)
        return Node("scalar", pos, m.end(), value)
    raise ScanError(f"unexpected {text[pos]!r}", pos)


def scan(text: str) -> Scan:
    """The top-level values of ``text`` (ScanError when it is not lenient JSON / JSON Lines)."""
    repairs: list[str] = []
    roots: list[Node] = []
    n = len(text)
    pos = _skip(text, 0)
    while pos < n:
        root, pos = _value(text, pos, repairs)
        roots.append(root)
        pos = _skip(text, pos)
        if pos < n and text[pos] == ",":  # a stray comma between JSON Lines records
            pos = _skip(text, pos + 1)
    if not roots:
        raise ScanError("no JSON value", 0)
    return Scan(roots, repairs)


def _value(text: str, pos: int, repairs: list[str]) -> tuple[Node, int]:
    """One value starting at ``pos`` (an explicit stack: no recursion)."""
    n = len(text)
    if text[pos] not in "{[":
        node = _scalar(text, pos, repairs)
        return node, node.end
    root = Node("object" if text[pos] == "{" else "array", pos)
    stack = [root]
    pos += 1
    pending_key: tuple[str, int] | None = None
    expect_value = True  # after "{", "[", "," or ":"
    while stack:
        pos = _skip(text, pos)
        top = stack[-1]
        if pos >= n:  # cut short: close what is open
            repairs.append("closed brackets left open at the end")
            while stack:
                stack.pop().end = n
            return root, n
        ch = text[pos]
        if ch in "}]":
            if (ch == "}") != (top.kind == "object"):
                raise ScanError(f"unexpected {ch!r}", pos)
            if pending_key is not None:
                raise ScanError("a key without a value", pos)
            if expect_value and top.items:
                repairs.append("ignored a trailing comma")
            top.end = pos + 1
            stack.pop()
            pos += 1
            expect_value = False
            continue
        if ch == ",":
            if expect_value and not (top.items or pending_key):
                raise ScanError("unexpected ','", pos)
            if expect_value:
                raise ScanError("two commas in a row", pos)
            pos += 1
            expect_value = True
            continue
        if not expect_value:
            raise ScanError("a missing comma", pos)
        if top.kind == "object" and pending_key is None:
            if ch not in "\"'":
                raise ScanError("an object key that is not a string", pos)
            key, end, _ = _string(text, pos, repairs)
            colon = _skip(text, end)
            if colon >= n or text[colon] != ":":
                raise ScanError("a key without ':'", colon)
            pending_key = (key, pos)
            pos = colon + 1
            continue
        key_name, key_start = pending_key if pending_key is not None else (None, -1)
        pending_key = None
        if ch in "{[":
            child = Node("object" if ch == "{" else "array", pos)
            top.items.append((key_name, key_start, child))
            stack.append(child)
            pos += 1
            expect_value = True
            continue
        node = _scalar(text, pos, repairs)
        top.items.append((key_name, key_start, node))
        pos = node.end
        expect_value = False
    return root, pos


def source_offsets(text: str, node: Node) -> list[int]:
    """For a string scalar: the offset in ``text`` of each character of its decoded value (plus
    one past the end), so a sentence of the decoded value maps back onto the source."""
    raw_start, raw_end = node.start + 1, node.end - 1
    if not node.raw_escaped:
        return list(range(raw_start, raw_start + len(node.value) + 1))
    out: list[int] = []
    i = raw_start
    while i < raw_end and len(out) < len(node.value):
        out.append(i)
        if text[i] == "\\" and text[i + 1:i + 2] == "u":
            pair = text[i + 6:i + 8] == "\\u" and 0xD800 <= int(text[i + 2:i + 6], 16) < 0xDC00
            i += 12 if pair else 6
        elif text[i] == "\\":
            i += 2
        else:
            i += 1
    while len(out) < len(node.value):  # a source the decoder read otherwise: pad
        out.append(min(i, raw_end))
    out.append(min(i, raw_end))
    return out

"""A document's text -> passages: the pieces a question is asked about and a reference context is.

Contract: every passage is an exact slice of the text (``text[start:end]``), passages do not overlap
and come in reading order, ids are ``"<name>#<n>"`` from 1. The rule, the same for every kind of file:

* the text is cut into blocks at blank lines; a paragraph is a passage (so a file written one
  paragraph per passage — the sample's documents — gives back exactly those passages);
* a heading (a Markdown ``#`` line, or one short line without closing punctuation) is not a passage:
  it names the ``section`` of the passages under it;
* list items in a row, a line that introduces them (ends with ``:``) and fragments of fewer than
  four words join the passage before them, up to ``max_chars``;
* a paragraph longer than ``max_chars`` is cut between sentences (nupunkt) into pieces of about
  equal length, each at most ``max_chars`` unless one sentence is longer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .types import Passage

#: Longest passage (characters) before a paragraph is cut between sentences.
MAX_CHARS = 1000
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_MD_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•+▪◦]|\d{1,3}[.)]|[a-z][.)])\s+")
_CLOSING = re.compile(r"[.!?;:,)\]\"”’…]$")
_WORD = re.compile(r"\w+")


@dataclass
class _Block:
    start: int
    end: int
    kind: str  # "heading" | "item" | "intro" | "fragment" | "para"
    title: str = ""


def _blocks(text: str) -> list[_Block]:
    out: list[_Block] = []
    pos = 0
    for m in [*_BLANK_LINE.finditer(text), None]:
        end = m.start() if m else len(text)
        s, e = pos, end
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e and _WORD.search(text[s:e]):
            out.append(_classify(text, s, e))
        pos = m.end() if m else len(text)
    return out


def _classify(text: str, s: int, e: int) -> _Block:
    piece = text[s:e]
    one_line = "\n" not in piece
    md = _MD_HEADING.match(piece) if one_line else None
    if md:
        return _Block(s, e, "heading", md.group(1).strip())
    words = len(_WORD.findall(piece))
    if (one_line and len(piece) <= 80 and words <= 10 and not _CLOSING.search(piece)
            and not _LIST_ITEM.match(piece) and "|" not in piece):
        return _Block(s, e, "heading", piece.strip())
    if _LIST_ITEM.match(piece):
        return _Block(s, e, "item")
    if piece.rstrip().endswith(":"):
        return _Block(s, e, "intro")
    if words < 4:
        return _Block(s, e, "fragment")
    return _Block(s, e, "para")


def _split_long(text: str, s: int, e: int, max_chars: int) -> list[tuple[int, int]]:
    """``[s, e)`` cut between sentences into about equal pieces of at most ``max_chars``."""
    if e - s <= max_chars:
        return [(s, e)]
    from ..sentencize import split_spans

    sents = [(s + a, s + b) for a, b in split_spans(text[s:e])]
    if len(sents) < 2:
        return [(s, e)]
    pieces = -(-(e - s) // max_chars)  # ceil
    target = (e - s) / pieces
    out: list[tuple[int, int]] = []
    cur_s, cur_e = sents[0]
    for a, b in sents[1:]:
        if (b - cur_s > max_chars) or (cur_e - cur_s >= target and len(out) < pieces - 1):
            out.append((cur_s, cur_e))
            cur_s = a
        cur_e = b
    out.append((cur_s, cur_e))
    return out


def chunk(text: str, name: str, max_chars: int = MAX_CHARS) -> tuple[Passage, ...]:
    """The passages of ``text`` (a document named ``name``) by the rule of the module docstring."""
    spans: list[tuple[int, int, str]] = []  # start, end, section
    section = ""
    cur: list[int] | None = None  # [start, end] of the passage being built
    prev_kind = ""

    def flush() -> None:
        nonlocal cur
        if cur is not None:
            for a, b in _split_long(text, cur[0], cur[1], max_chars):
                spans.append((a, b, section))
        cur = None

    for b in _blocks(text):
        if b.kind == "heading":
            flush()
            section = b.title
            prev_kind = "heading"
            continue
        joins = cur is not None and (
            b.kind == "fragment"
            or (b.kind == "item" and prev_kind in ("item", "intro"))
            or prev_kind == "intro"
        ) and b.end - cur[0] <= max_chars
        if joins and cur is not None:
            cur[1] = b.end
        else:
            flush()
            cur = [b.start, b.end]
        prev_kind = b.kind
    flush()
    return tuple(Passage(id=f"{name}#{i}", source=name, index=i, text=text[a:b], start=a, end=b, section=sec)
                 for i, (a, b, sec) in enumerate(spans, 1))

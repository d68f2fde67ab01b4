"""A document's text -> passages: the pieces a question is asked about and a reference context is.

Contract: every passage is an exact slice of the text (``text[start:end]``), passages do not overlap
and come in reading order, ids are ``"<name>#<n>"`` from 1. The rule, the same for every kind of file:

* the lines a page's chrome is made of — menus, link lists, breadcrumbs, cookie banners, footers,
  lines repeated on other pages (:mod:`.boilerplate`) — are left out: never a passage, never a
  section's name; :func:`cut` returns them beside the passages, with their kind;
* the rest is cut into blocks at blank lines, and within a block around a heading or an FAQ's
  question on a line of its own (a crawler writes one block a line); a paragraph is a passage (so
  a file written one paragraph per passage — the sample's documents — gives back exactly those
  passages);
* a heading (a Markdown ``#`` line, one short line without closing punctuation and without a verb
  of its own, or a question standing on its line — an FAQ's) is not a passage: it names the
  ``section`` of the passages under it;
* list items in a row, a line that introduces them (ends with ``:``) and fragments of fewer than
  four words join the passage before them, up to ``max_chars``;
* a paragraph longer than ``max_chars`` is cut between sentences (nupunkt) into pieces of about
  equal length, each at most ``max_chars`` unless one sentence is longer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from .boilerplate import Line, classify
from .types import Dropped, Passage

#: Longest passage (characters) before a paragraph is cut between sentences.
MAX_CHARS = 1000
_MD_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•+▪◦]|\d{1,3}[.)]|[a-z][.)])\s+")
_CLOSING = re.compile(r"[.!?;:,)\]\"”’…]$")
_UNIT_END = re.compile(r"[.!?:;]$")
_WORD = re.compile(r"\w+")
#: Words that make a short line a sentence rather than a heading ("Check-out time is noon").
_FINITE = frozenset("is are was were has have had can must will should may might does do did".split())
_WH = frozenset("how what when where who whom whose why which".split())


@dataclass
class _Block:
    start: int
    end: int
    kind: str  # "heading" | "item" | "intro" | "fragment" | "para"
    title: str = ""


def _groups(lines: list[Line], text: str) -> list[list[Line]]:
    """Content lines grouped into blocks: a blank line, a line of chrome, or the end of a unit
    (see the module docstring) closes a block."""
    out: list[list[Line]] = []
    cur: list[Line] = []
    for ln in lines:
        if ln.kind:
            if cur:
                out.append(cur)
            cur = []
            continue
        if cur and (text.count("\n", cur[-1].end, ln.start) > 1 or _ends_unit(cur, ln)):
            out.append(cur)
            cur = []
        cur.append(ln)
    if cur:
        out.append(cur)
    return out


def _heading_like(line: str) -> bool:
    words = len(_WORD.findall(line))
    return (words <= 10 and len(line) <= 80 and line[:1].isupper() and not _CLOSING.search(line)
            and not _LIST_ITEM.match(line) and not _sentence_like(line))


def _question_line(line: str) -> bool:
    return line.rstrip(" *_").endswith("?") and len(_WORD.findall(line)) <= 30 and not _LIST_ITEM.match(line)


def _ends_unit(cur: list[Line], nxt: Line) -> bool:
    """Whether a block ends between its lines ``cur`` and the line ``nxt`` with no blank line between:
    around a heading or an FAQ's question (a crawler writes one block a line), never inside a
    paragraph or a list ("Configuration" over its list items stays with them)."""
    last = cur[-1].text
    if _MD_HEADING.match(last) or _MD_HEADING.match(nxt.text):
        return True
    if _heading_like(nxt.text) or (_question_line(nxt.text) and _UNIT_END.search(last)):
        return True
    return len(cur) == 1 and (_heading_like(last) or _question_line(last)) and not _LIST_ITEM.match(nxt.text)


def _sentence_like(piece: str) -> bool:
    """A short line that states something ("Check-out time is noon"), not a title."""
    words = [w.lower() for w in _WORD.findall(piece)]
    return len(words) >= 3 and words[0] not in _WH and any(w in _FINITE for w in words[1:])


def _classify(text: str, s: int, e: int) -> _Block:
    piece = text[s:e]
    one_line = "\n" not in piece
    md = _MD_HEADING.match(piece) if one_line else None
    if md:
        return _Block(s, e, "heading", md.group(1).strip())
    words = len(_WORD.findall(piece))
    if (one_line and len(piece) <= 80 and words <= 10 and not _CLOSING.search(piece)
            and not _LIST_ITEM.match(piece) and "|" not in piece and not _sentence_like(piece)):
        return _Block(s, e, "heading", piece.strip())
    if one_line and piece.rstrip(" *_").endswith("?") and words <= 30 and not _LIST_ITEM.match(piece):
        return _Block(s, e, "heading", piece.strip(" *_"))  # an FAQ's question: the section of its answer
    if _LIST_ITEM.match(piece):
        return _Block(s, e, "item")
    if piece.rstrip().endswith(":"):
        return _Block(s, e, "intro")
    if words < 4:
        return _Block(s, e, "fragment")
    return _Block(s, e, "para")


def _blocks(text: str, lines: list[Line]) -> list[_Block]:
    out: list[_Block] = []
    for g in _groups(lines, text):
        s, e = g[0].start, g[-1].end
        if _WORD.search(text[s:e]):
            out.append(_classify(text, s, e))
    return out


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


def cut(text: str, name: str, max_chars: int = MAX_CHARS,
        repeated: Sequence[str] | frozenset[str] = frozenset()) -> tuple[tuple[Passage, ...], tuple[Dropped, ...]]:
    """The passages of ``text`` (a document named ``name``) by the rule of the module docstring, and
    the lines left out as a page's chrome. ``repeated``: lines (``boilerplate.norm``) found on other
    pages given with this one."""
    lines = classify(text, frozenset(repeated))
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

    for b in _blocks(text, lines):
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
    passages = tuple(Passage(id=f"{name}#{i}", source=name, index=i, text=text[a:b], start=a, end=b, section=sec)
                     for i, (a, b, sec) in enumerate(spans, 1))
    return passages, tuple(Dropped(ln.start, ln.end, ln.kind) for ln in lines if ln.kind)


def chunk(text: str, name: str, max_chars: int = MAX_CHARS) -> tuple[Passage, ...]:
    """The passages of ``text`` (see :func:`cut`)."""
    return cut(text, name, max_chars)[0]

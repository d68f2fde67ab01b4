"""Citation markers in a response, and the documents they name.

Contract: :func:`find` reads every inline marker of a response — ``[1]``, ``[1, 3]`` / ``[1][3]`` /
``[1-3]``, ``[doc2]`` / ``[Document 2]`` / ``[source 2]``, ``^1``, ``【1】`` (``【4:0†source】``),
``(Source 2)`` / ``(Sources 1, 2)``, ``[^1]`` footnotes with their ``[^1]: …`` list, and ``[<id>]`` /
``[<title>]`` where a document has that id or title — with its character span and the documents it
names. A number names a document by position, **1-based** (``[1]`` is the first document); a footnote
by what its definition names (a document id, title or address the document holds) or else its number;
``[doc2]`` by the id ``doc2`` when a document has it, else by position 2. A number with no such
document is kept as a citation of a document that does not exist (``Ref.doc is None``), unless it
cannot be one: a bracketed number above ``MAX_CITATION`` (``[2020]`` is a year, ``[150]`` a value) is
no marker, nor is anything inside code (fenced blocks, ``inline code``), an index (``arr[1]``,
``x_1[2]``), an exponent (``10^3``, ``x^2``) or a Markdown link's text other than a bare number.
:func:`strip` gives the text with its markers removed (what a labeler judges). Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

#: A bracketed number above this is not a citation when no document has that position.
MAX_CITATION = 99

_NUMS = r"\d{1,4}(?:\s*[-–]\s*\d{1,4})?(?:\s*[,;]\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*"
_WORDS = r"(?:doc(?:ument)?s?|sources?|src|refs?|references?|passages?|contexts?|citations?)"
_BRACKET_NUM = re.compile(rf"\[\s*(?:{_WORDS}[\s_#:.\-]*)?({_NUMS})\s*\]", re.I)
_PAREN_SRC = re.compile(rf"\(\s*{_WORDS}[\s_#:.\-]*({_NUMS})\s*\)", re.I)
_CJK = re.compile(r"【\s*(\d{1,4})(?:[:†][^】]*)?】")
_FOOT = re.compile(r"\[\^([\w.\-]{1,40})\](?!:)")
_FOOT_DEF = re.compile(r"^[ \t]{0,3}\[\^?([\w.\-]{1,40})\]:[ \t]*(.*?)[ \t]*$", re.M)
_CARET = re.compile(r"(?:(?<=[A-Za-z]{3})|(?<=[.,;:)\]\"'’”]))\^(\d{1,2})(?!\d|[.,]\d)")
_BRACKET_ANY = re.compile(r"\[([^\[\]\n]{1,120})\](?!\()")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?(?:^ {0,3}\1[ \t]*$|\Z)", re.M | re.S)
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1", re.S)
_INDEX_BEFORE = re.compile(r"(?:[A-Za-z_]\w*_\w*|\w+\.\w+|[)\]])$")
_URL = re.compile(r"https?://[^\s)>\]]+")
_LINK_TAIL = re.compile(r"\([^\s()]{1,500}\)")


@dataclass(frozen=True)
class Ref:
    """One document a marker names: ``label`` as written ("2", "doc2", "policy.pdf"); ``doc`` its
    0-based index among the case's documents, None when the case has no such document."""

    label: str
    doc: int | None


@dataclass(frozen=True)
class Marker:
    """One marker in the text: ``text[start:end]`` and the documents it names, in order, once each."""

    start: int
    end: int
    text: str
    refs: tuple[Ref, ...]
    style: str  # "number" | "doc" | "caret" | "cjk" | "source" | "footnote" | "id"


def _code_spans(text: str) -> list[tuple[int, int]]:
    spans = [(m.start(), m.end()) for m in _FENCE.finditer(text)]
    for m in _INLINE_CODE.finditer(text):
        if not any(a <= m.start() < b for a, b in spans):
            spans.append((m.start(), m.end()))
    return spans


def _numbers(group: str) -> list[int]:
    out: list[int] = []
    for piece in re.split(r"\s*[,;]\s*", group.strip()):
        if not piece:
            continue
        rng = re.split(r"\s*[-–]\s*", piece)
        if len(rng) == 2 and rng[0].isdigit() and rng[1].isdigit():
            a, b = int(rng[0]), int(rng[1])
            if a <= b and b - a <= 20:
                out.extend(range(a, b + 1))
                continue
            return []  # "[1990-2020]": a span of years, not citations
        if piece.isdigit():
            out.append(int(piece))
    return out


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.strip().strip("*_\"'").lower())


def titles(documents: Sequence[str]) -> list[str | None]:
    """Each document's title: its first line when the document has more than one line and that line
    is short (at most 100 characters), else None."""
    out: list[str | None] = []
    for d in documents:
        first, sep, rest = d.strip().partition("\n")
        out.append(first.strip() if sep and rest.strip() and 0 < len(first.strip()) <= 100 else None)
    return out


@dataclass(frozen=True)
class _Names:
    n_docs: int
    by_name: dict[str, int]
    documents: tuple[str, ...]


def _names(documents: Sequence[str], ids: Sequence[str]) -> _Names:
    by: dict[str, int] = {}
    for i, t in enumerate(titles(documents)):
        if t:
            by.setdefault(_norm(t), i)
    for i, d in enumerate(ids):  # ids win over titles
        if d:
            by[_norm(str(d))] = i
    return _Names(len(documents), by, tuple(documents))


def _by_position(n: int, names: _Names, label: str | None = None) -> Ref:
    return Ref(label or str(n), n - 1 if 1 <= n <= names.n_docs else None)


def _footnote_targets(text: str, names: _Names) -> dict[str, Ref]:
    """Footnote label -> the document its definition names (id, title, or an address a document holds)."""
    out: dict[str, Ref] = {}
    for m in _FOOT_DEF.finditer(text):
        label, body = m.group(1), m.group(2)
        target: int | None = None
        low = _norm(body)
        for name, i in names.by_name.items():
            if name and (low == name or low.startswith(name + " ") or f"[{name}]" in low or name in low.split()):
                target = i
                break
        if target is None:
            for url in _URL.findall(body):
                hit = [i for i, d in enumerate(names.documents) if url.rstrip(".,;") in d]
                if hit:
                    target = hit[0]
                    break
        if target is None:
            num = re.match(r"\s*(?:doc(?:ument)?|source)?\s*#?\s*(\d{1,3})\b", body, re.I)
            if num and not body[num.end():].strip():
                target = _by_position(int(num.group(1)), names).doc
            elif label.isdigit():
                target = _by_position(int(label), names).doc
        out[label] = Ref(label, target)
    return out


def find(text: str, documents: Sequence[str] = (), ids: Sequence[str] = ()) -> tuple[Marker, ...]:
    """Every citation marker of ``text`` in order (module docstring), for a case with ``documents``
    (and their ``ids``, when it has them)."""
    return _find(text or "", tuple(documents), tuple(str(i) for i in ids))


@lru_cache(maxsize=4096)
def _find(text: str, documents: tuple[str, ...], ids: tuple[str, ...]) -> tuple[Marker, ...]:
    if not any(c in text for c in "[(【^"):
        return ()
    names = _names(documents, ids)
    code = _code_spans(text)
    defs = [(m.start(), m.end()) for m in _FOOT_DEF.finditer(text)]
    taken: list[tuple[int, int]] = []
    out: list[Marker] = []

    def free(a: int, b: int) -> bool:
        return not any(x < b and a < y for x, y in code + taken + defs)

    def add(a: int, b: int, refs: list[Ref], style: str) -> None:
        seen: list[Ref] = []
        for r in refs:
            if r not in seen:
                seen.append(r)
        if seen:
            out.append(Marker(a, b, text[a:b], tuple(seen), style))
            taken.append((a, b))

    foot = _footnote_targets(text, names)
    for m in _FOOT.finditer(text):
        if free(m.start(), m.end()):
            label = m.group(1)
            ref = foot.get(label) or (_by_position(int(label), names) if label.isdigit() else Ref(label, None))
            add(m.start(), m.end(), [ref], "footnote")
    for m in _CJK.finditer(text):
        if free(m.start(), m.end()):
            add(m.start(), m.end(), [_by_position(int(m.group(1)), names)], "cjk")
    for rx, style in ((_BRACKET_NUM, "number"), (_PAREN_SRC, "source")):
        for m in rx.finditer(text):
            a, b = m.start(), m.end()
            if not free(a, b):
                continue
            worded = bool(re.match(r"[\[(]\s*[A-Za-z]", m.group(0)))
            after_marker = any(y <= a and not text[y:a].strip() for _, y in taken)  # [1][3]
            if style == "number" and not worded and not after_marker and _INDEX_BEFORE.search(text[max(0, a - 40):a]):
                continue  # arr[1], x_1[2], f(x)[0]: an index
            nums = _numbers(m.group(1))
            if not nums:
                continue
            link = _LINK_TAIL.match(text, b) if style == "number" else None
            if link:  # "[1](https://…)": the marker is the whole link
                b = link.end()
            if not worded and any(n > max(MAX_CITATION, names.n_docs) for n in nums):
                continue  # [2020]: a year; [150]: a value
            if not worded and any(n == 0 for n in nums):
                continue
            inner = re.sub(r"\s+", "", m.group(0)[1:-1]).lower()
            refs = []
            for n in nums:
                if worded and inner in names.by_name:  # [doc2] where a document's id is "doc2"
                    refs.append(Ref(m.group(0)[1:-1].strip(), names.by_name[inner]))
                else:
                    refs.append(_by_position(n, names))
            add(a, b, refs, "doc" if worded and style == "number" else style)
    for m in _CARET.finditer(text):
        if free(m.start(), m.end()):
            n = int(m.group(1))
            if 1 <= n <= names.n_docs:  # ^n is read only where it can name a document
                add(m.start(), m.end(), [_by_position(n, names)], "caret")
    if names.by_name:
        for m in _BRACKET_ANY.finditer(text):
            if free(m.start(), m.end()):
                key = _norm(m.group(1))
                parts = [_norm(p) for p in re.split(r"[;,]", m.group(1))] if key not in names.by_name else [key]
                if parts and all(p in names.by_name for p in parts):
                    add(m.start(), m.end(), [Ref(p, names.by_name[p]) for p in parts], "id")
    return tuple(sorted(out, key=lambda mk: mk.start))


def strip(text: str, documents: Sequence[str] = (), ids: Sequence[str] = ()) -> str:
    """``text`` without its citation markers (and the space before each), as a labeler judges it."""
    markers = find(text, documents, ids)
    if not markers:
        return text
    out: list[str] = []
    cur = 0
    for mk in markers:
        piece = text[cur:mk.start]
        if mk.end >= len(text) or not text[mk.end].isalnum():
            piece = piece.rstrip(" \t")
        out.append(piece)
        cur = mk.end
    out.append(text[cur:])
    return "".join(out)


def footnote_definitions(text: str) -> tuple[tuple[int, int], ...]:
    """Spans of the ``[^1]: …`` / ``[1]: …`` definition lines of ``text`` (a source list: no claim)."""
    return tuple((m.start(), m.end()) for m in _FOOT_DEF.finditer(text or ""))

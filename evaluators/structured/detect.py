"""Which documents are structured, and their facts: :func:`parse`.

In order, the first that fits:

1. **JSON** — a document that opens with ``{`` or ``[`` and reads as (lenient) JSON: an object, an
   array of records, or JSON Lines (``jsonscan``). Almost-JSON that the lenient reader refuses (a
   missing comma, unquoted keys) goes through ``json_repair``; its facts are then located in the
   original text one after another, and when one cannot be found the document stays prose.
2. **CSV / TSV** — a whole document of delimited lines under a header (``tables.csv_block``).
3. **Markdown and HTML tables** — tables anywhere in a document: each row is a fact and the text
   around the tables is split as prose (the same splitter, so that text splits as before).

Anything else — and any failure — is prose: ``parse`` returns None and never raises, so a bad
document cannot lose its case. Results are cached per text (documents are shared by many cases).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from .facts import Fact, Structure
from .json_facts import Splitter, facts_of, plain
from .jsonscan import ScanError, scan
from .tables import csv_block, html_blocks, markdown_blocks

#: Texts longer than this are not parsed (their split stays prose): 20 MB.
MAX_CHARS = 20_000_000


def parse(text: str | None, split: Splitter | None = None) -> Structure | None:
    """The structure of a document, or None for prose. ``split``: the sentence splitter used for
    long text values and the prose around tables (``evaluators.sentencize.split_spans``)."""
    if not text or len(text) > MAX_CHARS:
        return None
    try:
        return _parse(text, split)
    except Exception:  # noqa: BLE001 - a document we cannot read as structure is prose
        return None


def is_structured(text: str | None) -> bool:
    """True for a document :func:`parse` reads as JSON or a table (without splitting long texts)."""
    return parse(text) is not None


@lru_cache(maxsize=4096)
def _parse(text: str, split: Splitter | None) -> Structure | None:
    head = text.lstrip()[:1]
    if head in ("{", "["):
        st = _json(text, split)
        if st is not None:
            return st
    block = csv_block(text) if ("," in text or "\t" in text or ";" in text) and "\n" in text.strip() else None
    if block is not None and block[2]:
        return Structure("csv", tuple(block[2]), data=None)
    blocks = markdown_blocks(text) if "|" in text else []
    kind = "markdown"
    if not blocks and "<" in text:
        blocks = html_blocks(text)
        kind = "html"
    if not blocks:
        return None
    return Structure(kind, tuple(_with_prose(text, blocks, split)))


def _with_prose(text: str, blocks: list, split: Splitter | None) -> list[Fact]:
    """Table rows, and the text between tables as prose sentences (kind "prose")."""
    out: list[Fact] = []
    pos = 0
    for start, end, rows in blocks:
        out.extend(_prose(text, pos, start, split))
        out.extend(rows)
        pos = end
    out.extend(_prose(text, pos, len(text), split))
    return out


def _prose(text: str, a: int, b: int, split: Splitter | None) -> list[Fact]:
    piece = text[a:b]
    if not piece.strip():
        return []
    spans = split(piece) if split is not None else [(len(piece) - len(piece.lstrip()), len(piece.rstrip()))]
    return [Fact((), piece[s:e], "prose", piece[s:e], a + s, a + e) for s, e in spans if e > s]


def _json(text: str, split: Splitter | None) -> Structure | None:
    try:
        sc = scan(text)
    except ScanError as exc:
        return _repaired(text, split, exc)
    roots = sc.roots
    if not all(r.kind in ("object", "array") for r in roots):
        return None
    facts = facts_of(text, sc, split)
    if not facts:
        return None
    kind = "jsonl" if len(roots) > 1 else "json"
    data: Any = plain(roots[0]) if len(roots) == 1 else [plain(r) for r in roots]
    return Structure(kind, tuple(facts), tuple(dict.fromkeys(sc.repairs)), data)


# ---------------------------------------------------------------- almost-JSON: json_repair
def _repaired(text: str, split: Splitter | None, exc: ScanError) -> Structure | None:
    """``json_repair``'s reading of text our lenient reader refused, with every fact located in
    the original text in order (None when one cannot be: the document stays prose). Only text that
    closes like JSON or read as JSON for most of its length is tried, and the facts found must cover
    most of it, so prose that happens to open with "[" stays prose."""
    body = text.strip()
    if body[-1:] not in ("}", "]") and exc.pos < 0.5 * len(body):
        return None
    from json_repair import repair_json

    obj = repair_json(text, return_objects=True)
    if not isinstance(obj, (dict, list)) or not obj:
        return None
    leaves: list[tuple[tuple[str | int, ...], Any]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), obj)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, dict) and v:
            stack.extend(reversed([(path + (k,), x) for k, x in v.items()]))
        elif isinstance(v, list) and v:
            stack.extend(reversed([(path + (i,), x) for i, x in enumerate(v)]))
        elif path:
            leaves.append((path, v))
    from .facts import fact_text

    facts: list[Fact] = []
    pos = 0
    for path, v in leaves:
        key = path[-1]
        start = pos
        if isinstance(key, str):
            m = re.compile(r"[\"']?" + re.escape(key) + r"[\"']?\s*:").search(text, pos)
            if m is None:
                return None
            start = m.start()
            pos = m.end()
        shown = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v
        literal = {"true": r"true|True", "false": r"false|False", "null": r"null|None"}.get(shown)
        rx = re.compile(literal if literal else re.escape(shown) if shown else r"[\"']{2}|[\]}]")
        m = rx.search(text, pos)
        if m is None or (isinstance(key, str) and text[pos:m.start()].strip(" \t\n\"'") != ""):
            return None
        end = m.end() + (1 if isinstance(v, str) and text[m.end():m.end() + 1] in "\"'" and v else 0)
        if not isinstance(key, str):
            start = m.start() - (1 if isinstance(v, str) and m.start() and text[m.start() - 1] in "\"'" else 0)
        facts.append(Fact(path, v, "field", fact_text(path, v), start, max(end, start + 1)))
        pos = end
    covered = sum(f.end - f.start for f in facts)
    if not facts or covered < 0.5 * len(re.sub(r"[\s{}\[\],]", "", text)):
        return None
    return Structure("json", tuple(facts), ("read by json_repair: " + str(exc),), obj)

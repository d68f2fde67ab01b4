"""Tables -> facts: one per row, each cell with its column name.

Three forms are read: Markdown pipe tables and HTML ``<table>`` elements (wherever they sit in a
document: the text around them stays prose), and CSV / TSV text (a whole document of delimited
lines under a header line). A row reads ``Revenue 2023 (row "Q4"): 1.2 bn; Revenue 2024 (row
"Q4"): 1.5 bn``: every cell under its column name, the row named by its label cell (the first
column, when it holds words rather than numbers) or its number (``row 3``, counted from 1). A row's
fact spans that row in the source (the line, or the ``<tr>`` element). ``Fact.value`` is the row as
``{column: cell}``.

Each reader returns blocks ``(start, end, rows)``: where the table sits and its row facts.
"""

from __future__ import annotations

import csv
import re
from html.parser import HTMLParser
from typing import Sequence

from .facts import Fact

_NUMERIC = re.compile(r"^[\s$€£¥(+\-−]*\d[\d,.\s]*(?:%|[a-zA-Z]{0,3}\.?)?\)?\s*$")
_MD_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LINE = re.compile(r"[^\n]*\n?")

Block = tuple[int, int, list[Fact]]


def _is_number(cell: str) -> bool:
    return bool(_NUMERIC.match(cell)) if cell.strip() else False


def _label_column(header: Sequence[str], rows: Sequence[Sequence[str]]) -> bool:
    """The first column names the rows: it holds words (most cells are not numbers)."""
    if len(header) < 2 or not rows:
        return False
    cells = [r[0] for r in rows if r and r[0].strip()]
    return bool(cells) and sum(not _is_number(c) for c in cells) * 2 >= len(cells)


def row_facts(header: Sequence[str], rows: Sequence[tuple[Sequence[str], int, int]]) -> list[Fact]:
    """Facts of table rows (cells, start, end) under ``header`` (missing names: "column N")."""
    width = max([len(header)] + [len(c) for c, _, _ in rows]) if rows else len(header)
    names = [(header[i].strip() if i < len(header) and header[i].strip() else f"column {i + 1}")
             for i in range(width)]
    labelled = _label_column(header, [c for c, _, _ in rows])
    out: list[Fact] = []
    for n, (cells, start, end) in enumerate(rows, start=1):
        cells = [c.strip() for c in cells] + [""] * (width - len(cells))
        label = cells[0] if labelled and cells[0] else f"{n}"
        where = f'row "{label}"' if labelled and cells[0] else f"row {n}"
        shown = [f"{names[i]} ({where}): {cells[i] if cells[i] else '(empty)'}"
                 for i in range(1 if labelled else 0, width)]
        if not shown:
            shown = [f"{names[0]} ({where}): {cells[0] or '(empty)'}"]
        value = {names[i]: cells[i] for i in range(width)}
        out.append(Fact((label if labelled and cells[0] else n,), value, "row", "; ".join(shown), start, end))
    return out


# ---------------------------------------------------------------- Markdown
def _md_cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [c.replace("\\|", "|").strip() for c in re.split(r"(?<!\\)\|", s)]


def markdown_blocks(text: str) -> list[Block]:
    """Every Markdown pipe table of ``text`` (a header line, a ``---|---`` line, then rows)."""
    lines = [(m.start(), m.end()) for m in _LINE.finditer(text) if m.end() > m.start()]
    out: list[Block] = []
    i = 0
    while i + 1 < len(lines):
        hs, he = lines[i]
        head, sep = text[hs:he], text[lines[i + 1][0]:lines[i + 1][1]]
        if "|" not in head or not _MD_SEP.match(sep) or "|" not in sep:
            i += 1
            continue
        header = _md_cells(head)
        rows: list[tuple[Sequence[str], int, int]] = []
        j = i + 2
        while j < len(lines):
            s, e = lines[j]
            line = text[s:e]
            if "|" not in line or not line.strip():
                break
            rows.append((_md_cells(line), s, s + len(line.rstrip())))
            j += 1
        if rows:
            out.append((hs, rows[-1][2], row_facts(header, rows)))
        i = j
    return out


# ---------------------------------------------------------------- HTML
class _TableParser(HTMLParser):
    """Outermost ``<table>`` elements: their rows' cells (text) and spans (as (line, column))."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self.depth = 0
        self.row: dict | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                self.tables.append({"start": self.getpos(), "end": None, "rows": []})
        elif self.depth == 1 and tag == "tr":
            self._close_row()
            self.row = {"start": self.getpos(), "end": None, "cells": [], "th": True}
        elif self.depth == 1 and tag in ("td", "th") and self.row is not None:
            self._close_cell()
            self.cell = []
            if tag == "td":
                self.row["th"] = False

    def handle_endtag(self, tag):
        if tag == "table":
            if self.depth == 1:
                self._close_row()
                self.tables[-1]["end"] = self.getpos()
            self.depth = max(0, self.depth - 1)
        elif self.depth == 1 and tag in ("td", "th"):
            self._close_cell()
        elif self.depth == 1 and tag == "tr":
            self._close_row(self.getpos())

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)

    def _close_cell(self):
        if self.cell is not None and self.row is not None:
            self.row["cells"].append(re.sub(r"\s+", " ", "".join(self.cell)).strip())
        self.cell = None

    def _close_row(self, end=None):
        self._close_cell()
        if self.row is not None:
            self.row["end"] = end or self.getpos()
            if self.row["cells"]:
                self.tables[-1]["rows"].append(self.row)
        self.row = None


def html_blocks(text: str) -> list[Block]:
    """Every outermost ``<table>`` of ``text``: a first row of ``<th>`` cells is the header."""
    if "<table" not in text.lower():
        return []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def off(pos: tuple[int, int]) -> int:
        return starts[pos[0] - 1] + pos[1]

    def tag_end(i: int) -> int:
        j = text.find(">", i)
        return len(text) if j < 0 else j + 1

    p = _TableParser()
    try:
        p.feed(text)
        p.close()
    except Exception:  # noqa: BLE001 - malformed markup: no table read, the text stays prose
        return []
    out: list[Block] = []
    for t in p.tables:
        if t["end"] is None or not t["rows"]:
            continue
        rows = t["rows"]
        header: list[str] = []
        if rows[0]["th"]:
            header = rows[0]["cells"]
            rows = rows[1:]
        body = [(r["cells"], off(r["start"]), tag_end(off(r["end"])) if text.startswith("</tr", off(r["end"]))
                 else off(r["end"])) for r in rows]
        body = [(c, s, max(e, s + 1)) for c, s, e in body]
        if not body:
            continue
        out.append((off(t["start"]), tag_end(off(t["end"])), row_facts(header, body)))
    return out


# ---------------------------------------------------------------- CSV / TSV
_SENTENCES = re.compile(r"[.!?]\s+[A-Z]")


def csv_block(text: str) -> Block | None:
    """A whole document of delimited lines (comma, tab, semicolon) under a header line: every
    line the same number of fields (at least two), the header short labels (not numbers, no
    "Title: …"), no cell holding several sentences — prose with a comma on every line stays prose."""
    raw_lines = [(m.start(), m.end()) for m in _LINE.finditer(text) if text[m.start():m.end()].strip()]
    if len(raw_lines) < 2:
        return None
    head = text[raw_lines[0][0]:raw_lines[0][1]]
    for delim in ("\t", ",", ";"):
        if delim not in head:
            continue
        parsed: list[tuple[list[str], int, int]] = []
        ok = True
        for s, e in raw_lines:
            line = text[s:e].rstrip("\r\n")
            try:
                cells = next(csv.reader([line], delimiter=delim))
            except (csv.Error, StopIteration):
                ok = False
                break
            parsed.append((cells, s, s + len(line.rstrip())))
        if not ok:
            continue
        width = len(parsed[0][0])
        if width < 2 or any(len(c) != width for c, _, _ in parsed):
            continue
        header = parsed[0][0]
        if any(not h.strip() or len(h) > 60 or _is_number(h) or ":" in h or len(h.split()) > 6
               or h.rstrip()[-1:] in ".!?" for h in header):
            continue
        if any(len(c) > 300 or _SENTENCES.search(c) for cells, _, _ in parsed for c in cells):
            continue
        body = parsed[1:]
        return raw_lines[0][0], body[-1][2], row_facts(header, body)
    return None

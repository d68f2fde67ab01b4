"""A structured document (a JSON record, a table) as a person reads it: a tree of its fields, or
tables of its rows, each fact a keyed sentence that colours, outlines and lights up like a prose
sentence. Pure functions (no Streamlit); ``spans.document_html`` uses :func:`body` and falls
back to the stitched text when it returns None (prose, or sentences stored by an earlier splitter
that do not match the document's facts).

Below the tree, "original text" (a native ``<details>``, closed) shows the document as uploaded with
the focused and lit facts marked in place: where the fact sits in the raw JSON or table.

Every text from the upload goes through ``html.escape`` (keys, values, column names, the original).
"""

from __future__ import annotations

from html import escape
from typing import Callable, Sequence

from evaluators.sentencize import split_spans
from evaluators.structured import Fact, humanize, parse, path_text
from evaluators.types import Sentence

#: (attributes, hover text, state, marks) of a sentence, as ``highlight`` renders it.
Parts = tuple[str, str, str, str]
#: Deeper paths show no more indentation (and a record nested 1,000 deep still reads).
MAX_INDENT = 12
#: The tree shows at most this many branch headings per fact (deeper ones read in the fact's path).
MAX_BRANCHES = 24

STYLE = (".rag-tree{font-size:0.95em;line-height:1.7}.rag-branch{color:#555;font-weight:600}"
         ".rag-table{border-collapse:collapse;margin:4px 0}.rag-table th,.rag-table td{border:1px solid #ddd;"
         "padding:2px 8px;text-align:left;vertical-align:top}.rag-table th{background:#f6f6f6}"
         ".rag-table tr.rag-s td{background:inherit}.rag-raw{background:#fff3a8}"
         ".rag-raw[data-state=focus]{outline:3px solid #1f4fd6}.rag-original pre{white-space:pre-wrap;"
         "font-size:0.85em;max-height:24em;overflow:auto}")


def e(text: object) -> str:
    return escape("" if text is None else str(text), quote=True)


def body(text: str, sentences: Sequence[Sentence], span: Callable[[Sentence, str], str],
         parts: Callable[[Sentence], Parts]) -> str | None:
    """The document's markup as a tree / tables, or None when it is not a structured document whose
    facts are these sentences."""
    st = parse(text, split_spans)
    if st is None or not sentences:
        return None
    by_span = {(f.start, f.end): f for f in st.facts}
    found = [by_span.get((s.start, s.end)) for s in sentences]
    facts = [f for f in found if f is not None]
    if len(facts) != len(found):
        return None
    pairs = list(zip(sentences, facts))
    out: list[str] = []
    i = 0
    while i < len(pairs):
        f = pairs[i][1]
        j = i + 1
        if f.kind == "row":  # one table: the rows of the same columns
            while j < len(pairs) and pairs[j][1].kind == "row" and list(pairs[j][1].value) == list(f.value):
                j += 1
            out.append(_table(pairs[i:j], parts))
        elif f.kind == "prose":
            while j < len(pairs) and pairs[j][1].kind == "prose":
                j += 1
            out.append('<div class="rag-prose">' + " ".join(span(x, x.text) for x, _ in pairs[i:j]) + "</div>")
        else:
            while j < len(pairs) and pairs[j][1].kind in ("field", "text"):
                j += 1
            out.append(_tree(pairs[i:j], span))
        i = j
    return "".join(out) + _original(text, sentences, parts)


def _step(p: str | int) -> str:
    return f"[{p}]" if isinstance(p, int) else humanize(p)


def _value(s: Sentence, f: Fact) -> str:
    """The value part of a fact's sentence ("no" of "attributes › WiFi: no"), as the fact reads it."""
    head = path_text(f.path) + ": "
    return s.text[len(head):] if s.text.startswith(head) else s.text


def _tree(pairs: list[tuple[Sentence, Fact]], span: Callable[[Sentence, str], str]) -> str:
    """Fields under headings of their path; the sentences of one long text on one line."""
    out = ['<div class="rag-tree">']
    shown: tuple[str | int, ...] = ()
    k = 0
    while k < len(pairs):
        s, f = pairs[k]
        branch = f.path[:-1]
        if len(branch) > MAX_BRANCHES:  # too deep to draw: the fact says its (shortened) path
            out.append(f'<div class="rag-leaf">{span(s, s.text)}</div>')
            shown = ()
            k += 1
            continue
        common = 0
        while common < min(len(shown), len(branch)) and shown[common] == branch[common]:
            common += 1
        for depth in range(common, len(branch)):
            out.append(f'<div class="rag-branch" style="padding-left:{min(depth, MAX_INDENT) * 1.2:.1f}em">'
                       f"{e(_step(branch[depth]))}</div>")
        shown = branch
        pad = f'style="padding-left:{min(len(branch), MAX_INDENT) * 1.2:.1f}em"'
        name = e(_step(f.path[-1]))
        if f.kind == "text":  # the sentences of one long text together, under its key
            same = [s]
            while k + 1 < len(pairs) and pairs[k + 1][1].kind == "text" and pairs[k + 1][1].path == f.path:
                k += 1
                same.append(pairs[k][0])
            texts = [_value(x, f) for x in same]
            out.append(f'<div class="rag-leaf" {pad}>{name}: '
                       + " ".join(span(x, t) for x, t in zip(same, texts)) + "</div>")
        else:
            out.append(f'<div class="rag-leaf" {pad}>{span(s, f"{_step(f.path[-1])}: {_value(s, f)}")}</div>')
        k += 1
    out.append("</div>")
    return "".join(out)


def _table(pairs: list[tuple[Sentence, Fact]], parts: Callable[[Sentence], Parts]) -> str:
    """Rows of one table (the same columns) as an HTML table; each row is its sentence."""
    columns = list(pairs[0][1].value)
    head = "".join(f"<th>{e(c)}</th>" for c in columns)
    rows = []
    for s, f in pairs:
        attrs, tip, state, marks = parts(s)
        cells = [f.value.get(c, "") for c in columns]
        tds = "".join(f"<td>{(f'<span class=rag-key>{e(s.key)}</span>{marks}' if n == 0 else '')}{e(v)}</td>"
                      for n, v in enumerate(cells))
        st = f' data-state="{state}"' if state else ""
        rows.append(f'<tr class="rag-s" {attrs}{st} title="{e(tip)}">{tds}</tr>')
    return f'<table class="rag-table"><tr>{head}</tr>{"".join(rows)}</table>'


def _original(text: str, sentences: Sequence[Sentence], parts: Callable[[Sentence], Parts]) -> str:
    """The document as uploaded, the focused and lit facts marked where they sit."""
    marked = [(s, parts(s)[2]) for s in sentences if parts(s)[2]]
    out: list[str] = []
    pos = 0
    for s, state in marked:
        out.append(e(text[pos:s.start]))
        out.append(f'<mark class="rag-raw" data-state="{state}" data-key="{e(s.key)}">{e(text[s.start:s.end])}</mark>')
        pos = s.end
    out.append(e(text[pos:]))
    note = f" — {len(marked)} fact{'s' if len(marked) != 1 else ''} marked" if marked else ""
    return (f'<details class="rag-original"><summary>original text{note}</summary>'
            f"<pre>{''.join(out)}</pre></details>")

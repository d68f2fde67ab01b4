"""Sentence highlighting as HTML (the spans of prose sentences), and sentences not fully supported
said in words (:func:`sentence_lines`, Inspect's side by side and Compare's regressions). Pure
functions (no Streamlit), unit-tested.

Cross-highlighting: a **focus** (a response or document sentence the reader picked) is outlined,
and the sentences it is linked to by the labels' keys (:func:`related`: the supporting document
sentences of a response sentence, or the response sentences a document sentence supports) are
**lit**. Sentences a review changed carry a ✎ mark, and sentences two labelings disagree on a ≠ mark
(``data-changed`` / ``data-diff``), so both show without colour too. A response's lines of Markdown
structure (headings, labels, rules: no sentence, never judged) show greyed, their hover text saying
"not judged" (``rag-struct``).

Every piece of text that comes from an upload or a labeler (documents, response, keys,
explanations) goes through ``html.escape(..., quote=True)`` before it is placed in markup, so
``<script>`` or ``<img onerror=...>`` in a document shows as text and never runs.
"""

from __future__ import annotations

import re
from html import escape
from typing import Iterable, Literal, Sequence

from evaluators import citations
from evaluators.sentencize import structure_spans
from evaluators.types import Sentence, SentenceLabels, SentenceSupport, SentencizedCase, split_explanation

from . import record_html

DocRole = Literal["both", "relevant", "utilized", "neither"]

DOC_COLORS: dict[str, tuple[str, str]] = {
    # role: (background, label)
    "both": ("#c8f0c8", "relevant + utilized"),
    "relevant": ("#cfe3ff", "relevant only"),
    "utilized": ("#ffe7b3", "utilized only"),
    "neither": ("transparent", "neither"),
}
RESPONSE_COLORS: dict[str, tuple[str, str]] = {
    "full": ("#c8f0c8", "fully supported"),
    "partial": ("#ffe7b3", "partially supported"),
    "none": ("#ffc9c9", "not supported"),
    "unlabeled": ("#eeeeee", "no label"),
}

_KEY_STYLE = ("font-family:monospace;font-size:0.75em;font-weight:600;color:#444;"
              "background:#ffffffcc;border:1px solid #bbb;border-radius:3px;padding:0 3px;margin-right:3px")
_BOX_STYLE = ("border:1px solid #ddd;border-radius:6px;padding:8px 10px;margin:6px 0;"
              "line-height:1.9;white-space:pre-wrap;color:#222;background:#fff")


def e(text: object) -> str:
    """HTML-escape anything (quotes too, so it is safe inside attributes)."""
    return escape("" if text is None else str(text), quote=True)


def doc_role(key: str, relevant: Iterable[str], utilized: Iterable[str]) -> DocRole:
    r, u = key in set(relevant), key in set(utilized)
    return "both" if r and u else "relevant" if r else "utilized" if u else "neither"


#: Outline of the focused sentence and of the sentences linked to it.
FOCUS_STYLE = "outline:3px solid #1f4fd6;outline-offset:1px;font-weight:600"
LIT_STYLE = "outline:2px dashed #1f4fd6;outline-offset:1px"
_MARK_STYLE = "font-size:0.75em;font-weight:700;margin-right:3px;padding:0 3px;border-radius:3px"
Focus = tuple[str, str]  # ("response" | "document", key)


def related(labels: SentenceLabels | None, focus: Focus | None) -> set[str]:
    """The keys linked to ``focus`` by the labels: a response sentence's supporting document
    sentences, or the response sentences that name a document sentence as support."""
    if labels is None or focus is None:
        return set()
    kind, key = focus
    if kind == "response":
        return {k for s in labels.sentences if s.key == key for k in s.supporting_keys}
    return {s.key for s in labels.sentences if key in s.supporting_keys}


def stylesheet() -> str:
    """The look of the sentence markup, once per page: colours and outlines follow the ``data-*``
    attributes (a 50-document case is ~4x less markup than with a style on every sentence)."""
    rules = [".rag-s{border-radius:3px;padding:1px 2px}", f".rag-key{{{_KEY_STYLE}}}",
             f".rag-doc,.rag-response{{{_BOX_STYLE}}}",
             *(f".rag-s[data-role={r}]{{background:{bg}}}" for r, (bg, _) in DOC_COLORS.items()),
             *(f".rag-s[data-level={lv}]{{background:{bg}}}" for lv, (bg, _) in RESPONSE_COLORS.items()),
             ".rag-struct{color:#888}",
             f".rag-s[data-state=focus]{{{FOCUS_STYLE}}}", f".rag-s[data-state=lit]{{{LIT_STYLE}}}",
             f".rag-mark{{{_MARK_STYLE}}}", ".rag-mark[data-m=changed]{background:#e8e0ff}",
             ".rag-mark[data-m=diff]{background:#ffd6d6}",
             ".rag-details{display:inline;margin-left:6px;color:#666}",
             ".rag-details summary{display:inline;cursor:pointer;color:#1f4fd6;font-size:0.9em}",
             ".rag-details[open]{display:block;margin:2px 0 0 0}", f".rag-cite{{{CITE_STYLE}}}",
             f".rag-cite[data-missing]{{{MISSING_CITE_STYLE}}}", f".rag-uncarried{{{UNCARRIED_STYLE}}}",
             record_html.STYLE]
    return "<style>" + "".join(rules) + "</style>"


def _span(s: Sentence, tip: str, attrs: str, state: str = "", marks: str = "", shown: str | None = None,
          inner: str | None = None) -> str:
    attrs += f' data-state="{state}"' if state else ""
    body = inner if inner is not None else e(s.text if shown is None else shown)
    return (f'<span class="rag-s" {attrs} title="{e(tip)}"><span class="rag-key">{e(s.key)}</span>'
            f"{marks}{body}</span>")


#: A citation marker in a response (a link to the document it names) and a part of a sentence that no
#: document carries (issue 55).
CITE_STYLE = ("font-size:0.8em;font-weight:600;color:#1f4fd6;text-decoration:none;border-bottom:1px dotted "
              "#1f4fd6")
MISSING_CITE_STYLE = "font-size:0.8em;font-weight:600;color:#9b1c1c;text-decoration:line-through"
UNCARRIED_STYLE = "text-decoration:underline wavy #c62828;text-decoration-skip-ink:none"


def _inner(s: Sentence, markers: Sequence[citations.Marker], uncarried: Sequence[Sequence[object]]) -> str | None:
    """A response sentence's text with its citation markers drawn as links to their documents and its
    parts carried by no document underlined (None when it has neither)."""
    pieces: list[tuple[int, int, str]] = []
    for mk in markers:
        a, b = mk.start - s.start, mk.end - s.start
        if not (0 <= a < b <= len(s.text)):
            continue
        docs = [r.doc for r in mk.refs]
        if all(d is None for d in docs):
            tip = "cites a document this case does not have: " + ", ".join(r.label for r in mk.refs)
            pieces.append((a, b, f'<span class="rag-cite" data-missing="1" title="{e(tip)}">{e(s.text[a:b])}</span>'))
            continue
        first = next(d for d in docs if d is not None)
        names = ", ".join(f"Document {d}" if d is not None else f"no document {r.label}"
                          for d, r in zip(docs, mk.refs))
        shown = " ".join(str(d) for d in docs if d is not None)
        pieces.append((a, b, f'<a class="rag-cite" href="#rag-doc-{first}" data-docs="{e(shown)}" '
                             f'title="{e("cites " + names)}">{e(s.text[a:b])}</a>'))
    for m in uncarried:
        a, b = int(m[0]), int(m[1])  # type: ignore[call-overload]
        if 0 <= a < b <= len(s.text) and not any(x < b and a < y for x, y, _ in pieces):
            pieces.append((a, b, '<span class="rag-uncarried" title="no document carries this">'
                                 f"{e(s.text[a:b])}</span>"))
    if not pieces:
        return None
    out, pos = [], 0
    for a, b, html in sorted(pieces):
        if a < pos:
            continue
        out.append(e(s.text[pos:a]))
        out.append(html)
        pos = b
    out.append(e(s.text[pos:]))
    return "".join(out)


def _marks(key: str, changed: Iterable[str], diff: Iterable[str]) -> tuple[str, str]:
    """(data attributes, visible marks) of a sentence the review changed / labelings disagree on."""
    attrs, out = "", ""
    if key in changed:
        attrs += ' data-changed="1"'
        out += '<span class="rag-mark" data-m="changed" title="changed by the review">✎</span>'
    if key in diff:
        attrs += ' data-diff="1"'
        out += '<span class="rag-mark" data-m="diff" title="the labelings disagree">≠</span>'
    return attrs, out


def _state(key: str, focus_key: str | None, lit: Iterable[str]) -> str:
    return "focus" if key == focus_key else "lit" if key in lit else ""


#: The hover text of a response line that is Markdown structure (no sentence, no key, not judged).
NOT_JUDGED = "Markdown structure (heading, label, rule, fence): not a claim, not judged"


def _stitch(text: str, sentences: Sequence[Sentence], rendered: Sequence[str],
            structure: Sequence[tuple[int, int]] = ()) -> str:
    """The original text with each sentence span replaced by its markup (gaps escaped too); the
    ``structure`` spans (lines outside every sentence) are marked "not judged"."""
    pieces = sorted([(s.start, s.end, html) for s, html in zip(sentences, rendered)]
                    + [(a, b, f'<span class="rag-struct" title="{NOT_JUDGED}">{e(text[a:b])}</span>')
                       for a, b in structure])
    out: list[str] = []
    pos = 0
    for start, end, html in pieces:
        out.append(e(text[pos:start]))
        out.append(html)
        pos = end
    out.append(e(text[pos:]))
    return "".join(out)


def document_html(doc_index: int, text: str, sentences: Sequence[Sentence],
                  labels: SentenceLabels | None, focus: Focus | None = None, lit: Iterable[str] = (),
                  changed: Iterable[str] = (), diff: Iterable[str] = ()) -> str:
    rel = set(labels.relevant_keys) if labels else set()
    util = set(labels.utilized_keys) if labels else set()
    fkey = focus[1] if focus and focus[0] == "document" else None
    lit, changed, diff = set(lit), set(changed), set(diff)
    parts: dict[str, tuple[str, str, str, str]] = {}  # key -> (attributes, hover text, state, marks)
    for s in sentences:
        role = doc_role(s.key, rel, util) if labels else "neither"
        attrs, marks = _marks(s.key, changed, diff)
        parts[s.key] = (f'data-key="{e(s.key)}" data-role="{role}"{attrs}', f"{s.key}: {DOC_COLORS[role][1]}",
                        _state(s.key, fkey, lit), marks)

    def span(s: Sentence, shown: str | None = None) -> str:
        attrs, tip, state, marks = parts[s.key]
        return _span(s, tip, attrs, state, marks, shown)

    # a JSON record or a table reads as a tree / tables of its facts (record_html); prose as written
    body = record_html.body(text, sentences, span, lambda s: parts[s.key])
    if body is None:
        body = _stitch(text, sentences, [span(s) for s in sentences])
    return (f'<div class="rag-doc" id="rag-doc-{doc_index}" data-doc="{doc_index}">'
            f'<div style="font-weight:600;margin-bottom:4px">Document {doc_index}</div>{body}</div>')


def documents_html(sc: SentencizedCase, labels: SentenceLabels | None, focus: Focus | None = None,
                   lit: Iterable[str] = (), changed: Iterable[str] = (), diff: Iterable[str] = ()) -> list[str]:
    by_doc: dict[int, list[Sentence]] = {}
    for s in sc.doc_sentences:
        by_doc.setdefault(s.doc or 0, []).append(s)
    lit, changed, diff = set(lit), set(changed), set(diff)
    return [document_html(i, d, by_doc.get(i, []), labels, focus, lit, changed, diff)
            for i, d in enumerate(sc.case.documents)]


#: A part of a reason that only restates a verdict: "supported by 0a, 0b" / "partially supported by 0a".
_RESTATED = re.compile(r"(?:fully |partially )?supported by ([^\s,;]+(?:, [^\s,;]+)*)")


def support_tip(sup: SentenceSupport | None) -> str:
    """The hover text of a response sentence: its verdict (with the sentences supporting it), then
    what the reason adds — a part of the reason that only restates the verdict ("supported by 0a")
    is not said twice. The figures are on Inspect's "details" toggle."""
    if sup is None:
        return "no label for this sentence"
    name = RESPONSE_COLORS[sup.level][1]
    keys = ", ".join(sup.supporting_keys)
    said = bool(keys) and sup.level != "none"
    tip = f"{sup.key}: {name}" + (f" by {keys}" if said else "")
    parts = split_explanation(sup.explanation)[0].split("; ")
    if said:
        parts = [p for p in parts if not ((m := _RESTATED.fullmatch(p.strip()))
                                          and set(m.group(1).split(", ")) <= set(sup.supporting_keys))]
    reason = "; ".join(p for p in parts if p.strip())
    return f"{tip}\n{reason}" if reason else tip


def response_html(sc: SentencizedCase, labels: SentenceLabels | None, focus: Focus | None = None,
                  lit: Iterable[str] = (), changed: Iterable[str] = (), diff: Iterable[str] = (),
                  view: str = "main") -> str:
    """The response, coloured by support level (``view`` names the block: "main", or a labeling
    shown side by side)."""
    sup = {s.key: s for s in labels.sentences} if labels else {}
    fkey = focus[1] if focus and focus[0] == "response" else None
    lit, changed, diff = set(lit), set(changed), set(diff)
    c = sc.case
    markers = citations.find(c.response, c.documents, c.document_ids)
    uncarried = (labels.extra or {}).get("uncarried_parts") or {} if labels else {}
    spans = []
    for s in sc.response_sentences:
        v = sup.get(s.key)
        level = v.level if v else "unlabeled"
        keys = e(" ".join(v.supporting_keys)) if v else ""
        attrs, marks = _marks(s.key, changed, diff)
        mine = [mk for mk in markers if s.start <= mk.start < s.end]
        spans.append(_span(s, support_tip(v),
                           f'data-key="{e(s.key)}" data-level="{level}" data-support="{keys}"{attrs}',
                           _state(s.key, fkey, lit), marks,
                           inner=_inner(s, mine, uncarried.get(s.key, []) if level != "full" else [])))
    return (f'<div class="rag-response" data-view="{e(view)}">'
            f"{_stitch(sc.case.response, sc.response_sentences, spans, structure_spans(sc))}</div>")


def explained_html(title: str, explanation: str) -> str:
    """A labeler's explanation as a note: the reason first, the figures behind a "details" toggle
    (a native ``<details>``: no rerun). Escaped like every labeler text."""
    reason, details = split_explanation(explanation)
    more = (f'<details class="rag-details"><summary>details</summary><span>{e(details)}</span></details>'
            if details else "")
    return (f'<div class="rag-note" style="font-size:0.9em;color:#444">'
            f"<b>{e(title)}:</b> {e(reason)}{more}</div>")


def note_html(text: str, error: bool = False) -> str:
    """A small escaped note (explanations, human labels, errors: text that may come from uploads)."""
    style = ("color:#9b1c1c;background:#fdecec;padding:6px 10px;border-radius:6px" if error
             else "color:#666")
    return f'<div class="rag-note" style="font-size:0.9em;{style}">{e(text)}</div>'


#: A legend: its chips wrap as wholes (each stays on one line, even on a phone).
_LEGEND = ('<div class="rag-legend" style="font-size:0.85em;margin:4px 0;display:flex;flex-wrap:wrap;'
           'align-items:center;gap:4px 8px">{}</div>')
_CHIP = "white-space:nowrap"


def legend_html(kind: Literal["documents", "response", "focus"]) -> str:
    """The legend of the documents' colours, the response's colours or the marks; each chip (a
    swatch with its name, a mark with its words) one unbreakable piece, the chips wrapping as wholes."""
    if kind == "focus":
        items = [f'<span style="{FOCUS_STYLE};padding:1px 6px;margin-right:2px;color:#222;{_CHIP}">selected</span>',
                 f'<span style="{LIT_STYLE};padding:1px 6px;margin-right:2px;color:#222;{_CHIP}">'
                 "linked by the labels</span>",
                 f'<span style="{_CHIP}"><span style="{_MARK_STYLE};background:#e8e0ff">✎</span>'
                 "changed by the review</span>",
                 f'<span style="{_CHIP}"><span style="{_MARK_STYLE};background:#ffd6d6">≠</span>'
                 "the labelings disagree</span>"]
        return _LEGEND.format("".join(items))
    colors = DOC_COLORS if kind == "documents" else RESPONSE_COLORS
    items = [
        f'<span style="background:{bg};border:1px solid #ccc;border-radius:3px;padding:1px 6px;'
        f'color:#222;{_CHIP}">{e(name)}</span>'
        for role, (bg, name) in colors.items() if role != "unlabeled"
    ]
    return _LEGEND.format("".join(items))


def support_rows(sc: SentencizedCase, labels: SentenceLabels | None) -> list[dict[str, str]]:
    """One row per response sentence (for a plain, non-HTML table)."""
    sup = {s.key: s for s in labels.sentences} if labels else {}
    rows = []
    for s in sc.response_sentences:
        v = sup.get(s.key)
        rows.append({
            "key": s.key,
            "support": RESPONSE_COLORS[v.level if v else "unlabeled"][1],
            "supporting keys": ", ".join(v.supporting_keys) if v else "",
            "score": "" if v is None or v.score is None else f"{v.score:.2f}",
            "sentence": s.text,
            "explanation": split_explanation(v.explanation)[0] if v else "",
            "details": split_explanation(v.explanation)[1] if v else "",
        })
    return rows


def sentence_lines(rows: Sequence[dict], other: str = "the other version") -> list[str]:
    """Sentences not fully supported (``unsupported_sentences`` rows) in short words."""
    out = []
    for x in rows:
        how = {"none": "not supported at all", "partial": "only partly supported"}.get(x["level"], "not labeled")
        was = {"supported": f" — {other} had the same sentence fully supported",
               "not supported": f" — not fully supported in {other} either",
               "absent": " (a new sentence)"}[x["in_other"]]
        out.append(f"“{x['sentence']}”: {how}{was}")
    return out

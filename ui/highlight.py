"""Sentence highlighting as HTML. Pure functions (no Streamlit), unit-tested.

Every piece of text that comes from an upload or a labeler (documents, response, keys,
explanations) goes through ``html.escape(..., quote=True)`` before it is placed in markup, so
``<script>`` or ``<img onerror=...>`` in a document shows as text and never runs.
"""

from __future__ import annotations

from html import escape
from typing import Iterable, Literal, Sequence

from evaluators.types import Sentence, SentenceLabels, SentenceSupport, SentencizedCase

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


def _span(s: Sentence, bg: str, tip: str, attrs: str) -> str:
    return (f'<span class="rag-s" {attrs} title="{e(tip)}" style="background:{bg};border-radius:3px;'
            f'padding:1px 2px"><span class="rag-key" style="{_KEY_STYLE}">{e(s.key)}</span>'
            f"{e(s.text)}</span>")


def _stitch(text: str, sentences: Sequence[Sentence], rendered: Sequence[str]) -> str:
    """The original text with each sentence span replaced by its markup (gaps escaped too)."""
    out: list[str] = []
    pos = 0
    for s, html in zip(sentences, rendered):
        out.append(e(text[pos : s.start]))
        out.append(html)
        pos = s.end
    out.append(e(text[pos:]))
    return "".join(out)


def document_html(doc_index: int, text: str, sentences: Sequence[Sentence],
                  labels: SentenceLabels | None) -> str:
    rel = set(labels.relevant_keys) if labels else set()
    util = set(labels.utilized_keys) if labels else set()
    spans = []
    for s in sentences:
        role = doc_role(s.key, rel, util) if labels else "neither"
        bg, name = DOC_COLORS[role]
        spans.append(_span(s, bg, f"{s.key}: {name}", f'data-key="{e(s.key)}" data-role="{role}"'))
    return (f'<div class="rag-doc" data-doc="{doc_index}" style="{_BOX_STYLE}">'
            f'<div style="font-weight:600;margin-bottom:4px">Document {doc_index}</div>'
            f"{_stitch(text, sentences, spans)}</div>")


def documents_html(sc: SentencizedCase, labels: SentenceLabels | None) -> list[str]:
    by_doc: dict[int, list[Sentence]] = {}
    for s in sc.doc_sentences:
        by_doc.setdefault(s.doc or 0, []).append(s)
    return [document_html(i, d, by_doc.get(i, []), labels) for i, d in enumerate(sc.case.documents)]


def support_tip(sup: SentenceSupport | None) -> str:
    if sup is None:
        return "no label for this sentence"
    name = RESPONSE_COLORS[sup.level][1]
    keys = ", ".join(sup.supporting_keys) or "none"
    tip = f"{sup.key}: {name} · supporting keys: {keys}"
    return f"{tip}\n{sup.explanation}" if sup.explanation else tip


def response_html(sc: SentencizedCase, labels: SentenceLabels | None) -> str:
    sup = {s.key: s for s in labels.sentences} if labels else {}
    spans = []
    for s in sc.response_sentences:
        v = sup.get(s.key)
        level = v.level if v else "unlabeled"
        bg = RESPONSE_COLORS[level][0]
        keys = e(" ".join(v.supporting_keys)) if v else ""
        spans.append(_span(s, bg, support_tip(v),
                           f'data-key="{e(s.key)}" data-level="{level}" data-support="{keys}"'))
    return (f'<div class="rag-response" style="{_BOX_STYLE}">'
            f"{_stitch(sc.case.response, sc.response_sentences, spans)}</div>")


def note_html(text: str, error: bool = False) -> str:
    """A small escaped note (explanations, human labels, errors: text that may come from uploads)."""
    style = ("color:#9b1c1c;background:#fdecec;padding:6px 10px;border-radius:6px" if error
             else "color:#666")
    return f'<div class="rag-note" style="font-size:0.9em;{style}">{e(text)}</div>'


def legend_html(kind: Literal["documents", "response"]) -> str:
    colors = DOC_COLORS if kind == "documents" else RESPONSE_COLORS
    items = [
        f'<span style="background:{bg};border:1px solid #ccc;border-radius:3px;padding:1px 6px;'
        f'margin-right:8px;color:#222">{e(name)}</span>'
        for role, (bg, name) in colors.items() if role != "unlabeled"
    ]
    return f'<div class="rag-legend" style="font-size:0.85em;margin:4px 0">{"".join(items)}</div>'


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
            "explanation": v.explanation if v else "",
        })
    return rows

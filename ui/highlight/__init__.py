"""Sentence highlighting as HTML, shared by Inspect and Compare (pure functions, no Streamlit).

    from ui import highlight as hl
    hl.stylesheet() + hl.documents_html(sc, labels, focus=("response", "a")) + hl.response_html(sc, labels)
    hl.sentence_lines(hl.support_rows(sc, labels))   # sentences not fully supported, in words

Modules: ``spans`` (prose sentences as spans with colours, focus / lit outlines, review and
disagreement marks, legends, hover texts), ``record_html`` (a structured document — a JSON record,
a table — drawn as a tree / tables of its keyed facts; used by ``spans.document_html`` only).
"""

from __future__ import annotations

from .spans import (
    DOC_COLORS,
    FOCUS_STYLE,
    LIT_STYLE,
    NOT_JUDGED,
    RESPONSE_COLORS,
    DocRole,
    Focus,
    doc_role,
    document_html,
    documents_html,
    e,
    explained_html,
    legend_html,
    note_html,
    related,
    response_html,
    sentence_lines,
    stylesheet,
    support_rows,
    support_tip,
)

__all__ = ["DOC_COLORS", "FOCUS_STYLE", "LIT_STYLE", "NOT_JUDGED", "RESPONSE_COLORS", "DocRole", "Focus",
           "doc_role", "document_html", "documents_html", "e", "explained_html", "legend_html", "note_html",
           "related", "response_html", "sentence_lines", "stylesheet", "support_rows", "support_tip"]

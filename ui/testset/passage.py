"""A reference passage as HTML with the reference answer (or, failing that, the question's evidence
sentence) highlighted. Pure function, no Streamlit; every piece of text is ``html.escape``d before
it is placed in markup, so a passage holding ``<script>`` shows it as text."""

from __future__ import annotations

import re
from html import escape

_BOX = ("border:1px solid #ddd;border-radius:6px;padding:8px 10px;margin:6px 0;line-height:1.7;"
        "white-space:pre-wrap;color:#222;background:#fff")
_MARK = "background:#ffe08a;padding:0 2px;border-radius:3px"


def _find(text: str, needle: str) -> tuple[int, int] | None:
    """Where ``needle`` stands in ``text``, whitespace and case aside."""
    words = needle.split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), text, re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def passage_html(text: str, answer: str = "", evidence: str = "", source: str = "") -> str:
    """``text`` in a box, the answer marked where it stands (else the evidence sentence)."""
    span = _find(text, answer) if answer else None
    if span is None and evidence:
        span = _find(text, evidence)
    if span is None:
        body = escape(text, quote=True)
    else:
        a, b = span
        body = (escape(text[:a], quote=True) + f'<mark class="ts-answer" style="{_MARK}">'
                + escape(text[a:b], quote=True) + "</mark>" + escape(text[b:], quote=True))
    head = f'<div style="font-size:0.8em;color:#555">{escape(source, quote=True)}</div>' if source else ""
    return f'<div class="ts-passage" style="{_BOX}">{head}{body}</div>'

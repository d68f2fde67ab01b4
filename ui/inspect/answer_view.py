"""Inspect: the answer against its reference answer — each reference fact stated (✓) or missing (✗), the
answer's claims the reference does not back, and whether the answer declined (a right refusal or an
over-refusal, and why). Read from the case's answer metrics (``evaluators.answers``); nothing is
recomputed here."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evaluators.answers import not_stated
from evaluators.types import CaseResult

from .. import highlight as hl

_OK, _MISS = "#1a7f37", "#b42318"


def _fact(f: dict[str, Any]) -> str:
    mark, color = ("✓", _OK) if f.get("stated") else ("✗", _MISS)
    why = f" — {hl.e(f['explanation'])}" if f.get("explanation") and not f.get("stated") else ""
    if not f.get("stated") and f.get("credit"):  # half said: the share of its words the answer carries
        why += f" (partly said: {float(f['credit']) * 100:.0f} % of its words)"
    return (f'<li title="{hl.e(f.get("explanation") or "")}"><span style="color:{color};font-weight:600">{mark}</span> '
            f'{hl.e(f.get("text"))}<span style="color:#666">{why}</span></li>')


def reference_html(r: CaseResult) -> str:
    """The reference answer as HTML: its facts marked stated / missing when the answer was judged
    against it, else the text as given with the note of why it was not judged."""
    recall = r.metrics.get("answer_recall")
    facts = (recall.details or {}).get("facts") if recall is not None else None
    gt = r.case.ground_truth
    # how the ground_truth was read (a number, a list of texts …): said on the case whatever else is shown
    read = (recall.details or {}).get("note") if recall is not None else None
    said = str(recall.skipped or "") if recall is not None else ""
    how = hl.note_html(str(read)) if read and str(read).split(": ")[-1] not in said else ""
    if facts:
        missing = sum(1 for f in facts if f.get("claims", True) and not f.get("stated"))
        head = (f"<b>Reference answer</b> — the answer states {len(facts) - missing} of its {len(facts)} facts"
                + (f"; <b>{missing} missing</b> (✗)" if missing else "") + ":")
        items = "".join(_fact(f) for f in facts if f.get("claims", True))
        return f'<div class="rag-answer-facts">{head}<ul style="margin:2px 0 4px 0">{items}</ul></div>' + how
    if gt is None and recall is None:
        return ""
    out = (f"<div><b>Reference answer:</b> {hl.e(gt)}</div>" if gt else "") + how
    if recall is not None and recall.skipped:
        out += hl.note_html(f"Not compared with the answer: {recall.skipped}")
    elif recall is not None and (recall.details or {}).get("explanation"):
        out += hl.note_html(str(recall.details["explanation"]))
    return out


def declined_html(r: CaseResult) -> str:
    """A note when the answer declines: a right refusal or an over-refusal, and why."""
    mv = r.metrics.get("declined")
    if mv is None or mv.value != 1.0:
        return ""
    d = mv.details or {}
    over = d.get("verdict") == "over_refusal"
    head, _, why = str(d.get("explanation") or d.get("why") or "").partition(": ")
    if not why:
        head, why = "", head
    # the verdict's own words open with "right refusal (likely): …": the title keeps "(likely)", the reason
    # reads as a sentence of its own
    title = ("Over-refusal" if over else "Right refusal") + (" (likely)" if "(likely)" in head else "")
    why = why[:1].upper() + why[1:]
    text = f"{title}: the answer declines. {why}".strip()
    return hl.note_html(text + ("." if text[-1:].isalnum() else ""), error=over)


def show(r: CaseResult) -> None:
    """The reference answer (facts stated / missing) and the declined note, under the question."""
    html = reference_html(r) + declined_html(r)
    if html:
        st.html(html)
    precision = r.metrics.get("answer_precision")
    unbacked = not_stated(precision.details, "claims") if precision is not None else None
    if unbacked:
        st.html(hl.note_html("Claims of the answer the reference answer does not back: "
                             + " · ".join(f"“{u}”" for u in unbacked[:5])))

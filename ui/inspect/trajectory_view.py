"""Inspect's trajectory: an agent's tool calls, above the sentence view — each step with its
arguments, its result, the documents it brought (their numbers, as the sentence view names them),
its time, a failed step in red; and, when the case has reference calls, the calls it should have
made and did not. Nothing for a case without tool calls or reference calls.

:func:`trajectory_html` is the pure part (every text escaped); :func:`show` puts it on the page.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from evaluators.types import CaseResult, ToolCall

from .. import highlight as hl

RESULT_CHARS = 400
_CSS = ("<style>.rag-traj{margin:.4em 0 1em 0;border-left:3px solid #d0d7de;padding-left:.8em}"
        ".rag-step{margin:.35em 0}.rag-step.failed{color:#b42318}.rag-step.failed b{color:#b42318}"
        ".rag-step .args{font-family:monospace;font-size:.9em;background:#f6f8fa;padding:0 .3em;border-radius:3px}"
        ".rag-step .meta{color:#57606a;font-size:.9em}.rag-missing{color:#9a6700}</style>")


def _args(c: ToolCall) -> str:
    if c.raw_arguments is not None:
        return c.raw_arguments
    return json.dumps(c.arguments, ensure_ascii=False, default=str) if c.arguments else "(no arguments)"


def _step_html(i: int, c: ToolCall, documents: tuple[str, ...], extra: bool) -> str:
    failed = c.status == "error"
    bits = [f'<b>{i}. {hl.e(c.name)}</b>']
    if c.kind == "RETRIEVER":
        bits.append('<span class="meta">(retriever)</span>')
    bits.append(f'<span class="args">{hl.e(_args(c))}</span>')
    meta = []
    if c.latency_s is not None:
        meta.append(f"{c.latency_s * 1000:.0f} ms" if c.latency_s < 10 else f"{c.latency_s:.1f} s")
    if failed:
        meta.append("failed: " + (c.error or "an error"))
    if extra:
        meta.append("not in the reference calls")
    if c.documents:
        names = ", ".join(f"[{d}]" for d in c.documents)
        first = documents[c.documents[0]][:80] if c.documents[0] < len(documents) else ""
        meta.append(f"brought document{'s' if len(c.documents) > 1 else ''} {names}"
                    + (f" (“{first}…”)" if first else ""))
    if c.query and c.kind != "RETRIEVER":
        meta.append(f"query “{c.query}”")
    if meta:
        bits.append('<span class="meta">— ' + hl.e(" · ".join(meta)) + "</span>")
    out = f'<div class="rag-step{" failed" if failed else ""}">' + " ".join(bits)
    if c.result and not failed:
        short = c.result if len(c.result) <= RESULT_CHARS else c.result[:RESULT_CHARS] + "…"
        out += f'<details><summary class="meta">result</summary><div class="args">{hl.e(short)}</div></details>'
    if c.notes:
        out += f'<div class="meta">{hl.e("; ".join(c.notes))}</div>'
    return out + "</div>"


def trajectory_html(r: CaseResult) -> str:
    """The steps of ``r``'s case, and the reference calls it did not make ("" when it has neither)."""
    case = r.case
    calls, refs = case.tool_calls, case.reference_tool_calls
    if not calls and refs is None:
        return ""
    details: dict[str, Any] = {}
    mv = r.metrics.get("tool_call_accuracy")
    if mv is not None:
        details = mv.details or {}
    matched_calls = {j for _, j in details.get("matched", [])}
    matched_refs = {i for i, _ in details.get("matched", [])}
    n = len(calls)
    head = f"<b>Trajectory</b> — {n} tool call{'s' if n != 1 else ''}"
    failed = sum(c.status == "error" for c in calls)
    if failed:
        head += f", {failed} failed"
    parts = [_CSS, f'<div class="rag-traj"><div>{head}</div>']
    for i, c in enumerate(calls, start=1):
        parts.append(_step_html(i, c, case.documents, refs is not None and bool(details) and i not in matched_calls))
    if not calls:
        parts.append('<div class="meta">The agent called no tool.</div>')
    if refs is not None and details:
        missing = [rc for k, rc in enumerate(refs, start=1) if k not in matched_refs]
        for rc in missing:
            parts.append(f'<div class="rag-missing">expected, not made: <b>{hl.e(rc.name)}</b> '
                         f'<span class="args">{hl.e(_args(rc))}</span></div>')
    return "".join(parts) + "</div>"


def show(r: CaseResult) -> None:
    html = trajectory_html(r)
    if html:
        st.html(html)


__all__ = ["RESULT_CHARS", "show", "trajectory_html"]

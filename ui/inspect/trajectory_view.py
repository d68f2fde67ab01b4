"""Inspect's trajectory: an agent's tool calls, above the sentence view — each step with its
arguments, its result, the documents it brought (their numbers, as the sentence view names them),
its time, a failed step in red; when the case has reference calls, the calls it should have made
and did not; and the goal accuracy: each goal of the request achieved or not, with the judge's
explanation and what it cites (or why there is none: offline). Nothing for a case without tool
calls or reference calls.

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
    parts.append(goal_html(r))
    return "".join(parts) + "</div>"


def goal_html(r: CaseResult) -> str:
    """Goal accuracy under the steps: each goal of the request, achieved or not, with the judge's
    explanation, the answer sentences and steps it cites; or why there is none (offline)."""
    mv = r.metrics.get("goal_accuracy")
    if mv is None:
        return ""
    if mv.value is None:
        return f'<div class="meta"><b>Goal</b> — {hl.e(mv.skipped or "no value")}</div>'
    goals = (mv.details or {}).get("goals") or []
    out = [f'<div><b>Goal</b> — {sum(bool(g.get("achieved")) for g in goals)} of {len(goals)} achieved '
           f'(goal accuracy {mv.value:.2f}, by the LLM)</div>']
    for g in goals:
        cites = [f"sentence{'s' if len(g.get('answer_sentence_keys') or []) > 1 else ''} "
                 + ", ".join(g["answer_sentence_keys"])] if g.get("answer_sentence_keys") else []
        cites += ["step" + ("s " if len(g["step_keys"]) > 1 else " ") + ", ".join(k.lstrip("s") for k in g["step_keys"])
                  ] if g.get("step_keys") else []
        word = "achieved" if g.get("achieved") else "not achieved"
        out.append(f'<div class="rag-step{"" if g.get("achieved") else " failed"}">{"✓" if g.get("achieved") else "✗"} '
                   f'<b>{hl.e(str(g.get("goal") or "(goal)"))}</b> <span class="meta">— {word}'
                   + (f" · {hl.e('; '.join(cites))}" if cites else "")
                   + f'</span><div class="meta">{hl.e(str(g.get("explanation") or ""))}</div></div>')
    return "".join(out)


def show(r: CaseResult) -> None:
    html = trajectory_html(r)
    if html:
        st.html(html)


__all__ = ["RESULT_CHARS", "goal_html", "show", "trajectory_html"]

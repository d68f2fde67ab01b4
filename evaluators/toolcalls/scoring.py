"""The tool-call metrics of cases: every metric valued, or skipped with the reason.

Contract: :func:`score_cases` gives one ``{name: MetricValue}`` per case (family ``toolcalls``) and
the run's warnings; nothing (an empty dict for every case) when no case of the run has tool calls or
reference tool calls, so a plain run is unchanged. A case with tool calls gets the counts
(:data:`.names.COUNTED`); one with ``reference_tool_calls`` (an empty list included: "no tool should
be called") gets the comparisons (:data:`.names.COMPARED`), else they are skipped saying so. The order
the calls must follow is the case's own ``tool_call_order`` (metadata: ``strict`` / ``any``), else the
run's (``EvalOptions.tool_call_order``). A reference call naming a tool no call of the run used and
the case's app does not declare (``metadata["available_tools"]``) is named in the case's details and
in a run warning; the case is still scored (that call counts as not made). ``tool_call_accuracy``
carries the case's details: the order used, the pairs matched, the repeated and failed calls.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..types import MetricValue, TestCase, ToolCall
from . import measures as ms
from .names import COMPARED, COUNTED, FAMILY, ORDER_KEY, TRAJECTORY_MODES

NO_REFERENCE = "no reference tool calls to compare against (reference_tool_calls)"
_ORDER_WORDS = {"strict": True, "ordered": True, "order": True, "true": True, "yes": True, "1": True,
                "any": False, "unordered": False, "none": False, "false": False, "no": False, "0": False}


def order_of(case: TestCase, default: str = "strict") -> tuple[bool, str]:
    """(order required, where that was decided) for ``case``."""
    own = case.metadata.get(ORDER_KEY)
    if own is not None and str(own).strip().lower() in _ORDER_WORDS:
        return _ORDER_WORDS[str(own).strip().lower()], f"the case's {ORDER_KEY}"
    return default == "strict", "the run's tool_call_order"


def has_tool_calls(case: TestCase) -> bool:
    return bool(case.tool_calls) or case.reference_tool_calls is not None


def known_tools(cases: Iterable[TestCase]) -> set[str]:
    """Every tool the run called, and every tool its apps declared (``metadata["available_tools"]``)."""
    out: set[str] = set()
    for c in cases:
        out.update(t.name for t in c.tool_calls)
        declared = c.metadata.get("available_tools")
        if isinstance(declared, (list, tuple)):
            out.update(str(x) for x in declared)
    return out


def _value(name: str, v: float | None, details: dict[str, Any] | None = None, skipped: str | None = None
           ) -> MetricValue:
    return MetricValue.model_construct(name=name, family=FAMILY, value=v, skipped=skipped, details=details or {})


def counts(calls: Sequence[ToolCall]) -> dict[str, MetricValue]:
    """The metrics of the calls alone (steps, failed, redundant, latency)."""
    lat = ms.latency(calls)
    out = {"tool_steps": _value("tool_steps", float(len(calls))),
           "failed_tool_calls": _value("failed_tool_calls", float(len(ms.failed(calls))),
                                       {"failed": [calls[j].name for j in ms.failed(calls)]}),
           "redundant_tool_calls": _value("redundant_tool_calls", float(len(ms.redundant(calls))),
                                          {"repeated_steps": [j + 1 for j in ms.redundant(calls)]})}
    out["tool_latency_s"] = (_value("tool_latency_s", lat) if lat is not None else
                             _value("tool_latency_s", None, skipped="no tool call has a duration"))
    return {n: out[n] for n in COUNTED}


def compared(calls: Sequence[ToolCall], refs: Sequence[ToolCall], ordered: bool,
             details: dict[str, Any] | None = None) -> dict[str, MetricValue]:
    """The metrics of the calls against the reference calls."""
    f1, p, r = ms.tool_call_f1(calls, refs)
    pairs = ms.matching(refs, calls)
    info = {"order": "strict" if ordered else "any", "precision": p, "recall": r,
            "matched": [[i + 1, j + 1] for i, j in pairs],
            "missing": [refs[i].name for i in range(len(refs)) if i not in {a for a, _ in pairs}],
            "extra": [calls[j].name for j in range(len(calls)) if j not in {b for _, b in pairs}],
            **(details or {})}
    values = {"tool_call_accuracy": ms.tool_call_accuracy(calls, refs, ordered), "tool_call_f1": f1}
    if refs:
        values.update({"tool_selection": ms.tool_selection(calls, refs, ordered),
                       "tool_arguments_exact": ms.arguments_exact(calls, refs, ordered),
                       "tool_arguments_by_key": ms.arguments_by_key(calls, refs, ordered)})
    else:
        values.update({"tool_selection": 1.0 if not calls else 0.0})
    for mode in TRAJECTORY_MODES:
        values[f"trajectory_{mode}"] = 1.0 if ms.trajectory(calls, refs, mode) else 0.0
    out: dict[str, MetricValue] = {}
    for n in COMPARED:
        if n in values:
            out[n] = _value(n, float(values[n]), info if n == "tool_call_accuracy" else None)
        else:
            out[n] = _value(n, None, skipped="the reference makes no tool call: no arguments to check")
    return out


def case_metrics(case: TestCase, order: str = "strict", known: set[str] | None = None
                 ) -> tuple[dict[str, MetricValue], list[str]]:
    """Every tool-call metric of one case (see the module docstring) and its notes."""
    calls = list(case.tool_calls)
    out = counts(calls)
    notes: list[str] = []
    refs = case.reference_tool_calls
    if refs is None:
        out.update({n: _value(n, None, skipped=NO_REFERENCE) for n in COMPARED})
        return out, notes
    if known is not None:
        for i, rc in enumerate(refs, start=1):
            if rc.name not in known:
                notes.append(f"reference tool call {i} names tool {rc.name!r}, which no call of the run used "
                             "and the app does not declare; scored as a call not made")
    ordered, why = order_of(case, order)
    details: dict[str, Any] = {"order_from": why}
    if notes:
        details["notes"] = notes
    out.update(compared(calls, list(refs), ordered, details))
    return {n: out[n] for n in (*COMPARED, *COUNTED)}, notes


def score_cases(cases: Sequence[TestCase], order: str = "strict") -> tuple[list[dict[str, MetricValue]], list[str]]:
    """The tool-call metrics of each case, and the run's warnings (see the module docstring)."""
    if not any(has_tool_calls(c) for c in cases):
        return [{} for _ in cases], []
    known = known_tools(cases)
    out: list[dict[str, MetricValue]] = []
    warnings: list[str] = []
    for c in cases:
        if not has_tool_calls(c):
            out.append({n: _value(n, None, skipped="the case has no tool calls and no reference tool calls")
                        for n in (*COMPARED, *COUNTED)})
            continue
        values, notes = case_metrics(c, order, known)
        out.append(values)
        warnings += [f"case {c.id}: {n}" for n in notes]
    return out, warnings


__all__ = ["NO_REFERENCE", "case_metrics", "compared", "counts", "has_tool_calls", "known_tools", "order_of",
           "score_cases"]

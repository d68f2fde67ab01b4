"""Langfuse exports -> spans.

Two shapes are read, alone or mixed in one file:

* traces (``GET /api/public/traces/{id}``, the UI export): ``id``, ``timestamp``, ``name``,
  ``input``, ``output``, ``sessionId``, ``userId``, ``tags``, ``metadata`` and ``observations``
  (the observation objects). The trace becomes the root span: its input is the question, its output
  the answer (the top observation's when the trace has none);
* observations (``GET /api/public/v2/observations``, ``ObservationV2``; one per line or under
  ``data``): ``id``, ``traceId``, ``parentObservationId``, ``type`` (SPAN, GENERATION, EVENT, AGENT,
  TOOL, CHAIN, RETRIEVER, EMBEDDING, …), ``name``, ``input``, ``output``, ``startTime``, ``model``,
  and, in v2, ``isRootObservation``, ``sessionId``, ``userId``, ``tags``.

The retriever is an observation of type RETRIEVER, or (older SDKs logged retrievers as spans) a
SPAN named like a retriever whose output is a list of documents.
"""

from __future__ import annotations

from typing import Any

from .model import Issue, Span, Trace
from .values import as_object, as_tags, as_text, docs_of, missing, timestamp

_KINDS = {"GENERATION": "LLM", "SPAN": "CHAIN", "EVENT": "EVENT"}


def is_langfuse_columns(columns: set[str]) -> bool:
    if "observations" in columns and "id" in columns:
        return True
    return {"traceId", "type"} <= columns and bool(
        columns & {"startTime", "parentObservationId", "input", "output"})


def _is_observation(r: dict[str, Any]) -> bool:
    return "traceId" in r and "type" in r and "observations" not in r


def _span(o: dict[str, Any], row: int, trace_id: str, parent: str | None) -> Span:
    name = as_text(o.get("name")) or ""
    typ = (as_text(o.get("type")) or "").upper()
    output = o.get("output")
    docs = docs_of(output)
    kind = _KINDS.get(typ, typ)
    if kind == "CHAIN" and docs is not None and "retriev" in name.lower():
        kind = "RETRIEVER"  # older SDKs: a retriever logged as a SPAN
    meta = as_object(o.get("metadata"))
    level = as_text(o.get("level")) or ""
    return Span(
        trace_id=trace_id, span_id=str(o["id"]), parent_id=parent, name=name, kind=kind,
        start=timestamp(o.get("startTime")), end=timestamp(o.get("endTime")),
        input=o.get("input"), output=output, documents=docs if kind == "RETRIEVER" else None,
        model=as_text(o.get("model")), session=as_text(o.get("sessionId")), user=as_text(o.get("userId")),
        tags=as_tags(o.get("tags")), metadata=meta,
        status="ERROR" if level == "ERROR" else "", status_message=as_text(o.get("statusMessage")) or "",
        is_root=o.get("isRootObservation") is True, record=row,
    )


def read_langfuse(records: list[tuple[int, dict[str, Any]]]
                  ) -> tuple[list[Span], list[Issue], dict[str, Trace]]:
    """Spans, problems, and the trace-level facts of trace records ({trace id: Trace})."""
    spans: list[Span] = []
    issues: list[Issue] = []
    traces: dict[str, Trace] = {}
    observations: list[tuple[int, dict[str, Any]]] = []
    trace_rows: dict[str, int] = {}
    for row, r in records:
        if _is_observation(r):
            observations.append((row, r))
            continue
        tid = as_text(r.get("id"))
        if not tid:
            issues.append(Issue("trace has no id; it is left out", record=row, field="id"))
            continue
        t = Trace(trace_id=tid, name=as_text(r.get("name")), input=r.get("input"), output=r.get("output"),
                  session=as_text(r.get("sessionId")), user=as_text(r.get("userId")),
                  tags=as_tags(r.get("tags")), metadata=as_object(r.get("metadata")),
                  start=timestamp(r.get("timestamp")))
        traces[tid] = t
        trace_rows.setdefault(tid, row)
        obs = r.get("observations")
        if isinstance(obs, list):
            kept = [o for o in obs if isinstance(o, dict)]
            if len(kept) < len(obs):
                issues.append(Issue(f"trace {tid} lists {len(obs) - len(kept)} observation(s) by id only; "
                                    "export the traces with their observations (GET /api/public/traces/{id})",
                                    record=row, field="observations"))
            observations += [(row, {**o, "traceId": o.get("traceId") or tid}) for o in kept]
    for row, o in observations:
        name = as_text(o.get("name")) or "(no name)"
        tid = as_text(o.get("traceId"))
        if not tid:
            issues.append(Issue(f"observation {name!r} has no traceId; it is left out", record=row,
                                field="traceId"))
            continue
        if missing(o.get("id")):
            issues.append(Issue(f"observation {name!r} of trace {tid} has no id; it is left out", record=row,
                                field="id"))
            continue
        parent = as_text(o.get("parentObservationId"))
        if tid in traces and (not parent or parent == tid):
            parent = tid  # under the trace's own root span
        spans.append(_span(o, row, tid, parent))
    top: dict[str, list[Span]] = {}
    for s in spans:
        if s.parent_id == s.trace_id:
            top.setdefault(s.trace_id, []).append(s)
    for tid, t in traces.items():  # the trace itself is the root span
        kids = top.get(tid, [])
        only = kids[0] if len(kids) == 1 else None
        spans.append(Span(
            trace_id=tid, span_id=tid, parent_id=None, name=t.name or "trace", kind="TRACE",
            start=t.start, input=t.input if not missing(t.input) else (only.input if only else None),
            output=t.output if not missing(t.output) else (only.output if only else None),
            session=t.session, user=t.user, tags=t.tags, metadata=t.metadata, is_root=True,
            record=trace_rows.get(tid)))
    return spans, issues, traces

"""Trace files as each tool writes them, built from the app run of ``trace_fixtures`` with the
producers' own code and types:

* OTLP JSON — the SDK's spans encoded by ``opentelemetry-exporter-otlp-proto-common`` and
  written with the protobuf JSON mapping (``MessageToJson``: base64 ids), or as the Collector's
  file exporter writes them (one request per line, hex ids, numeric enums);
* LangSmith — ``langsmith.schemas.Run`` objects (flat, or nested under ``child_runs``);
* Langfuse — ``ObservationV2`` in an ``ObservationsV2Response`` (the v2 observations API), and the
  traces-with-observations export (the SDK has no type for it any more: plain objects in the
  documented shape).
"""

from __future__ import annotations

import base64
import json
from typing import Any, Iterator

from tests.trace_fixtures import AppRun


def encode(spans: list[Any]) -> Any:
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return encode_spans(spans)


def otlp_protobuf_json(spans: list[Any]) -> str:
    """One ExportTraceServiceRequest in the protobuf JSON mapping (base64 ids, enum names)."""
    from google.protobuf.json_format import MessageToJson

    return MessageToJson(encode(spans))


def _hex_ids(obj: Any) -> Any:
    """The OTLP/JSON spelling of the protobuf mapping: ids in hex, enums as numbers."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str):
                out[k] = base64.b64decode(v).hex()
            elif k == "kind" and isinstance(v, str):
                out[k] = {"SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2, "SPAN_KIND_CLIENT": 3}.get(v, 0)
            elif k == "code" and isinstance(v, str):
                out[k] = {"STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}.get(v, 0)
            else:
                out[k] = _hex_ids(v)
        return out
    if isinstance(obj, list):
        return [_hex_ids(x) for x in obj]
    return obj


def otlp_collector_lines(spans: list[Any], batch: int = 10) -> str:
    """What the Collector's file exporter writes: one request per line, in batches."""
    from google.protobuf.json_format import MessageToDict

    lines = [json.dumps(_hex_ids(MessageToDict(encode(spans[i:i + batch]))))
             for i in range(0, len(spans), batch)]
    return "\n".join(lines) + "\n"


def _flat(run: Any) -> Iterator[Any]:
    yield run
    for c in run.child_runs or []:
        yield from _flat(c)


def langsmith_runs(app: AppRun, nested: bool = False) -> list[dict[str, Any]]:
    """The app's runs as ``langsmith.schemas.Run`` dumps (``Client.list_runs`` written to JSON)."""
    from langsmith.schemas import Run

    def to_run(rt: Any, kids: bool) -> Any:
        fields = {k: getattr(rt, k) for k in Run.model_fields
                  if k != "child_runs" and getattr(rt, k, None) is not None}
        if kids:
            fields["child_runs"] = [to_run(c, True) for c in rt.child_runs or []]
        return Run(**fields)

    def dump(run: Any) -> Any:  # objects pydantic cannot write (LangGraph's Send) as the client does: as text
        return json.loads(run.model_dump_json(fallback=repr))

    if nested:
        return [dump(to_run(root, True)) for root in app.runs]
    return [dump(to_run(rt, False)) for root in app.runs for rt in _flat(root)]


_LF_TYPES = {"chain": "CHAIN", "retriever": "RETRIEVER", "llm": "GENERATION", "prompt": "SPAN",
             "parser": "SPAN", "tool": "TOOL", "embedding": "EMBEDDING"}


def _jsonable(v: Any) -> Any:
    return json.loads(json.dumps(v, default=lambda o: o.model_dump() if hasattr(o, "model_dump") else str(o)))


def langfuse_observations(app: AppRun) -> dict[str, Any]:
    """The app's runs as the v2 observations API returns them (``ObservationsV2Response``)."""
    from langfuse.api.commons.types.observation_v2 import ObservationV2
    from langfuse.api.observations.types.observations_v2meta import ObservationsV2Meta
    from langfuse.api.observations.types.observations_v2response import ObservationsV2Response

    data = []
    for root in app.runs:
        meta = (root.extra or {}).get("metadata") or {}
        for rt in _flat(root):
            data.append(ObservationV2(
                id=str(rt.id), trace_id=str(root.trace_id).replace("-", ""), start_time=rt.start_time,
                end_time=rt.end_time, project_id="p1",
                parent_observation_id=str(rt.parent_run_id) if rt.parent_run_id else None,
                type=_LF_TYPES.get(rt.run_type, "SPAN"), is_root_observation=rt.parent_run_id is None,
                name=rt.name, input=json.dumps(_jsonable(rt.inputs)),
                output=json.dumps(_jsonable(rt.outputs)) if rt.outputs is not None else None,
                level="ERROR" if rt.error else "DEFAULT", status_message=rt.error,
                session_id=meta.get("session_id"), tags=list(root.tags or []), trace_name=root.name,
                model=((rt.extra or {}).get("invocation_params") or {}).get("model"),
            ))
    resp = ObservationsV2Response(data=data, meta=ObservationsV2Meta(cursor=None))
    return json.loads(resp.json())


def langfuse_traces(app: AppRun) -> list[dict[str, Any]]:
    """Traces with their observations, as ``GET /api/public/traces/{id}`` returns them."""
    out = []
    for root in app.runs:
        meta = (root.extra or {}).get("metadata") or {}
        tid = str(root.trace_id).replace("-", "")
        obs = [{"id": str(rt.id), "traceId": tid, "type": _LF_TYPES.get(rt.run_type, "SPAN"), "name": rt.name,
                "startTime": rt.start_time.isoformat(), "endTime": rt.end_time.isoformat() if rt.end_time else None,
                "parentObservationId": str(rt.parent_run_id) if rt.parent_run_id else None,
                "input": _jsonable(rt.inputs), "output": _jsonable(rt.outputs),
                "level": "ERROR" if rt.error else "DEFAULT", "statusMessage": rt.error} for rt in _flat(root)]
        out.append({"id": tid, "timestamp": root.start_time.isoformat(), "name": root.name,
                    "input": _jsonable(root.inputs), "output": _jsonable(root.outputs),
                    "sessionId": meta.get("session_id"), "tags": list(root.tags or []), "metadata": {},
                    "observations": obs})
    return out


def check_against_truth(res: Any, app: AppRun, fmt: str, by_question: bool = False) -> None:
    """Every scored truth is a case with the same texts; every other one is skipped with its reason."""
    assert res.traces is not None and res.traces.format == fmt
    cases = {c.question: c for c in res.cases}
    skipped = {s.trace_id: s for s in res.traces.skipped}
    for t in app.truth:
        if t.skip_reason is None:
            c = cases[t.question]
            assert c.documents == t.documents, t.shape
            assert c.response == t.answer, t.shape
            assert c.metadata["trace_format"] == fmt
            assert c.metadata["retriever_span_ids"], t.shape
            assert len(c.metadata["document_spans"]) == len(c.documents)
            if t.session:
                assert c.metadata["session_id"] == t.session
                assert c.conversation_id == t.session, t.shape  # the session is the conversation
            # a chat's earlier turns are the case's history; every other shape has none
            assert tuple((h.speaker, h.text) for h in c.history) == t.history, (fmt, t.shape)
            if not by_question:
                assert c.id == app.trace_ids[t.question] == c.metadata["trace_id"]
        else:
            assert t.question not in cases, f"{t.shape} must be skipped, not scored"
            if not by_question:
                assert t.skip_reason in skipped[app.trace_ids[t.question]].reason
    assert len(res.cases) == sum(t.skip_reason is None for t in app.truth)
    reasons = [s.reason for s in res.traces.skipped]
    assert len(reasons) == sum(t.skip_reason is not None for t in app.truth)
    assert all(any(t.skip_reason in r for r in reasons) for t in app.truth if t.skip_reason)
    assert not res.errors


def root_ids(app: AppRun) -> dict[str, str]:
    """{trace id: root span id} of the app's spans (hex)."""
    return {format(s.context.trace_id, "032x"): format(s.context.span_id, "016x")
            for s in app.spans if s.parent is None}

"""Synthetic trace exports of any size, for benchmarks and size tests (``bench/trace_read.py``, the
50 MB test): N RAG traces — a root chain, a retriever, a prompt and an LLM call each, with
OpenInference attributes — written in each format the readers take. The shapes follow what the
real producers write (the round-trip tests check those against the real producers); only the
texts are made up, deterministically from ``seed``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

_WORDS = ("retrieval", "answer", "document", "paris", "tower", "river", "model", "vector", "index",
          "capital", "metres", "history", "science", "energy", "policy", "market", "system", "review")


@dataclass(frozen=True)
class SynthTrace:
    trace_id: str
    root_id: str
    retriever_id: str
    prompt_id: str
    llm_id: str
    question: str
    documents: tuple[str, ...]
    answer: str
    session: str
    tags: tuple[str, ...]
    start_ns: int


def _text(rng: random.Random, words: int) -> str:
    sents, out = [], []
    for _ in range(words):
        out.append(rng.choice(_WORDS))
        if len(out) >= 12:
            sents.append(" ".join(out).capitalize() + ".")
            out = []
    if out:
        sents.append(" ".join(out).capitalize() + ".")
    return " ".join(sents)


def synthetic_traces(n: int, docs: int = 3, doc_words: int = 50, seed: int = 0,
                     start_ns: int = 1_780_000_000 * 10**9) -> list[SynthTrace]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        out.append(SynthTrace(
            trace_id=f"{rng.getrandbits(128):032x}", root_id=f"{rng.getrandbits(64):016x}",
            retriever_id=f"{rng.getrandbits(64):016x}", prompt_id=f"{rng.getrandbits(64):016x}",
            llm_id=f"{rng.getrandbits(64):016x}",
            question=f"Question {i}: what about {rng.choice(_WORDS)} and {rng.choice(_WORDS)}?",
            documents=tuple(_text(rng, doc_words) for _ in range(docs)),
            answer=_text(rng, 30), session=f"session-{i % 50}", tags=("prod",) if i % 3 else ("beta",),
            start_ns=start_ns + i * 1_000_000_000))
    return out


def _spans(t: SynthTrace) -> list[dict[str, Any]]:
    """The trace's spans as (name, kind, span id, parent, offset ms, attributes)."""
    msgs = [{"message.role": "system", "message.content": "Answer from the context.\n" + "\n".join(t.documents)},
            {"message.role": "user", "message.content": t.question}]
    common = {"session.id": t.session, "tag.tags": list(t.tags)}
    return [
        {"name": "rag", "kind": "CHAIN", "id": t.root_id, "parent": None, "ms": 0, "end": 900,
         "attrs": {**common, "input.value": json.dumps({"question": t.question}), "input.mime_type": "application/json",
                   "output.value": t.answer, "metadata": json.dumps({"app_version": "1.2"})}},
        {"name": "retrieve", "kind": "RETRIEVER", "id": t.retriever_id, "parent": t.root_id, "ms": 5, "end": 60,
         "attrs": {**common, "input.value": t.question,
                   "retrieval.documents": [{"document.content": d, "document.id": f"doc-{k}",
                                            "document.score": 1.0 - k / 10} for k, d in enumerate(t.documents)]}},
        {"name": "prompt", "kind": "PROMPT", "id": t.prompt_id, "parent": t.root_id, "ms": 61, "end": 62,
         "attrs": {**common, "input.value": json.dumps({"question": t.question})}},
        {"name": "llm", "kind": "LLM", "id": t.llm_id, "parent": t.root_id, "ms": 63, "end": 890,
         "attrs": {**common, "llm.model_name": "gpt-4o-mini", "llm.input_messages": msgs,
                   "llm.output_messages": [{"message.role": "assistant", "message.content": t.answer}],
                   "output.value": t.answer}},
    ]


def _any(v: Any) -> dict[str, Any]:
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [_any(x) for x in v]}}
    return {"stringValue": json.dumps(v)}


def _flat_attrs(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for k, v in attrs.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):  # OTLP flattens lists of objects
            for i, item in enumerate(v):
                out += [{"key": f"{k}.{i}.{ik}", "value": _any(iv)} for ik, iv in item.items()]
        else:
            out.append({"key": k, "value": _any(v)})
    return out


def otlp_span(t: SynthTrace, s: dict[str, Any]) -> dict[str, Any]:
    d: dict[str, Any] = {
        "traceId": t.trace_id, "spanId": s["id"], "name": s["name"], "kind": 1,
        "startTimeUnixNano": str(t.start_ns + s["ms"] * 10**6), "endTimeUnixNano": str(t.start_ns + s["end"] * 10**6),
        "attributes": _flat_attrs({**s["attrs"], "openinference.span.kind": s["kind"]}), "status": {"code": 1}}
    if s["parent"]:
        d["parentSpanId"] = s["parent"]
    return d


def otlp_lines(traces: list[SynthTrace], per_line: int = 25) -> str:
    """The Collector's file exporter format: one request per line (hex ids), ``per_line`` traces each."""
    lines = []
    for i in range(0, len(traces), per_line):
        spans = [otlp_span(t, s) for t in traces[i:i + per_line] for s in _spans(t)]
        lines.append(json.dumps({"resourceSpans": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "rag-app"}}]},
            "scopeSpans": [{"scope": {"name": "openinference.instrumentation.langchain"}, "spans": spans}]}]}))
    return "\n".join(lines) + "\n"


def phoenix_frame(traces: list[SynthTrace]) -> Any:
    """The spans as Phoenix's ``get_spans_dataframe()`` returns them."""
    import pandas as pd

    rows = []
    for t in traces:
        for s in _spans(t):
            row: dict[str, Any] = {
                "name": s["name"], "span_kind": s["kind"], "parent_id": s["parent"],
                "start_time": pd.Timestamp(t.start_ns + s["ms"] * 10**6, unit="ns", tz="UTC"),
                "end_time": pd.Timestamp(t.start_ns + s["end"] * 10**6, unit="ns", tz="UTC"),
                "status_code": "OK", "status_message": "", "context.span_id": s["id"], "context.trace_id": t.trace_id,
                "attributes.openinference.span.kind": s["kind"]}
            row.update({f"attributes.{k}": v for k, v in s["attrs"].items()})
            rows.append(row)
    return pd.DataFrame(rows).set_index("context.span_id", drop=False)


def langsmith_records(traces: list[SynthTrace]) -> list[dict[str, Any]]:
    """The traces as LangSmith runs (``Run`` dumps)."""
    out = []
    for t in traces:
        tid = f"{t.trace_id[:8]}-{t.trace_id[8:12]}-{t.trace_id[12:16]}-{t.trace_id[16:20]}-{t.trace_id[20:]}"
        base = {"trace_id": tid, "tags": list(t.tags), "extra": {"metadata": {"session_id": t.session}}}
        out.append({**base, "id": t.root_id, "name": "rag", "run_type": "chain", "parent_run_id": None,
                    "inputs": {"question": t.question}, "outputs": {"output": t.answer}})
        out.append({**base, "id": t.retriever_id, "name": "retrieve", "run_type": "retriever",
                    "parent_run_id": t.root_id, "inputs": {"query": t.question},
                    "outputs": {"documents": [{"page_content": d, "metadata": {}, "type": "Document"}
                                              for d in t.documents]}})
        out.append({**base, "id": t.llm_id, "name": "llm", "run_type": "llm", "parent_run_id": t.root_id,
                    "inputs": {"messages": [[{"type": "human", "content": t.question}]]},
                    "outputs": {"generations": [[{"text": t.answer}]]}})
    return out


# ------------------------------------------------------------------------------------------ agents
def agent_spans(t: SynthTrace, calls: int = 3, result_chars: int = 0, raw_args: bool = False,
                orphan_tool: bool = False) -> list[dict[str, Any]]:
    """An agent's trace in the shape LangGraph + OpenInference write (``tests/agent_traces.py`` is
    the real producer): a root chain, per call an LLM span asking for it (``tool_calls`` in its output
    messages) and a TOOL span answering (a ToolMessage with the call's id), then the final LLM span.
    ``result_chars``: the first search returns one passage that long; ``raw_args``: the model's
    arguments are not JSON; ``orphan_tool``: the last tool span names no parent."""
    out: list[dict[str, Any]] = [{
        "name": "LangGraph", "kind": "CHAIN", "id": t.root_id, "parent": None, "ms": 0, "end": 100 + 20 * calls,
            "attrs": {"input.value": json.dumps({"messages": [["user", t.question]]}),
                      "output.value": json.dumps({"messages": [{"type": "human", "data": {"content": t.question}},
                                                               {"type": "ai", "data": {"content": t.answer}}]})}}]
    for i in range(calls):
        name = "search_docs" if i % 3 != 2 else "lookup_order"
        args: dict[str, str] = ({"query": f"{t.question.split()[-1]} {i % 2}"} if name == "search_docs"
                                else {"order_id": f"A-{i}"})
        cid = f"call-{i}"
        llm_id = f"{int(t.llm_id, 16) + 2 * i + 1:016x}"[-16:]
        tool_id = f"{int(t.prompt_id, 16) + 2 * i + 1:016x}"[-16:]
        arguments = "query=" + args.get("query", "") if raw_args else json.dumps(args)
        out.append({"name": "ChatModel", "kind": "LLM", "id": llm_id, "parent": t.root_id, "ms": 10 + 20 * i,
                    "end": 15 + 20 * i, "attrs": {"llm.output_messages": [{
                        "message.role": "assistant", "message.tool_calls.0.tool_call.id": cid,
                        "message.tool_calls.0.tool_call.function.name": name,
                        "message.tool_calls.0.tool_call.function.arguments": arguments}]}})
        if name == "search_docs":
            docs = [{"page_content": d} for d in t.documents]
            if result_chars and i == 0:
                docs = [{"page_content": "x" * result_chars}]
            content = json.dumps(docs)
        else:
            content = json.dumps({"order_id": args["order_id"], "status": "shipped"})
        out.append({"name": name, "kind": "TOOL", "id": tool_id,
                    "parent": None if orphan_tool and i == calls - 1 else t.root_id, "ms": 16 + 20 * i,
                    "end": 25 + 20 * i, "attrs": {"tool.name": name, "input.value": next(iter(args.values())),
                                                  "output.value": json.dumps({"type": "tool", "data": {
                                                      "content": content, "tool_call_id": cid,
                                                      "status": "success"}})}})
    out.append({"name": "ChatModel", "kind": "LLM", "id": t.llm_id, "parent": t.root_id, "ms": 30 + 20 * calls,
                "end": 90 + 20 * calls, "attrs": {"llm.output_messages": [
                    {"message.role": "assistant", "message.content": t.answer}]}})
    return out


def agent_otlp_lines(traces: list[SynthTrace], per_line: int = 25, **kw: Any) -> str:
    """Agent traces (:func:`agent_spans`) as the Collector's file exporter writes them."""
    lines = []
    for i in range(0, len(traces), per_line):
        spans = [otlp_span(t, s) for t in traces[i:i + per_line] for s in agent_spans(t, **kw)]
        lines.append(json.dumps({"resourceSpans": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "agent-app"}}]},
            "scopeSpans": [{"scope": {"name": "openinference.instrumentation.langchain"}, "spans": spans}]}]}))
    return "\n".join(lines) + "\n"

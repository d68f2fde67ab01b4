"""An agent's tool calls in a trace, and the passages they brought.

The rules (:func:`steps_of`; the case's ``tool_calls`` and documents are built from them by
:mod:`.assemble`):

* **a call** is a TOOL span, or a RETRIEVER span that no TOOL span encloses (a retriever inside a
  tool is part of that tool's call: its documents and query are the call's). A trace without a TOOL
  span is no agent's: it keeps no tool calls (a plain RAG chain reads as before). When the trace has
  no TOOL span but its LLM spans asked for tool calls, those requests are the calls (no result).
* **in order** of their start (then of the file).
* **name** — the tool's (``tool.name``, GenAI ``gen_ai.tool.name``), else the span's;
  **arguments** — the ones the model asked for (its ``tool_calls`` in an LLM span's output, matched by
  the call id the tool's answer carries, else the k-th request of that tool), else the span's input
  when it is an object, else the input text (kept as text, ``raw_arguments``);
  **result** — the tool's answer (a ToolMessage's content, the output text), cut at
  :data:`evaluators.toolcalls.MAX_RESULT_CHARS` with a note; **status** — ``error`` when the span
  failed or the tool's answer says so (the error message kept); **latency** — end − start.
* **documents**: a call's result read as passages (a list of texts / ``page_content`` / ``content``
  objects, LangChain Documents, OpenInference ``retrieval.documents``) gives one document each, with
  the call's query; any other non-empty result of a call that succeeded is one document (the agent
  read it: an order lookup's JSON supports "your order shipped"). A failed call, a call that ended
  after the answer was written (the start of the last LLM call, else the root's end) and a result
  over :data:`.assemble.MAX_TEXT_CHARS` give none (said in the call's notes).
* **retrieval tool by rule**: a mapping by hand (``documents=search_docs:output.hits``) names where
  a tool's passages are; the calls are still read by these rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..toolcalls.shapes import MAX_RESULT_CHARS, arguments_of, as_json_text, cut
from ..types import ToolCall
from .model import Doc, Span
from .openinference import indexed
from .values import as_text, docs_of, missing, parsed, text_of

#: Argument keys that hold a retrieval call's query, in the order they are tried.
QUERY_KEYS = ("query", "q", "question", "search_query", "input", "text", "keywords", "search")
#: Longest text read as documents (as for uploaded rows; :data:`.assemble.MAX_TEXT_CHARS`).
MAX_DOC_CHARS = 1_000_000


@dataclass
class Step:
    """One call of the agent: the call, the passages it brought (empty when none could be read),
    whether the agent could read them before answering, and the span it came from."""

    call: ToolCall
    docs: list[Doc] = field(default_factory=list)
    readable: bool = True
    span: Span | None = None
    passages: bool = False  # the result was read as a list of passages (a retrieval call)


def _start(s: Span) -> tuple[bool, float]:
    return (s.start is None, s.start or 0.0)


def _requests(spans: list[Span]) -> list[dict[str, Any]]:
    """Every tool call an LLM span asked for, in order: ``{id, name, arguments}``."""
    out: list[dict[str, Any]] = []
    for s in sorted((s for s in spans if s.kind == "LLM"), key=_start):
        found = _oi_requests(s) or _output_requests(s.output)
        out += found
    return out


def _oi_requests(s: Span) -> list[dict[str, Any]]:
    msgs = indexed(s.attributes, "llm.output_messages") or []
    out = []
    for m in msgs:
        for tc in indexed(m, "message.tool_calls") or []:
            name = as_text(tc.get("tool_call.function.name"))
            if name:
                out.append({"id": as_text(tc.get("tool_call.id")), "name": name,
                            "arguments": tc.get("tool_call.function.arguments")})
    return out


def _output_requests(v: Any, depth: int = 0) -> list[dict[str, Any]]:
    """``tool_calls`` lists anywhere in an LLM output (LangChain generations, OpenAI replies)."""
    v = parsed(v)
    if depth > 8:
        return []
    if isinstance(v, dict):
        calls = v.get("tool_calls")
        if isinstance(calls, list) and calls and all(isinstance(c, dict) for c in calls):
            out = []
            for c in calls:
                fn = c.get("function") if isinstance(c.get("function"), dict) else c
                name = as_text(fn.get("name"))
                if name:
                    out.append({"id": as_text(c.get("id")), "name": name,
                                "arguments": fn.get("arguments", fn.get("args"))})
            return out
        return [x for k in ("generations", "message", "kwargs", "data", "choices", "messages", "output")
                if k in v for x in _output_requests(v[k], depth + 1)][:1000]
    if isinstance(v, list):
        return [x for item in v[:50] for x in _output_requests(item, depth + 1)]
    return []


def _answer_of_tool(output: Any) -> tuple[Any, str | None, str]:
    """(the tool's result, the call id its answer names, its status) from a tool span's output:
    a ToolMessage (LangChain ``{"type": "tool", "data": {…}}`` / ``{"content", "tool_call_id"}``),
    LangSmith's ``{"output": …}``, or the result itself."""
    v = parsed(output)
    if isinstance(v, dict) and set(v) == {"output"}:
        v = parsed(v["output"])
    if isinstance(v, dict):
        body: dict[str, Any] = v["data"] if isinstance(v.get("data"), dict) and v.get("type") == "tool" else v
        if "tool_call_id" in body or (body.get("type") == "tool" and "content" in body):
            status = "error" if str(body.get("status") or "").lower() == "error" else "ok"
            return body.get("content"), as_text(body.get("tool_call_id")), status
    return v, None, "ok"


def _text(v: Any) -> str | None:
    return None if missing(v) else as_json_text(v)


def _query(args: dict[str, Any], raw: str | None) -> str | None:
    for k in QUERY_KEYS:
        if isinstance(args.get(k), str) and args[k].strip():
            return args[k]
    if raw and raw.strip():
        return raw
    strings = [v for v in args.values() if isinstance(v, str) and v.strip()]
    return strings[0] if len(strings) == 1 else None


def _inside(s: Span, ancestors: set[str], parent_of: dict[str, str | None]) -> bool:
    seen = set()
    p = s.parent_id
    while p and p not in seen:
        if p in ancestors:
            return True
        seen.add(p)
        p = parent_of.get(p)
    return False


def _arguments(span: Span, request: dict[str, Any] | None) -> tuple[dict[str, Any], str | None, str | None]:
    if request is not None and request.get("arguments") is not None:
        return arguments_of(request["arguments"])
    v = parsed(span.input)
    if isinstance(v, dict):
        if set(v) == {"input"} and isinstance(v["input"], str):  # LangChain's single-text tool input
            return {}, v["input"], None
        return arguments_of(v)
    text = as_text(span.input)
    return ({}, text, None) if text is not None else ({}, None, None)


def steps_of(root: Span, spans: list[Span]) -> list[Step]:
    """The agent's calls in order (see the module docstring); empty for a trace of no agent."""
    ordered = sorted(spans, key=_start)
    tools = [s for s in ordered if s.kind == "TOOL"]
    requests = _requests(ordered)
    if not tools:
        return [Step(call=ToolCall(name=r["name"], **_args_fields(r["arguments"]), call_id=r["id"],
                                   notes=("asked for by the model; the tool's run is not in the trace",)))
                for r in requests]
    parent_of = {s.span_id: s.parent_id for s in spans}
    tool_ids = {s.span_id for s in tools}
    retrievers = [s for s in ordered if s.kind == "RETRIEVER"]
    inner: dict[str, list[Span]] = {}
    for r in retrievers:
        p = r.parent_id
        seen: set[str] = set()
        while p and p not in tool_ids and p not in seen:
            seen.add(p)
            p = parent_of.get(p)
        if p in tool_ids:
            inner.setdefault(p, []).append(r)
    calls = [s for s in ordered if s.kind == "TOOL" or (s.kind == "RETRIEVER" and not _inside(s, tool_ids, parent_of))]
    answer_at = _answer_time(root, ordered)
    by_id = {r["id"]: r for r in requests if r.get("id")}
    unused = list(requests)
    steps: list[Step] = []
    for s in calls:
        steps.append(_step(s, by_id, unused, inner.get(s.span_id, []), answer_at))
    return steps


def _args_fields(arguments: Any) -> dict[str, Any]:
    args, raw, note = arguments_of(arguments)
    return {"arguments": args, "raw_arguments": raw, **({"notes": (note,)} if note else {})}


def _answer_time(root: Span, ordered: list[Span]) -> float | None:
    llms = [s for s in ordered if s.kind == "LLM" and s.start is not None]
    if llms:
        return llms[-1].start
    return root.end


def _step(s: Span, by_id: dict[str, dict[str, Any]], unused: list[dict[str, Any]], inner: list[Span],
          answer_at: float | None) -> Step:
    notes: list[str] = []
    name = as_text(s.attributes.get("tool.name")) or s.name or "(no name)"
    result, call_id, status = _answer_of_tool(s.output)
    call_id = call_id or as_text(s.attributes.get("tool_call.id"))
    request = by_id.get(call_id) if call_id else None
    if request is None:  # no id: the first request of this tool not yet taken
        request = next((r for r in unused if r["name"] == name), None)
    if request is not None and request in unused:
        unused.remove(request)
    if s.kind == "RETRIEVER":
        args, raw = {}, None
        q = text_of(s.input, "question")
        if q is not None:
            args = {"query": q}
        note = None
    else:
        args, raw, note = _arguments(s, request)
    if note:
        notes.append(note)
    if not s.parent_id and not s.is_root:
        notes.append("its span names no parent: read as a call of this trace by its trace id")
    error = None
    if s.status == "ERROR" or status == "error":
        status = "error"
        error = (s.status_message or _text(result) or "the tool failed").strip()[:2000]
    latency = (s.end - s.start) if s.start is not None and s.end is not None and s.end >= s.start else None
    text = _text(result) if s.kind != "RETRIEVER" else None
    passages = False
    docs: list[Doc] = []
    if s.kind == "RETRIEVER":
        docs = list(s.documents or [])
        passages = True
    elif status != "error":
        for r in inner:
            docs += list(r.documents or [])
        passages = bool(inner)
        if not passages and text is not None:
            if len(text) > MAX_DOC_CHARS:
                notes.append(f"result of {len(text):,} characters is over the limit of {MAX_DOC_CHARS:,}: "
                             "not read as documents")
            else:
                found = docs_of(result) if not isinstance(result, str) else docs_of(parsed(result))
                if found is not None and not (isinstance(parsed(result), str)):
                    docs, passages = found, True
                elif text.strip():
                    docs = [Doc(text)]
    query = _query(args, raw) if (passages or s.kind == "RETRIEVER") else None
    if passages and query is None and inner:
        query = text_of(inner[0].input, "question")
    readable = True
    if answer_at is not None and s.end is not None and s.end > answer_at:
        readable = False
        if docs:
            notes.append("ran after the answer was written: its result is not read as documents")
    if status == "error" and s.kind != "RETRIEVER":
        result_text, cut_note = cut(_text(result))
    else:
        result_text, cut_note = cut(text if s.kind != "RETRIEVER" else
                                    _text([d.content for d in docs]) if docs else None, MAX_RESULT_CHARS)
    if cut_note:
        notes.append(cut_note)
    call = ToolCall(name=name, arguments=args, raw_arguments=raw, result=result_text,
                    status="error" if status == "error" else "ok", error=error, latency_s=latency,
                    kind=s.kind, span_id=s.span_id, call_id=call_id, query=query, notes=tuple(notes))
    return Step(call=call, docs=docs, readable=readable, span=s, passages=passages)


def declared_tools(spans: list[Span]) -> list[str]:
    """The tools the agent's LLM calls were offered (OpenInference ``llm.tools``, GenAI
    ``gen_ai.tool.definitions``), by name, in order."""
    names: dict[str, None] = {}
    for s in spans:
        if s.kind != "LLM":
            continue
        for t in indexed(s.attributes, "llm.tools") or []:
            schema = parsed(t.get("tool.json_schema"))
            if isinstance(schema, dict):
                fn: dict[str, Any] = schema["function"] if isinstance(schema.get("function"), dict) else schema
                n = as_text(fn.get("name"))
                if n:
                    names[n] = None
    return list(names)


__all__ = ["MAX_DOC_CHARS", "QUERY_KEYS", "Step", "declared_tools", "steps_of"]

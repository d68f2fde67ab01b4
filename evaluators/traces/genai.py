"""The OpenTelemetry GenAI semantic conventions -> the OpenInference attributes the readers know.

A span with ``gen_ai.operation.name`` and no ``openinference.span.kind`` is read through this
mapping (OTLP files): ``execute_tool`` -> a TOOL span (``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
``gen_ai.tool.call.arguments`` as its input, ``gen_ai.tool.call.result`` as its output); ``chat`` /
``text_completion`` / ``generate_content`` -> an LLM span (``gen_ai.input.messages`` /
``gen_ai.output.messages``: their text parts as the messages, their ``tool_call`` parts as the tool
calls the model asked for; ``gen_ai.tool.definitions`` as the tools it was offered);
``invoke_agent`` / ``create_agent`` -> an AGENT span (its messages as its input / output when it
has them); ``embeddings`` -> EMBEDDING; ``retrieval`` -> RETRIEVER. ``gen_ai.request.model`` /
``gen_ai.response.model`` is the model, ``gen_ai.conversation.id`` the session. Conventions:
https://opentelemetry.io/docs/specs/semconv/gen-ai/ (the attributes of 1.37 and later; the older
per-message events are not read).
"""

from __future__ import annotations

import json
from typing import Any

from .values import as_text, parsed

KINDS = {"execute_tool": "TOOL", "chat": "LLM", "text_completion": "LLM", "generate_content": "LLM",
         "invoke_agent": "AGENT", "create_agent": "AGENT", "embeddings": "EMBEDDING", "retrieval": "RETRIEVER"}


def is_genai(attrs: dict[str, Any]) -> bool:
    return "gen_ai.operation.name" in attrs and "openinference.span.kind" not in attrs


def _json(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)


def _messages(v: Any) -> list[dict[str, Any]]:
    """GenAI messages -> OpenInference message objects (text parts joined; tool-call parts kept)."""
    v = parsed(v)
    out: list[dict[str, Any]] = []
    for m in v if isinstance(v, list) else []:
        if not isinstance(m, dict):
            continue
        texts, calls = [], []
        for p in m.get("parts") or []:
            if not isinstance(p, dict):
                continue
            kind = p.get("type")
            if kind == "text" and isinstance(p.get("content"), str):
                texts.append(p["content"])
            elif kind == "tool_call":
                calls.append({"tool_call.id": p.get("id"), "tool_call.function.name": p.get("name"),
                              "tool_call.function.arguments": _json(p.get("arguments", {}))})
            elif kind == "tool_call_response":
                texts.append(_json(p.get("response") if p.get("response") is not None else p.get("result")))
        if isinstance(m.get("content"), str):  # older flat shape
            texts.append(m["content"])
        item: dict[str, Any] = {"message.role": m.get("role") or ""}
        if texts:
            item["message.content"] = "\n".join(texts)
        if calls:
            item["message.tool_calls"] = calls
        out.append(item)
    return out


def _last_text(msgs: list[dict[str, Any]], roles: tuple[str, ...]) -> str | None:
    for m in reversed(msgs):
        if str(m.get("message.role")).lower() in roles and m.get("message.content"):
            return str(m["message.content"])
    return None


def as_openinference(attrs: dict[str, Any]) -> dict[str, Any]:
    """``attrs`` with the OpenInference keys a GenAI span's attributes stand for added (the GenAI
    keys kept; a key already there is not overwritten)."""
    op = as_text(attrs.get("gen_ai.operation.name")) or ""
    add: dict[str, Any] = {"openinference.span.kind": KINDS.get(op, "CHAIN")}
    model = as_text(attrs.get("gen_ai.response.model")) or as_text(attrs.get("gen_ai.request.model"))
    if model:
        add["llm.model_name"] = model
    conv = as_text(attrs.get("gen_ai.conversation.id"))
    if conv:
        add["session.id"] = conv
    ins = _messages(attrs.get("gen_ai.input.messages"))
    outs = _messages(attrs.get("gen_ai.output.messages"))
    if op == "execute_tool":
        if attrs.get("gen_ai.tool.name") is not None:
            add["tool.name"] = attrs["gen_ai.tool.name"]
        if attrs.get("gen_ai.tool.call.id") is not None:
            add["tool_call.id"] = attrs["gen_ai.tool.call.id"]
        if attrs.get("gen_ai.tool.call.arguments") is not None:
            add["input.value"] = _json(attrs["gen_ai.tool.call.arguments"])
        if attrs.get("gen_ai.tool.call.result") is not None:
            add["output.value"] = _json(attrs["gen_ai.tool.call.result"])
    elif KINDS.get(op) in ("LLM", "AGENT"):
        if ins:
            add["llm.input_messages"] = ins
            q = _last_text(ins, ("user", "human"))
            if q is not None and KINDS.get(op) == "AGENT":
                add["input.value"] = q
        if outs:
            add["llm.output_messages"] = outs
            a = _last_text(outs, ("assistant", "model", "ai"))
            if a is not None and KINDS.get(op) == "AGENT":
                add["output.value"] = a
        tools = parsed(attrs.get("gen_ai.tool.definitions"))
        if isinstance(tools, list):
            add["llm.tools"] = [{"tool.json_schema": _json(t)} for t in tools if isinstance(t, dict)]
    return {**add, **attrs}


__all__ = ["KINDS", "as_openinference", "is_genai"]

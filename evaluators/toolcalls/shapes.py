"""Tool calls in the shapes people have them -> :class:`~evaluators.types.ToolCall`.

Contract: :func:`read_calls` takes a list of calls (or the JSON text of one, or an object holding
``tool_calls``), or a chat transcript, and gives the calls in order; :class:`ToolCallError` names the
item (1-based) and what is wrong with it when one cannot be read. Shapes of one call:

* ours / OpenAI functions: ``{"name", "arguments"}`` (arguments an object, or its JSON text);
* OpenAI chat: ``{"id", "type": "function", "function": {"name", "arguments": "<json>"}}``;
* LangChain / ragas: ``{"name", "args", "id"}``; LangChain agent actions ``{"tool", "tool_input"}``;
* Anthropic: ``{"type": "tool_use", "name", "input"}``; Gemini ``{"functionCall": {"name", "args"}}``;
* DeepEval: ``{"name", "input_parameters" | "inputParameters", "output"}``;
* a bare name (``"lookup_order"``): the tool alone — its arguments are not checked (a reference
  given this way matches a call with any arguments: :data:`ANY_ARGUMENTS`).

Besides the name and arguments a call may carry ``result`` / ``output`` / ``content``, ``status``
(``ok`` / ``error`` / ``success``), ``error``, ``latency_s`` / ``latency`` / ``duration_ms`` and an id.
A transcript (OpenAI ``{"role", "tool_calls"}`` / LangChain / ragas messages) gives the assistant's
calls in order, each with the result of the ``tool`` message answering it (by ``tool_call_id``).
Arguments that are not JSON are kept as text (``raw_arguments``) with a note; a JSON value that is
not an object becomes ``{"input": value}``. Imports nothing of the project but the types.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from ..types import ToolCall

#: The note of a call given by its name alone: any arguments match it.
ANY_ARGUMENTS = "arguments not given: any arguments match"
#: Longest tool result kept on a case (characters); a longer one is cut with a note.
MAX_RESULT_CHARS = 20_000

_NAME_KEYS = ("name", "tool", "tool_name", "toolName", "function_name")
_ARG_KEYS = ("arguments", "args", "input", "tool_input", "input_parameters", "inputParameters", "parameters",
             "params", "kwargs")
_RESULT_KEYS = ("result", "output", "content", "observation", "response", "return_value")
_LATENCY_KEYS = (("latency_s", 1.0), ("latency", 1.0), ("duration_s", 1.0), ("duration_ms", 1e-3),
                 ("latency_ms", 1e-3))


class ToolCallError(ValueError):
    """A tool call that cannot be read; the message names the item and what is wrong."""


def as_json_text(v: Any) -> str | None:
    """A value as text: text as it is, anything else as JSON (``str`` when JSON cannot hold it)."""
    if v is None:
        return None
    if isinstance(v, str):
        return v
    try:
        return json.dumps(v, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(v)


def cut(text: str | None, limit: int = MAX_RESULT_CHARS) -> tuple[str | None, str | None]:
    """(text cut to ``limit`` characters, a note when it was cut)."""
    if text is None or len(text) <= limit:
        return text, None
    return text[:limit], f"result cut to {limit:,} of {len(text):,} characters"


def arguments_of(v: Any) -> tuple[dict[str, Any], str | None, str | None]:
    """(arguments object, raw text when not JSON, a note) of an arguments value."""
    if v is None:
        return {}, None, None
    if isinstance(v, Mapping):
        return {str(k): x for k, x in v.items()}, None, None
    if isinstance(v, str):
        s = v.strip()
        if not s:
            return {}, None, None
        try:
            parsed = json.loads(s)
        except (ValueError, RecursionError):
            return {}, v, f"arguments are not JSON: {s[:80]!r}"
        if isinstance(parsed, dict):
            return {str(k): x for k, x in parsed.items()}, None, None
        return {"input": parsed}, None, None
    if isinstance(v, (list, tuple, int, float, bool)):
        return {"input": list(v) if isinstance(v, tuple) else v}, None, None
    return {"input": str(v)}, None, None


def _latency(d: Mapping[str, Any]) -> float | None:
    for k, scale in _LATENCY_KEYS:
        v = d.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0:
            return float(v) * scale
    return None


def _status(d: Mapping[str, Any]) -> str:
    s = str(d.get("status") or "").strip().lower()
    if d.get("error") or s in ("error", "failed", "failure"):
        return "error"
    if s in ("ok", "success", "succeeded"):
        return "ok"
    return ""


def call_of(item: Any, where: str = "tool call") -> ToolCall:
    """One call in any of the shapes of the module docstring (:class:`ToolCallError` when it has
    no name)."""
    if isinstance(item, ToolCall):
        return item
    if isinstance(item, str):
        bare = item.strip()
        if not bare or bare[0] in "[{":
            raise ToolCallError(f"{where}: expected a tool name or an object, got {item[:60]!r}")
        return ToolCall(name=bare, notes=(ANY_ARGUMENTS,))
    if hasattr(item, "model_dump") and not isinstance(item, Mapping):  # ragas / DeepEval / LangChain objects
        item = item.model_dump()
    if not isinstance(item, Mapping):
        raise ToolCallError(f"{where}: expected an object with a name, got {type(item).__name__}")
    d: Mapping[str, Any] = item
    ours = {"raw_arguments", "documents", "span_id", "notes"}  # keys only our own dump has
    if set(d) <= set(ToolCall.model_fields) and isinstance(d.get("name"), str) and d["name"].strip() \
            and isinstance(d.get("arguments", {}), Mapping) and ours & set(d):
        return ToolCall.model_validate(d)  # our own results file / cases file
    inner = d.get("function") if isinstance(d.get("function"), Mapping) else d.get("functionCall")
    if isinstance(inner, Mapping):  # OpenAI chat / Gemini: the call inside, the id outside
        d = {**{k: v for k, v in d.items() if k not in ("function", "functionCall")}, **inner}
    name = next((d[k] for k in _NAME_KEYS if isinstance(d.get(k), str) and d[k].strip()), None)
    if name is None:
        keys = ", ".join(list(d)[:8]) or "none"
        raise ToolCallError(f"{where} has no tool name (keys: {keys})")
    raw_args = next((d[k] for k in _ARG_KEYS if k in d), None)
    args, raw, note = arguments_of(raw_args)
    result = next((d[k] for k in _RESULT_KEYS if d.get(k) is not None), None)
    text, cut_note = cut(as_json_text(result))
    notes = tuple(n for n in (note, cut_note) if n)
    if not any(k in d for k in _ARG_KEYS) and set(d) <= {"name", "type", "id"}:
        notes += (ANY_ARGUMENTS,)
    err = d.get("error")
    return ToolCall(name=name.strip(), arguments=args, raw_arguments=raw, result=text, status=_status(d),  # type: ignore[arg-type]
                    error=as_json_text(err) if err else None, latency_s=_latency(d),
                    call_id=as_json_text(d.get("id") or d.get("call_id") or d.get("tool_call_id")),
                    kind=str(d.get("kind") or ""), query=d.get("query") if isinstance(d.get("query"), str) else None,
                    notes=notes)


def _role(m: Mapping[str, Any]) -> str:
    return str(m.get("role") or m.get("type") or "").lower()


def _is_transcript(items: list[Any]) -> bool:
    return bool(items) and all(isinstance(m, Mapping) and ("role" in m or "type" in m)
                               and ("content" in m or "tool_calls" in m or "data" in m) for m in items) \
        and any(_role(m) in ("assistant", "ai", "tool", "user", "human", "system") for m in items)


def _from_transcript(items: list[Mapping[str, Any]], where: str) -> list[ToolCall]:
    results: dict[str, Any] = {}
    for m in items:
        body: Mapping[str, Any] = m["data"] if isinstance(m.get("data"), Mapping) else m
        if _role(m) == "tool" and body.get("tool_call_id") is not None:
            results[str(body["tool_call_id"])] = body
    out: list[ToolCall] = []
    for m in items:
        body = m["data"] if isinstance(m.get("data"), Mapping) else m
        if _role(m) not in ("assistant", "ai"):
            continue
        for c in body.get("tool_calls") or []:
            call = call_of(c, f"{where}, message tool call {len(out) + 1}")
            answer = results.get(call.call_id or "") if call.call_id else None
            if answer is not None and call.result is None:
                text, note = cut(as_json_text(answer.get("content")))
                call = call.model_copy(update={"result": text, "status": _status(answer) or "ok",
                                               "notes": call.notes + ((note,) if note else ())})
            out.append(call)
    return out


def read_calls(value: Any, where: str = "tool calls") -> tuple[ToolCall, ...]:
    """The calls held by ``value`` (see the module docstring), in order."""
    if value is None:
        return ()
    if isinstance(value, str):
        s = value.strip()
        if not s:
            return ()
        if s[0] in "[{":
            try:
                value = json.loads(s)
            except (ValueError, RecursionError):
                raise ToolCallError(f"{where}: looks like JSON but is not valid JSON") from None
        else:  # "search_docs, lookup_order": names alone
            return tuple(call_of(n, f"{where}, item {i}") for i, n in enumerate(
                (x for x in s.replace(";", ",").split(",") if x.strip()), start=1))
    if isinstance(value, Mapping):
        for k in ("tool_calls", "calls", "reference_tool_calls", "messages"):
            if isinstance(value.get(k), list):
                return read_calls(value[k], where)
        return (call_of(value, f"{where}, item 1"),)
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise ToolCallError(f"{where}: expected a list of tool calls, got {type(value).__name__}")
    items = list(value)
    if _is_transcript(items):
        return tuple(_from_transcript(items, where))
    return tuple(call_of(x, f"{where}, item {i}") for i, x in enumerate(items, start=1))


def call_dicts(calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
    """The calls as JSON-ready objects (only the fields a call has)."""
    return [c.model_dump(mode="json", exclude_defaults=True) for c in calls]


def any_arguments(call: ToolCall) -> bool:
    """A reference call given by its name alone (its arguments are not checked)."""
    return ANY_ARGUMENTS in call.notes


__all__ = ["ANY_ARGUMENTS", "MAX_RESULT_CHARS", "ToolCallError", "any_arguments", "arguments_of", "call_dicts",
           "call_of", "cut", "read_calls"]

"""A reply sent as server-sent events (``text/event-stream``), read to its end and put together into
the one JSON reply the target's paths read — the same reply the app gives without streaming.

Contract: :func:`read_stream` takes the whole body of a reply whose content type is
``text/event-stream`` (:func:`is_event_stream`; the caller reads it to its end, within its size and
time limits), parses it as the HTML standard says (``event:``, ``data:`` lines joined, comments and
``id:`` / ``retry:`` ignored) and assembles the events:

* OpenAI chat completion chunks (``choices[].delta``; ``data: [DONE]`` ends it) -> a chat completion:
  ``{"choices": [{"index", "message": {"role", "content"}, "finish_reason"}], "usage", …}``, each
  choice's ``content`` the deltas joined, ``usage`` from the chunk that has it, any other top-level
  field (``id``, ``model``, a RAG server's own ``sources``) the first value given;
* an OpenAI Responses stream -> the ``response`` of its ``response.completed`` event;
* LangServe ``/stream`` (``event: metadata`` / ``data`` / ``end``) -> ``{"output", "metadata"}`` as
  ``/invoke`` answers, the output the ``data`` chunks added up as LangChain adds them (texts joined,
  lists joined, objects merged key by key; a message chunk's ``content`` joined, its other fields
  the first given);
* any other stream -> its one JSON event, else its events added up the same way.

An ``event: error`` (LangServe), a chunk ``{"error": …}`` (OpenAI), a stream with no data or with
data that is not JSON is a :class:`StreamError`; its message may hold the app's own words (the
caller masks and cuts them like any error reply).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

#: Objects nested deeper than this are not merged but replaced (a runaway structure stays bounded).
MERGE_DEPTH = 32
_LINES = re.compile(r"\r\n|\r|\n")


class StreamError(ValueError):
    """An event stream that holds no reply (an error event, no data, data that is not JSON)."""


@dataclass(frozen=True)
class Event:
    name: str
    data: str


def is_event_stream(content_type: str | None) -> bool:
    return (content_type or "").split(";", 1)[0].strip().lower() == "text/event-stream"


def events(text: str) -> list[Event]:
    """The events of an event stream (a last event without its blank line counts: the stream ended)."""
    out: list[Event] = []
    name = ""
    data: list[str] = []
    for line in [*_LINES.split(text), ""]:
        if not line:
            if data:
                out.append(Event(name or "message", "\n".join(data)))
            name, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field == "event":
            name = value
    return out


def _json(data: str, what: str) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        raise StreamError(f"the app's event stream holds data that is not JSON ({what})") from None


def add(a: Any, b: Any, depth: int = 0) -> Any:
    """Two chunks added as LangChain adds stream chunks (see the module doc)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, list) and isinstance(b, list):
        return a + b
    if isinstance(a, dict) and isinstance(b, dict) and depth < MERGE_DEPTH:
        message = "content" in a and ("type" in a or "role" in a)
        out = dict(a)
        for k, v in b.items():
            if k not in out or out[k] is None:
                out[k] = v
            elif message and k != "content":
                continue  # a message chunk's type / id / role: the first given
            else:
                out[k] = add(out[k], v, depth + 1)
        return out
    return b


def _error_words(value: Any) -> str:
    if isinstance(value, dict):
        for k in ("message", "detail", "error"):
            v = value.get(k)
            if isinstance(v, dict):
                return _error_words(v)
            if isinstance(v, str) and v.strip():
                return v
    return value if isinstance(value, str) else json.dumps(value)[:400]


def _openai(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    choices: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for k, v in chunk.items():
            if k == "choices" and isinstance(v, list):
                for c in v:
                    if not isinstance(c, dict):
                        continue
                    i = c.get("index", 0) if isinstance(c.get("index", 0), int) else 0
                    slot = choices.setdefault(i, {"index": i, "message": {}, "finish_reason": None})
                    delta = c.get("delta") if isinstance(c.get("delta"), dict) else c.get("message")
                    if isinstance(delta, dict):
                        slot["message"] = add(slot["message"], {"role": None, "content": None, **delta}
                                              if not slot["message"] else delta)
                    if c.get("finish_reason") is not None:
                        slot["finish_reason"] = c["finish_reason"]
            elif k == "usage":
                out["usage"] = v if v is not None else out.get("usage")
            elif k == "object":
                out["object"] = "chat.completion"
            elif out.get(k) is None:
                out[k] = v
    for slot in choices.values():
        msg = slot["message"]
        if isinstance(msg, dict) and msg.get("content") is None:
            msg["content"] = ""
        if isinstance(msg, dict) and msg.get("role") is None:
            msg["role"] = "assistant"
    out["choices"] = [choices[i] for i in sorted(choices)]
    out.setdefault("usage", None)
    return out


def assemble(stream: list[Event]) -> Any:
    """One reply from the events of a stream (see the module doc)."""
    names = {e.name for e in stream}
    for e in stream:
        if e.name == "error":
            raise StreamError(f"the app's stream ended with an error: {_error_words(_json(e.data, 'an error event'))}")
    if names & {"data", "end"} and names <= {"data", "end", "metadata", "message"}:  # LangServe
        output: Any = None
        meta: Any = None
        for e in stream:
            if e.name == "data":
                output = add(output, _json(e.data, "a data event"))
            elif e.name == "metadata" and meta is None:
                meta = _json(e.data, "a metadata event")
        return {"output": output, "metadata": meta or {}}
    values = [_json(e.data, f"event {i}") for i, e in enumerate(stream, start=1) if e.data.strip() != "[DONE]"]
    if not values:
        raise StreamError("the app's event stream holds no data")
    for v in values:
        if isinstance(v, dict) and v.get("error") not in (None, "", {}):
            raise StreamError(f"the app's stream ended with an error: {_error_words(v['error'])}")
    dicts = [v for v in values if isinstance(v, dict)]
    done = [v for v in dicts if v.get("type") == "response.completed" and isinstance(v.get("response"), dict)]
    if done:  # OpenAI Responses API
        return done[-1]["response"]
    if dicts and len(dicts) == len(values) and any(isinstance(v.get("choices"), list) for v in dicts):
        return _openai(dicts)
    if len(values) == 1:
        return values[0]
    total: Any = None
    for v in values:
        total = add(total, v)
    return total


def read_stream(content: bytes) -> Any:
    """The one reply of an event stream's body (see the module doc); :class:`StreamError` when it
    holds none."""
    return assemble(events(content.decode("utf-8", errors="replace")))

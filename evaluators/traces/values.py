"""Values inside spans -> the texts a test case needs.

A span's input or output is a string (plain text, or JSON as the instrumentors write it), an object
(LangSmith ``inputs`` / ``outputs``, Langfuse ``input`` / ``output``) or a list. These helpers find,
in any of them, the question (the user's last message, not a whole prompt), the answer (the final
assistant text), and documents (a list of texts or of ``page_content`` / ``content`` objects).
"""

from __future__ import annotations

import ast
import json
import math
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, Iterable

from .model import Doc

#: Keys that hold the question in an input object, in the order they are tried.
QUESTION_KEYS = ("question", "query", "user_input", "input", "prompt", "q", "user_query", "user_question",
                 "text", "message", "messages", "content", "inputs")
#: Keys that hold the answer in an output object, in the order they are tried.
ANSWER_KEYS = ("answer", "output", "response", "result", "final_answer", "output_text", "text", "content",
               "generation", "generations", "completion", "message", "messages", "choices", "outputs")
#: Keys that hold retrieved documents in an object, in the order they are tried.
DOCUMENT_KEYS = ("documents", "docs", "source_documents", "context", "contexts", "retrieved_documents",
                 "output", "result", "nodes", "chunks", "passages")
#: Keys of one document object that hold its text.
DOC_TEXT_KEYS = ("page_content", "pageContent", "document.content", "content", "text", "chunk", "passage",
                 "body")
_USER_ROLES = ("user", "human")
_AI_ROLES = ("assistant", "ai", "model", "bot", "AIMessageChunk", "AIMessage")
_DEPTH = 12  # how deep the text search goes into nested objects


_NA: list[Any] = []


def missing(v: Any) -> bool:
    """None, NaN, blank text, or pandas' NA / NaT."""
    t = type(v)
    if t is str:
        return not v.strip()
    if v is None:
        return True
    if t is float:
        return v != v
    if t in (dict, list, tuple, int, bool):
        return False
    if not _NA:
        import pandas as pd

        _NA.extend((pd.NA, pd.NaT))
    return any(v is x for x in _NA) or (isinstance(v, float) and math.isnan(v))


def plain(v: Any) -> Any:
    """numpy arrays / scalars (Parquet cells) -> lists / Python values; NaN -> None."""
    if v is None or isinstance(v, (str, int, bool)):
        return v
    if isinstance(v, float):
        return None if math.isnan(v) else v
    if hasattr(v, "tolist") and not isinstance(v, (bytes, dict)):
        return plain(v.tolist())
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if missing(v):
        return None
    return v


def parsed(v: Any) -> Any:
    """A string that holds JSON (or a Python literal, as ``DataFrame.to_csv`` writes lists) -> the
    value; anything else unchanged. (Short texts — tags, small objects repeated on every span — are
    parsed once: the values returned are only read, never changed.)"""
    if not isinstance(v, str):
        return plain(v)
    s = v.strip()
    if not s or s[0] not in "[{":
        return v
    return _parse_short(s) if len(s) <= 512 else _parse(s)


def _parse(s: str) -> Any:
    try:
        return json.loads(s)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(s)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return s


_parse_short = lru_cache(maxsize=4096)(_parse)


def _content_text(c: Any) -> str | None:
    """A message's content: a string, or a list of parts ({"type": "text", "text": …})."""
    if isinstance(c, str):
        return c if c.strip() else None
    if isinstance(c, list):
        parts = [p if isinstance(p, str) else p.get("text") for p in c if isinstance(p, (str, dict))]
        text = "\n".join(p for p in parts if isinstance(p, str) and p.strip())
        return text or None
    return None


_PAIR_ROLES = frozenset({"user", "human", "assistant", "ai", "system", "tool", "model"})


def is_pair(m: Any) -> bool:
    """A message written as a ``(role, text)`` pair (LangGraph's ``[["user", "…"]]``)."""
    return (isinstance(m, (list, tuple)) and len(m) == 2 and isinstance(m[0], str) and isinstance(m[1], str)
            and m[0].lower() in _PAIR_ROLES)


def flat_messages(v: list[Any]) -> list[Any]:
    """A list of messages with LangChain's batches (``[[msg, msg]]``) opened; a ``(role, text)`` pair
    is one message, not a batch."""
    out: list[Any] = []
    for m in v:
        out.extend([m] if is_pair(m) or not isinstance(m, list) else m)
    return out


def message_of(d: Any) -> tuple[str, str] | None:
    """(role, text) of a chat message in any of the usual shapes: OpenAI ``{"role", "content"}``,
    LangChain ``{"type": "human", "content"}`` / ``{"type": "ai", "data": {"content"}}`` / the
    serialized ``{"lc": 1, "id": [..., "HumanMessage"], "kwargs": {"content"}}``, OpenInference
    ``{"message.role", "message.content"}``."""
    if is_pair(d):
        return (d[0], d[1]) if d[1].strip() else None
    if not isinstance(d, dict):
        return None
    if "message.role" in d or "message.content" in d:
        role, content = d.get("message.role"), d.get("message.content")
        if content is None and isinstance(d.get("message.contents"), list):
            content = [x.get("message_content.text") for x in d["message.contents"] if isinstance(x, dict)]
        text = _content_text(content)
        return (str(role or ""), text) if text else None
    if d.get("lc") == 1 and isinstance(d.get("kwargs"), dict):
        ids = d.get("id") or []
        kind = str(ids[-1]) if ids else ""
        role = {"HumanMessage": "user", "AIMessage": "assistant", "SystemMessage": "system",
                "AIMessageChunk": "assistant", "ToolMessage": "tool"}.get(kind, kind)
        text = _content_text(d["kwargs"].get("content"))
        return (role, text) if text else None
    if isinstance(d.get("data"), dict) and "type" in d and "content" in d["data"]:
        text = _content_text(d["data"].get("content"))
        return (str(d.get("type")), text) if text else None
    if "content" in d and ("role" in d or "type" in d):
        text = _content_text(d.get("content"))
        return (str(d.get("role") or d.get("type") or ""), text) if text else None
    return None


def role_is(role: str, roles: Iterable[str]) -> bool:
    return role.lower() in {r.lower() for r in roles}


def last_message(messages: Any, roles: Iterable[str]) -> str | None:
    """The text of the last message of ``messages`` whose role is one of ``roles``."""
    if not isinstance(messages, list):
        return None
    flat = flat_messages(messages)  # LangChain batches: [[msg, msg]]
    found = [mm for m in flat if (mm := (m if isinstance(m, tuple) else message_of(m))) is not None]
    for role, text in reversed(found):
        if role_is(role, roles):
            return text
    return None


def _is_messages(v: list) -> bool:
    flat = flat_messages(v)
    return bool(flat) and all(message_of(x) is not None for x in flat)


def text_of(value: Any, role: str, depth: int = 0) -> str | None:
    """The question (``role="question"``) or the answer (``role="answer"``) held by ``value``."""
    if depth > _DEPTH or missing(value):
        return None
    v = parsed(value)
    if isinstance(v, str):
        return v
    want = _USER_ROLES if role == "question" else _AI_ROLES
    if isinstance(v, list):
        if not v:
            return None
        if _is_messages(v):
            return last_message(v, want)
        if len(v) == 1:
            return text_of(v[0], role, depth + 1)
        if all(isinstance(x, list) for x in v):  # LangChain LLM generations: [[{"text": …}]]
            return text_of(v[0], role, depth + 1)
        return None
    if not isinstance(v, dict):
        return None if isinstance(v, (int, float, bool)) else str(v)
    msg = message_of(v)
    if msg is not None:
        return msg[1]
    if role == "answer" and isinstance(v.get("choices"), list) and v["choices"]:  # an OpenAI reply
        first = v["choices"][0]
        if isinstance(first, dict):
            return text_of(first.get("message") or first.get("text"), role, depth + 1)
    for k in (QUESTION_KEYS if role == "question" else ANSWER_KEYS):
        if k in v and not missing(v[k]):
            found = text_of(v[k], role, depth + 1)
            if found:
                return found
    strings = [x for x in v.values() if isinstance(x, str) and x.strip()]
    if len(v) == 1 or (len(strings) == 1 and role == "question"):
        only = strings[0] if strings else next(iter(v.values()))
        return text_of(only, role, depth + 1)
    return None


def doc_of(d: Any) -> Doc | None:
    """One document: a text, or an object with its text under a usual key (LangChain
    ``page_content``, OpenInference ``document.content``, LlamaIndex ``text`` …)."""
    if not isinstance(d, (str, dict)):
        d = plain(d)
    if isinstance(d, str):
        return Doc(d) if d.strip() else None
    if not isinstance(d, dict):
        return None
    if d.get("lc") == 1 and isinstance(d.get("kwargs"), dict):  # a serialized LangChain Document
        d = {**d["kwargs"], "id": d["kwargs"].get("id")}
    if isinstance(d.get("node"), dict):  # LlamaIndex NodeWithScore
        inner = doc_of(d["node"])
        return Doc(inner.content, inner.id, _num(d.get("score"))) if inner else None
    for k in DOC_TEXT_KEYS:
        t = d.get(k)
        if isinstance(t, str) and t.strip():
            ident = d.get("document.id", d.get("id", d.get("id_")))
            meta = d.get("metadata") if isinstance(d.get("metadata"), dict) else {}
            score = d.get("document.score", d.get("score", meta.get("score") if meta else None))
            return Doc(t, None if missing(ident) else str(ident), _num(score))
    return None


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def docs_of(value: Any, depth: int = 0) -> list[Doc] | None:
    """The documents held by ``value`` (None when it holds no list of documents)."""
    if depth > 4 or missing(value):
        return None
    v = parsed(value)
    if isinstance(v, list):
        docs = [doc_of(x) for x in v]
        if v and all(d is not None for d in docs) and not _is_messages(v):
            return [d for d in docs if d is not None]
        if not v:
            return []
        return None
    if isinstance(v, dict):
        for k in DOCUMENT_KEYS:
            if k in v:
                found = docs_of(v[k], depth + 1)
                if found is not None:
                    return found
    return None


def timestamp(v: Any) -> float | None:
    """Seconds since the epoch from an ISO text, a pandas / datetime value, or a number (seconds,
    milliseconds, microseconds or nanoseconds, told apart by size)."""
    if type(v) is str and v.isascii() and v.isdigit():  # OTLP's startTimeUnixNano: by far the most common
        return timestamp(int(v))
    if missing(v):
        return None
    if hasattr(v, "timestamp") and callable(v.timestamp):
        try:
            return float(v.timestamp())
        except (ValueError, OSError, OverflowError):
            return None
    if isinstance(v, str):
        s = v.strip()
        if s.lstrip("-").isdigit():
            return timestamp(int(s))
        try:
            dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
        except ValueError:
            return None
        return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp()
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        x = float(v)
        for scale in (1e18, 1e15, 1e12):  # ns, us, ms since the epoch (anything after 2001)
            if abs(x) >= scale:
                return x / (scale / 1e9)
        return x
    return None


def as_tags(v: Any) -> tuple[str, ...]:
    v = parsed(v)
    if isinstance(v, str):
        return tuple(t.strip() for t in v.split(",") if t.strip())
    if isinstance(v, (list, tuple)):
        return tuple(str(t) for t in v if not missing(t))
    return ()


def as_text(v: Any) -> str | None:
    if type(v) is str:
        return v if v.strip() else None
    v = plain(v)
    if missing(v):
        return None
    return v if isinstance(v, str) else str(v)


def as_object(v: Any) -> dict[str, Any] | None:
    v = parsed(v)
    if isinstance(v, dict):
        return {k: x for k, x in v.items() if not missing(x)} or None
    return None

"""OpenInference attributes -> :class:`~.model.Span` fields, shared by the Phoenix spans export and
OTLP JSON.

The attributes come flattened (OTLP: ``retrieval.documents.0.document.content``,
``llm.input_messages.1.message.role``) or already grouped (Phoenix's dataframe:
``retrieval.documents`` = a list of ``{"document.content": …}`` objects); :func:`indexed` reads
both. Conventions: https://github.com/Arize-ai/openinference (semantic conventions).
"""

from __future__ import annotations

import re
from typing import Any

from .model import Doc, Span
from .values import as_object, as_tags, as_text, doc_of, message_of, missing, parsed

_INDEXED = re.compile(r"^(.+?)\.(\d+)\.(.+)$")  # "retrieval.documents.0.document.content"
_DIGIT = re.compile(r"\.\d")


def group_indexed(attrs: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Flattened list attributes gathered: ``{"p.0.k": v, "p.1.k": w}`` -> ``{"p": [{"k": v}, {"k": w}]}``
    (one pass over the keys; keys without a ``.N.`` segment are not touched)."""
    found: dict[str, dict[int, dict[str, Any]]] = {}
    for k, val in attrs.items():
        m = _INDEXED.match(k) if _DIGIT.search(k) else None
        if m:
            found.setdefault(m.group(1), {}).setdefault(int(m.group(2)), {})[m.group(3)] = val
    return {p: [items[i] for i in sorted(items)] for p, items in found.items()}


def _as_list(v: Any) -> list[Any] | None:
    if isinstance(v, list):
        return v
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        out = v.tolist()
        return out if isinstance(out, list) else None
    if isinstance(v, str):
        p = parsed(v)
        return p if isinstance(p, list) else None
    return None


def indexed(attrs: dict[str, Any], prefix: str,
            grouped: dict[str, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]] | None:
    """The list under ``prefix``: a grouped value (a list of objects) or the flattened
    ``prefix.N.key`` attributes gathered into one object per N, in N order."""
    v = attrs.get(prefix)
    if v is not None and not missing(v):
        items = _as_list(v)
        if items is not None:
            return [x for x in items if isinstance(x, dict)]
    if grouped is None:
        return gathered(attrs, prefix)
    return grouped.get(prefix)


def gathered(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]] | None:
    """The flattened ``prefix.N.key`` attributes of one ``prefix`` (a name without a ``.N.`` segment)
    gathered into one object per N, in N order — :func:`group_indexed` for one prefix, without
    matching every key of the span (an agent's LLM spans are read for their tool calls and tools)."""
    head = prefix + "."
    found: dict[int, dict[str, Any]] = {}
    for k, val in attrs.items():
        if k.startswith(head):
            n, dot, rest = k[len(head):].partition(".")
            if dot and rest and n.isascii() and n.isdigit():
                found.setdefault(int(n), {})[rest] = val
    return [found[i] for i in sorted(found)] if found else None


def _docs(attrs: dict[str, Any], prefix: str, grouped: dict[str, list[dict[str, Any]]]) -> list[Doc] | None:
    items = indexed(attrs, prefix, grouped)
    if items is None:
        return None
    docs = []
    for item in items:
        d = doc_of(item)
        if d is not None:
            docs.append(d)
    return docs


def _messages(attrs: dict[str, Any], prefix: str,
              grouped: dict[str, list[dict[str, Any]]]) -> list[tuple[str, str]] | None:
    items = indexed(attrs, prefix, grouped)
    if items is None:
        return None
    out = []
    for item in items:
        contents = None if "message.content" in item else indexed(item, "message.contents")
        if contents:  # multimodal: message.contents.N.message_content.text
            item = {**item, "message.content": [c.get("message_content.text") for c in contents]}
        m = message_of(item)
        if m is not None:
            out.append(m)
    return out


def span_from_attributes(attrs: dict[str, Any], *, trace_id: str, span_id: str, parent_id: str | None,
                         name: str, kind: str = "", start: float | None = None, end: float | None = None,
                         status: str = "", status_message: str = "", record: int | None = None,
                         flattened: bool = True) -> Span:
    """A span from its OpenInference attributes (keys without an ``attributes.`` prefix);
    ``flattened``: lists may come as ``prefix.N.key`` attributes (OTLP), not only whole."""
    kind = (as_text(attrs.get("openinference.span.kind")) or kind or "").upper()
    grouped = group_indexed(attrs) if flattened else {}
    documents = _docs(attrs, "reranker.output_documents", grouped) if kind == "RERANKER" else None
    if documents is None:
        documents = _docs(attrs, "retrieval.documents", grouped)
    return Span(
        trace_id=trace_id, span_id=span_id, parent_id=parent_id or None, name=name, kind=kind,
        start=start, end=end,
        input=attrs.get("input.value") if not missing(attrs.get("input.value")) else None,
        output=attrs.get("output.value") if not missing(attrs.get("output.value")) else None,
        documents=documents,
        input_messages=_messages(attrs, "llm.input_messages", grouped),
        output_messages=_messages(attrs, "llm.output_messages", grouped),
        model=as_text(attrs.get("llm.model_name")) or as_text(attrs.get("embedding.model_name")),
        session=as_text(attrs.get("session.id")),
        user=as_text(attrs.get("user.id")),
        tags=as_tags(attrs.get("tag.tags")),
        metadata=as_object(attrs.get("metadata")),
        status=status, status_message=status_message, record=record, attributes=attrs,
    )

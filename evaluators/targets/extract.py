"""What an app replied, read into an answer, its passages (texts, ids, scores) and its usage.

Contract: :func:`extract` takes the JSON reply (or a Python target's return value, first made JSON
by :func:`.objects.plain`: a LlamaIndex ``Response``, LangChain ``Document`` objects, … read as they
are) and the target's compiled JMESPaths and returns an :class:`Answer`, or raises :class:`ReplyError` whose
message says what is wrong without quoting the reply's values: a missing answer names the path and
lists the reply's top-level keys. Accepted shapes:

* answer — text (a number is written as text), or a chat message (``{"role", "content"}``, a
  LangChain ``AIMessage`` as LangServe sends it: its ``content``, text or a list of text parts);
  null / missing / another type is an error;
* contexts — a list of texts, or of passage objects, or one of them; missing or null: no passages.
  A passage object as frameworks send it: its text at ``text`` / ``page_content`` / ``content`` /
  ``passage`` / ``chunk`` / ``document`` / ``body`` / ``snippet``, or inside ``node`` (a LlamaIndex
  ``NodeWithScore``: ``{"node": {...}, "score"}``); its score at ``score`` / ``similarity`` /
  ``relevance_score``; its id, the first of (see :func:`passage_id`): the document it was cut from
  (LlamaIndex ``ref_doc_id``, ``relationships["1"].node_id``), an id field (``id``, ``doc_id``,
  ``document_id``, ``passage_id``, ``chunk_id``), the same in its ``metadata`` / ``meta`` (LangServe's
  ``{"id": null, "metadata": {"id": …}}``), its ``metadata.source`` / ``file_path`` / ``file_name``
  / ``url``; an id a store made up (a UUID, a SHA-256 hex digest: LlamaIndex node ids, vector-store
  ids, Haystack's content hashes) only when nothing else names the passage;
* context_ids — a list of ids (text or integers), one per passage; without it, the ids of the
  passage objects when every passage has one;
* usage — any JSON value, kept as given;
* tool_calls — an agent's tool calls, in any shape ``evaluators.toolcalls.read_calls`` reads (a list
  of ``{name, arguments}``, OpenAI / LangChain / Anthropic calls, a transcript); missing or null: none.

A Python target may return the answer as plain text; without paths in its target file its answer is
the first of ``answer`` / ``response`` / ``output`` / ``result`` and its passages the first of
``contexts`` / ``context`` / ``source_documents`` / ``source_nodes`` / ``documents`` / ``sources``
(:data:`PYTHON_DEFAULTS`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import jmespath

from .objects import Unreadable, plain

_TEXT_KEYS = ("text", "page_content", "content", "passage", "chunk", "document", "body", "snippet")
_ID_KEYS = ("id", "doc_id", "document_id", "passage_id", "chunk_id")
_META_KEYS = ("metadata", "meta")
_META_ID_KEYS = (*_ID_KEYS, "source_id")
_SOURCE_KEYS = ("source", "file_path", "filepath", "file_name", "url")
_SCORE_KEYS = ("score", "similarity", "relevance_score")
#: Ids a store makes up: UUIDs (with or without hyphens) and SHA-256 hex digests.
_MADE_UP = re.compile(r"^(?:[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}|[0-9a-f]{64})$", re.I)

#: A Python target's paths when its target file gives none: the first that is not null.
PYTHON_DEFAULTS: dict[str, tuple[str, ...]] = {
    "answer": ("answer", "response", "output", "result"),
    "contexts": ("contexts", "context", "source_documents", "source_nodes", "documents", "sources"),
    "usage": ("usage",),
    "tool_calls": ("tool_calls",),
}


class FirstOf:
    """Several compiled JMESPaths read as one: the first whose value is not null."""

    def __init__(self, expressions: Sequence[str]) -> None:
        self.paths = [jmespath.compile(e) for e in expressions]
        self.expression = " / ".join(expressions)

    def search(self, value: Any) -> Any:
        for p in self.paths:
            got = p.search(value)
            if got is not None:
                return got
        return None


class ReplyError(ValueError):
    """A reply that does not hold what the target's paths say (the message names the path)."""


@dataclass(frozen=True)
class Answer:
    text: str
    contexts: tuple[str, ...] = ()
    #: One id per passage, or empty when the app gave none.
    context_ids: tuple[str, ...] = ()
    usage: Any = None
    #: Non-fatal notes on the reply (e.g. ids dropped).
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: One score per passage as the app gave it (None where it gave none), or empty when it gave none.
    context_scores: tuple[float | None, ...] = ()
    #: The agent's tool calls (``ToolCall`` s), in order.
    tool_calls: tuple[Any, ...] = ()


def _keys(reply: Any) -> str:
    if isinstance(reply, dict):
        keys = list(reply)[:20]
        return "top-level keys: " + (", ".join(map(str, keys)) if keys else "(none: an empty object)")
    return {list: "the reply is a JSON list", str: "the reply is a JSON string",
            type(None): "the reply is null"}.get(type(reply), f"the reply is a JSON {type(reply).__name__}")


def _ident(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        return None
    s = str(v).strip()
    return s or None


def made_up(ident: str) -> bool:
    """Whether ``ident`` looks like an id a store made up (a UUID, a SHA-256 hex digest)."""
    return bool(_MADE_UP.match(ident))


def passage_id(item: Mapping[str, Any]) -> str | None:
    """The id of a passage object (see the module doc): the first named id that is not made up,
    else the first made-up one, else None."""
    found: list[str] = []

    def take(v: Any) -> None:
        i = _ident(v)
        if i is not None:
            found.append(i)

    take(item.get("ref_doc_id"))
    rel = item.get("relationships")
    if isinstance(rel, Mapping):
        src = rel.get("1", rel.get("SOURCE", rel.get("source")))
        if isinstance(src, Mapping):
            take(src.get("node_id"))
    for k in _ID_KEYS:
        take(item.get(k))
    metas = [m for m in (item.get(k) for k in _META_KEYS) if isinstance(m, Mapping)]
    for m in metas:
        for k in _META_ID_KEYS:
            take(m.get(k))
    for m in metas:
        for k in _SOURCE_KEYS:
            take(m.get(k))
    take(item.get("id_"))
    take(item.get("node_id"))
    return next((i for i in found if not made_up(i)), found[0] if found else None)


def _score(item: Mapping[str, Any]) -> float | None:
    for k in _SCORE_KEYS:
        v = item.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    return None


def _text(item: Mapping[str, Any]) -> str | None:
    return next((item[k] for k in _TEXT_KEYS if isinstance(item.get(k), str)), None)


def _passages(value: Any, path: str) -> tuple[list[str], list[str | None], list[float | None]]:
    if value is None:
        return [], [], []
    if isinstance(value, (str, dict)):
        value = [value]
    if not isinstance(value, list):
        raise ReplyError(f"contexts path {path!r} gave a {type(value).__name__}, expected a list of passages")
    texts: list[str] = []
    ids: list[str | None] = []
    scores: list[float | None] = []
    for i, item in enumerate(value, start=1):
        if isinstance(item, str):
            texts.append(item)
            ids.append(None)
            scores.append(None)
        elif isinstance(item, dict):
            score = _score(item)
            text = _text(item)
            if text is None and isinstance(item.get("node"), dict):  # LlamaIndex NodeWithScore
                item = item["node"]
                text = _text(item)
                score = score if score is not None else _score(item)
            if text is None:
                raise ReplyError(f"passage {i} at {path!r} is an object without a text field "
                                 f"(keys: {', '.join(map(str, list(item)[:10]))})")
            texts.append(text)
            ids.append(passage_id(item))
            scores.append(score)
        elif item is None:
            raise ReplyError(f"passage {i} at {path!r} is null")
        else:
            raise ReplyError(f"passage {i} at {path!r} is a {type(item).__name__}, expected text or an object")
    return texts, ids, scores


def _message_text(raw: Any) -> str | None:
    """The text of a chat message (``{"content": text or [parts]}``), else None."""
    if not isinstance(raw, dict):
        return None
    content = raw.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content:
        parts = [p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else None for p in content]
        if all(isinstance(p, str) for p in parts):
            return "".join(p for p in parts if isinstance(p, str))
    return None


def extract(reply: Any, paths: Mapping[str, Any], python: bool = False) -> Answer:
    """The answer of one reply (see the module doc). ``paths``: field -> compiled JMESPath."""
    if python:
        try:
            reply = plain(reply)
        except Unreadable as exc:
            raise ReplyError(str(exc)) from None
        if isinstance(reply, str):
            return Answer(reply)
    answer_path = paths["answer"]
    raw = answer_path.search(reply)
    if raw is None:
        what = "the function's return value" if python else "the reply"
        raise ReplyError(f"{what} has no answer at {answer_path.expression!r} ({_keys(reply)})")
    message = _message_text(raw)
    if message is not None:
        raw = message
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise ReplyError(f"answer path {answer_path.expression!r} gave a {type(raw).__name__}, expected text")
    notes: list[str] = []
    texts: list[str] = []
    inner: list[str | None] = []
    scores: list[float | None] = []
    if "contexts" in paths:
        texts, inner, scores = _passages(paths["contexts"].search(reply), paths["contexts"].expression)
    ids: list[str] = []
    if "context_ids" in paths:
        got = paths["context_ids"].search(reply)
        if got is not None:
            if not isinstance(got, list):
                got = [got]
            bad = [i for i, v in enumerate(got, start=1) if _ident(v) is None]
            if bad:
                raise ReplyError(f"context_ids path {paths['context_ids'].expression!r}: item {bad[0]} is not "
                                 "an id (text or integer)")
            ids = [str(_ident(v)) for v in got]
            if len(ids) != len(texts):
                raise ReplyError(f"context_ids path {paths['context_ids'].expression!r} gave {len(ids)} ids for "
                                 f"{len(texts)} passages; one id per passage")
    elif inner and all(i is not None for i in inner):
        ids = [str(i) for i in inner]
    elif any(i is not None for i in inner):
        notes.append("some passages had an id and others not: ids left out")
    usage = paths["usage"].search(reply) if "usage" in paths else None
    calls: tuple[Any, ...] = ()
    if "tool_calls" in paths:
        from ..toolcalls import ToolCallError, read_calls

        try:
            calls = read_calls(paths["tool_calls"].search(reply), f"tool_calls path {paths['tool_calls'].expression!r}")
        except ToolCallError as exc:
            raise ReplyError(str(exc)) from None
    kept = tuple(scores) if any(x is not None for x in scores) else ()
    return Answer(str(raw), tuple(texts), tuple(ids), usage, tuple(notes), kept, calls)

"""What an app replied, read into an answer, its passages (texts, ids) and its usage.

Contract: :func:`extract` takes the JSON reply (or a Python target's return value) and the target's
compiled JMESPaths and returns an :class:`Answer`, or raises :class:`ReplyError` whose message says
what is wrong without quoting the reply's values: a missing answer names the path and lists the
reply's top-level keys. Accepted shapes:

* answer — text (a number is written as text); null / missing / another type is an error;
* contexts — a list of texts, or of objects with a text field (``text`` / ``page_content`` /
  ``content`` / ``passage`` / ``chunk``, and an id field ``id`` / ``doc_id`` / ``document_id`` /
  ``passage_id`` / ``chunk_id``), or one text; missing or null: no passages;
* context_ids — a list of ids (text or integers), one per passage; without it, the ids inside the
  passage objects when every passage has one;
* usage — any JSON value, kept as given;
* tool_calls — an agent's tool calls, in any shape ``evaluators.toolcalls.read_calls`` reads (a list
  of ``{name, arguments}``, OpenAI / LangChain / Anthropic calls, a transcript); missing or null: none.

A Python target may return the answer as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

_TEXT_KEYS = ("text", "page_content", "content", "passage", "chunk", "document", "body")
_ID_KEYS = ("id", "doc_id", "document_id", "passage_id", "chunk_id")


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


def _passages(value: Any, path: str) -> tuple[list[str], list[str | None]]:
    if value is None:
        return [], []
    if isinstance(value, (str, dict)):
        value = [value]
    if not isinstance(value, list):
        raise ReplyError(f"contexts path {path!r} gave a {type(value).__name__}, expected a list of passages")
    texts: list[str] = []
    ids: list[str | None] = []
    for i, item in enumerate(value, start=1):
        if isinstance(item, str):
            texts.append(item)
            ids.append(None)
        elif isinstance(item, dict):
            text = next((item[k] for k in _TEXT_KEYS if isinstance(item.get(k), str)), None)
            if text is None:
                raise ReplyError(f"passage {i} at {path!r} is an object without a text field "
                                 f"(keys: {', '.join(map(str, list(item)[:10]))})")
            texts.append(text)
            ids.append(next((_ident(item[k]) for k in _ID_KEYS if _ident(item.get(k)) is not None), None))
        elif item is None:
            raise ReplyError(f"passage {i} at {path!r} is null")
        else:
            raise ReplyError(f"passage {i} at {path!r} is a {type(item).__name__}, expected text or an object")
    return texts, ids


def extract(reply: Any, paths: Mapping[str, Any], python: bool = False) -> Answer:
    """The answer of one reply (see the module doc). ``paths``: field -> compiled JMESPath."""
    if python and isinstance(reply, str):
        return Answer(reply)
    answer_path = paths["answer"]
    raw = answer_path.search(reply)
    if raw is None:
        what = "the function's return value" if python else "the reply"
        raise ReplyError(f"{what} has no answer at {answer_path.expression!r} ({_keys(reply)})")
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise ReplyError(f"answer path {answer_path.expression!r} gave a {type(raw).__name__}, expected text")
    notes: list[str] = []
    texts: list[str] = []
    inner: list[str | None] = []
    if "contexts" in paths:
        texts, inner = _passages(paths["contexts"].search(reply), paths["contexts"].expression)
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
    return Answer(str(raw), tuple(texts), tuple(ids), usage, tuple(notes), calls)

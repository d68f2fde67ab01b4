"""What a Python target returned, as the JSON values :mod:`.extract` reads: framework objects read as
they are, not rejected.

Contract: :func:`plain` turns a return value into dicts, lists, text, numbers, booleans and null —
never importing a framework, by the attributes the objects carry:

* a LlamaIndex ``Response`` (``response`` + ``source_nodes``; a ``StreamingResponse`` is read to its
  end) -> ``{"answer", "contexts", "metadata"}``;
* a LlamaIndex ``NodeWithScore`` (``node`` + ``score``) and node (``get_content`` + ``node_id``) ->
  ``{"text", "id", "ref_doc_id", "metadata", "score"}`` — ``ref_doc_id`` is the document the node
  was cut from (node ids are random UUIDs; :mod:`.extract` takes the document's id);
* a LangChain ``Document`` (``page_content`` + ``metadata``) -> ``{"page_content", "id", "metadata"}``;
  a Haystack ``Document`` (``content`` + ``meta``) -> ``{"content", "id", "meta", "score"}``;
* a chat message (LangChain ``AIMessage``: ``content`` text + ``type``; Haystack ``ChatMessage``:
  ``text`` + ``role``) -> its text;
* any other pydantic model (``model_dump``), dataclass or mapping -> a dict; tuples, lists and sets ->
  lists.

Anything else (a socket, a generator, an object nested deeper than :data:`MAX_DEPTH`) is an
:class:`Unreadable` error naming its type and where it is — never its value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

#: How deep a return value may nest (a cycle or a runaway structure is an error, not a crash).
MAX_DEPTH = 64
_SCALARS = (str, int, float, bool, type(None))


class Unreadable(ValueError):
    """A return value that is not JSON and no object this module reads (names the type and where)."""


def plain(value: Any) -> Any:
    """``value`` as JSON values (see the module doc)."""
    return _plain(value, "the return value", 0)


def _where(at: str, key: Any) -> str:
    return f"{at}[{key!r}]" if not isinstance(key, int) else f"{at}[{key}]"


def _plain(v: Any, at: str, depth: int) -> Any:
    if isinstance(v, _SCALARS):
        return v
    if depth > MAX_DEPTH:
        raise Unreadable(f"the function's return value nests deeper than {MAX_DEPTH} levels at {at}")
    d = depth + 1
    if isinstance(v, Mapping):
        return {str(k): _plain(x, _where(at, k), d) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [_plain(x, _where(at, i), d) for i, x in enumerate(v)]
    framework = _framework(v, at, d)
    if framework is not _NOT:
        return framework
    dump = getattr(v, "model_dump", None)
    if callable(dump):  # pydantic
        try:
            return _plain(dump(), at, d)
        except Unreadable:
            raise
        except Exception:  # noqa: BLE001 - a model that cannot dump itself is named below
            pass
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: _plain(getattr(v, f.name), _where(at, f.name), d) for f in dataclasses.fields(v)}
    raise Unreadable(f"the function returned a {type(v).__module__}.{type(v).__name__} at {at}, which cannot be "
                     "read: return a dict {answer, contexts}, text, or a LlamaIndex Response / LangChain Documents")


class _Not:
    pass


_NOT: Any = _Not()


def _framework(v: Any, at: str, d: int) -> Any:
    """A framework object read by its attributes, or ``_NOT``."""
    has = lambda *names: all(hasattr(v, n) for n in names)  # noqa: E731 - a local shorthand
    if has("source_nodes", "response"):  # LlamaIndex Response / StreamingResponse
        if has("response_gen", "get_response") and getattr(v, "response", None) is None:
            v = v.get_response()  # a streaming response: read to its end
        answer = v.response
        return {"answer": None if answer is None else str(answer),
                "contexts": _plain(list(v.source_nodes or ()), f"{at}.source_nodes", d),
                "metadata": _plain(getattr(v, "metadata", None) or {}, f"{at}.metadata", d)}
    if has("node", "score") and hasattr(v.node, "get_content"):  # LlamaIndex NodeWithScore
        node = _plain(v.node, f"{at}.node", d)
        if isinstance(node, dict):
            node["score"] = v.score
        return node
    if has("get_content", "node_id"):  # a LlamaIndex node
        return {"text": v.get_content(), "id": v.node_id, "ref_doc_id": getattr(v, "ref_doc_id", None),
                "metadata": _plain(getattr(v, "metadata", None) or {}, f"{at}.metadata", d)}
    if has("page_content", "metadata"):  # LangChain Document
        return {"page_content": v.page_content, "id": getattr(v, "id", None),
                "metadata": _plain(v.metadata or {}, f"{at}.metadata", d)}
    if has("content", "meta", "id") and isinstance(v.content, (str, type(None))):  # Haystack Document
        return {"content": v.content, "id": v.id, "meta": _plain(v.meta or {}, f"{at}.meta", d),
                "score": getattr(v, "score", None)}
    if has("content", "type") and isinstance(v.content, str) and isinstance(getattr(v, "type", None), str):
        return v.content  # LangChain message
    if has("text", "role") and isinstance(v.text, str):  # Haystack ChatMessage
        return v.text
    return _NOT

"""The conversation a trace's question belongs to: the turns before it, and the conversation id.

The rules (a trace of a chat app; a trace of a one-shot app has neither and reads as before):

* **history** — every turn before the user's last message, from the first place that holds the
  chat: the root span's input when it is a list of messages (OpenAI / LangChain / OpenInference
  shapes); the root input's ``messages`` (turns before its last user message) or its
  ``chat_history`` / ``history`` / ``conversation`` / ``previous_messages`` (all of them: the question
  is apart); the root's ``llm.input_messages``; else the input messages of the last LLM call
  (OpenInference ``llm.input_messages``, a LangSmith / Langfuse generation's messages). System and
  tool messages are no turns (:func:`evaluators.turns.read_history`); a history that cannot be read
  is dropped with a note that names what is wrong (``metadata["history_note"]``), never the trace.
* **conversation_id** — the app's own ``conversation_id`` / ``thread_id`` / ``chat_id`` /
  ``session_id`` metadata when it gave one, else the trace's session (OpenInference ``session.id``,
  a LangSmith session, a Langfuse ``sessionId``) when it has exactly one.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..turns import HistoryError, read_history
from ..types import Turn
from .model import Span
from .values import flat_messages, message_of, parsed, role_is

#: Input keys that hold the whole chat (the question is its last user message).
MESSAGES_KEYS = ("messages",)
#: Input keys that hold the earlier turns only (the question is another field).
HISTORY_KEYS = ("chat_history", "history", "conversation", "previous_messages")
#: The app's metadata keys that name the conversation, best first.
CONVERSATION_KEYS = ("conversation_id", "thread_id", "chat_id", "session_id")
_USER = ("user", "human")


def _messages(value: Any) -> list[tuple[str, str]] | None:
    """(role, text) of every message of ``value`` when it is a list of chat messages, else None."""
    v = parsed(value)
    if not isinstance(v, list) or not v:
        return None
    flat = flat_messages(v)  # LangChain batches: [[msg, …]]
    out = [m if isinstance(m, tuple) else message_of(m) for m in flat]
    if not out or any(m is None for m in out):
        return None
    return [m for m in out if m is not None]


def _before_last_user(messages: list[tuple[str, str]]) -> list[tuple[str, str]]:
    last = max((i for i, (role, _) in enumerate(messages) if role_is(role, _USER)), default=None)
    return messages[:last] if last is not None else []


def _found(root: Span, spans: Iterable[Span]) -> tuple[list[tuple[str, str]], str] | None:
    """The earlier messages and where they were found, or None when no place holds a chat."""
    msgs = _messages(root.input)
    if msgs is not None:
        return _before_last_user(msgs), "root input"
    v = parsed(root.input)
    if isinstance(v, Mapping):
        for k in MESSAGES_KEYS:
            msgs = _messages(v.get(k))
            if msgs is not None:
                return _before_last_user(msgs), f"root input {k!r}"
        for k in HISTORY_KEYS:
            msgs = _messages(v.get(k))
            if msgs is not None:
                return msgs, f"root input {k!r}"
    if root.input_messages:
        return _before_last_user(list(root.input_messages)), "root input messages"
    llm = [s for s in spans if s.kind == "LLM" and s.input_messages]
    if llm:
        last = sorted(llm, key=lambda s: (s.start is None, s.start or 0.0))[-1]
        return _before_last_user(list(last.input_messages or [])), f"LLM span {last.name!r} input messages"
    return None


def history_of(root: Span, spans: Iterable[Span]) -> tuple[tuple[Turn, ...], str | None]:
    """(the turns before the question, a note when a history was found but could not be read)."""
    found = _found(root, spans)
    if found is None or not found[0]:
        return (), None
    msgs, where = found
    try:
        turns, _ = read_history([{"role": role, "content": text} for role, text in msgs])
    except HistoryError as exc:
        return (), f"history in the {where} left out: {exc}"
    return turns, None


def conversation_id(metadata: Mapping[str, Any]) -> str | None:
    """The conversation of a trace from its case metadata (see the module docstring)."""
    app = metadata.get("trace_metadata") or {}
    for k in CONVERSATION_KEYS:
        v = app.get(k) if isinstance(app, Mapping) else None
        if isinstance(v, (str, int)) and str(v).strip():
            return str(v)
    session = metadata.get("session_id")
    return session if isinstance(session, str) and session.strip() else None


__all__ = ["CONVERSATION_KEYS", "HISTORY_KEYS", "MESSAGES_KEYS", "conversation_id", "history_of"]

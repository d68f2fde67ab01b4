"""One trace -> one test case, or the reason it gives none.

The rules (each can be replaced by a mapping by hand, :class:`TraceMapping`):

* **root**: the span without a parent (or the format's own root flag). A trace whose spans point at
  parents that are not in the file is incomplete (an export cut it) and is skipped, not scored from
  a part.
* **question**: the root span's input — the user's last message when it is a chat, the
  ``question`` / ``query`` / ``input`` … field of an object, else the text; when the root has
  none, the first retriever's query.
* **documents**: what the retrievers returned, every retriever call joined in the order they ran;
  when a reranker ran, its output instead (the documents the answer was written from). A document
  returned twice is kept once, at its first rank.
* **answer**: the root span's output (the final answer, not an intermediate LLM call).
* **an agent** (a trace with TOOL spans): its calls in order become the case's ``tool_calls``; its
  documents are the passages and results its calls brought before it answered, and its answer is
  the root's output, else the last LLM call's text (rules: :mod:`.toolcalls`).
* **conversation**: a chat's earlier turns (every turn before the user's last message) become the
  case's ``history``, the app's conversation / thread id or the trace's session its
  ``conversation_id`` (rules: :mod:`.conversation`).

A trace without a retriever span, without a question or without an answer is skipped with the
reason; so is one whose texts exceed :data:`MAX_TEXT_CHARS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

from ..types import TestCase, ToolCall
from .conversation import conversation_id, history_of
from .model import Doc, Skipped, Span, Trace
from .toolcalls import Step, declared_tools, steps_of
from .values import docs_of, last_message, parsed, text_of

#: Longest text accepted for a question, an answer or one document (as for uploaded rows).
MAX_TEXT_CHARS = 1_000_000
#: The fields a mapping by hand can set.
MAP_FIELDS = ("question", "documents", "response")
_PARTS = ("input", "output", "attributes")


@dataclass(frozen=True)
class Pick:
    """Where one field comes from: the span named ``span`` ("" = the root span), its ``part``
    (``input`` / ``output`` / ``attributes``; "" = the field's usual part) and a dotted ``key``
    inside it (``output.answer`` -> the ``answer`` field of the parsed output)."""

    span: str = ""
    part: str = ""
    key: str = ""

    @classmethod
    def parse(cls, text: str) -> Pick:
        """``SPAN``, ``SPAN:input``, ``SPAN:output.answer``, ``SPAN:attributes.my.attr``,
        ``:output.answer`` (the root span)."""
        head, sep, tail = text.rpartition(":")
        if sep:
            part, _, key = tail.strip().partition(".")
            if part in _PARTS:
                return cls(span=head.strip(), part=part, key=key.strip())
        return cls(span=text.strip())

    def __str__(self) -> str:
        where = self.part + (f".{self.key}" if self.key else "")
        return f"{self.span}:{where}" if where else self.span


@dataclass(frozen=True)
class TraceMapping:
    """Fields mapped by hand (None: the usual rule)."""

    question: Pick | None = None
    documents: Pick | None = None
    response: Pick | None = None

    @classmethod
    def from_pairs(cls, pairs: Mapping[str, str]) -> TraceMapping:
        bad = [k for k in pairs if k not in MAP_FIELDS]
        if bad:
            raise ValueError(f"cannot map {', '.join(bad)}; fields: {', '.join(MAP_FIELDS)}")
        return cls(**{k: Pick.parse(v) for k, v in pairs.items() if v and v.strip()})

    def pairs(self) -> dict[str, str]:
        return {f: str(p) for f in MAP_FIELDS if (p := getattr(self, f)) is not None}

    def __bool__(self) -> bool:
        return any(getattr(self, f) is not None for f in MAP_FIELDS)


def _order(spans: list[Span]) -> list[Span]:
    return sorted(spans, key=lambda s: (s.start is None, s.start or 0.0))


def find_root(trace: Trace) -> tuple[Span | None, str | None]:
    """The root span, or why there is none / why the trace is incomplete."""
    ids = {s.span_id for s in trace.spans}
    flagged = [s for s in trace.spans if s.is_root]
    roots = flagged or [s for s in trace.spans if not s.parent_id]
    if len(roots) > 1:  # a tool / LLM span that lost its parent is no root when the trace has another
        roots = [s for s in roots if s.kind not in ("TOOL", "LLM", "RETRIEVER")] or roots
    orphans = [s for s in trace.spans if s.parent_id and s.parent_id not in ids and not s.is_root]
    if not roots:
        if orphans:
            o = orphans[0]
            return None, (f"no root span: span {o.name!r} ({o.span_id}) has parent {o.parent_id}, which is "
                          "not in the file — the export holds only part of this trace")
        return None, "no root span (every span has a parent)"
    if orphans:
        o = orphans[0]
        return None, (f"incomplete trace: {len(orphans)} span(s) have a parent that is not in the file "
                      f"(e.g. {o.name!r}, parent {o.parent_id}); export whole traces")
    return _order(roots)[0], None


def _value(span: Span, part: str, key: str) -> Any:
    if part == "attributes":
        v = span.attributes.get(key)
        return v if v is not None else _dig(span.attributes, key)
    v = span.input if part == "input" else span.output
    return _dig(v, key) if key else v


def _dig(v: Any, key: str) -> Any:
    for k in key.split(".") if key else ():
        v = parsed(v)
        if isinstance(v, dict):
            v = v.get(k)
        elif isinstance(v, list) and k.lstrip("-").isdigit() and -len(v) <= int(k) < len(v):
            v = v[int(k)]
        else:
            return None
    return v


def _named(spans: list[Span], name: str, root: Span) -> list[Span]:
    return [root] if not name else [s for s in spans if s.name == name]


def _question(trace: Trace, root: Span, spans: list[Span], retrievers: list[Span],
              pick: Pick | None, agent: bool = False) -> tuple[str | None, str]:
    if pick is not None:
        found = _named(spans, pick.span, root)
        if not found:
            return None, f"no span named {pick.span!r} (question mapped to {pick})"
        return text_of(_value(found[0], pick.part or "input", pick.key), "question"), f"span {found[0].name!r}"
    q = text_of(root.input, "question")
    if q is None and root.input_messages:
        q = text_of(list(root.input_messages), "question")
    if q is not None:
        return q, "root input"
    for llm in [s for s in spans if agent and s.kind == "LLM" and s.input_messages][:1]:  # an agent's first LLM
        q = last_message(list(llm.input_messages or []), ("user", "human"))
        if q is not None:
            return q, f"LLM span {llm.name!r} user message"
    for r in retrievers:
        q = text_of(r.input, "question")
        if q is not None:
            return q, f"retriever {r.name!r} query"
    return None, f"no question: the root span {root.name!r} has no input, and no retriever has a query"


def _last_llm_answer(spans: list[Span]) -> str | None:
    """The text of the last LLM call that wrote one (an agent whose root span keeps no output)."""
    for s in sorted((s for s in spans if s.kind == "LLM"), key=lambda s: (s.end is None, s.end or 0.0),
                    reverse=True):
        a = text_of(list(s.output_messages), "answer") if s.output_messages else None
        a = a or text_of(s.output, "answer")
        if a and a.strip():
            return a
    return None


def _answer(root: Span, spans: list[Span], pick: Pick | None, agent: bool = False) -> tuple[str | None, str]:
    if pick is not None:
        found = _named(spans, pick.span, root)
        if not found:
            return None, f"no span named {pick.span!r} (response mapped to {pick})"
        last = sorted(found, key=lambda s: (s.end is None, s.end or 0.0))[-1]
        return text_of(_value(last, pick.part or "output", pick.key), "answer"), ""
    a = text_of(root.output, "answer")
    if a is None and root.output_messages:
        a = text_of(list(root.output_messages), "answer")
    if a is not None:
        return a, ""
    if agent and root.status != "ERROR":
        a = _last_llm_answer(spans)
        if a is not None:
            return a, ""
    why = f"no answer: the root span {root.name!r} has no output"
    if root.status == "ERROR":
        first = root.status_message.strip().splitlines()[0][:200] if root.status_message.strip() else ""
        why += f" (it ended in an error{': ' + first if first else ''})"
    return None, why


def _documents(root: Span, spans: list[Span], pick: Pick | None, steps: list[Step] | None = None
               ) -> tuple[list[tuple[Doc, Span, int]] | None, list[Span], str]:
    """(document, span it came from, its position there) in rank order, the retriever spans, or
    why there are none. An agent's (``steps`` with a TOOL call): what its calls brought that it
    could read before answering (:mod:`.toolcalls`)."""
    if pick is not None:
        found = _named(spans, pick.span, root)
        if not found:
            return None, [], f"no span named {pick.span!r} (documents mapped to {pick})"
        out: list[tuple[Doc, Span, int]] = []
        for s in found:
            if pick.part in ("", "output") and not pick.key and s.documents is not None:  # what it returned
                docs: list[Doc] | None = s.documents
            else:
                docs = docs_of(_value(s, pick.part or "output", pick.key))
            if docs is None:
                return None, found, f"span {s.name!r} holds no list of documents in {pick.part or 'output'}"
            out += [(d, s, i) for i, d in enumerate(docs)]
        return out, found, ""
    if steps and any(st.call.kind == "TOOL" for st in steps):
        got = [(d, st.span, i) for st in steps if st.span is not None and st.readable and not st.call.failed
               for i, d in enumerate(st.docs)]
        return got, [st.span for st in steps if st.span is not None and st.docs], ""
    retrievers = [s for s in spans if s.kind == "RETRIEVER"]
    rerankers = [s for s in spans if s.kind == "RERANKER" and s.documents is not None]
    if not retrievers and not rerankers:
        kinds = ", ".join(sorted({f"{s.name} ({s.kind or '?'})" for s in spans})[:8])
        return None, [], (f"no retriever span (spans: {kinds}); map the documents by hand if your "
                          "retriever is a span of another kind")
    source = rerankers or retrievers
    return [(d, s, i) for s in source for i, d in enumerate(s.documents or [])], retrievers, ""


def _too_long(what: str, text: str) -> str | None:
    if len(text) > MAX_TEXT_CHARS:
        return f"{what} is {len(text):,} characters long, over the limit of {MAX_TEXT_CHARS:,}"
    if "\x00" in text:
        return f"{what} contains a NUL character (\\x00)"
    return None


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, tz=timezone.utc).isoformat()


def assemble(trace: Trace, fmt: str, mapping: TraceMapping | None = None) -> TestCase | Skipped:
    """The test case of ``trace`` (see the module doc for the rules), or why it gives none."""
    mapping = mapping or TraceMapping()
    root, why = find_root(trace)
    rec = min((s.record for s in trace.spans if s.record is not None), default=None)
    if trace.damaged:
        return Skipped(trace.trace_id, trace.damaged, root.name if root else None, rec)
    if root is None:
        return Skipped(trace.trace_id, why or "no root span", None, rec)
    spans = _order(trace.spans)
    steps = steps_of(root, spans)
    agent = any(st.call.kind == "TOOL" for st in steps)
    docs, retrievers, why = _documents(root, spans, mapping.documents, steps)
    if docs is None:
        return Skipped(trace.trace_id, why, root.name, rec)
    question, q_from = _question(trace, root, spans, retrievers, mapping.question, agent)
    if question is None:
        return Skipped(trace.trace_id, q_from if q_from.startswith("no ") else
                       f"no question in {q_from} ({mapping.question})", root.name, rec)
    answer, why = _answer(root, spans, mapping.response, agent)
    if answer is None:
        return Skipped(trace.trace_id, why or f"no answer in the span mapped ({mapping.response})", root.name, rec)
    kept: dict[str, int] = {}
    texts: list[str] = []
    places: list[list[list[Any]]] = []
    for d, s, pos in docs:  # a document returned twice is kept once, at its first rank
        key = d.content.strip()
        if key in kept:
            places[kept[key]].append([s.span_id, pos])
            continue
        kept[key] = len(texts)
        texts.append(d.content)
        places.append([[s.span_id, pos]])
    for what, text in (("question", question), ("answer", answer),
                       *((f"document {i + 1}", t) for i, t in enumerate(texts))):
        bad = _too_long(what, text)
        if bad:
            return Skipped(trace.trace_id, bad, root.name, rec)
    metadata = _metadata(trace, fmt, root, spans, retrievers, places, q_from)
    history, note = history_of(root, spans)
    if note:
        metadata["history_note"] = note
    tools = declared_tools(spans)
    if tools:
        metadata["available_tools"] = tools
    return TestCase(id=trace.trace_id, question=question, response=answer, documents=tuple(texts),
                    metadata=metadata, history=history, conversation_id=conversation_id(metadata),
                    tool_calls=_calls(steps, places))


def _calls(steps: list[Step], places: list[list[list[Any]]]) -> tuple[ToolCall, ...]:
    """The steps' calls, each with the indices of the case's documents it brought."""
    by_span: dict[str, list[int]] = {}
    for k, where in enumerate(places):
        for sid, _ in where:
            by_span.setdefault(sid, []).append(k)
    out = []
    for st in steps:
        got = tuple(sorted(set(by_span.get(st.call.span_id or "", ())))) if st.call.span_id else ()
        out.append(st.call.model_copy(update={"documents": got}) if got else st.call)
    return tuple(out)


def _retriever_positions(spans: list[Span], retrievers: list[Span], places: list[list[list[Any]]],
                         texts_by_span: dict[str, list[Doc]]) -> list[list[list[Any]]]:
    """Where each kept document sits in a *retriever* span (a reranked document is found in the
    retriever that returned it), so document annotations land on the retriever spans."""
    ids = {r.span_id for r in retrievers}
    if all(sid in ids for p in places for sid, _ in p):
        return places
    where: dict[str, list[Any]] = {}
    for r in retrievers:
        for i, d in enumerate(r.documents or []):
            where.setdefault(d.content.strip(), [r.span_id, i])
    out = []
    for p in places:
        if all(sid in ids for sid, _ in p):
            out.append(p)
            continue
        sid, pos = p[0]
        doc = texts_by_span.get(sid, [])
        text = doc[pos].content.strip() if pos < len(doc) else None
        out.append([where[text]] if text in where else p)
    return out


def _metadata(trace: Trace, fmt: str, root: Span, spans: list[Span], retrievers: list[Span],
              places: list[list[list[Any]]], q_from: str) -> dict[str, Any]:
    models = list(dict.fromkeys(s.model for s in spans if s.model and s.kind == "LLM")) or \
        list(dict.fromkeys(s.model for s in spans if s.model))
    sessions = sorted(trace.sessions())
    users = sorted({s.user for s in spans if s.user} | ({trace.user} if trace.user else set()))
    meta: dict[str, Any] = {}
    for s in [root, *spans]:
        if s.metadata:  # the root's keys win; LangChain's own (ls_*, lc_*) are left out
            meta = {**{k: v for k, v in s.metadata.items() if not k.startswith(("ls_", "lc_"))}, **meta}
    if trace.metadata:
        meta = {**meta, **trace.metadata}
    by_span = {s.span_id: s.documents or [] for s in spans}
    out: dict[str, Any] = {
        "trace_id": trace.trace_id,
        "trace_format": fmt,
        "root_span_id": root.span_id,
        "root_span": root.name,
        "retriever_span_ids": [s.span_id for s in retrievers],
        "document_spans": _retriever_positions(spans, retrievers, places, by_span),
        "start_time": _iso(trace.start_time()),
        "question_from": q_from,
    }
    if models:
        out["model"] = models[0] if len(models) == 1 else models
    if sessions:
        out["session_id"] = sessions[0] if len(sessions) == 1 else sessions
    if users:
        out["user_id"] = users[0] if len(users) == 1 else users
    tags = sorted(trace.all_tags())
    if tags:
        out["tags"] = tags
    if meta:
        out["trace_metadata"] = meta
    return out

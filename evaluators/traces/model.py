"""The shapes every trace reader produces: one :class:`Span` per span / run / observation, grouped
into :class:`Trace` objects; :class:`Skipped` (a trace that gave no test case, and why) and
:class:`Issue` (a record of the file that could not be read).

Readers keep the raw input and output of a span (a string, often JSON, or an object) untouched:
:mod:`.assemble` decides what the question, the documents and the answer are, so a mapping by hand
can re-read the same spans without parsing the file again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The trace formats read (``detect`` names one of them; the user may force one).
FORMATS: tuple[str, ...] = ("openinference", "otlp", "langsmith", "langfuse")
#: What each format is, for messages and the Upload page.
FORMAT_NAMES: dict[str, str] = {
    "openinference": "OpenInference spans (Phoenix export)",
    "otlp": "OTLP JSON (OpenTelemetry)",
    "langsmith": "LangSmith runs",
    "langfuse": "Langfuse traces",
}


@dataclass(frozen=True, slots=True)
class Doc:
    """One retrieved document: its text, and its id / score when the trace had them."""

    content: str
    id: str | None = None
    score: float | None = None


@dataclass(slots=True)
class Span:
    """One unit of work of a trace, whatever the format called it (span, run, observation)."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    #: Upper-case kind: CHAIN, RETRIEVER, RERANKER, LLM, EMBEDDING, TOOL, AGENT, … ("" unknown).
    kind: str = ""
    #: Start / end as seconds since the epoch (None when the file did not say).
    start: float | None = None
    end: float | None = None
    input: Any = None
    output: Any = None
    #: Documents the span returned (OpenInference ``retrieval.documents``, a retriever run's
    #: output documents, a reranker's output documents); None when it reported none.
    documents: list[Doc] | None = None
    #: Chat messages in / out as (role, text) (OpenInference ``llm.input_messages`` …).
    input_messages: list[tuple[str, str]] | None = None
    output_messages: list[tuple[str, str]] | None = None
    model: str | None = None
    session: str | None = None
    user: str | None = None
    tags: tuple[str, ...] = ()
    #: The app's own metadata on the span (a JSON object), when any.
    metadata: dict[str, Any] | None = None
    #: "OK" / "ERROR" / "" and the error message, when the span failed.
    status: str = ""
    status_message: str = ""
    #: The span is the trace's root by the format's own flag (Langfuse ``isRootObservation``).
    is_root: bool = False
    #: Where it was read: the record (row / line / element) number in the file, 1-based.
    record: int | None = None
    #: Any other attribute a mapping by hand may name (flattened ``a.b.c`` keys).
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Trace:
    """The spans of one trace id, in the order they were read."""

    trace_id: str
    spans: list[Span] = field(default_factory=list)
    #: Trace-level facts some formats keep apart from the spans (Langfuse's trace object).
    name: str | None = None
    input: Any = None
    output: Any = None
    session: str | None = None
    user: str | None = None
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] | None = None
    start: float | None = None
    #: Set when the file was damaged where this trace's spans were (a truncated record).
    damaged: str | None = None

    def start_time(self) -> float | None:
        if self.start is not None:
            return self.start
        times = [s.start for s in self.spans if s.start is not None]
        return min(times) if times else None

    def sessions(self) -> set[str]:
        found = {s.session for s in self.spans if s.session}
        return found | ({self.session} if self.session else set())

    def all_tags(self) -> set[str]:
        return {t for s in self.spans for t in s.tags} | set(self.tags)

    def span_names(self) -> set[str]:
        return {s.name for s in self.spans} | ({self.name} if self.name else set())


@dataclass(frozen=True, slots=True)
class Skipped:
    """A trace that gave no test case: its id, why, and the root span's name when known."""

    trace_id: str
    reason: str
    root_name: str | None = None
    record: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"trace_id": self.trace_id, "reason": self.reason, "root_span": self.root_name,
                "record": self.record}


@dataclass(frozen=True, slots=True)
class Issue:
    """A record of the file that could not be read (the other records still are): its 1-based
    number in the file (row, line or element), the field when one is to blame, and why."""

    message: str
    record: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = [f"record {self.record}"] if self.record is not None else []
        if self.field:
            where.append(f"field {self.field!r}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class TraceError(ValueError):
    """The whole file cannot be read as traces (wrong format forced, no span at all, …)."""

"""Reading a trace file: detect the format, read its spans, group them into traces, filter, and
build the test cases (:class:`TraceRead` keeps the traces, so a new mapping or filter re-builds
the cases without parsing the file again)."""

from __future__ import annotations

import gc
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Sequence

from ..types import TestCase
from .assemble import TraceMapping, assemble
from .filters import TraceFilter
from .langfuse_traces import is_langfuse_columns, read_langfuse
from .langsmith_runs import is_langsmith_columns, read_runs
from .model import FORMAT_NAMES, FORMATS, Issue, Skipped, Span, Trace, TraceError
from .otlp import read_otlp_records, read_otlp_text
from .phoenix_rows import is_phoenix_columns, read_rows

#: What ``TraceOptions.format`` accepts: auto-detect, force flat rows, or force a trace format.
CHOICES: tuple[str, ...] = ("auto", "rows", *FORMATS)


@dataclass(frozen=True)
class TraceOptions:
    """How to read a file: ``format`` (``auto`` detects it from the file's shape; ``rows`` reads it
    as flat rows; else one of :data:`FORMATS`), the mapping by hand and the filters."""

    format: str = "auto"
    mapping: TraceMapping = field(default_factory=TraceMapping)
    filter: TraceFilter = field(default_factory=TraceFilter)

    def __post_init__(self) -> None:
        if self.format not in CHOICES:
            raise ValueError(f"unknown format {self.format!r}; use one of {', '.join(CHOICES)}")


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a file is read: the readers allocate millions of small
    objects (and free none in cycles), and the collector's passes over them cost as much as the
    reading itself (measured: 10,000 OTLP traces in 2.2 s of CPU instead of 4.2 s)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def detect_columns(columns: Sequence[str]) -> str | None:
    """The trace format of a table with these columns / record keys (None: not traces)."""
    cols = {str(c) for c in columns}
    if is_phoenix_columns(list(cols)):
        return "openinference"
    if cols & {"resourceSpans", "resource_spans", "scopeSpans", "scope_spans"}:
        return "otlp"
    if is_langsmith_columns(cols):
        return "langsmith"
    if is_langfuse_columns(cols):
        return "langfuse"
    return None


@dataclass
class TraceRead:
    """What a trace file gave: every trace read (before filters), the test cases of the traces the
    filters kept, the traces skipped (with why), the records that could not be read, and notes on
    cases kept with something to know (no documents, a span read twice)."""

    name: str
    format: str
    traces: list[Trace]
    options: TraceOptions
    issues: list[Issue] = field(default_factory=list)
    cases: list[TestCase] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    filtered_out: int = 0
    #: Notes of the reading itself (a span read twice), kept when the cases are re-built.
    read_notes: list[Issue] = field(default_factory=list)

    @property
    def format_name(self) -> str:
        return FORMAT_NAMES.get(self.format, self.format)

    def redo(self, mapping: TraceMapping | None = None, filter: TraceFilter | None = None) -> TraceRead:
        """The same traces read with another mapping and / or filter."""
        opts = replace(self.options, mapping=self.options.mapping if mapping is None else mapping,
                       filter=self.options.filter if filter is None else filter)
        with gc_paused():
            return build(self.name, self.format, self.traces, opts, self.issues, self.read_notes)

    def span_names(self) -> list[str]:
        """Span names of the file, the most frequent first (for a mapping by hand)."""
        c = Counter(s.name for t in self.traces for s in t.spans if s.name)
        return [n for n, _ in c.most_common()]

    def preview(self, limit: int = 50) -> list[dict[str, Any]]:
        """One row per trace kept by the filters (cases first, then skipped ones): what it gave."""
        by_id = {c.id: c for c in self.cases}
        rows = []
        for c in self.cases[:limit]:
            m = c.metadata
            rows.append({"trace_id": c.id, "status": "ready", "root_span": m.get("root_span"),
                         "question": c.question, "documents": len(c.documents), "response": c.response,
                         "retriever_spans": len(m.get("retriever_span_ids") or ()), "reason": ""})
        for s in self.skipped[: max(0, limit - len(rows))]:
            if s.trace_id in by_id:
                continue
            rows.append({"trace_id": s.trace_id, "status": "skipped", "root_span": s.root_name,
                         "question": "", "documents": None, "response": "", "retriever_spans": None,
                         "reason": s.reason})
        return rows

    def summary(self) -> dict[str, Any]:
        """For the results JSON: format, counts, the filter and mapping used, skipped traces."""
        return {"format": self.format, "traces": len(self.traces), "cases": len(self.cases),
                "skipped": [s.to_dict() for s in self.skipped], "filtered_out": self.filtered_out,
                "filter": self.options.filter.describe(), "mapping": self.options.mapping.pairs(),
                "unreadable_records": len(self.issues)}


def group(spans: list[Span], damaged: dict[str, str] | None = None) -> tuple[list[Trace], list[Issue]]:
    """Spans -> traces (in the order their first span was read); a span read twice is kept once."""
    traces: dict[str, Trace] = {}
    seen: dict[str, set[str]] = {}
    dup: Counter[str] = Counter()
    for s in spans:
        t = traces.get(s.trace_id)
        if t is None:
            t = traces[s.trace_id] = Trace(s.trace_id)
            seen[s.trace_id] = set()
        if s.span_id in seen[s.trace_id]:
            dup[s.trace_id] += 1
            continue
        seen[s.trace_id].add(s.span_id)
        t.spans.append(s)
    for tid, why in (damaged or {}).items():
        if tid in traces:
            traces[tid].damaged = why
        else:
            traces[tid] = Trace(tid, damaged=why)
    notes = [Issue(f"trace {tid}: {n} span(s) appear more than once in the file; each is read once",
                   field="span_id") for tid, n in dup.items()]
    return list(traces.values()), notes


def build(name: str, fmt: str, traces: list[Trace], options: TraceOptions, issues: list[Issue],
          notes: list[Issue] | None = None) -> TraceRead:
    kept = options.filter.apply(traces)
    out = TraceRead(name=name, format=fmt, traces=traces, options=options, issues=list(issues),
                    warnings=list(notes or []), filtered_out=len(traces) - len(kept),
                    read_notes=list(notes or []))
    for t in kept:
        got = assemble(t, fmt, options.mapping)
        if isinstance(got, Skipped):
            out.skipped.append(got)
            continue
        out.cases.append(got)
        if not got.documents:
            out.warnings.append(Issue(f"trace {t.trace_id}: the retriever returned no documents; the case is "
                                      "scored as is (nothing can support the answer)", field="documents"))
    return out


def _finish(name: str, fmt: str, spans: list[Span], issues: list[Issue], options: TraceOptions,
            damaged: dict[str, str] | None = None, extra: dict[str, Trace] | None = None) -> TraceRead:
    if not spans and not damaged:
        first = f"; first problem: {issues[0]}" if issues else ""
        raise TraceError(f"no span could be read as {FORMAT_NAMES[fmt]}{first}")
    traces, notes = group(spans, damaged)
    for t in traces:  # trace-level facts kept apart from the spans (Langfuse)
        facts = (extra or {}).get(t.trace_id)
        if facts is not None:
            t.name, t.session, t.user = facts.name, facts.session, facts.user
            t.tags, t.metadata, t.start = facts.tags, facts.metadata, facts.start
    return build(name, fmt, traces, options, issues, notes)


def read_records(records: list[tuple[int, dict[str, Any]]], name: str, fmt: str,
                 options: TraceOptions) -> TraceRead:
    """Records (row number, object) of a LangSmith, Langfuse or OTLP file."""
    if fmt == "langsmith":
        spans, issues = read_runs(records)
        return _finish(name, fmt, spans, issues, options)
    if fmt == "langfuse":
        spans, issues, facts = read_langfuse(records)
        return _finish(name, fmt, spans, issues, options, extra=facts)
    if fmt == "otlp":
        spans, issues = read_otlp_records(records)
        return _finish(name, fmt, spans, issues, options)
    raise TraceError(f"cannot read records as {fmt!r}")


def read_columns(columns: dict[str, list[Any]], rows: Sequence[int], name: str,
                 options: TraceOptions) -> TraceRead:
    """A Phoenix spans export given column by column ({column: values}); ``rows``: each row's
    number in the file."""
    try:
        spans, issues = read_rows(columns, rows)
    except ValueError as exc:
        raise TraceError(f"not a Phoenix spans export: {exc} (columns: {', '.join(list(columns)[:12])})") from None
    return _finish(name, "openinference", spans, issues, options)


def read_otlp(text: str, name: str, options: TraceOptions) -> TraceRead:
    """An OTLP JSON / JSONL text (a damaged record keeps its complete spans)."""
    try:
        spans, issues, damaged = read_otlp_text(text)
    except ValueError as exc:
        raise TraceError(str(exc)) from None
    return _finish(name, "otlp", spans, issues, options, damaged)

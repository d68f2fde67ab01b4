"""Bring your traces, take back your scores: read what a RAG app already logged as test cases, and
send the scores back as annotations on the same spans.

Formats (detected from the file's shape; :class:`TraceOptions` ``format`` forces one):

* ``openinference`` — the Phoenix spans export (``get_spans_dataframe()`` as Parquet, CSV or JSONL;
  a frame Arrow cannot type, an agent's LangGraph metadata, is written by way of :func:`parquet_ready`);
* ``otlp`` — OTLP JSON (the Collector's file exporter, or the protobuf JSON mapping of the SDK's
  spans) with OpenInference attributes;
* ``langsmith`` — LangSmith runs as JSON / JSONL;
* ``langfuse`` — Langfuse traces (with their observations) or observations, as JSON / JSONL.

Each trace becomes one ``TestCase`` (id = the trace id; ``metadata`` keeps the trace id, the root and
retriever span ids, where each document sat, model, session, user, tags and the app's metadata), or
a :class:`Skipped` with the reason (rules: :mod:`.assemble`). Records that cannot be read are
:class:`Issue` s naming the record; every readable trace is still read. Nothing here needs an
OpenTelemetry or Phoenix package: the files are read as JSON / tables.

Back: :func:`annotation_files` (Phoenix span + document annotation dataframes as Parquet, LangSmith
feedback, Langfuse scores) and :func:`send_to_phoenix` (Phoenix's REST API). Files are read through
``evaluators.datasets`` (``load_cases`` / ``read_input``), which calls :func:`read_otlp`,
:func:`read_columns` and :func:`read_records` here.
"""

from .annotations import (
    DEFAULT_TARGETS,
    TARGETS,
    annotation_files,
    langfuse_scores,
    langsmith_feedback,
    phoenix_document_annotations,
    phoenix_span_annotations,
)
from .assemble import MAP_FIELDS, MAX_TEXT_CHARS, Pick, TraceMapping
from .filters import TraceFilter, parse_time
from .model import FORMAT_NAMES, FORMATS, Issue, Skipped, Span, Trace, TraceError
from .otlp import looks_like_otlp
from .phoenix_rows import parquet_ready
from .read import (
    CHOICES,
    TraceOptions,
    TraceRead,
    detect_columns,
    gc_paused,
    read_columns,
    read_otlp,
    read_records,
)
from .send import PhoenixSendError, SendReport, check_url, send_to_phoenix

__all__ = [
    "CHOICES", "DEFAULT_TARGETS", "FORMATS", "FORMAT_NAMES", "MAP_FIELDS", "MAX_TEXT_CHARS", "TARGETS",
    "Issue", "PhoenixSendError", "Pick", "SendReport", "Skipped", "Span", "Trace", "TraceError",
    "TraceFilter", "TraceMapping", "TraceOptions", "TraceRead", "annotation_files", "check_url",
    "detect_columns", "gc_paused", "langfuse_scores", "langsmith_feedback", "looks_like_otlp", "parse_time",
    "parquet_ready", "phoenix_document_annotations", "phoenix_span_annotations", "read_columns", "read_otlp",
    "read_records", "send_to_phoenix",
]

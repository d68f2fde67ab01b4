"""Load, validate and map evaluation data sets.

A package by job: :mod:`.read` (file formats, size and width limits), :mod:`.encoding` (bytes ->
text), :mod:`.json_records` (JSON / JSONL -> records), :mod:`.mapping` (columns -> fields),
:mod:`.validate` (rows -> TestCases), :mod:`.ids` (unique case ids), :mod:`.values` (value
helpers), :mod:`.errors`; :mod:`.questions` reads a question file (a test set without responses,
for an app to answer: ``load_questions``).

Trace files (a Phoenix spans export, OTLP JSON, LangSmith runs, Langfuse traces) are recognised
by their shape and read by :mod:`evaluators.traces`, one case per trace (:mod:`.sources`,
``load_cases(..., trace=TraceOptions(...))`` to force a format, map fields or filter).

Formats (chosen by file extension): ``.csv`` / ``.tsv`` (comma, semicolon, tab or pipe, read from
the header line), ``.json`` (a list of records, an object holding one list of records, an object of
equal-length column lists, or one record), ``.jsonl`` / ``.ndjson`` and ``.parquet``. Text may be
UTF-8 (with or without a BOM) or UTF-16 / UTF-32; a binary file under a text name (an image, an
Excel workbook, an archive) is named as such.

Column layouts accepted as-is (see :func:`guess_mapping`):

* ragas v1  — ``question, answer, contexts, ground_truth``
* ragas v2  — ``user_input, response, retrieved_contexts, reference``
* RAGBench  — ``question, response, documents`` (+ its GPT-4 label columns)
* batch     — ``query, response, retrieved_documents, ground_truth``

Documents may be a list (of texts, or of objects with a ``text`` / ``page_content`` / ``content``
field and an optional ``title``), a JSON-encoded list (or a Python-repr list, as
``DataFrame.to_csv`` writes), or one plain string (= one document); null, ``[]`` and ``""`` mean no
documents. An ``id`` column is kept (else ids are the row numbers); a duplicate or missing id keeps
its row under a unique id (``q1#2``, ``row-7``) with a warning. Human-label columns
(``hallucinated``, ``adherence_score``, …, a nested ``labels`` object, or any ``human_*`` /
``label_*`` column) go to ``TestCase.labels``; every other column goes to ``TestCase.metadata``.

Errors: a problem with the whole file or a whole column raises :class:`DatasetError`; a problem
with one row becomes a :class:`DatasetError` in ``LoadResult.errors`` and the other rows still
load; a row kept after a fix-up is in ``LoadResult.warnings``. Nothing is dropped silently, and no
input ends in another exception (deep nesting, binary data, huge cells included). Limits: cells of
at most ``MAX_TEXT_CHARS`` characters and ``MAX_DEPTH`` levels of nesting, files of at most
``MAX_COLUMNS`` columns (and ``max_bytes`` when given).

Row numbers are 1-based **data rows**: for CSV/TSV row 1 is the first record after the header; for
JSONL the row is the line number in the file; for JSON and Parquet it is the position of the record.
"""


from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .errors import DatasetError
from .mapping import LABEL_COLUMNS, MAPPABLE_FIELDS, ColumnMapping, guess_mapping
from .questions import QuestionRow, QuestionSet, load_questions
from .read import MAX_COLUMNS, SUPPORTED_EXTENSIONS, frame_of, read_table
from .sources import Input, load_input, read_input, trace_result
from .validate import MAX_TEXT_CHARS, LoadResult, to_cases
from .values import MAX_DEPTH, nesting_depth

if TYPE_CHECKING:
    from ..traces import TraceOptions

__all__ = [
    "LABEL_COLUMNS", "MAPPABLE_FIELDS", "MAX_COLUMNS", "MAX_DEPTH", "MAX_TEXT_CHARS", "SUPPORTED_EXTENSIONS",
    "ColumnMapping", "DatasetError", "Input", "LoadResult", "QuestionRow", "QuestionSet", "cases_from_records",
    "guess_mapping", "load_cases", "load_input", "load_questions", "nesting_depth", "read_input", "read_table",
    "to_cases", "trace_result",
]


def load_cases(path: str | Path, mapping: ColumnMapping | None = None,
               max_bytes: int | None = None, trace: TraceOptions | None = None) -> LoadResult:
    """Read, map and validate a file of rows or of traces (detected from its shape; ``trace``
    forces a format, maps trace fields by hand, filters traces). Raises :class:`DatasetError` for
    file- or column-level problems; row-level problems are in ``LoadResult.errors``, traces that
    gave no case in ``LoadResult.traces.skipped``."""
    return load_input(path, mapping=mapping, max_bytes=max_bytes, trace=trace)


def cases_from_records(records: Sequence[Mapping[str, Any]], name: str = "records",
                       mapping: ColumnMapping | None = None) -> LoadResult:
    """Validate in-memory records (e.g. from an API) the same way as a file."""
    df = frame_of([dict(r) for r in records], name)
    if len(df.columns) == 0:
        raise DatasetError(name, "no records")
    m = mapping or guess_mapping(list(df.columns), filename=name)
    return to_cases(df, m, name)

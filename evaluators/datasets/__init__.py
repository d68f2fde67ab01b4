"""Load, validate and map evaluation data sets.

Formats (chosen by file extension): ``.csv``, ``.tsv``, ``.json`` (a list of records, an object
holding one list of records, or an object of equal-length column lists), ``.jsonl`` / ``.ndjson``
and ``.parquet``.

Column layouts accepted as-is (see :func:`guess_mapping`):

* ragas v1  — ``question, answer, contexts, ground_truth``
* ragas v2  — ``user_input, response, retrieved_contexts, reference``
* RAGBench  — ``question, response, documents`` (+ its GPT-4 label columns)
* batch     — ``query, response, retrieved_documents, ground_truth``

Documents may be a list, a JSON-encoded list (or a Python-repr list, as ``DataFrame.to_csv``
writes), or one plain string (= one document). An ``id`` column is kept (else ids are the row
numbers); human-label columns (``hallucinated``, ``adherence_score``, …, a nested ``labels``
object, or any ``human_*`` / ``label_*`` column) go to ``TestCase.labels``; every other column
goes to ``TestCase.metadata``.

Errors: a problem with the whole file or a whole column raises :class:`DatasetError`; a problem
with one row becomes a :class:`DatasetError` in ``LoadResult.errors`` and the other rows still
load. Nothing is dropped silently.

Row numbers are 1-based **data rows**: for CSV/TSV row 1 is the first record after the header; for
JSONL the row is the line number in the file; for JSON and Parquet it is the position of the record.
"""


from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from .errors import DatasetError
from .mapping import LABEL_COLUMNS, MAPPABLE_FIELDS, ColumnMapping, guess_mapping
from .read import SUPPORTED_EXTENSIONS, _frame, read_table
from .validate import MAX_TEXT_CHARS, LoadResult, to_cases
from .values import MAX_DEPTH, nesting_depth

__all__ = [
    "LABEL_COLUMNS", "MAPPABLE_FIELDS", "MAX_DEPTH", "MAX_TEXT_CHARS", "SUPPORTED_EXTENSIONS",
    "ColumnMapping", "DatasetError", "LoadResult", "cases_from_records", "guess_mapping",
    "load_cases", "nesting_depth", "read_table", "to_cases",
]


def load_cases(path: str | Path, mapping: ColumnMapping | None = None,
               max_bytes: int | None = None) -> LoadResult:
    """Read, map and validate a file. Raises :class:`DatasetError` for file- or column-level
    problems; row-level problems are in ``LoadResult.errors``."""
    name = Path(path).name
    df = read_table(path, max_bytes=max_bytes)
    m = mapping or guess_mapping(list(df.columns), filename=name)
    return to_cases(df, m, name)


def cases_from_records(records: Sequence[Mapping[str, Any]], name: str = "records",
                       mapping: ColumnMapping | None = None) -> LoadResult:
    """Validate in-memory records (e.g. from an API) the same way as a file."""
    df = _frame([dict(r) for r in records])
    if len(df.columns) == 0:
        raise DatasetError(name, "no records")
    m = mapping or guess_mapping(list(df.columns), filename=name)
    return to_cases(df, m, name)

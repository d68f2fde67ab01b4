"""A question file: the questions an app is to answer (``python -m evaluators run``) — a test set
without responses.

    from evaluators.datasets import load_questions
    qs = load_questions("data/sample_questions.jsonl")
    qs.rows[0].id, qs.rows[0].question, qs.rows[0].row   # the row's every column, JSON types kept

The file is read by the same readers as a test set (CSV / TSV / JSON / JSONL / Parquet, the same
column names, the same checks): ``question`` is required; ``id``, ``ground_truth`` (or ``answer``:
in a question file it is the reference answer), ``reference_context_ids``,
``reference_context_relevance``, ``reference_contexts``, ``history`` and ``conversation_id`` are
read and checked like a test set's; every other column is kept. A response column, if any, is not
read (the app gives the answer). A file without a question column is a :class:`DatasetError` naming
the file; a bad row is an error naming file, row and column, and the other rows still load.

Each :class:`QuestionRow` holds the checked fields (``case``: a ``TestCase`` with an empty response)
and the row as given (``row``: every column, the values with their JSON types — a ``history`` list
stays a list; in a CSV file a cell holding a JSON list or object is read as one), which a target
fills its request with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Mapping

from ..types import TestCase
from .errors import DatasetError
from .mapping import ColumnMapping, guess_mapping
from .read import name_of, read_table
from .validate import to_cases
from .values import is_missing, loads, to_python

_TEXT_FORMATS = (".csv", ".tsv", ".txt")


@dataclass(frozen=True)
class QuestionRow:
    """One question: its checked fields (``case``, response empty) and the row as given."""

    case: TestCase
    #: Every column of the row (values as plain JSON types); missing values left out.
    row: dict[str, Any]
    #: The row's number in the file (1-based data rows, as in the dataset errors).
    row_no: int

    @property
    def id(self) -> str:
        return self.case.id

    @property
    def question(self) -> str:
        return self.case.question


@dataclass
class QuestionSet:
    """The questions of a file, the rows that could not be read (each naming file, row and column)
    and the rows kept after a fix-up (a renamed duplicate id)."""

    name: str
    rows: list[QuestionRow]
    columns: list[str]
    mapping: ColumnMapping
    errors: list[DatasetError] = field(default_factory=list)
    warnings: list[DatasetError] = field(default_factory=list)


def _cell(v: Any, text_cells: bool) -> Any:
    v = to_python(v)
    if text_cells and isinstance(v, str) and v.strip()[:1] in ("[", "{"):
        try:
            return loads(v.strip())
        except (json.JSONDecodeError, RecursionError):
            return v
    return v


def load_questions(source: str | Path | bytes | BinaryIO, filename: str | None = None, *,
                   overrides: Mapping[str, str] | None = None, max_bytes: int | None = None) -> QuestionSet:
    """Read a question file (see the module doc). Raises :class:`DatasetError` for problems with the
    whole file (unreadable, no question column); row problems are in ``QuestionSet.errors``."""
    name = name_of(source, filename)
    df = read_table(source, filename, max_bytes)
    columns = [str(c) for c in df.columns]
    mapping = guess_mapping(columns, filename=name, overrides=overrides, answered=False)
    if mapping.response is not None:
        mapping = mapping.model_copy(update={"response": None})
    loaded = to_cases(df, mapping, name, require_response=False)
    rows_attr = df.attrs.get("source_rows")
    numbers = rows_attr if isinstance(rows_attr, list) and len(rows_attr) == len(df) else range(1, len(df) + 1)
    text_cells = Path(name).suffix.lower() in _TEXT_FORMATS
    records = dict(zip(numbers, df.to_dict("records")))
    rows = [QuestionRow(case, {str(k): _cell(v, text_cells) for k, v in records[n].items() if not is_missing(v)}, n)
            for case, n in zip(loaded.cases, loaded.rows)]
    if not rows and not loaded.errors:
        raise DatasetError(name, "no questions in the file")
    return QuestionSet(name, rows, columns, mapping, loaded.errors, loaded.warnings)

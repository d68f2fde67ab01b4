"""A data file read in chunks of rows, for runs of any size (``evaluate`` reads its input this way).

:func:`open_cases` checks the file and guesses the column mapping from its first rows; iterating
the :class:`CaseStream` then yields one :class:`Chunk` of validated ``TestCase``s at a time, so
memory holds one chunk, never the file. Rows are checked exactly as :func:`load_cases` checks them:
a bad row is an error naming file, row and column (the other rows still load), ids are made unique
across the whole file (:class:`~.ids.IdRegistry`), row numbers are the file's.

How each format is read in pieces:

* JSONL / NDJSON (UTF-8) — line by line; a line that cannot be read is flagged with its number.
* CSV / TSV (UTF-8) — row by row with the ``csv`` module (quoted newlines kept; a row with more
  fields than the header is flagged, as in :func:`read_table`).
* Parquet — by record batches (``pyarrow``), with no size limit.
* JSON (one document) and UTF-16 / UTF-32 text — read whole (a JSON document cannot be cut into
  pieces before it is parsed), then handed out in chunks. Use JSONL, CSV or Parquet for big sets.

The mapping comes from the first rows: a label column that first appears later goes to metadata.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..types import TestCase
from .encoding import binary_kind, bom_encoding, decode_text
from .errors import DatasetError
from .ids import IdRegistry
from .json_records import parse_jsonl_line
from .mapping import ColumnMapping, guess_mapping
from .read import (
    DELIMITER_NAMES,
    MAX_COLUMNS,
    SUPPORTED_EXTENSIONS,
    frame_of,
    read_table,
    require_file,
    sniff_delimiter,
    too_wide,
)
from .validate import LoadResult, to_cases

#: Rows per chunk by default.
CHUNK_ROWS = 1000
_HEAD = 65536


def _whole_chars(head: bytes) -> bytes:
    """``head`` without a character cut at its end (the first bytes of a longer file)."""
    for k in range(4):
        try:
            (head[: len(head) - k] if k else head).decode("utf-8")
            return head[: len(head) - k] if k else head
        except UnicodeDecodeError:
            continue
    return head


@dataclass
class Chunk:
    """Validated cases of a run of consecutive rows; the rows' problems."""

    cases: list[TestCase]
    errors: list[DatasetError] = field(default_factory=list)
    warnings: list[DatasetError] = field(default_factory=list)


class CaseStream:
    """A data file's cases, chunk by chunk (see the module docstring). ``errors`` / ``warnings``
    collect every row problem met so far (the whole file's once iterated)."""

    def __init__(self, path: str | Path, mapping: ColumnMapping | None = None,
                 overrides: Mapping[str, str] | None = None, chunk_rows: int = CHUNK_ROWS) -> None:
        self.path = Path(path)
        self.name = self.path.name
        self.chunk_rows = max(1, int(chunk_rows))
        ext = self.path.suffix.lower()
        if ext not in SUPPORTED_EXTENSIONS:
            read_table(self.path)  # raises the loader's message for an unknown extension
        require_file(self.path, self.name)
        self.ext = ext
        self.errors: list[DatasetError] = []
        self.warnings: list[DatasetError] = []
        self.rows_read = 0
        self._ids = IdRegistry()
        self._whole: Any = None  # the DataFrame of a file read whole
        self._first: list[tuple[int, dict[str, Any]]] = []
        self._first_errors: list[DatasetError] = []
        self._records = self._record_source()
        self._peek()
        cols = list(dict.fromkeys(c for _, r in self._first for c in r))
        #: The columns (record keys) of the first rows.
        self.columns = cols
        self.mapping = mapping or guess_mapping(cols, filename=self.name, overrides=dict(overrides or {}))

    # ------------------------------------------------------------------ sizes
    @property
    def total_hint(self) -> int | None:
        """Rows in the file when cheap to know (JSONL lines, Parquet metadata, a file read whole);
        None for CSV (quoted newlines make lines differ from rows)."""
        if self._whole is not None:
            return len(self._whole)
        if self.ext == ".parquet":
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(self.path).metadata.num_rows)
        if self.ext in (".jsonl", ".ndjson"):
            n = 0
            with self.path.open("rb") as fh:
                for line in fh:
                    n += bool(line.strip())
            return n
        return None

    # ------------------------------------------------------------------ records
    def _peek(self) -> None:
        """Read records until the first one (the mapping is guessed from the first rows)."""
        for item in self._records:
            if isinstance(item, DatasetError):
                self._first_errors.append(item)
                continue
            self._first.append(item)
            if len(self._first) >= min(self.chunk_rows, 100):
                break
        if not self._first:
            if len(self._first_errors) > 1 and self.ext in (".jsonl", ".ndjson"):
                read_table(self.path)  # one JSON document over several lines: the loader names it
            if self._first_errors:
                first = self._first_errors[0]
                more = f" (and {len(self._first_errors) - 1} more)" if len(self._first_errors) > 1 else ""
                raise DatasetError(self.name, f"no readable records; first problem{more}: {first.message}",
                                   row=first.row, column=first.column)
            raise DatasetError(self.name, "no data rows (only a header, or an empty list)")

    def _record_source(self) -> Iterator[tuple[int, dict[str, Any]] | DatasetError]:
        if self.ext == ".parquet":
            return self._parquet()
        with self.path.open("rb") as fh:
            head = fh.read(_HEAD)
        if not head.strip():
            raise DatasetError(self.name, "file is empty")
        fmt = {".csv": "CSV", ".tsv": "TSV", ".json": "JSON"}.get(self.ext, "JSONL")
        kind = binary_kind(head)
        if kind:
            raise DatasetError(self.name, f"this is {kind[0]}, not a {fmt} file{kind[1]}")
        bom = bom_encoding(head)
        if self.ext == ".json" or (bom not in (None, "utf-8-sig")) or b"\x00" in head:
            return self._whole_file()
        decode_text(_whole_chars(head), self.name, fmt)  # binary / not-UTF-8 checks on the first bytes
        return self._csv(head) if self.ext in (".csv", ".tsv") else self._jsonl()

    def _whole_file(self) -> Iterator[tuple[int, dict[str, Any]] | DatasetError]:
        df = read_table(self.path)
        self._whole = df
        yield from df.attrs.get("parse_errors") or ()
        rows = df.attrs.get("source_rows") or list(range(1, len(df) + 1))
        for row, rec in zip(rows, df.to_dict("records")):
            yield row, rec

    def _lines(self) -> Iterator[tuple[int, str]]:
        with self.path.open("rb") as fh:
            for lineno, raw in enumerate(fh, start=1):
                if lineno == 1 and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8):]
                try:
                    yield lineno, raw.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    bad = raw[exc.start:exc.start + 1]
                    raise DatasetError(self.name, f"file is not UTF-8 text (line {lineno}, byte {exc.start} of "
                                                  f"the line: {bad!r}); it may be Latin-1 / Windows-1252 — save "
                                                  "it as UTF-8") from None

    def _jsonl(self) -> Iterator[tuple[int, dict[str, Any]] | DatasetError]:
        for lineno, line in self._lines():
            got = parse_jsonl_line(line, lineno, self.name)
            if got is not None:
                yield got if isinstance(got, DatasetError) else (lineno, got)

    def _csv(self, head: bytes) -> Iterator[tuple[int, dict[str, Any]] | DatasetError]:
        default = "\t" if self.ext == ".tsv" else ","
        sep = sniff_delimiter(head.decode("utf-8", "ignore").lstrip("\ufeff"), default)
        csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))
        text = io.TextIOWrapper(self.path.open("rb"), encoding="utf-8-sig", newline="")
        reader = csv.reader(text, delimiter=sep, strict=True)
        header: list[str] | None = None
        n = 0
        try:
            for fields in reader:
                if not fields or (len(fields) == 1 and not fields[0].strip()):
                    continue
                if header is None:
                    header = fields
                    if len(header) > MAX_COLUMNS:
                        raise too_wide(self.name, len(header))
                    dup = sorted(c for c, k in Counter(header).items() if k > 1)
                    if dup:
                        raise DatasetError(self.name, f"duplicate column names: {', '.join(dup)}", column=dup[0])
                    continue
                n += 1
                if len(fields) > len(header):
                    yield DatasetError(self.name, f"row has {len(fields)} fields, the header has {len(header)} "
                                                  f"(line {reader.line_num} of the file); check quoting and the "
                                                  f"delimiter ({DELIMITER_NAMES[sep]})", row=n)
                    continue
                yield n, dict(zip(header, fields + [None] * (len(header) - len(fields))))
        except csv.Error as exc:
            hint = " (a quote is opened and never closed)" if "end of data" in str(exc) else ""
            raise DatasetError(self.name, f"malformed CSV at line {reader.line_num} ({exc}){hint}; check "
                                          "quoting and the number of fields", row=n + 1) from None
        except UnicodeDecodeError:
            raise DatasetError(self.name, f"file is not UTF-8 text (near line {reader.line_num}); it may be "
                                          "Latin-1 / Windows-1252 — save it as UTF-8") from None
        finally:
            text.close()
        if header is None:
            raise DatasetError(self.name, "file is empty (no header row)")

    def _parquet(self) -> Iterator[tuple[int, dict[str, Any]] | DatasetError]:
        import pyarrow.parquet as pq

        with self.path.open("rb") as fh:
            if fh.read(4) != b"PAR1":
                read_table(self.path)  # the loader's message for what the file is instead
        try:
            pf = pq.ParquetFile(self.path)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many types
            raise DatasetError(self.name, f"not a readable Parquet file: {exc}") from None
        if pf.metadata.num_columns > MAX_COLUMNS:
            raise too_wide(self.name, pf.metadata.num_columns)
        row = 0
        for batch in pf.iter_batches(batch_size=self.chunk_rows):
            for rec in batch.to_pylist():
                row += 1
                yield row, rec

    # ------------------------------------------------------------------ chunks
    def _chunk(self, records: list[tuple[int, dict[str, Any]]], errors: list[DatasetError]) -> Chunk:
        self.rows_read += len(records)
        if not records:
            self.errors.extend(errors)
            return Chunk([], errors)
        df = frame_of([r for _, r in records], self.name)
        m = self.mapping
        for col in (*m.columns().values(), *m.label_columns):  # optional fields too (history, references)
            if col and col not in df.columns:
                df[col] = None  # a key these records lack: a missing value (flagged when required)
        df.attrs["source_rows"] = [row for row, _ in records]
        df.attrs["parse_errors"] = errors
        res = to_cases(df, m, self.name, ids=self._ids)
        self.errors.extend(res.errors)
        self.warnings.extend(res.warnings)
        return Chunk(res.cases, res.errors, res.warnings)

    def __iter__(self) -> Iterator[Chunk]:
        records, errors = self._first, self._first_errors
        self._first, self._first_errors = [], []
        if len(records) >= self.chunk_rows:
            yield self._chunk(records, errors)
            records, errors = [], []
        for item in self._records:
            if isinstance(item, DatasetError):
                errors.append(item)
                continue
            records.append(item)
            if len(records) >= self.chunk_rows:
                yield self._chunk(records, errors)
                records, errors = [], []
        if records or errors:
            yield self._chunk(records, errors)


class LoadedStream:
    """The cases of a file read whole, chunk by chunk like a :class:`CaseStream`: a trace export,
    whose spans must all be read before one trace is a whole case (``mapping`` is then None)."""

    ext = ""

    def __init__(self, path: str | Path, loaded: LoadResult, chunk_rows: int = CHUNK_ROWS) -> None:
        self.path = Path(path)
        self.name = self.path.name
        self.chunk_rows = max(1, int(chunk_rows))
        self.loaded = loaded
        self.mapping = loaded.mapping
        self.columns: list[str] = []
        self.errors: list[DatasetError] = list(loaded.errors)
        self.warnings: list[DatasetError] = list(loaded.warnings)
        self.rows_read = len(loaded.cases)

    @property
    def total_hint(self) -> int:
        return len(self.loaded.cases)

    def __iter__(self) -> Iterator[Chunk]:
        cases = self.loaded.cases
        for i in range(0, len(cases), self.chunk_rows):
            yield Chunk(list(cases[i:i + self.chunk_rows]))


def open_cases(path: str | Path, mapping: ColumnMapping | None = None, overrides: Mapping[str, str] | None = None,
               chunk_rows: int = CHUNK_ROWS) -> CaseStream:
    """A :class:`CaseStream` of ``path``; raises :class:`DatasetError` for problems of the whole file
    (unreadable, empty, binary, an unknown format, no question / response column)."""
    return CaseStream(path, mapping=mapping, overrides=overrides, chunk_rows=chunk_rows)

"""Reading files: formats, size limits -> a DataFrame of raw cells.

CSV / TSV: the delimiter is taken from the header line (comma, semicolon, tab or pipe), whatever the
extension says. A row with more fields than the header is reported on its own (the other rows still
load). Text encodings: see :mod:`.encoding`. Parquet: checked for its signature and for an
uncompressed size that would not fit in memory before it is read.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd

from .encoding import binary_kind, decode_text
from .errors import DatasetError
from .json_records import parse_json_records, parse_jsonl_records

SUPPORTED_EXTENSIONS = (".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".parquet")


def name_of(source: Any, filename: str | None) -> str:
    """The file name of a path / an open file, or ``filename`` when given."""
    if filename:
        return Path(filename).name
    if isinstance(source, (str, Path)):
        return Path(source).name
    name = getattr(source, "name", None)
    return Path(name).name if isinstance(name, str) else ""


def require_file(p: Path, name: str) -> None:
    """DatasetError naming ``name`` unless ``p`` is a file (missing, or a directory)."""
    if not p.exists():
        raise DatasetError(name, f"file not found: {p}")
    if not p.is_file():
        raise DatasetError(name, f"{p} is a directory, not a file")


def read_bytes(source: str | Path | bytes | BinaryIO, name: str, max_bytes: int | None) -> bytes:
    """The bytes of a path, bytes or an open file (DatasetError naming ``name``: missing, a
    directory, larger than ``max_bytes``)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, Path)):
        p = Path(source)
        require_file(p, name or str(p))
        if max_bytes is not None and p.stat().st_size > max_bytes:
            raise DatasetError(name, _too_large(p.stat().st_size, max_bytes))
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise DatasetError(name, f"cannot read file: {exc}") from exc
    elif hasattr(source, "read"):
        data = source.read(max_bytes + 1 if max_bytes is not None else -1)
        if isinstance(data, str):
            data = data.encode("utf-8")
    else:
        raise DatasetError(name, f"cannot read a {type(source).__name__}; give a path, bytes or a file")
    if max_bytes is not None and len(data) > max_bytes:
        raise DatasetError(name, _too_large(len(data), max_bytes))
    return data


def _too_large(size: int, limit: int) -> str:
    return f"file is {size / 1e6:.1f} MB, larger than the limit of {limit / 1e6:.1f} MB"


_EXT_HINTS = {".xlsx": "; save the sheet as CSV (UTF-8) first",
              ".xls": "; save the sheet as CSV (UTF-8) first",
              ".txt": "; if it holds CSV or JSON, rename it to .csv or .json"}


def read_table(source: str | Path | bytes | BinaryIO, filename: str | None = None,
               max_bytes: int | None = None) -> pd.DataFrame:
    """Read a data file into a DataFrame (format by the extension of ``filename`` or the path).

    Raises :class:`DatasetError` when the file is unreadable, too large (``max_bytes``), of an
    unknown format, or holds no records. Records that cannot be parsed on their own (a broken
    JSONL line, a JSON list element that is not an object, a CSV row with too many fields) do not
    stop the others: they are kept in ``df.attrs["parse_errors"]`` and reported by
    :func:`to_cases`. ``df.attrs["source_rows"]`` holds the 1-based row number of each DataFrame
    row in the file.
    """
    name = name_of(source, filename)
    ext = "".join(Path(name).suffixes[-1:]).lower() if name else ""
    if not name:
        raise DatasetError("", "cannot tell the file format: no file name given")
    if ext not in SUPPORTED_EXTENSIONS:
        raise DatasetError(
            name, f"unsupported file type {ext or '(no extension)'!r}; "
                  f"use one of {', '.join(SUPPORTED_EXTENSIONS)}{_EXT_HINTS.get(ext, '')}"
        )
    data = read_bytes(source, name, max_bytes)
    try:
        return _read(data, name, ext)
    except DatasetError:
        raise
    except RecursionError:
        raise DatasetError(name, "data is nested too deeply to read") from None
    except MemoryError:
        raise DatasetError(name, "file is too large to read into memory") from None
    except Exception as exc:
        raise DatasetError(name, f"cannot read file: {type(exc).__name__}: {exc}") from exc


def _read(data: bytes, name: str, ext: str) -> pd.DataFrame:
    if not data.strip():
        raise DatasetError(name, "file is empty")
    parse_errors: list[DatasetError] = []
    source_rows: list[int] | None = None
    if ext == ".parquet":
        df = _read_parquet(data, name)
    else:
        fmt = {".csv": "CSV", ".tsv": "TSV", ".json": "JSON"}.get(ext, "JSONL")
        text = decode_text(data, name, fmt)
        if not text.strip():
            raise DatasetError(name, "file is empty")
        if ext in (".csv", ".tsv"):
            df, source_rows, parse_errors = _read_csv(text, name, "\t" if ext == ".tsv" else ",")
        else:
            reader = parse_json_records if ext == ".json" else parse_jsonl_records
            records, source_rows, parse_errors = reader(text, name)
            df = frame_of(records, name)
    raw_header = df.attrs.pop("raw_header", None)
    delimiter = df.attrs.pop("delimiter", None)
    df.columns = [str(c) for c in df.columns]
    names = raw_header if raw_header and len(raw_header) == len(df.columns) else list(df.columns)
    dup = sorted(c for c, n in Counter(names).items() if n > 1)
    if dup and raw_header and len(raw_header) == len(df.columns):
        df, names, dup = _drop_repeated_index(df, raw_header, dup)
    if dup:
        raise DatasetError(name, f"duplicate column names: {', '.join(dup)}", column=dup[0])
    if len(df) == 0 and not parse_errors:
        raise DatasetError(name, "no data rows (only a header, or an empty list)")
    if len(df) == 0 and parse_errors:
        first = parse_errors[0]
        more = f" (and {len(parse_errors) - 1} more)" if len(parse_errors) > 1 else ""
        raise DatasetError(name, f"no readable records; first problem{more}: {first.message}",
                           row=first.row, column=first.column)
    df.attrs["source_rows"] = source_rows if source_rows is not None else list(range(1, len(df) + 1))
    df.attrs["parse_errors"] = parse_errors
    df.attrs["filename"] = name
    if delimiter:
        df.attrs["delimiter"] = delimiter
    return df


def _drop_repeated_index(df: pd.DataFrame, header: list[str], dup: list[str]
                         ) -> tuple[pd.DataFrame, list[str], list[str]]:
    """``DataFrame.to_csv`` writes the index as a first column; when the index is also a column
    (Phoenix's spans export: ``context.span_id``) the header repeats a name. A repeated column whose
    values equal the other's in every row is dropped; any other repeat stays an error."""
    keep = list(range(len(header)))
    for name in dup:
        where = [i for i, h in enumerate(header) if h == name]
        first = df.iloc[:, where[0]]
        if all(df.iloc[:, i].equals(first) for i in where[1:]):
            keep = [i for i in keep if i not in where[1:]]
    if len(keep) == len(header):
        return df, header, dup
    df = df.iloc[:, keep].copy()
    df.columns = [header[i] for i in keep]
    names = list(df.columns)
    return df, names, sorted(c for c, n in Counter(names).items() if n > 1)


#: Largest Parquet table (uncompressed bytes, from its footer) read into memory.
MAX_PARQUET_UNCOMPRESSED = 1_000_000_000


def _read_parquet(data: bytes, name: str) -> pd.DataFrame:
    if not data.startswith(b"PAR1"):
        kind = binary_kind(data)
        if kind:
            what = kind[0]
        else:
            try:
                what = f"text ({data[:40].decode('utf-8').strip()!r}…); name it by its format (.csv, .json)"
            except UnicodeDecodeError:
                what = "unknown binary data"
        raise DatasetError(name, f"not a readable Parquet file: it does not start with 'PAR1'; it is {what}")
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(io.BytesIO(data)).metadata
        size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types
        raise DatasetError(name, f"not a readable Parquet file: {exc}") from None
    if size > MAX_PARQUET_UNCOMPRESSED:
        raise DatasetError(name, f"Parquet data is {size / 1e6:.0f} MB uncompressed, over the "
                                 f"{MAX_PARQUET_UNCOMPRESSED / 1e6:.0f} MB limit; split the file")
    if meta.num_columns > MAX_COLUMNS:
        raise too_wide(name, meta.num_columns)
    try:
        return pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001
        raise DatasetError(name, f"not a readable Parquet file: {exc}") from None


#: Most columns a data set may have (a RAG test set has a few dozen; pandas slows to minutes past
#: tens of thousands, so a file that wide is refused up front).
MAX_COLUMNS = 1000


def too_wide(name: str, n: int) -> DatasetError:
    return DatasetError(name, f"file has {n:,} columns, more than the limit of {MAX_COLUMNS:,}; "
                              "keep the columns the evaluation needs")


def frame_of(records: list[dict[str, Any]], name: str = "records") -> pd.DataFrame:
    # dtype=object keeps values exactly as parsed (no int->float upcasting, no string dtype).
    cols: dict[str, None] = {}
    for r in records:
        cols.update(dict.fromkeys(r))
        if len(cols) > MAX_COLUMNS:
            raise too_wide(name, len(cols))
    return pd.DataFrame.from_records(records, columns=list(cols)).astype(object) if cols else pd.DataFrame()


_DELIMITERS = (",", ";", "\t", "|")
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


def _fields(line: str, delimiter: str) -> int:
    try:
        return len(next(csv.reader([line], delimiter=delimiter), []))
    except csv.Error:
        return 0


def sniff_delimiter(text: str, default: str) -> str:
    """The delimiter that splits the header line into the most fields (``default`` on a tie)."""
    head = text[:65536].lstrip("\r\n")
    first = head.splitlines()[0] if head else ""
    best, best_n = default, 1
    for d in (default, *[x for x in _DELIMITERS if x != default]):
        n = _fields(first, d)
        if n > best_n:
            best, best_n = d, n
    return best


def _read_csv(text: str, name: str, default_sep: str) -> tuple[pd.DataFrame, list[int] | None, list]:
    sep = sniff_delimiter(text, default_sep)
    start = len(text) - len(text.lstrip("\r\n"))
    end = text.find("\n", start)
    width = _fields(text[start:end if end >= 0 else len(text)], sep)
    if width > MAX_COLUMNS:
        raise too_wide(name, width)
    # pandas reads UTF-8 bytes without the 4-bytes-per-character buffer of a StringIO.
    raw = text.encode("utf-8")
    try:
        # Every cell as text and "" for empty cells: we decide what is missing, not pandas
        # (pandas would turn the string "NA" or "null" in a question into NaN).
        df = pd.read_csv(io.BytesIO(raw), sep=sep, dtype=str, keep_default_na=False,
                         na_values=[], skip_blank_lines=True, encoding="utf-8")
        # pandas renames a repeated header ("response", "response.1"): refuse instead.
        header = pd.read_csv(io.BytesIO(raw), sep=sep, dtype=str, header=None, nrows=1,
                             keep_default_na=False, encoding="utf-8").iloc[0].tolist()
        df.attrs["raw_header"] = [str(h) for h in header]
        df.attrs["delimiter"] = DELIMITER_NAMES[sep]
        return df, None, []
    except pd.errors.EmptyDataError as exc:
        raise DatasetError(name, "file is empty (no header row)") from exc
    except pd.errors.ParserError as exc:
        msg = str(exc).strip()
        if re.search(r"Expected \d+ fields", msg):
            return _read_csv_rows(text, name, sep)  # report the long rows, keep the others
        m = re.search(r"line (\d+)", msg)
        row = int(m.group(1)) - 1 if m else None
        hint = " (a quote is opened and never closed)" if "EOF inside string" in msg else ""
        raise DatasetError(name, f"malformed CSV ({msg}){hint}; check quoting and the number of fields",
                           row=row) from exc


def _read_csv_rows(text: str, name: str, sep: str) -> tuple[pd.DataFrame, list[int], list]:
    """Row by row with the csv module: a row with more fields than the header becomes an error
    naming its row; rows with fewer fields get missing cells (as pandas gives them)."""
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
    header: list[str] | None = None
    records: list[list[Any]] = []
    rows: list[int] = []
    errors: list[DatasetError] = []
    n = 0
    try:
        for fields in reader:
            if not fields or (len(fields) == 1 and not fields[0].strip()):
                continue  # a blank line
            if header is None:
                header = fields
                continue
            n += 1
            if len(fields) > len(header):
                errors.append(DatasetError(
                    name, f"row has {len(fields)} fields, the header has {len(header)} (line "
                          f"{reader.line_num} of the file); check quoting and the delimiter "
                          f"({DELIMITER_NAMES[sep]})", row=n))
                continue
            records.append(fields + [None] * (len(header) - len(fields)))
            rows.append(n)
    except csv.Error as exc:
        raise DatasetError(name, f"malformed CSV at line {reader.line_num} ({exc}); check quoting",
                           row=n + 1) from None
    df = pd.DataFrame(records, columns=header or [], dtype=object)
    df.attrs["raw_header"] = list(header or [])
    df.attrs["delimiter"] = DELIMITER_NAMES[sep]
    return df, rows, errors

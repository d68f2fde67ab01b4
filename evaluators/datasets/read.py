"""Reading files: formats, encodings, size limits -> a DataFrame of raw cells."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd

from .errors import DatasetError
from .json_records import _json_records, _jsonl_records

SUPPORTED_EXTENSIONS = (".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".parquet")


def _name_of(source: Any, filename: str | None) -> str:
    if filename:
        return Path(filename).name
    if isinstance(source, (str, Path)):
        return Path(source).name
    name = getattr(source, "name", None)
    return Path(name).name if isinstance(name, str) else ""


def _read_bytes(source: str | Path | bytes | BinaryIO, name: str, max_bytes: int | None) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, (str, Path)):
        p = Path(source)
        if not p.exists():
            raise DatasetError(name or str(p), f"file not found: {p}")
        if p.is_dir():
            raise DatasetError(name or str(p), f"{p} is a directory, not a file")
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


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(
            name, f"file is not UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 1]!r}); "
                  "save it as UTF-8"
        ) from exc


def read_table(source: str | Path | bytes | BinaryIO, filename: str | None = None,
               max_bytes: int | None = None) -> pd.DataFrame:
    """Read a data file into a DataFrame (format by the extension of ``filename`` or the path).

    Raises :class:`DatasetError` when the file is unreadable, too large (``max_bytes``), of an
    unknown format, or holds no records. Records that cannot be parsed on their own (a broken
    JSONL line, a JSON list element that is not an object) do not stop the others: they are kept
    in ``df.attrs["parse_errors"]`` and reported by :func:`to_cases`. ``df.attrs["source_rows"]``
    holds the 1-based row number of each DataFrame row in the file.
    """
    name = _name_of(source, filename)
    ext = "".join(Path(name).suffixes[-1:]).lower() if name else ""
    if not name:
        raise DatasetError("", "cannot tell the file format: no file name given")
    if ext not in SUPPORTED_EXTENSIONS:
        raise DatasetError(
            name, f"unsupported file type {ext or '(no extension)'!r}; "
                  f"use one of {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    data = _read_bytes(source, name, max_bytes)
    if not data.strip():
        raise DatasetError(name, "file is empty")
    parse_errors: list[DatasetError] = []
    source_rows: list[int] | None = None
    if ext in (".csv", ".tsv"):
        df = _read_csv(data, name, "\t" if ext == ".tsv" else ",")
    elif ext == ".parquet":
        try:
            df = pd.read_parquet(io.BytesIO(data))
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many types
            raise DatasetError(name, f"not a readable Parquet file: {exc}") from exc
    elif ext == ".json":
        records, source_rows, parse_errors = _json_records(_decode(data, name), name)
        df = _frame(records)
    else:  # jsonl / ndjson
        records, source_rows, parse_errors = _jsonl_records(_decode(data, name), name)
        df = _frame(records)
    raw_header = df.attrs.pop("raw_header", None)
    df.columns = [str(c) for c in df.columns]
    names = raw_header if raw_header and len(raw_header) == len(df.columns) else list(df.columns)
    dup = sorted({c for c in names if names.count(c) > 1})
    if dup:
        raise DatasetError(name, f"duplicate column names: {', '.join(dup)}", column=dup[0])
    if len(df) == 0 and not parse_errors:
        raise DatasetError(name, "no data rows (only a header, or an empty list)")
    if len(df.columns) == 0 and parse_errors:
        first = parse_errors[0]
        raise DatasetError(name, f"no readable records; first problem: {first}", row=first.row)
    df.attrs["source_rows"] = source_rows if source_rows is not None else list(range(1, len(df) + 1))
    df.attrs["parse_errors"] = parse_errors
    df.attrs["filename"] = name
    return df


def _frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    # dtype=object keeps values exactly as parsed (no int->float upcasting, no string dtype).
    cols: list[str] = []
    for r in records:
        cols.extend(k for k in r if k not in cols)
    return pd.DataFrame.from_records(records, columns=cols).astype(object) if cols else pd.DataFrame()


def _read_csv(data: bytes, name: str, sep: str) -> pd.DataFrame:
    text = _decode(data, name)
    try:
        # Every cell as text and "" for empty cells: we decide what is missing, not pandas
        # (pandas would turn the string "NA" or "null" in a question into NaN).
        df = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False,
                         na_values=[], skip_blank_lines=True)
        # pandas renames a repeated header ("response", "response.1"): refuse instead.
        header = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, header=None, nrows=1,
                             keep_default_na=False).iloc[0].tolist()
        df.attrs["raw_header"] = [str(h) for h in header]
        return df
    except pd.errors.EmptyDataError as exc:
        raise DatasetError(name, "file is empty (no header row)") from exc
    except pd.errors.ParserError as exc:
        msg = str(exc).strip()
        m = re.search(r"line (\d+)", msg)
        row = int(m.group(1)) - 1 if m else None
        raise DatasetError(name, f"malformed CSV ({msg}); check quoting and the number of fields",
                           row=row) from exc
    except Exception as exc:  # noqa: BLE001
        raise DatasetError(name, f"cannot read CSV: {exc}") from exc


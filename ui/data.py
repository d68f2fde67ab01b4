"""Loading uploads and sample files into cases (through ``evaluators.datasets``)."""

from __future__ import annotations

import dataclasses
import re
import reprlib
from pathlib import Path
from typing import Any

from evaluators import datasets as ds_lib
from evaluators.traces import TraceOptions

from .state import LoadedData

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "data"
SAMPLE_SUFFIXES = (".jsonl", ".csv", ".json", ".parquet")
#: Keep in sync with server.maxUploadSize in .streamlit/config.toml (MB).
MAX_UPLOAD_MB = 50
MAPPING_FIELDS = ("question", "response", "documents", "ground_truth", "id", "history", "conversation_id")
#: What the Upload page's mapping says about a field (the optional ones: what they are for).
MAPPING_HELP = {
    "history": "The turns of the chat before the question: a list of {speaker, text} or chat "
               "{role, content} messages (JSON text in a CSV cell). A turn is then judged with them: "
               "against its standalone question, and an answer the agent already gave counts as support.",
    "conversation_id": "Which conversation the case is a turn of: Results then shows metrics by turn and "
                       "the conversations worst first, and Compare the regressions by conversation.",
}
#: What each sample file is (its content is counted from the file itself).
SAMPLE_FORMATS = {
    "sample_rag.jsonl": "JSONL, one case per line (RAGBench-style columns)",
    "sample_rag.csv": "CSV, the same cases (documents as a JSON list)",
    "sample_ragas_v2.json": "JSON in the ragas v2 layout (user_input, retrieved_contexts, response, reference)",
    "sample_rag_version2.jsonl": "JSONL: version 2 of the system on the same 16 questions (other answers), to compare",
}


#: What each detected column layout is, in words (Upload says how the file was read).
LAYOUT_WORDS = {
    "ragbench": "a RAGBench-style table (question, response, documents)",
    "ragas_v1": "a ragas v1 table (question, answer, contexts)",
    "ragas_v2": "a ragas v2 table (user_input, response, retrieved_contexts)",
    "batch": "a batch table of the CLI (query, response, retrieved_documents)",
}


def layout_words(mapping: Any) -> str:
    """How a table was read, in a sentence ("Read as a RAGBench-style table (question, …)")."""
    m = mapping_dict(mapping)
    if m.get("format") in LAYOUT_WORDS:
        return f"Read as {LAYOUT_WORDS[m['format']]}: change it under Column mapping below."
    used = ", ".join(f"{f} ← {m[f]}" for f in ("question", "response", "documents") if m.get(f))
    return f"Columns used: {used or 'none yet'} — change them under Column mapping below."


class DataError(Exception):
    """A file could not be read: the message says which file and what is wrong."""


def sample_files() -> list[Path]:
    """The sample test sets of data/ (not its question files, which have no answers to evaluate)."""
    if not DATA_DIR.is_dir():
        return []
    return sorted(p for p in DATA_DIR.iterdir()
                  if p.suffix.lower() in SAMPLE_SUFFIXES and p.is_file() and "questions" not in p.stem)


#: The example trace exports (``data/traces/``, made by ``scripts/make_example_traces.py``) and what each is.
TRACE_EXAMPLES = {
    "phoenix_spans.parquet": "a Phoenix spans export (get_spans_dataframe() as Parquet)",
    "otlp_traces.json": "OTLP JSON, as the OpenTelemetry Collector's file exporter writes it",
}


def trace_examples() -> list[Path]:
    """The example trace exports shipped in data/traces/ (the same six traces in two formats)."""
    folder = DATA_DIR / "traces"
    return [folder / n for n in TRACE_EXAMPLES if (folder / n).is_file()]


def field(obj: Any, name: str, default: Any = None) -> Any:
    """A field of a column mapping / load result / dataset error (a dict in older callers)."""
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def replace_mapping(mapping: Any, **changes: Any) -> Any:
    if hasattr(mapping, "model_copy"):
        return mapping.model_copy(update=changes)
    if dataclasses.is_dataclass(mapping):
        return dataclasses.replace(mapping, **changes)
    return {**mapping, **changes}


def mapping_dict(mapping: Any) -> dict[str, Any]:
    return {f: field(mapping, f) for f in (*MAPPING_FIELDS, "label_columns", "format")}


def build(df: Any, filename: str, mapping: Any, source_id: str = "") -> LoadedData:
    """Cases (and row/column errors) from a table and a column mapping."""
    res = ds_lib.to_cases(df, mapping, filename)
    return LoadedData(filename=filename, df=df, mapping=field(res, "mapping", mapping) or mapping,
                      cases=tuple(res.cases), errors=tuple(res.errors),
                      warnings=tuple(field(res, "warnings") or ()),
                      label_columns=tuple(field(mapping, "label_columns") or ()), source_id=source_id)


def load_bytes(raw: bytes, filename: str, source_id: str = "", read_as: str = "auto") -> LoadedData:
    """A file as rows or traces (``read_as``: ``auto`` detects it; ``rows`` or a trace format forces it)."""
    if len(raw) > MAX_UPLOAD_MB * 1024 * 1024:
        raise DataError(f"{filename}: {len(raw) / 1e6:.1f} MB is over the {MAX_UPLOAD_MB} MB upload limit")
    try:
        inp = ds_lib.read_input(raw, filename, MAX_UPLOAD_MB * 1024 * 1024, TraceOptions(format=read_as))
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - show the reader's message (it names file/row)
        raise DataError(str(exc) or f"{filename}: {type(exc).__name__}") from exc
    if inp.traces is not None:
        return from_traces(ds_lib.trace_result(inp), filename, source_id or filename)
    df = inp.df
    assert df is not None  # rows: a table
    try:
        mapping = ds_lib.guess_mapping(list(df.columns))
    except Exception as exc:  # noqa: BLE001 - no recognisable layout: let the user map columns
        empty = ds_lib.ColumnMapping(question=None, response=None, documents=None)
        return LoadedData(filename=filename, df=df, mapping=empty, errors=(exc,),
                          source_id=source_id or filename)
    return build(df, filename, mapping, source_id or filename)


def from_traces(res: Any, filename: str, source_id: str) -> LoadedData:
    """LoadedData of a trace file (its LoadResult): the cases, and the traces for the Upload page."""
    tr = res.traces
    key = f"{source_id}|{tr.format}|{tr.options.mapping.pairs()}|{tr.options.filter.describe()}"
    empty = ds_lib.ColumnMapping(question=None, response=None, documents=None, format=tr.format)
    return LoadedData(filename=filename, df=None, mapping=empty, cases=tuple(res.cases), errors=tuple(res.errors),
                      warnings=tuple(res.warnings), source_id=key, traces=tr)


def preview(df: Any, rows: int = 100) -> Any:
    """The first rows for display. A cell nested deeper than the loader accepts (flagged as a row
    error) is shown as a short text: Arrow, under st.dataframe, fails past 64 levels."""
    head = df.head(rows).copy()
    head.attrs = {}  # parse errors are shown in their own table, not serialised with the frame
    depth, limit = ds_lib.nesting_depth, ds_lib.MAX_DEPTH
    for c in head.columns:
        if head[c].dtype == object:
            head[c] = head[c].map(lambda v: reprlib.repr(v) if depth(v, limit) > limit else v)
    return head


def load_path(path: Path) -> LoadedData:
    return load_bytes(path.read_bytes(), path.name, f"sample:{path.name}")


def error_rows(errors: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Errors as table rows: file, row, column, message (whatever the error object carries)."""
    out = []
    for err in errors:
        out.append({"row": field(err, "row"), "column": field(err, "column"),
                    "problem": field(err, "message") or str(err), "file": field(err, "file")})
    return out


def row_counts(data: LoadedData) -> tuple[int, int]:
    """(rows of the file, rows with problems) as Upload shows them beside "Cases ready": a line that is not
    JSON never becomes a row of the table, yet it is a row of the file and one of the problems — "5 rows,
    4 ready, 2 with problems" did not add up; a row with two problems counts once."""
    rows = {field(e, "row") for e in data.errors if field(e, "row") is not None}
    bad = len(rows) + sum(1 for e in data.errors if field(e, "row") is None)
    return max(len(data.df) if data.df is not None else 0, len(data.cases) + bad), bad


def md_escape(text: str) -> str:
    """``text`` shown literally in Markdown (ids and file names may hold ``*``, ``_`` or ``$``)."""
    return re.sub(r"([\\`*_\[\]<>|$~])", r"\\\1", text)

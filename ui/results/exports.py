"""Downloads of a run, built when the button is clicked, case by case from the store: the results
file (the CLI's JSON document; past :data:`BIG` cases JSON Lines, gzip-compressed) and a CSV of one
row per case (its scores from the per-case table, its full texts read case by case). Streamlit hands
a download over as bytes, so a big run's files are compressed."""

from __future__ import annotations

import gzip
import io
import json
import re
from typing import Any

import pandas as pd

from evaluators.conversations.grouping import row_of_flat
from evaluators.conversations.grouping import summary as conversation_summary
from evaluators.export import case_dict, csv_cell, to_csv, to_json_dict, to_rows, write_csv
from evaluators.resultfiles.jsondoc import dump_doc
from evaluators.types import SCHEMA_VERSION, RunResult

#: Runs with more cases than this download compressed (JSON Lines, gzip).
BIG = 5000


def file_stem(run: Any) -> str:
    """The downloads' file name: the run's name and method ("sample_rag_version2_trace"), so that two
    runs' files do not both arrive as "trace_results (1).csv"; a run without a name: "trace_results"."""
    name = getattr(run, "name", None)
    stem = re.sub(r"[^\w.-]+", "-", str(name)).strip("-._") if name else ""
    return f"{stem}_{run.method}" if stem else f"{run.method}_results"


def top_of(run: Any) -> dict[str, Any]:
    """The results file's top level of a stored run (its summary; means and intervals kept with it;
    the cases that could not be scored, with their reasons, from its rows)."""
    if isinstance(run, RunResult):
        d = to_json_dict(run)
        d.pop("detailed_results")
        return d
    s = run.summary
    return {"schema_version": SCHEMA_VERSION, **run.means(), "num_samples": s.num_done, "num_scored": s.num_scored,
            "num_errors": s.num_errors, "method": s.method, "cancelled": run.cancelled, "settings": s.settings,
            "timings": s.timings, "usage": s.usage.model_dump(), "started_at": s.started_at,
            "errors": [{"id": i, "error": e} for i, e in run.errors] if s.num_errors else [],
            "warnings": list(s.warnings), "intervals": run.intervals(), **_conversations(run)}


def _conversations(run: Any) -> dict[str, Any]:
    """A stored run's ``conversations`` block, from its per-case table (none for a plain run)."""
    table = run.table()
    if "conversation" not in table.columns or not table["conversation"].notna().any():
        return {}
    block = conversation_summary([row_of_flat(rec) for rec in table.to_dict("records")])
    return {"conversations": block} if block is not None else {}


def _cases(run: Any) -> Any:
    return run.results if isinstance(run, RunResult) else run.iter_results()


def json_bytes(run: Any) -> bytes:
    """The CLI's JSON document (top level, then one case per line)."""
    buf = io.StringIO()
    dump_doc(buf, top_of(run),
             {"detailed_results": (json.dumps(case_dict(r), ensure_ascii=False, default=str) for r in _cases(run))})
    return buf.getvalue().encode("utf-8")


def jsonl_gz(run: Any) -> bytes:
    """The CLI's JSON Lines results file (a run record, one case per line, the summary), gzip-compressed."""
    out = io.BytesIO()
    top = top_of(run)
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=5) as gz:
        head = {"record": "run", "schema_version": SCHEMA_VERSION, "method": top["method"],
                "settings": top["settings"], "started_at": top["started_at"]}
        gz.write((json.dumps(head, default=str) + "\n").encode("utf-8"))
        for r in _cases(run):
            gz.write((json.dumps(case_dict(r), ensure_ascii=False, default=str) + "\n").encode("utf-8"))
        gz.write((json.dumps({"record": "summary", **top}, default=str) + "\n").encode("utf-8"))
    return out.getvalue()


def csv_bytes(run: Any, df: pd.DataFrame, gz: bool = False) -> bytes:
    """One CSV row per case: the per-case table's columns with the full question and response (read
    case by case from the store), text cells neutralised against spreadsheet formulas. UTF-8 with a
    byte-order mark: Excel reads 'durée' as written, not 'durÃ©e' (the upload reads the mark too)."""
    if isinstance(run, RunResult):
        data = to_csv(to_rows(run)).encode("utf-8-sig")
        return gzip.compress(data) if gz else data
    cols = [c for c in df.columns]
    at = cols.index("question") + 1 if "question" in cols else 1
    cols = [*cols[:at], "response", *cols[at:]]
    texts = run.store.texts(run.id, owner=run.owner)
    records = df.to_dict("records")

    def rows() -> Any:
        for rec, (cid, question, response) in zip(records, texts):
            if cid != str(rec.get("id")):  # the run grew meanwhile: read this case's texts directly
                got = run.case(str(rec.get("id")))
                question, response = (got.case.question, got.case.response) if got else ("", "")
            yield {**rec, "question": question, "response": response}

    buf = io.StringIO()
    write_csv(rows(), [str(c) for c in cols], buf)
    data = buf.getvalue().encode("utf-8-sig")
    return gzip.compress(data, compresslevel=5) if gz else data


__all__ = ["BIG", "csv_bytes", "csv_cell", "file_stem", "json_bytes", "jsonl_gz", "top_of"]

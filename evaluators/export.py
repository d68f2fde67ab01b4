"""Exports of a RunResult: the JSON shape of the CLI (and the dashboard download) and flat rows
for CSV. The API key is never part of a RunResult, so it cannot reach an export.

Every CSV the product writes goes through :func:`to_csv`: uploaded texts and LLM answers are
untrusted, and a spreadsheet runs a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return as a formula even when it is quoted, so such text cells get a leading apostrophe
(OWASP's CSV-injection advice). The JSON export is exact: it is never neutralised."""

from __future__ import annotations

import json
from typing import IO, Any, Iterable, Sequence

from .appcost import summarize
from .conversations.grouping import place_of
from .conversations.grouping import summary as conversation_summary
from .turns import history_dicts
from .types import (
    CASE_EXTRAS,
    CASE_METRICS,
    CaseResult,
    MetricValue,
    RunResult,
    SentenceLabels,
    SentenceSpans,
    TestCase,
    TraceScores,
    Usage,
)


class ResultsFileError(ValueError):
    """A results file that cannot be read back (names the file and the case)."""


def case_dict(r: CaseResult) -> dict[str, Any]:
    metrics: dict[str, Any] = r.scores.metrics_dict() if r.scores else dict.fromkeys(CASE_METRICS)
    for name, mv in r.metrics.items():
        metrics[name] = mv.value
    return {
        "id": r.case.id,
        "question": r.case.question,
        "llm_response": r.case.response,
        "retrieved_documents": list(r.case.documents),
        "ground_truth": r.case.ground_truth,
        "metrics": metrics,
        "metric_details": {n: mv.model_dump(mode="json") for n, mv in r.metrics.items()},
        "labels": r.labels.model_dump(mode="json") if r.labels else None,
        "labeled_by": r.labeled_by,
        "variants": {
            k: {"labels": v.model_dump(mode="json"),
                "metrics": r.variant_scores[k].metrics_dict() if k in r.variant_scores else None}
            for k, v in r.variants.items()
        },
        "agreement": r.agreement,
        "human_labels": r.case.labels,
        "metadata": r.case.metadata,
        "usage": r.usage.model_dump(),
        "seconds": r.seconds,
        "error": r.error,
        "spans": r.spans.model_dump(mode="json") if r.spans is not None else None,
        **case_extras(r.case),
        **({"standalone_question": r.standalone_question} if r.standalone_question is not None else {}),
    }


def case_extras(case: TestCase) -> dict[str, Any]:
    """The optional fields a case has (``types.CASE_EXTRAS``: conversation, retrieval references),
    JSON-ready; written to results files only where a case has them, so a plain case is written
    exactly as before they existed."""
    out: dict[str, Any] = {}
    for name in CASE_EXTRAS:
        v = getattr(case, name)
        if name in ("tool_calls", "reference_tool_calls"):
            if v or (v is not None and name == "reference_tool_calls"):  # [] = "no tool should be called"
                out[name] = [c.model_dump(mode="json", exclude_defaults=True) for c in v]
        elif v:
            out[name] = history_dicts(v) if name == "history" else (list(v) if isinstance(v, tuple) else v)
    return out


def to_json_dict(run: RunResult) -> dict[str, Any]:
    return {
        "schema_version": run.schema_version,
        **run.means(),
        "num_samples": len(run.results),
        "num_scored": len(run.scored),
        "num_errors": len(run.errors),
        "method": run.method,
        "cancelled": run.cancelled,
        "settings": run.settings,
        "timings": run.timings,
        "usage": run.usage.model_dump(),
        "started_at": run.started_at,
        "errors": [{"id": i, "error": e} for i, e in run.errors],
        "warnings": list(run.warnings),
        "intervals": intervals(run),
        **({"conversations": conv} if (conv := conversation_summary(run.results)) is not None else {}),
        **({"app": app} if (app := summarize((r.case.id, r.case.metadata) for r in run.results)) else {}),
        "detailed_results": [case_dict(r) for r in run.results],
    }


def _scores(metrics: dict[str, Any], labels: SentenceLabels | None) -> TraceScores | None:
    """The TRACE scores a results file stored for a case (None when it was not scored); the
    sentence counts that the file does not carry come from the labels."""
    if labels is None or metrics.get("adherence") is None:
        return None
    fields = {k: metrics[k] for k in CASE_METRICS if metrics.get(k) is not None}
    return TraceScores(**fields, num_document_sentences=len(set(labels.document_keys)),
                       num_response_sentences=len(labels.sentences))


def case_from_dict(d: dict[str, Any]) -> CaseResult:
    """The inverse of :func:`case_dict`: one case of a results file as a ``CaseResult``."""
    labels = SentenceLabels.model_validate(d["labels"]) if d.get("labels") else None
    metrics = d.get("metrics") or {}
    variants = {k: SentenceLabels.model_validate(v["labels"]) for k, v in (d.get("variants") or {}).items()
                if isinstance(v, dict) and v.get("labels")}
    variant_scores = {k: s for k, v in (d.get("variants") or {}).items() if k in variants
                      and (s := _scores((v or {}).get("metrics") or {}, variants[k])) is not None}
    return CaseResult(
        case=TestCase(id=str(d["id"]), question=d.get("question") or "", response=d.get("llm_response") or "",
                      documents=tuple(d.get("retrieved_documents") or ()), ground_truth=d.get("ground_truth"),
                      labels=d.get("human_labels") or {}, metadata=d.get("metadata") or {},
                      **{k: d[k] for k in CASE_EXTRAS if d.get(k) or (k == "reference_tool_calls" and d.get(k) == [])}),
        method=d.get("method") or "",
        labels=labels,
        scores=_scores(metrics, labels),
        error=d.get("error"),
        labeled_by=d.get("labeled_by"),
        variants=variants,
        variant_scores=variant_scores,
        agreement=d.get("agreement") or {},
        metrics={n: MetricValue.model_validate(v) for n, v in (d.get("metric_details") or {}).items()},
        usage=Usage.model_validate(d.get("usage") or {}),
        seconds=float(d.get("seconds") or 0.0),
        spans=SentenceSpans.model_validate(d["spans"]) if d.get("spans") else None,
        standalone_question=d.get("standalone_question"),
    )


def run_from_json_dict(data: dict[str, Any], *, source: str = "results file") -> RunResult:
    """The inverse of :func:`to_json_dict` (any known version, migrated): a results file written by
    ``evaluate --out`` or the dashboard's download as a ``RunResult``. Raises
    :class:`ResultsFileError` naming ``source`` and the case that cannot be read."""
    from pydantic import ValidationError

    from .schema import SchemaError, migrate_export

    if not isinstance(data, dict) or not isinstance(data.get("detailed_results"), list):
        raise ResultsFileError(f"{source}: not a results file (a JSON object with 'detailed_results', "
                               "as written by `evaluate --out`)")
    try:
        d = migrate_export(data)
    except SchemaError as exc:
        raise ResultsFileError(f"{source}: {exc}") from None
    method = d.get("method") or ""
    cases = []
    for i, c in enumerate(d["detailed_results"]):
        try:
            cases.append(case_from_dict({"method": method, **c}))
        except (KeyError, TypeError, ValueError, ValidationError) as exc:
            cid = c.get("id") if isinstance(c, dict) else None
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ResultsFileError(f"{source}: case {i + 1}" + (f" (id {cid!r})" if cid is not None else "")
                                   + f" cannot be read: {first}") from None
    return RunResult(method=method, results=tuple(cases), settings=d.get("settings") or {},
                     timings=d.get("timings") or {}, usage=Usage.model_validate(d.get("usage") or {}),
                     started_at=d.get("started_at") or "", cancelled=bool(d.get("cancelled")),
                     warnings=tuple(d.get("warnings") or ()))


def intervals(run: RunResult) -> dict[str, Any]:
    """95 % interval of every mean above: {metric: {mean, low, high, n, method[, note]}}
    (bootstrap for ratios, Wilson for proportions; see ``agreement.run_intervals``)."""
    from .agreement import run_intervals  # lazy: scipy loads only when a run is exported

    return run_intervals(run)


def to_json(run: RunResult, indent: int | None = 2) -> str:
    return json.dumps(to_json_dict(run), indent=indent, ensure_ascii=False, default=str)


#: First characters that make a spreadsheet read a text cell as a formula (OWASP CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """``value`` as it may go into a CSV cell: text that a spreadsheet would run as a formula gets a
    leading apostrophe (shown as text, not evaluated); numbers and everything else are unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def to_csv(rows: Any) -> str:
    """CSV text of ``rows`` (a DataFrame or dicts, e.g. :func:`to_rows`) with every text cell and
    header passed through :func:`csv_cell`. The one CSV writer of the CLI and the dashboard."""
    import pandas as pd  # lazy: the JSON export needs no pandas

    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    df = df.rename(columns=csv_cell)
    return df.map(csv_cell).to_csv(index=False)


#: Metadata of a case read from a trace that its flat row carries (metadata key -> column).
TRACE_COLUMNS = {"root_span_id": "root_span_id", "session_id": "session", "model": "model", "tags": "tags"}


def row_of(d: dict[str, Any], method: str) -> dict[str, Any]:
    """The flat row of one case dict (:func:`case_dict`, or a line of a results file)."""
    row: dict[str, Any] = {"id": d.get("id"), "question": d.get("question"), "response": d.get("llm_response"),
                           "num_documents": len(d.get("retrieved_documents") or ()), "method": method,
                           "labeled_by": d.get("labeled_by")}
    row.update(conversation_columns(d))
    row.update(d.get("metrics") or {})
    for k, v in (d.get("human_labels") or {}).items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            row[f"human_{k}"] = v
    meta = d.get("metadata") or {}
    if meta.get("trace_id"):  # a case read from a trace: where its scores go back to
        for key, col in TRACE_COLUMNS.items():
            v = meta.get(key)
            if v:
                row[col] = ", ".join(map(str, v)) if isinstance(v, list) else v
    row["error"] = d.get("error")
    return row


#: The flat columns of a turn of a chat (:func:`conversation_columns`), in order.
CONVERSATION_COLUMNS = ("conversation_id", "conversation", "turn", "standalone_question", "history")


def conversation_columns(d: dict[str, Any]) -> dict[str, Any]:
    """The flat columns of a case that is a turn of a conversation (none for any other case, so a
    plain run's CSV is as it was): ``conversation_id``, ``conversation`` (what groups its turns:
    the id, or ``opens:<hash>`` of the conversation's first question), ``turn`` (1 + the user turns
    before it), ``standalone_question`` (what it was judged against) and ``history`` — the earlier
    turns as one text cell, a turn per line (``user: …`` / ``agent: …``)."""
    history = d.get("history") or []
    if not history and not d.get("conversation_id"):
        return {}
    key, turn, _ = place_of(str(d.get("question") or ""), history, d.get("conversation_id"))
    turns = [t for t in history if isinstance(t, dict)]
    return {"conversation_id": d.get("conversation_id"), "conversation": key, "turn": turn,
            "standalone_question": d.get("standalone_question"),
            "history": "\n".join(f"{t.get('speaker')}: {t.get('text')}" for t in turns) or None}


def to_rows(run: RunResult) -> list[dict[str, Any]]:
    """One flat row per case (for CSV / a DataFrame)."""
    return [row_of(case_dict(r), run.method) for r in run.results]


def write_csv(rows: Iterable[dict[str, Any]], columns: Sequence[str], fh: IO[str]) -> int:
    """Write ``rows`` (dicts, e.g. :func:`row_of`) as CSV into ``fh`` one at a time, under the
    ``columns`` header, every text cell and header through :func:`csv_cell` (as :func:`to_csv`);
    None is an empty cell. For exports of any size: nothing is held but the current row. Returns
    the number of rows written."""
    import csv

    w = csv.writer(fh, lineterminator="\n")
    w.writerow([csv_cell(str(c)) for c in columns])
    n = 0
    for row in rows:
        w.writerow(["" if (v := row.get(c)) is None else csv_cell(v) for c in columns])
        n += 1
    return n

"""LangSmith runs (``Client.list_runs`` written as JSON / JSONL: ``langsmith.schemas.Run``) -> spans.

A run has ``id``, ``trace_id``, ``parent_run_id``, ``name``, ``run_type`` (chain, retriever, llm,
tool, prompt, parser, embedding), ``inputs``, ``outputs``, ``start_time`` / ``end_time``,
``error``, ``tags`` and ``extra`` (``metadata``, ``invocation_params``). Runs nested under
``child_runs`` are read too. A retriever's documents are its ``outputs.documents``
(``page_content`` objects). LangSmith's ``session_id`` is the tracing project, not a conversation:
the conversation is ``extra.metadata.session_id`` / ``thread_id`` / ``conversation_id``.
"""

from __future__ import annotations

from typing import Any, Iterator

from .model import Issue, Span
from .values import as_object, as_tags, as_text, docs_of, missing, timestamp

_THREAD_KEYS = ("session_id", "thread_id", "conversation_id")


def is_langsmith_columns(columns: set[str]) -> bool:
    return "run_type" in columns and "id" in columns and bool(
        columns & {"inputs", "outputs", "trace_id", "parent_run_id", "child_runs"})


def _walk(rec: dict[str, Any], depth: int = 0) -> Iterator[dict[str, Any]]:
    yield rec
    kids = rec.get("child_runs")
    if isinstance(kids, list) and depth < 64:
        for k in kids:
            if isinstance(k, dict):
                yield from _walk({**k, "parent_run_id": k.get("parent_run_id") or rec.get("id"),
                                  "trace_id": k.get("trace_id") or rec.get("trace_id")}, depth + 1)


def _model(extra: dict[str, Any]) -> str | None:
    params = extra.get("invocation_params")
    meta = extra.get("metadata")
    for d, k in ((params, "model"), (params, "model_name"), (meta, "ls_model_name")):
        v = d.get(k) if isinstance(d, dict) else None
        if isinstance(v, str) and v:
            return v
    return None


def _trace_of(rid: str, parent_of: dict[str, str | None]) -> tuple[str, str | None]:
    """(the run at the top of ``rid``'s parent chain, the parent it names that is not in the file)."""
    top, seen = rid, {rid}
    while True:
        up = parent_of.get(top)
        if not up or up in seen:
            return top, None
        if up not in parent_of:
            return top, up
        top = up
        seen.add(top)


def read_runs(records: list[tuple[int, dict[str, Any]]]) -> tuple[list[Span], list[Issue]]:
    runs: list[tuple[int, dict[str, Any]]] = [(row, r) for row, rec in records for r in _walk(rec)]
    parent_of = {str(r["id"]): str(r["parent_run_id"]) if not missing(r.get("parent_run_id")) else None
                 for _, r in runs if not missing(r.get("id"))}
    spans: list[Span] = []
    issues: list[Issue] = []
    for row, r in runs:
        name = as_text(r.get("name")) or ""
        rid = as_text(r.get("id"))
        if not rid:
            issues.append(Issue(f"run {name or '(no name)'!r} has no id; it is left out", record=row, field="id"))
            continue
        parent = parent_of.get(rid)
        tid = as_text(r.get("trace_id"))
        if not tid:  # older exports: the trace is the run at the top of the parent chain
            tid, lost = _trace_of(rid, parent_of)
            if lost:  # the chain leaves the file: no trace id can be told
                issues.append(Issue(f"run {name or rid!r} has no trace_id and its ancestor's parent {lost} "
                                    "is not in the file; it is left out", record=row, field="trace_id"))
                continue
        extra: dict[str, Any] = r["extra"] if isinstance(r.get("extra"), dict) else {}
        meta = as_object(extra.get("metadata")) or {}
        kind = (as_text(r.get("run_type")) or "").upper()
        outputs = r.get("outputs")
        error = as_text(r.get("error"))
        spans.append(Span(
            trace_id=tid, span_id=rid, parent_id=parent, name=name, kind=kind,
            start=timestamp(r.get("start_time")), end=timestamp(r.get("end_time")),
            input=r.get("inputs"), output=outputs,
            documents=docs_of(outputs) if kind == "RETRIEVER" else None,
            model=_model(extra),
            session=next((str(meta[k]) for k in _THREAD_KEYS if not missing(meta.get(k))), None),
            user=as_text(meta.get("user_id")),
            tags=as_tags(r.get("tags")),
            metadata={k: v for k, v in meta.items() if not k.startswith("ls_") and k != "lc_versions"} or None,
            status="ERROR" if error or r.get("status") == "error" else "",
            status_message=error or "", record=row,
            attributes={"project_id": r.get("session_id")} if r.get("session_id") else {},
        ))
    return spans, issues

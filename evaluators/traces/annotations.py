"""Scores back to the tool that holds the traces: for each scored case that came from a trace,

* Phoenix **span annotations** — one per metric on the trace's root span (``span_id``, ``name``,
  ``annotator_kind``, ``label``, ``score``, ``explanation``, ``metadata``): the dataframe
  ``Client().spans.log_span_annotations_dataframe(dataframe=…)`` takes;
* Phoenix **document annotations** — on the retriever span, per retrieved document
  (``span_id``, ``document_position``): ``context_relevance`` / ``context_utilization`` = the share
  of the document's sentences labelled relevant / used (``log_document_annotations_dataframe``);
* **LangSmith feedback** — ``run_id`` (the root run), ``trace_id``, ``key``, ``score``,
  ``comment`` (``Client().create_feedback(**row)``);
* **Langfuse scores** — ``trace_id``, ``observation_id``, ``name``, ``value``, ``comment``,
  ``data_type`` (``Langfuse().create_score(**row)``).

The explanation of every root annotation names the response sentences that are not fully
supported (the hallucination suspects). Cases that were not scored get no annotation.
"""

from __future__ import annotations

import io
import json
from typing import Any

from ..sentencize import parse_doc_key, sentences_of
from ..types import EXPECTED_ADHERENCE, OVERALL_SUPPORTED, TRACE_METRICS, CaseResult, RunResult

#: The annotation targets and the file each is written to.
TARGETS: dict[str, str] = {
    "phoenix": "phoenix_span_annotations.parquet",
    "phoenix_documents": "phoenix_document_annotations.parquet",
    "langsmith": "langsmith_feedback.jsonl",
    "langfuse": "langfuse_scores.jsonl",
}
#: Which targets fit the traces of each format by default.
DEFAULT_TARGETS: dict[str, tuple[str, ...]] = {
    "openinference": ("phoenix", "phoenix_documents"),
    "otlp": ("phoenix", "phoenix_documents"),
    "langsmith": ("langsmith",),
    "langfuse": ("langfuse",),
}
ROOT_METRICS: tuple[str, ...] = (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED)
SOURCE = "rag-eval"
_MAX_EXPLANATION = 2000
_MAX_SENTENCE = 300


def traced(run: RunResult) -> list[CaseResult]:
    """The scored cases of ``run`` that came from a trace (they carry a ``trace_id``)."""
    return [r for r in run.results if r.ok and r.case.metadata.get("trace_id")]


def formats_of(run: RunResult) -> list[str]:
    return list(dict.fromkeys(str(r.case.metadata.get("trace_format")) for r in run.results
                              if r.case.metadata.get("trace_id") and r.case.metadata.get("trace_format")))


def annotator_kind(r: CaseResult, run: RunResult) -> str:
    """CODE for the offline heuristic, LLM for anything an LLM labelled."""
    return "CODE" if (r.labeled_by or r.method or run.method) == "trace" else "LLM"


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def unsupported_text(r: CaseResult) -> str:
    """"2 of 5 sentences not fully supported: “…” (partially); “…” (no support)" — or that all are."""
    labels = r.labels
    if labels is None:
        return ""
    texts = {s.key: s.text for s in sentences_of(r).response_sentences}
    bad = [s for s in labels.sentences if s.level != "full"]
    if not bad:
        return f"All {len(labels.sentences)} response sentences are fully supported by the documents."
    parts = [f"“{_clip(texts.get(s.key, s.key), _MAX_SENTENCE)}” "
             f"({'partially supported' if s.level == 'partial' else 'no support'})" for s in bad]
    head = f"{len(bad)} of {len(labels.sentences)} response sentences not fully supported: "
    return _clip(head + "; ".join(parts), _MAX_EXPLANATION)


def _counts(r: CaseResult, metric: str) -> str:
    lab = r.labels
    if lab is None:
        return ""
    n, rel, use = len(lab.document_keys), len(set(lab.relevant_keys)), len(set(lab.utilized_keys))
    if metric == "context_relevance":
        return f"{rel} of {n} document sentences relevant. "
    if metric == "context_utilization":
        return f"{use} of {n} document sentences used by the answer. "
    if metric == "completeness":
        both = len(set(lab.relevant_keys) & set(lab.utilized_keys))
        return f"{both} of {rel} relevant sentences used. "
    return ""


def _label(metric: str, value: float) -> str | None:
    if metric == OVERALL_SUPPORTED:
        return "supported" if value >= 1 else "not supported"
    return None


def root_rows(run: RunResult) -> list[dict[str, Any]]:
    """One row per (traced case, metric): the scores on the root span."""
    rows = []
    for r in traced(run):
        m = r.case.metadata
        why = unsupported_text(r)
        names = [*ROOT_METRICS, *[n for n in r.metrics if r.value(n) is not None]]
        for name in names:
            v = r.value(name)
            if v is None:
                continue
            rows.append({"trace_id": str(m["trace_id"]), "span_id": str(m.get("root_span_id") or ""),
                         "name": name, "score": float(v), "label": _label(name, float(v)),
                         "explanation": (_counts(r, name) + why).strip(),
                         "annotator_kind": annotator_kind(r, run), "method": r.labeled_by or run.method,
                         "case_id": r.case.id})
    return rows


def document_rows(run: RunResult) -> list[dict[str, Any]]:
    """Per retrieved document (and every place the retriever returned it): the share of its
    sentences labelled relevant / used."""
    rows = []
    for r in traced(run):
        lab = r.labels
        places = r.case.metadata.get("document_spans") or []
        if lab is None or not places:
            continue
        total: dict[int, int] = {}
        rel: dict[int, int] = {}
        use: dict[int, int] = {}
        for keys, bucket in ((lab.document_keys, total), (lab.relevant_keys, rel), (lab.utilized_keys, use)):
            for k in set(keys):
                p = parse_doc_key(k)
                if p is not None:
                    bucket[p[0]] = bucket.get(p[0], 0) + 1
        for d, where in enumerate(places):
            n = total.get(d, 0)
            if n == 0:
                continue
            for name, hits, yes, no, how in (
                    ("context_relevance", rel.get(d, 0), "relevant", "not relevant", "relevant to the question"),
                    ("context_utilization", use.get(d, 0), "used", "not used", "used by the answer")):
                for span_id, pos in where:
                    rows.append({"span_id": str(span_id), "document_position": int(pos), "name": name,
                                 "score": hits / n, "label": yes if hits else no,
                                 "explanation": f"{hits} of {n} sentences of this document {how}.",
                                 "annotator_kind": annotator_kind(r, run), "trace_id": r.case.metadata["trace_id"]})
    return rows


def phoenix_span_annotations(run: RunResult) -> Any:
    """The span annotations as the DataFrame ``log_span_annotations_dataframe`` takes."""
    import pandas as pd

    cols = ["span_id", "name", "annotator_kind", "label", "score", "explanation", "metadata"]
    rows = [{**{k: x[k] for k in cols[:-1]},
             "metadata": {"source": SOURCE, "method": x["method"], "trace_id": x["trace_id"]}}
            for x in root_rows(run) if x["span_id"]]
    return pd.DataFrame(rows, columns=cols)


def phoenix_document_annotations(run: RunResult) -> Any:
    """The document annotations as the DataFrame ``log_document_annotations_dataframe`` takes."""
    import pandas as pd

    cols = ["span_id", "document_position", "name", "annotator_kind", "label", "score", "explanation",
            "metadata"]
    rows = [{**{k: x[k] for k in cols[:-1]}, "metadata": {"source": SOURCE, "trace_id": x["trace_id"]}}
            for x in document_rows(run)]
    return pd.DataFrame(rows, columns=cols)


def langsmith_feedback(run: RunResult) -> list[dict[str, Any]]:
    """Feedback rows for LangSmith (``Client().create_feedback(**row)`` for each)."""
    return [{"run_id": x["span_id"], "trace_id": x["trace_id"], "key": x["name"], "score": x["score"],
             "comment": x["explanation"],
             "feedback_source_type": "model", "source_info": {"source": SOURCE, "method": x["method"]}}
            for x in root_rows(run) if x["span_id"]]


def langfuse_scores(run: RunResult) -> list[dict[str, Any]]:
    """Scores for Langfuse: each row is the keyword arguments of ``Langfuse().create_score(**row)``
    (``trace_id``, ``observation_id``, ``name``, ``value``, ``data_type``, ``comment``, ``metadata``).
    A trace exported with its trace object as the root gets the score on the trace itself."""
    out = []
    for x in root_rows(run):
        obs = x["span_id"] if x["span_id"] and x["span_id"] != x["trace_id"] else None
        out.append({"trace_id": x["trace_id"], "observation_id": obs, "name": x["name"], "value": x["score"],
                    "data_type": "BOOLEAN" if x["name"] == OVERALL_SUPPORTED else "NUMERIC",
                    "comment": x["explanation"], "metadata": {"source": SOURCE, "method": x["method"]}})
    return out


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def _parquet(df: Any) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


def annotation_files(run: RunResult, targets: tuple[str, ...] | list[str] | None = None) -> dict[str, bytes]:
    """{file name: content} of the annotation files of ``run`` for ``targets`` (default: what fits
    the formats its cases came from). Empty when no case came from a trace."""
    if targets is None:
        targets = tuple(dict.fromkeys(t for f in formats_of(run) for t in DEFAULT_TARGETS.get(f, ())))
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        raise ValueError(f"unknown annotation target(s) {', '.join(unknown)}; use {', '.join(TARGETS)}")
    out: dict[str, bytes] = {}
    if not traced(run):
        return out
    for t in targets:
        if t == "phoenix":
            out[TARGETS[t]] = _parquet(phoenix_span_annotations(run))
        elif t == "phoenix_documents":
            out[TARGETS[t]] = _parquet(phoenix_document_annotations(run))
        elif t == "langsmith":
            out[TARGETS[t]] = _jsonl(langsmith_feedback(run))
        elif t == "langfuse":
            out[TARGETS[t]] = _jsonl(langfuse_scores(run))
    return out

"""Reviewed labels out and back in, in the upload schema.

:func:`export_rows` writes one row per reviewed case with the case's own columns (``id``,
``question``, ``response``, ``documents``, ``ground_truth``) and the labels in the RAGBench-style
columns ``evaluators.datasets`` reads as human labels:

* ``hallucinated`` (bool: some response sentence is not fully supported) and the TRACE metrics of
  the reviewed labels as ``adherence_score``, ``relevance_score``, ``utilization_score``,
  ``completeness_score`` — the columns the ``agreement`` command (and Compare) compare methods with;
* the sentence-level labels: ``all_relevant_sentence_keys``, ``all_utilized_sentence_keys``,
  ``unsupported_response_sentence_keys`` and ``sentence_support_information``
  (``[{response_sentence_key, supporting_sentence_keys, fully_supported, explanation}]``);
* the sentence split the keys name, as RAGBench writes it: ``response_sentences``
  (``[[key, text], ...]``) and ``documents_sentences`` (one such list per document), so the keys
  keep their meaning if the splitter changes;
* who reviewed it and when (``reviewed_by``, ``reviewed_at``; kept as metadata on upload).

:func:`labels_from_case` reads them back from an uploaded case (``TestCase.labels`` /
``metadata``): uploading the exported file reproduces the reviewed labels exactly.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Sequence

from .. import trace_metrics
from ..sentencize import from_spans, sentencize_case, spans_of
from ..types import SentenceLabels, SentenceSpans, SentenceSupport, TestCase, is_special_key
from .labels import ReviewedCase

#: ``SentenceLabels.method`` of labels read from a file's human label columns.
HUMAN = "human"
#: The columns of the sentence-level labels (all of them must be label columns on upload).
SENTENCE_COLUMNS = ("all_relevant_sentence_keys", "all_utilized_sentence_keys",
                    "unsupported_response_sentence_keys", "sentence_support_information")


def _split(case: TestCase, spans: SentenceSpans | None) -> tuple[list[list[str]], list[list[list[str]]]]:
    sc = from_spans(case, spans) if spans is not None else sentencize_case(case)
    docs: list[list[list[str]]] = [[] for _ in case.documents]
    for s in sc.doc_sentences:
        docs[s.doc or 0].append([s.key, s.text])
    return [[s.key, s.text] for s in sc.response_sentences], docs


def label_columns(labels: SentenceLabels) -> dict[str, Any]:
    """The human-label columns of one case's labels (module docstring)."""
    sc = trace_metrics.compute(labels)
    return {
        "hallucinated": not sc.overall_supported,
        "adherence_score": float(sc.adherence),
        "relevance_score": float(sc.context_relevance),
        "utilization_score": float(sc.context_utilization),
        "completeness_score": float(sc.completeness),
        "all_relevant_sentence_keys": list(labels.relevant_keys),
        "all_utilized_sentence_keys": list(labels.utilized_keys),
        "unsupported_response_sentence_keys": [s.key for s in labels.sentences if not s.fully_supported],
        "sentence_support_information": [
            {"response_sentence_key": s.key, "supporting_sentence_keys": list(s.supporting_keys),
             "fully_supported": s.fully_supported, "explanation": s.explanation}
            for s in labels.sentences],
    }


def export_rows(cases: Iterable[ReviewedCase]) -> list[dict[str, Any]]:
    """One upload-schema row per case (module docstring), in the order given."""
    rows = []
    for c in cases:
        resp, docs = _split(c.case, c.spans)
        row: dict[str, Any] = {"id": c.case.id, "question": c.case.question, "response": c.case.response,
                               "documents": list(c.case.documents)}
        if c.case.ground_truth is not None:
            row["ground_truth"] = c.case.ground_truth
        row.update(label_columns(c.labels))
        row.update(response_sentences=resp, documents_sentences=docs,
                   reviewed_by=", ".join(c.reviewers), reviewed_at=c.reviewed_at or "")
        rows.append(row)
    return rows


def to_jsonl(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as JSON lines (the upload reader's format that keeps lists and booleans exact)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


# ----------------------------------------------------------------------------- reading back

def _key(k: Any) -> str:
    return str(k).strip().rstrip(".").lower()


def _keys(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        v = [p for p in v.replace(";", ",").split(",") if p.strip()]
    return [_key(k) for k in v] if isinstance(v, (list, tuple)) else []


def _support_info(v: Any) -> list[dict[str, Any]] | None:
    """The per-sentence records of a ``sentence_support_information`` value (a list of objects, or
    an object keyed by response sentence key); None when it is neither."""
    if isinstance(v, Mapping):
        return [{"response_sentence_key": k, **(x if isinstance(x, Mapping) else {})} for k, x in v.items()]
    if isinstance(v, list) and all(isinstance(x, Mapping) for x in v):
        return [dict(x) for x in v]
    return None


def _pairs(v: Any) -> list[tuple[str, str]] | None:
    if not isinstance(v, list) or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in v):
        return None
    return [(_key(k), str(t)) for k, t in v]


def spans_from_sentences(case: TestCase) -> SentenceSpans | None:
    """The split a file names in ``response_sentences`` / ``documents_sentences`` (metadata of an
    uploaded case), as spans of the case's texts — each sentence found in order in its text. None
    when the file has no such columns or a sentence is not in the text."""
    resp = _pairs(case.metadata.get("response_sentences"))
    docs_raw = case.metadata.get("documents_sentences")
    if resp is None or not isinstance(docs_raw, list) or len(docs_raw) != len(case.documents):
        return None
    docs = [_pairs(d) for d in docs_raw]
    if any(d is None for d in docs):
        return None

    def locate(text: str, pairs: list[tuple[str, str]]) -> tuple[tuple[int, int], ...] | None:
        out, pos = [], 0
        for _, t in pairs:
            i = text.find(t, pos)
            if i < 0:
                return None
            out.append((i, i + len(t)))
            pos = i + len(t)
        return tuple(out)

    r = locate(case.response, resp)
    d = [locate(text, pairs or []) for text, pairs in zip(case.documents, docs)]
    if r is None or any(x is None for x in d):
        return None
    return SentenceSpans(documents=tuple(x for x in d if x is not None), response=r)


def labels_from_case(case: TestCase) -> tuple[SentenceLabels, SentenceSpans | None] | None:
    """Sentence-level human labels of an uploaded case (the exported columns, or RAGBench's), with
    the split their keys refer to; None when the case has no ``sentence_support_information``.

    The split is the file's own (``response_sentences`` / ``documents_sentences``) when it has
    one, else today's splitter; keys that name no sentence of that split are dropped (listed in
    ``notes``)."""
    info = _support_info(case.labels.get("sentence_support_information"))
    if info is None:
        return None
    spans = spans_from_sentences(case)
    split = from_spans(case, spans) if spans is not None else sentencize_case(case)
    doc_keys = split.doc_keys
    doc_set = set(doc_keys)
    resp_keys = set(split.response_keys)
    notes: list[str] = []

    def known(keys: list[str], what: str) -> list[str]:
        bad = [k for k in keys if k not in doc_set and not is_special_key(k)]
        if bad:
            notes.append(f"{what}: unknown document sentence keys dropped: {', '.join(bad)}")
        return [k for k in keys if k not in bad]

    sents = []
    for rec in info:
        key = _key(rec.get("response_sentence_key", rec.get("key", "")))
        if key not in resp_keys:
            notes.append(f"sentence_support_information: unknown response sentence {key!r} dropped")
            continue
        full = rec.get("fully_supported")
        full = full.strip().lower() in ("true", "yes", "1") if isinstance(full, str) else bool(full)
        sents.append(SentenceSupport(
            key=key, supporting_keys=tuple(known(_keys(rec.get("supporting_sentence_keys")), key)),
            fully_supported=full, explanation=str(rec.get("explanation") or "")))
    order = {k: i for i, k in enumerate(split.response_keys)}
    sents.sort(key=lambda s: order[s.key])
    rel = set(known(_keys(case.labels.get("all_relevant_sentence_keys")), "all_relevant_sentence_keys"))
    use = set(known(_keys(case.labels.get("all_utilized_sentence_keys")), "all_utilized_sentence_keys"))
    labels = SentenceLabels(
        method=HUMAN, document_keys=doc_keys, relevant_keys=tuple(k for k in doc_keys if k in rel),
        utilized_keys=tuple(k for k in doc_keys if k in use), sentences=tuple(sents),
        overall_supported=all(s.fully_supported for s in sents), notes=tuple(notes))
    return labels, spans_of(split)

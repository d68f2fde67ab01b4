"""Column mapping: which column of a file holds which field (auto-detected, or given)."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from .errors import DatasetError


class ColumnMapping(BaseModel):
    """Which column holds which field. ``format`` says which known layout matched."""

    model_config = ConfigDict(frozen=True)

    question: str | None
    response: str | None
    documents: str | None
    ground_truth: str | None = None
    id: str | None = None
    label_columns: tuple[str, ...] = ()
    #: 'ragas_v1' | 'ragas_v2' | 'ragbench' | 'batch' | 'custom'
    format: str = "custom"
    #: Optional fields of a case (``CASE_FIELDS``): the conversation and the retrieval references.
    history: str | None = None
    conversation_id: str | None = None
    document_ids: str | None = None
    reference_context_ids: str | None = None
    reference_context_relevance: str | None = None
    reference_contexts: str | None = None
    tool_calls: str | None = None
    reference_tool_calls: str | None = None

    def columns(self) -> dict[str, str]:
        """{field: column} of every mapped field (labels apart)."""
        return {f: c for f in MAPPABLE_FIELDS if (c := getattr(self, f)) is not None}


_QUESTION = ("question", "user_input", "query", "prompt", "input", "instruction")
_RESPONSE = ("response", "answer", "llm_response", "generated_answer", "output", "prediction",
             "generation", "model_answer")
_DOCUMENTS = ("retrieved_contexts", "contexts", "documents", "retrieved_documents", "context",
              "passages", "docs", "retrieved_passages", "sources")
_GROUND_TRUTH = ("ground_truth", "reference", "ground_truths", "reference_answer", "gold_answer",
                 "expected_answer", "expected_output", "ideal_answer")
_ID = ("id", "query_id", "question_id", "sample_id", "case_id", "example_id", "uid", "qid")
#: The optional fields of a case and the column names that hold them (first match wins).
OPTIONAL_COLUMNS: dict[str, tuple[str, ...]] = {
    "history": ("history", "chat_history", "conversation_history", "previous_turns", "turns"),
    "conversation_id": ("conversation_id", "session_id", "thread_id", "dialog_id",
                        "dialogue_id", "conv_id", "chat_id"),
    "document_ids": ("document_ids", "retrieved_context_ids", "retrieved_document_ids", "context_ids",
                     "doc_ids", "retrieved_ids", "passage_ids"),
    "reference_context_ids": ("reference_context_ids", "relevant_context_ids", "relevant_doc_ids",
                              "relevant_document_ids", "gold_context_ids", "reference_doc_ids",
                              "relevant_passage_ids", "gold_passage_ids"),
    "reference_context_relevance": ("reference_context_relevance", "qrels", "relevance_judgments",
                                    "graded_relevance"),
    "reference_contexts": ("reference_contexts", "reference_context", "gold_contexts", "relevant_contexts",
                           "reference_passages", "gold_passages"),
    "tool_calls": ("tool_calls", "tools_called", "agent_tool_calls", "actual_tool_calls", "predicted_tool_calls"),
    "reference_tool_calls": ("reference_tool_calls", "expected_tools", "expected_tool_calls", "gold_tool_calls",
                             "reference_tools"),
}
#: Human / reference label columns (RAGBench annotation columns included).
LABEL_COLUMNS = (
    "labels", "hallucinated", "is_hallucinated", "hallucination", "adherence_score", "relevance_score",
    "utilization_score", "completeness_score", "faithfulness_score", "correctness_score",
    "overall_supported", "all_relevant_sentence_keys", "all_utilized_sentence_keys",
    "sentence_support_information", "unsupported_response_sentence_keys", "relevance_explanation",
    "overall_supported_explanation",
)
_LABEL_PREFIXES = ("human_", "label_")


def _find(columns: Sequence[str], candidates: Iterable[str], taken: set[str]) -> str | None:
    lower = {c.strip().lower(): c for c in columns}
    for cand in candidates:
        c = lower.get(cand)
        if c is not None and c not in taken:
            return c
    return None


MAPPABLE_FIELDS = ("question", "response", "documents", "ground_truth", "id", *OPTIONAL_COLUMNS)


def guess_mapping(columns: Sequence[str], filename: str = "",
                  overrides: Mapping[str, str] | None = None, *, answered: bool = True) -> ColumnMapping:
    """Map known column names (case-insensitive) to fields.

    ``overrides`` ({field: column}) fixes some fields; the rest are guessed from the remaining
    columns (the format is then 'custom'). Raises :class:`DatasetError` when no question or no
    response column can be found, or an override names a missing column or an unknown field.
    ``answered=False``: a question file (questions an app is yet to answer): no response column is
    looked for, and an ``answer`` column is the reference answer.
    """
    cols = [str(c) for c in columns]
    fixed = dict(overrides or {})
    for fld, col in fixed.items():
        if fld not in MAPPABLE_FIELDS:
            raise DatasetError(filename, f"cannot map {fld!r}; fields: {', '.join(MAPPABLE_FIELDS)}")
        if col not in cols:
            raise DatasetError(filename, f"column {col!r} (mapped to {fld}) is not in the file; "
                                         f"columns: {', '.join(cols)}", column=col)
    taken: set[str] = set(fixed.values())

    def pick(fld: str, candidates: Iterable[str]) -> str | None:
        c = fixed[fld] if fld in fixed else _find(cols, candidates, taken)
        if c:
            taken.add(c)
        return c

    q = pick("question", _QUESTION)
    r = pick("response", _RESPONSE) if answered else fixed.get("response")
    missing = [n for n, v in (("question", q), ("response", r)) if v is None and (answered or n == "question")]
    if missing:
        want = {"question": _QUESTION, "response": _RESPONSE}
        detail = "; ".join(f"{m} (one of: {', '.join(want[m])})" for m in missing)
        raise DatasetError(
            filename, f"no {' or '.join(missing)} column found; expected {detail}; "
                      f"columns seen: {', '.join(cols) or '(none)'}",
            column=missing[0],
        )
    d = pick("documents", _DOCUMENTS)
    gt_candidates = list(_GROUND_TRUTH)
    if not answered or (r and r.lower() != "answer"):
        gt_candidates.append("answer")  # {question, answer (gold), response (model)}
    gt = pick("ground_truth", gt_candidates)
    ident = pick("id", _ID)
    optional = {fld: pick(fld, names) for fld, names in OPTIONAL_COLUMNS.items()}
    labels = tuple(
        c for c in cols
        if c not in taken and (c.lower() in LABEL_COLUMNS or c.lower().startswith(_LABEL_PREFIXES))
    )
    names = {c.lower() for c in (q, r, d) if c}
    if fixed:
        fmt = "custom"
    elif {"user_input", "response"} <= names:
        fmt = "ragas_v2"
    elif {"question", "answer"} <= names:
        fmt = "ragas_v1"
    elif {"query", "response"} <= names and (d is None or d.lower() == "retrieved_documents"):
        fmt = "batch"
    elif {"question", "response"} <= names and (d is None or d.lower() == "documents"):
        fmt = "ragbench"
    else:
        fmt = "custom"
    return ColumnMapping(question=q, response=r, documents=d, ground_truth=gt, id=ident,
                         label_columns=labels, format=fmt, **optional)


"""Core data types shared by every part of the library.

Everything here is immutable (frozen pydantic models). A case that could not be
scored carries an explicit reason (``CaseResult.error`` / ``SentenceLabels.unscored_reason``);
no metric is ever a silent NaN.
"""

from __future__ import annotations

from typing import Any, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from .metric_names import AVERAGE, CASE_METRICS, OVERALL_SUPPORTED, TRACE_METRICS, TRACE_VALUES

SupportLevel = Literal["full", "partial", "none"]

#: Version of the run format of stored runs and JSON exports. History and the migration of older
#: files: :mod:`evaluators.schema`.
SCHEMA_VERSION = 2

#: Special values an LLM may put in ``supporting_sentence_keys`` for a response
#: sentence that needs no document support (transitions, common knowledge, arithmetic).
SPECIAL_SUPPORT_KEYS = frozenset(
    {"supported_without_sentence", "general", "well_known_fact", "numerical_reasoning"}
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TestCase(_Frozen):
    """One RAG interaction to evaluate."""

    __test__ = False  # not a pytest test class

    id: str
    question: str
    response: str
    documents: tuple[str, ...] = ()
    ground_truth: str | None = None
    #: Human labels passed through from the dataset (e.g. ``hallucinated``, ``adherence_score``).
    labels: dict[str, Any] = Field(default_factory=dict)
    #: Anything else the row carried (source id, latency, generator model, ...).
    metadata: dict[str, Any] = Field(default_factory=dict)


class Sentence(_Frozen):
    """A keyed sentence with its character span in the original text."""

    key: str
    text: str
    start: int
    end: int
    #: Document index for document sentences; None for response sentences.
    doc: int | None = None


class SentencizedCase(_Frozen):
    case: TestCase
    doc_sentences: tuple[Sentence, ...]
    response_sentences: tuple[Sentence, ...]

    @property
    def doc_keys(self) -> tuple[str, ...]:
        return tuple(s.key for s in self.doc_sentences)

    @property
    def response_keys(self) -> tuple[str, ...]:
        return tuple(s.key for s in self.response_sentences)


class SentenceSpans(_Frozen):
    """Where the sentences the labels' keys name are in the case's texts, as split when the case
    was labeled (so a later splitter can never move a key): ``documents[d][i]`` = (start, end) of
    sentence ``f"{d}{letters(i)}"`` of document ``d``; ``response[i]`` = sentence ``letters(i)``."""

    documents: tuple[tuple[tuple[int, int], ...], ...] = ()
    response: tuple[tuple[int, int], ...] = ()


class SentenceSupport(_Frozen):
    """Support verdict for one response sentence."""

    # ``level`` is a computed field: it is dumped, so re-reading a dump must accept (ignore) it.
    model_config = ConfigDict(frozen=True, extra="ignore")

    key: str
    #: Document sentence keys that support it (may include SPECIAL_SUPPORT_KEYS values).
    supporting_keys: tuple[str, ...] = ()
    fully_supported: bool
    explanation: str = ""
    #: Labeler's probability that the sentence is supported, when it has one (heuristic).
    score: float | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def level(self) -> SupportLevel:
        """full = fully supported; partial = some supporting keys but not fully; none = no support."""
        if self.fully_supported:
            return "full"
        return "partial" if self.supporting_keys else "none"


class SentenceLabels(_Frozen):
    """Sentence-level labels: the single currency every labeler produces."""

    method: str
    #: Every document sentence key of the case, in order (denominator of the TRACE ratios).
    document_keys: tuple[str, ...]
    relevant_keys: tuple[str, ...] = ()
    utilized_keys: tuple[str, ...] = ()
    sentences: tuple[SentenceSupport, ...] = ()
    overall_supported: bool = False
    relevance_explanation: str = ""
    overall_explanation: str = ""
    #: How sure the labeler is of these labels in [0, 1] (used by selective hybrid), if known.
    confidence: float | None = None
    #: Things the labeler had to fix or drop (unknown keys, missing sentences, ...).
    notes: tuple[str, ...] = ()
    #: Extra labeler-specific data (e.g. jury vote splits). JSON-serialisable.
    extra: dict[str, Any] = Field(default_factory=dict)


class TraceScores(_Frozen):
    """The TRACE metrics of one case (computed by ``trace_metrics.compute``)."""

    context_relevance: float
    context_utilization: float
    completeness: float
    adherence: float
    overall_supported: bool
    fully_supported_sentences: int
    partially_supported_sentences: int
    unsupported_sentences: int
    num_document_sentences: int
    num_response_sentences: int
    #: Mean P(fully supported) over the response sentences (``metric_names.EXPECTED_ADHERENCE``).
    expected_adherence: float = 1.0

    def average(self) -> float:
        """Mean of the four ratio metrics."""
        return (
            self.context_relevance + self.context_utilization + self.completeness + self.adherence
        ) / 4.0

    # Aliases used by the published TRACE description.
    @property
    def relevance(self) -> float:
        return self.context_relevance

    @property
    def utilization(self) -> float:
        return self.context_utilization

    @property
    def num_fully_supported_sentences(self) -> int:
        return self.fully_supported_sentences

    def metrics_dict(self) -> dict[str, Any]:
        """The per-case ``metrics`` of the results JSON (``metric_names.CASE_METRICS``)."""
        return {name: getattr(self, name) for name in CASE_METRICS}

    def value(self, name: str) -> float:
        """A TRACE metric as a number (``average`` = mean of the four ratios, overall_supported 0/1)."""
        if name == AVERAGE:
            return float(self.average())
        if name not in TRACE_VALUES:
            raise KeyError(f"{name!r} is not a TRACE metric")
        return float(getattr(self, name))


class MetricValue(_Frozen):
    """One family metric (ragas / Tonic) for one case: a value or the reason it was skipped."""

    name: str
    family: str
    value: float | None = None
    skipped: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class Usage(_Frozen):
    """LLM usage of one case or one run.

    ``calls`` counts answered (billed) requests only; ``retries`` counts attempts that got no
    answer (rate limited, server error, timeout, connection error): retried or failed, never billed."""

    calls: int = 0
    retries: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0

    @classmethod
    def total(cls, usages: Iterable[Usage]) -> Usage:
        """The sum of several usages (the one way usage is added up)."""
        out = cls()
        for u in usages:
            out = out + u
        return out

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            retries=self.retries + other.retries,
            cached_calls=self.cached_calls + other.cached_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            latency_s=self.latency_s + other.latency_s,
        )


class LabelOutcome(_Frozen):
    """What a method returns for one case: labels, or the reason there are none."""

    labels: SentenceLabels | None = None
    error: str | None = None
    #: Which labeler produced ``labels`` (selective hybrid: "trace" or "gpt_labeling").
    labeled_by: str | None = None
    #: Other label sets made for the same case (hybrid: one per labeler), by method name.
    variants: dict[str, SentenceLabels] = Field(default_factory=dict)
    #: Agreement figures between variants (hybrid), e.g. {"adherence_abs_diff": 0.1}.
    agreement: dict[str, float] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)


class CaseResult(_Frozen):
    case: TestCase
    method: str
    labels: SentenceLabels | None = None
    scores: TraceScores | None = None
    #: Why the case could not be scored (None when it scored).
    error: str | None = None
    labeled_by: str | None = None
    variants: dict[str, SentenceLabels] = Field(default_factory=dict)
    variant_scores: dict[str, TraceScores] = Field(default_factory=dict)
    agreement: dict[str, float] = Field(default_factory=dict)
    #: Family metrics by name (every requested metric appears: value or skip reason).
    metrics: dict[str, MetricValue] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0
    #: The sentence split the labels refer to (None: not split, or stored before spans were kept).
    spans: SentenceSpans | None = None

    @model_validator(mode="before")
    @classmethod
    def _fill_expected_adherence(cls, data: Any) -> Any:
        """A result stored before ``expected_adherence`` existed gets it from its labels."""
        if not isinstance(data, dict):
            return data

        def stale(scores: Any, labels: Any) -> bool:
            return isinstance(scores, dict) and labels is not None and "expected_adherence" not in scores

        def filled(scores: Any, labels: Any) -> Any:
            if not stale(scores, labels):
                return scores
            from .trace_metrics import expected_adherence

            lab = labels if isinstance(labels, SentenceLabels) else SentenceLabels.model_validate(labels)
            return {**scores, "expected_adherence": expected_adherence(lab)}

        variants: dict[str, Any] = data["variants"] if isinstance(data.get("variants"), dict) else {}
        vscores: dict[str, Any] = data["variant_scores"] if isinstance(data.get("variant_scores"), dict) else {}
        if not stale(data.get("scores"), data.get("labels")) and \
                not any(stale(v, variants.get(k)) for k, v in vscores.items()):
            return data  # results made by this version (the usual case): nothing to copy
        return {**data, "scores": filled(data.get("scores"), data.get("labels")),
                **({"variant_scores": {k: filled(v, variants.get(k)) for k, v in vscores.items()}}
                   if vscores else {})}

    @property
    def ok(self) -> bool:
        return self.error is None and self.scores is not None

    def sentencized(self) -> SentencizedCase:
        """The case's sentences as labeled: rebuilt from ``spans``; only a result without spans
        (not split, or stored by an older version) is split again with today's splitter."""
        from .sentencize import from_spans, sentencize_case

        return sentencize_case(self.case) if self.spans is None else from_spans(self.case, self.spans)

    def value(self, name: str) -> float | None:
        """The value of metric ``name`` for this case, by one rule for every metric: a TRACE metric
        comes from ``scores`` (None when the case was not scored), a family metric from
        ``metrics`` (None when skipped or not computed)."""
        if name in TRACE_VALUES:
            return None if self.scores is None else self.scores.value(name)
        mv = self.metrics.get(name)
        return None if mv is None or mv.value is None else float(mv.value)


class RunResult(_Frozen):
    """A whole evaluation run."""

    method: str
    results: tuple[CaseResult, ...]
    #: Settings of the run as given (never an API key).
    settings: dict[str, Any] = Field(default_factory=dict)
    timings: dict[str, float] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    started_at: str = ""
    cancelled: bool = False
    #: Run-level problems that did not stop it (e.g. a method's ``prepare`` failed).
    warnings: tuple[str, ...] = ()
    #: Format version (older stored runs / files are migrated on load: ``evaluators.schema``).
    schema_version: int = SCHEMA_VERSION

    @property
    def errors(self) -> list[tuple[str, str]]:
        return [(r.case.id, r.error) for r in self.results if r.error is not None]

    @property
    def scored(self) -> list[CaseResult]:
        return [r for r in self.results if r.ok]

    def family_names(self) -> list[str]:
        """Family metric names of the run, in order of first appearance."""
        names: dict[str, None] = {}
        for r in self.results:
            names.update(dict.fromkeys(r.metrics))
        return list(names)

    def means(self) -> dict[str, float | None]:
        """Mean of every metric of the run (None when no case has a value): the TRACE metrics over
        scored cases (``average`` = mean of the four ratio means), then each family metric over
        the cases that have it. The top level of the results JSON."""
        scored = self.scored
        out: dict[str, float | None] = {}
        for m in (*TRACE_METRICS, OVERALL_SUPPORTED):
            vals = [r.scores.value(m) for r in scored if r.scores is not None]
            out[m] = sum(vals) / len(vals) if vals else None
        four = [v for v in (out[m] for m in TRACE_METRICS) if v is not None]
        out[AVERAGE] = sum(four) / 4.0 if len(four) == len(TRACE_METRICS) else None
        for name in self.family_names():
            fam = [v for r in self.results if (v := r.value(name)) is not None]
            out[name] = sum(fam) / len(fam) if fam else None
        return out

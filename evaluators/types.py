"""Core data types shared by every part of the library, and the TRACE metric vocabulary.

Everything here is immutable (frozen pydantic models). A case that could not be
scored carries an explicit reason (``CaseResult.error`` / ``SentenceLabels.unscored_reason``);
no metric is ever a silent NaN.

The bottom of the house: this module imports nothing of the project. Code that builds these
types from text or computes them lives beside its job (``sentencize``, ``trace_metrics``,
``schema`` for stored runs of older versions).
"""

from __future__ import annotations

from typing import Any, Iterable, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

# ----------------------------------------------------------------------------- metric vocabulary
# Every TRACE metric name, typed once: types, export, gate, CLI, agreement statistics and the
# dashboard read these tuples; the metric *declarations* (description, range, direction) are
# registered with the family metrics in ``evaluators.families.trace``.

#: The four ratio metrics of one case (``TraceScores`` fields), in report order.
TRACE_METRICS: tuple[str, ...] = ("context_relevance", "context_utilization", "completeness", "adherence")
#: Every response sentence is fully supported (a 0/1 verdict per case; its mean is a share).
OVERALL_SUPPORTED = "overall_supported"
#: Mean over the response sentences of P(fully supported) (the labeler's probability; 1 / 0 where a
#: sentence has none): what adherence is expected to be, and a ranking without ties — sort by it,
#: ascending, to see the likeliest hallucinations first. Equals adherence for labels without
#: probabilities (LLM labeling).
EXPECTED_ADHERENCE = "expected_adherence"
#: Mean of the four ratios of a case.
AVERAGE = "average"
#: Sentence counts of one case (``TraceScores`` fields, reported per case, never averaged).
SENTENCE_COUNTS: tuple[str, ...] = (
    "fully_supported_sentences", "partially_supported_sentences", "unsupported_sentences")
#: The per-case ``metrics`` object of the results JSON, in order.
CASE_METRICS: tuple[str, ...] = (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED, *SENTENCE_COUNTS)
#: The run means of the results JSON (and what ``--fail-under`` accepts besides family metrics).
SUMMARY_METRICS: tuple[str, ...] = (*TRACE_METRICS, OVERALL_SUPPORTED, AVERAGE)
#: Per-case values of TRACE metrics (``CaseResult.value`` reads these from ``TraceScores``).
TRACE_VALUES: frozenset[str] = frozenset((*SUMMARY_METRICS, EXPECTED_ADHERENCE))

# ----------------------------------------------------------------------------- types

SupportLevel = Literal["full", "partial", "none"]

#: Version of the run format of stored runs and JSON exports. History and the migration of older
#: files: :mod:`evaluators.schema`.
SCHEMA_VERSION = 2

#: Special values an LLM may put in ``supporting_sentence_keys`` for a response
#: sentence that needs no document support (transitions, common knowledge, arithmetic).
SPECIAL_SUPPORT_KEYS = frozenset(
    {"supported_without_sentence", "general", "well_known_fact", "numerical_reasoning",
     # a sentence that declines to answer ("the documents do not say"): it makes no claim
     # (``evaluators.declined``)
     "declined"}
)

#: A response sentence that no document supports but an earlier turn of the agent states names that
#: turn among its supporting keys: ``turn_3`` = ``TestCase.history[2]`` (turns counted from 1, oldest
#: first). Such a key counts as support (adherence) but is no document sentence (relevance,
#: utilization and completeness never see it); see :mod:`evaluators.conversations.support`.
EARLIER_TURN_PREFIX = "turn_"


def earlier_turn_key(number: int) -> str:
    """The supporting key of earlier turn ``number`` (1 = the first turn of the history)."""
    return f"{EARLIER_TURN_PREFIX}{int(number)}"


def earlier_turn_of(key: str) -> int | None:
    """The turn number a supporting key names (``"turn_3"`` -> 3), None for any other key."""
    if key.startswith(EARLIER_TURN_PREFIX) and key[len(EARLIER_TURN_PREFIX):].isdigit():
        n = int(key[len(EARLIER_TURN_PREFIX):])
        return n if n >= 1 else None
    return None


def is_special_key(key: str) -> bool:
    """A supporting key that is not a document sentence: one of :data:`SPECIAL_SUPPORT_KEYS` or an
    earlier turn of the agent (``turn_3``)."""
    return key in SPECIAL_SUPPORT_KEYS or earlier_turn_of(key) is not None

#: A labeler's explanation is the reason a person needs first ("the document says 1989, not
#: 1991 (0a)"), then, after this mark, the figures behind it (similarities, probabilities) — the
#: dashboard shows those behind a "details" toggle.
DETAILS_MARK = "\nDetails: "


def split_explanation(text: str | None) -> tuple[str, str]:
    """(reason, details) of an explanation (details "" when it has none)."""
    reason, _, details = (text or "").partition(DETAILS_MARK)
    return reason.strip(), details.strip()


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


#: The optional fields of a ``TestCase`` (the conversation, the retrieval references), by name.
CASE_EXTRAS: tuple[str, ...] = ("history", "conversation_id", "document_ids", "reference_context_ids",
                                "reference_context_relevance", "reference_contexts", "tool_calls",
                                "reference_tool_calls")

#: Who spoke an earlier turn of a conversation.
Speaker = Literal["user", "agent"]


class Turn(_Frozen):
    """One earlier turn of a conversation (``TestCase.history``); reading the shapes users give
    (``{speaker, text}``, chat ``{role, content}``) is :mod:`evaluators.turns`."""

    speaker: Speaker
    text: str


#: What became of one tool call: it returned (``ok``), it failed (``error``), or the trace / app
#: did not say (``""``: a call the model asked for whose run was not recorded, or a reference call).
ToolStatus = Literal["ok", "error", ""]


class ToolCall(_Frozen):
    """One tool call of an agent (``TestCase.tool_calls``, in the order they ran) or one call it
    should have made (``TestCase.reference_tool_calls``: only ``name`` and ``arguments`` count).
    Reading the shapes users give (OpenAI, LangChain, Anthropic, ragas, DeepEval, trace spans) is
    :mod:`evaluators.toolcalls`."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    #: The arguments as an object; ``{}`` when the call had none or they were not JSON (then
    #: ``raw_arguments`` holds the text as given).
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None
    #: What the tool returned, as text (None: not recorded).
    result: str | None = None
    status: ToolStatus = ""
    #: The error, when the call failed.
    error: str | None = None
    latency_s: float | None = None
    #: ``TOOL`` or ``RETRIEVER`` (the span kind it was read from; "" when not from a trace).
    kind: str = ""
    #: Where it was read from (a span / run / observation id) and the model's id of the call.
    span_id: str | None = None
    call_id: str | None = None
    #: The query of a retrieval call (its ``query`` argument, or its input text).
    query: str | None = None
    #: Indices into ``TestCase.documents`` of the passages this call returned (a passage another
    #: call returned first is listed for both).
    documents: tuple[int, ...] = ()
    #: Anything to know about how the call was read (arguments that are not JSON, a result cut …).
    notes: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return self.status == "error"


class TestCase(_Frozen):
    """One RAG interaction to evaluate.

    Besides the question, the response and the documents, a case may carry the conversation it is
    a turn of (``history``, ``conversation_id``) and, for scoring the retriever, the ids of its
    documents and the passages that should have been retrieved (``reference_context_ids``, graded
    ``reference_context_relevance``, or their texts ``reference_contexts``). Every one of these is
    optional; a case without them scores exactly as a plain one."""

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
    #: The earlier turns of the conversation, oldest first; the question is the user turn after them.
    history: tuple[Turn, ...] = ()
    #: The conversation this case is a turn of (cases of one conversation share it).
    conversation_id: str | None = None
    #: The ids of ``documents``, one per document in the same order (empty: the documents carry none).
    document_ids: tuple[str, ...] = ()
    #: Ids of the passages that should have been retrieved (every one relevant, grade 1).
    reference_context_ids: tuple[str, ...] = ()
    #: Graded relevance of passages by id (``{id: grade}``; grade > 0 is relevant, 0 judged not
    #: relevant). Where given it is the judgment retrieval is scored against.
    reference_context_relevance: dict[str, int] = Field(default_factory=dict)
    #: Texts of the passages that should have been retrieved (matched by text when ids differ).
    reference_contexts: tuple[str, ...] = ()
    #: The agent's tool calls, in the order they ran (a trace's TOOL / RETRIEVER spans, an app's reply).
    tool_calls: tuple[ToolCall, ...] = ()
    #: The calls it should have made (``name`` and ``arguments``; an empty list: no call at all); the
    #: tool-call metrics compare the two (:mod:`evaluators.toolcalls`). None: no reference.
    reference_tool_calls: tuple[ToolCall, ...] | None = None

    @model_validator(mode="after")
    def _ids_fit_documents(self) -> TestCase:
        if self.document_ids and len(self.document_ids) != len(self.documents):
            raise ValueError(f"document_ids has {len(self.document_ids)} ids for {len(self.documents)} "
                             "documents: give one id per document, in the same order")
        return self

    def relevance_judgments(self) -> dict[str, int]:
        """{passage id: grade > 0} of the passages that should have been retrieved: the graded
        ``reference_context_relevance`` where given (its relevant ids), else every
        ``reference_context_ids`` at grade 1."""
        if self.reference_context_relevance:
            return {k: int(g) for k, g in self.reference_context_relevance.items() if g > 0}
        return dict.fromkeys(self.reference_context_ids, 1)


class Sentence(_Frozen):
    """A keyed sentence with its character span in the original text. For prose ``text`` is
    exactly that span; a structured document's sentence is a fact (``hours › Monday: 08:00–14:00``)
    whose span is where the fact sits in the original (``"Monday": "8:0-14:0"``)."""

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
    #: Document sentence keys that support it (may include SPECIAL_SUPPORT_KEYS values, or the key
    #: of an earlier agent turn, ``turn_3``: :func:`earlier_turn_key`).
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
    #: Mean P(fully supported) over the response sentences (``types.EXPECTED_ADHERENCE``).
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
        """The per-case ``metrics`` of the results JSON (``types.CASE_METRICS``)."""
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
    #: A turn of a conversation (a case with ``history``): its question made standalone, the one
    #: relevance and utilization were judged against (:mod:`evaluators.conversations`); None otherwise.
    standalone_question: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.scores is not None

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

    @classmethod
    def merge(cls, parts: Sequence[RunResult], *, method: str, settings: Mapping[str, Any] | None = None,
              cancelled: bool = False) -> RunResult:
        """One run from runs of consecutive chunks of the same cases (a run evaluated chunk by
        chunk, e.g. by the dashboard's background worker): results in order, timings and usage
        summed, the first chunk's start time, warnings once each, cancelled if asked or if any
        chunk was."""
        timings: dict[str, float] = {}
        for p in parts:
            for k, v in p.timings.items():
                timings[k] = timings.get(k, 0.0) + float(v)
        return cls(
            method=method,
            results=tuple(r for p in parts for r in p.results),
            settings=dict(settings if settings is not None else (parts[0].settings if parts else {})),
            timings=timings,
            usage=Usage.total(p.usage for p in parts),
            started_at=parts[0].started_at if parts else "",
            cancelled=cancelled or any(p.cancelled for p in parts),
            warnings=tuple(dict.fromkeys(w for p in parts for w in p.warnings)),
        )

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

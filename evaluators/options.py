"""Options of one evaluation run, shared by the library API, the CLI and the dashboard."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .llm.settings import LLMSettings

#: The cutoffs K of the retrieval metrics (``hit@K``, ``precision@K``, ...) unless told otherwise.
DEFAULT_RETRIEVAL_K: tuple[int, ...] = (1, 3, 5, 10)
#: How retrieved passages are matched to the reference passages: by ``id``, by ``text``, or ``auto``
#: (decided once per run: ids when any retrieved id of the run is a reference id, else text).
RetrievalMatch = Literal["auto", "id", "text"]
#: How answers are judged against the reference answer (``evaluators.answers``): ``auto`` (one LLM call
#: per case with an LLM method and an LLM configured, else offline), ``offline``, ``llm`` or ``off``.
AnswerCorrectness = Literal["auto", "offline", "llm", "off"]


class RetrievalRun(BaseModel):
    """How one run's retrieval metrics match passages, decided over the whole run before it is cut
    into chunks (``evaluators.retrieval.plan_run``): ``id`` / ``text``, or ``none`` when no case of the
    run carries reference passages; ``reason`` says why, in words."""

    model_config = ConfigDict(frozen=True)

    match: Literal["id", "text", "none"]
    reason: str = ""


class CitationRun(BaseModel):
    """Whether one run is judged for citations, decided over the whole run before it is cut into
    chunks (``evaluators.citations.plan``): ``cited`` when some response of the run carries a citation
    marker — then every case of the run gets the citation metrics, else none; ``reason`` in words."""

    model_config = ConfigDict(frozen=True)

    cited: bool
    reason: str = ""


class EvalOptions(BaseModel):
    model_config = ConfigDict(frozen=True)

    #: Family metrics to compute next to TRACE (names from the metric registry).
    metrics: tuple[str, ...] = ()
    #: Per-metric parameters, e.g. {"aspect_critique": {"aspects": [...]}, "regex": {...}}.
    metric_params: dict[str, dict[str, Any]] = Field(default_factory=dict)
    #: LLM settings for gpt_labeling / hybrid / jury and LLM metrics; None = no LLM configured.
    llm: LLMSettings | None = None
    #: Jury: one LLMSettings per juror.
    jury: tuple[LLMSettings, ...] = ()
    #: Selective hybrid: at most this many LLM calls (cases) ...
    selective_budget: int | None = None
    #: ... or this share of cases (0-1), the least certain first.
    selective_share: float | None = None
    #: Only estimate calls / tokens / cost; make no LLM call.
    dry_run: bool = False
    #: Heuristic labeler options (thresholds overrides, optional cross-encoder path/name).
    heuristic: dict[str, Any] = Field(default_factory=dict)
    #: Cutoffs K of the retrieval metrics (``--k 1,3,5,10``): positive, each once, ascending.
    retrieval_k: tuple[int, ...] = DEFAULT_RETRIEVAL_K
    #: Match retrieved passages to the references by ``id``, ``text`` or ``auto`` (``--match``). An
    #: explicit id / text overrides a case's own ``metadata["retrieval_match"]``; auto follows it.
    retrieval_match: RetrievalMatch = "auto"
    #: The run's decision (set by the library before a run is cut into chunks; None: each
    #: ``Evaluation.run`` call decides over its own cases). Not a user setting.
    retrieval_run: RetrievalRun | None = None
    #: The run's citation decision (set like ``retrieval_run``; None: each call decides over its
    #: own cases). Not a user setting.
    citation_run: CitationRun | None = None
    #: Whether an agent's tool calls must follow the reference calls' order (``strict``) or not
    #: (``any``) (``--tool-order``); a case's own ``tool_call_order`` overrides it.
    tool_call_order: Literal["strict", "any"] = "strict"
    #: Answer correctness against ``ground_truth`` (``--answer-correctness``): see :data:`AnswerCorrectness`.
    answer_correctness: AnswerCorrectness = "auto"
    #: Judge an agent's goal accuracy with the run's LLM, one call per agent case (``--no-goal-accuracy``:
    #: no call; without an LLM it is not available either way: ``evaluators.toolcalls.goal``).
    goal_accuracy: bool = True

    @field_validator("retrieval_k", mode="before")
    @classmethod
    def _ks(cls, v: Any) -> tuple[int, ...]:
        if isinstance(v, str):
            v = [x for x in v.replace(" ", "").split(",") if x]
        try:
            ks = sorted({int(x) for x in v})
        except (TypeError, ValueError):
            raise ValueError(f"retrieval_k: expected whole numbers such as 1,3,5,10, got {v!r}") from None
        if not ks or ks[0] < 1 or any(float(x) != int(x) for x in v if not isinstance(x, str)):
            raise ValueError(f"retrieval_k: expected positive whole numbers such as 1,3,5,10, got {v!r}")
        return tuple(ks)

    def public_dict(self) -> dict[str, Any]:
        d = self.model_dump(mode="json", exclude={"llm", "jury", "metric_params"})
        d["llm"] = self.llm.public_dict() if self.llm else None
        d["jury"] = [j.public_dict() for j in self.jury]
        d["metric_params"] = _json_safe(self.metric_params)
        return d


def _json_safe(obj: Any) -> Any:
    """metric_params may hold callables (the ``binary`` metric's callback): name them instead."""
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if callable(obj):
        return f"<callable {getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}>"
    return repr(obj)

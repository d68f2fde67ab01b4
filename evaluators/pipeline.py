"""``evaluate`` / ``evaluate_batch``: the library entry points.

Flow: cases -> validation -> sentencize -> method labels (in chunks, so progress and
cancellation are fine-grained) -> ``trace_metrics.compute`` -> optional family metrics -> retrieval
metrics of the cases with reference passages (``evaluators.retrieval``; matched by id or text as
decided once per run: ``EvalOptions.retrieval_run``, else over the cases of the call) -> tool-call
metrics of the cases with tool calls (``evaluators.toolcalls``; goal accuracy by the run's LLM, or
the reason it has none: ``toolcalls.goal``) -> citation metrics on every case when some response of
the run cites (``evaluators.citations``; decided once per run: ``EvalOptions.citation_run``, else over
the cases of the call) -> answer metrics of every scored case (``evaluators.answers``: declined /
over-refusal, and correctness against ``ground_truth``) -> ``RunResult``. A case that cannot be scored
is kept with its reason; the others still score.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator, Mapping

from . import trace_metrics
from .answers import read_reference
from .answers import score_cases as score_answers
from .answers.reference import NOTE_KEY
from .answers.scoring import estimate as estimate_answers
from .appcost import app_call
from .citations import score_results as citation_metrics
from .citations import with_plan as with_citation_plan
from .conversations import question_of
from .methods import CHUNK_SIZE, Method, get_method
from .options import EvalOptions
from .retrieval import score_cases, with_plan
from .sentencize import sentencize_case, spans_of
from .toolcalls import read_calls
from .toolcalls import score_cases as score_tool_calls
from .turns import read_history
from .types import (
    CASE_EXTRAS,
    CaseResult,
    LabelOutcome,
    MetricValue,
    RunResult,
    SentencizedCase,
    TestCase,
    Usage,
)

#: ``progress(done, total)`` as cases finish: after each chunk, and inside a chunk whenever the
#: method ticks (the LLM labelers tick once per case; called from their worker thread).
Progress = Callable[[int, int], None]

__all__ = ["CHUNK_SIZE", "Evaluation", "as_test_case", "estimate", "evaluate", "evaluate_batch"]


def as_test_case(obj: TestCase | Mapping[str, Any], index: int = 0) -> TestCase:
    """Accept a TestCase or a dict in the batch format ({query|question, response,
    retrieved_documents|documents, ground_truth, id?})."""
    if isinstance(obj, TestCase):
        return obj
    if not isinstance(obj, Mapping):
        raise TypeError(f"case {index}: expected a TestCase or a dict, got {type(obj).__name__}")
    q = obj.get("question", obj.get("query"))
    docs = obj.get("retrieved_documents", obj.get("documents", obj.get("contexts", ())))
    if isinstance(docs, (str, Mapping)):
        docs = [docs]
    docs = [d for d in (docs or ()) if d is not None]
    given = [d for d in docs if isinstance(d, Mapping)]
    if given:  # documents as {id, text} (LangChain page_content / content too)
        if len(given) != len(docs):
            raise ValueError(f"case {index}: give every document as text or every one as an object, not both")
        texts = [next((str(d[k]) for k in ("text", "page_content", "content") if d.get(k) is not None), None)
                 for d in given]
        if any(t is None for t in texts):
            raise ValueError(f"case {index}: document {texts.index(None) + 1} is an object without a text field")
        ids = [d.get("id") for d in given]
        if "document_ids" not in obj and all(i is not None for i in ids):
            obj = {**obj, "document_ids": [str(i) for i in ids]}
        docs = texts
    if q is None or obj.get("response") is None:
        missing = [k for k, v in (("question/query", q), ("response", obj.get("response"))) if v is None]
        raise ValueError(f"case {index}: missing {', '.join(missing)}")
    extras = {k: obj[k] for k in CASE_EXTRAS if obj.get(k) or (k == "reference_tool_calls" and obj.get(k) == [])}
    if "history" in extras:
        extras["history"] = read_history(extras["history"])[0]
    for k in ("tool_calls", "reference_tool_calls"):  # any shape: OpenAI, LangChain, ragas, DeepEval, …
        if k in extras:
            extras[k] = read_calls(extras[k], f"case {index}: {k}")
    known = {"id", "question", "query", "response", "retrieved_documents", "documents", "contexts",
             "ground_truth", "labels", "metadata", *CASE_EXTRAS}
    reference, note = read_reference(obj.get("ground_truth"))  # a number, a list, an object: a note on the case
    return TestCase(
        id=str(obj.get("id", obj.get("query_id", index))),
        question=str(q),
        response=str(obj["response"]),
        documents=tuple(str(d) for d in docs),
        ground_truth=reference,
        labels=dict(obj.get("labels") or {}),
        metadata={**dict(obj.get("metadata") or {}), **{k: v for k, v in obj.items() if k not in known},
                  **({NOTE_KEY: note} if note else {})},
        **extras,
    )


def _precheck(case: TestCase) -> str | None:
    if not case.response.strip():
        call = app_call(case.metadata)
        if call is not None and call.failed:  # the target runner's record of a question left unanswered
            return f"the app call failed, no answer to evaluate: {call.error}"
        return "response is empty: nothing to evaluate"
    return None


def _to_result(item: SentencizedCase, method: str, out: LabelOutcome, seconds: float) -> CaseResult:
    standalone = question_of(item.case)  # a turn of a chat: the question it was judged against
    if out.labels is None:
        return CaseResult(case=item.case, method=method, error=out.error or "no labels produced",
                          labeled_by=out.labeled_by, usage=out.usage, seconds=seconds, spans=spans_of(item),
                          standalone_question=standalone)
    return CaseResult(
        case=item.case,
        method=method,
        labels=out.labels,
        scores=trace_metrics.compute(out.labels),
        error=None,
        labeled_by=out.labeled_by or out.labels.method,
        variants=out.variants,
        variant_scores={k: trace_metrics.compute(v) for k, v in out.variants.items()},
        agreement=out.agreement,
        usage=out.usage,
        seconds=seconds,
        spans=spans_of(item),
        standalone_question=standalone,
    )


class Evaluation:
    """One run's method and options, checked and built once; its cases evaluated in one call or in
    many (a file read chunk by chunk, the dashboard's background worker): the method's fixed cost
    (building it, checking the options) is paid once per run, not once per chunk.

    ``evaluate_batch`` is ``Evaluation(...).run(cases)``. A run cut into chunks decides how its
    retrieval metrics match passages, and whether it is judged for citations, over all its cases first
    (``retrieval.with_plan`` and ``citations.with_plan`` into the options); without those decisions
    each ``run`` call makes its own over its cases."""

    def __init__(self, method: str = "trace", options: EvalOptions | None = None, *, engine: str = "local",
                 ray_address: str | None = None, **option_overrides: Any) -> None:
        if engine not in ("local", "ray"):
            raise ValueError(f"engine must be 'local' or 'ray', got {engine!r}")
        self.spec = get_method(method)  # unknown names raise, listing the valid ones
        opts = options or EvalOptions()
        if option_overrides:
            # dict(model) keeps nested objects (a model_dump would drop the excluded API key)
            opts = EvalOptions(**{**dict(opts), **option_overrides})
        if opts.metrics:  # unknown family metric names / bad params fail before any labeling
            from .families import validate_metric_names

            validate_metric_names(opts.metrics, opts.metric_params)
        self.method, self.options, self.engine, self.ray_address = method, opts, engine, ray_address
        self._impl: Method | None = None

    @property
    def impl(self) -> Method:
        if self._impl is None:
            self._impl = self.spec.build()
        return self._impl

    @property
    def settings(self) -> dict[str, Any]:
        """The run's public settings (never an API key)."""
        return {"method": self.method, **self.options.public_dict()}

    def run(self, cases: Iterable[TestCase | Mapping[str, Any]], *, progress: Progress | None = None,
            should_stop: Callable[[], bool] | None = None, chunk_size: int | None = None) -> RunResult:
        """Evaluate ``cases`` (see :func:`evaluate_batch`)."""
        method, opts = self.method, self.options
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        t0 = time.perf_counter()
        case_list = [as_test_case(c, i) for i, c in enumerate(cases)]
        total = len(case_list)
        results: list[CaseResult | None] = [None] * total
        pending = _sentencize(case_list, method, results)
        if progress:
            progress(total - len(pending), total)
        warnings: list[str] = []
        t_label, cancelled = 0.0, False
        if pending:
            impl = self.impl
            try:  # a method that must see the whole run before its chunks (selective hybrid)
                impl.prepare([it for _, it in pending], opts)
            except Exception as exc:  # noqa: BLE001 - reported; label() copes without it
                warnings.append(f"{method}: prepare failed ({type(exc).__name__}: {exc}); "
                                "each chunk was labeled on its own")
            step = max(1, chunk_size or int(impl.chunk_size or CHUNK_SIZE))
            t_label, cancelled = _label_chunks(impl, pending, opts, method, step, results,
                                               progress, should_stop, self.engine, self.ray_address)
        final = [r for r in results if r is not None]
        t_metrics = 0.0
        tm = time.perf_counter()
        if opts.metrics:
            final = _add_family_metrics(final, opts)
        settings = self.settings
        if opts.retrieval_run is None:  # this call is the whole run: decide its matching over it
            opts = with_plan(opts, case_list)
            settings = {**settings, "retrieval_run": opts.retrieval_run.model_dump() if opts.retrieval_run else None}
        if opts.citation_run is None:  # likewise whether it is judged for citations
            opts = with_citation_plan(opts, case_list)
            settings = {**settings, "citation_run": opts.citation_run.model_dump() if opts.citation_run else None}
        final = _add_retrieval_metrics(final, opts)
        final, tool_warnings = _add_tool_call_metrics(final, opts)
        warnings += tool_warnings
        final, goal_warnings = _add_goal_accuracy(final, opts)
        warnings += goal_warnings
        final = _add_citation_metrics(final, opts)
        final = _add_answer_metrics(final, opts, method)
        t_metrics = time.perf_counter() - tm
        return RunResult(
            method=method,
            results=tuple(final),
            settings=settings,
            timings={"total_s": time.perf_counter() - t0, "labeling_s": t_label, "metrics_s": t_metrics},
            usage=Usage.total(r.usage for r in final),
            started_at=started,
            cancelled=cancelled,
            warnings=tuple(warnings),
        )


def evaluate_batch(
    cases: Iterable[TestCase | Mapping[str, Any]],
    method: str = "trace",
    *,
    options: EvalOptions | None = None,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    chunk_size: int | None = None,
    engine: str = "local",
    ray_address: str | None = None,
    **option_overrides: Any,
) -> RunResult:
    """Evaluate many cases with one method.

    ``option_overrides`` are ``EvalOptions`` fields (``metrics=[...]``, ``llm=LLMSettings(...)``, …).
    ``should_stop()`` is checked between chunks: when it returns True the run ends early and the
    result holds what finished (``cancelled=True``). ``chunk_size`` (cases per labeler call, progress
    and cancel step) defaults to the method's own ``chunk_size``.
    ``engine="ray"`` labels the chunks on Ray workers (offline methods; ``ray_address`` for an
    existing cluster; see ``engines.ray_engine``) with the same results, in input order.
    For a run evaluated in several calls (chunks of a file), build one :class:`Evaluation`.
    """
    return Evaluation(method, options, engine=engine, ray_address=ray_address, **option_overrides).run(
        cases, progress=progress, should_stop=should_stop, chunk_size=chunk_size)


def _sentencize(case_list: list[TestCase], method: str, results: list[CaseResult | None]
                ) -> list[tuple[int, SentencizedCase]]:
    """(index, sentencized case) of every case that can be labeled; the others get their reason
    in ``results``."""
    pending: list[tuple[int, SentencizedCase]] = []
    for i, case in enumerate(case_list):
        reason = _precheck(case)
        if reason is None:
            try:
                pending.append((i, sentencize_case(case)))
                continue
            except Exception as exc:  # noqa: BLE001 - one bad case must not sink the run
                reason = f"could not split into sentences: {exc}"
        results[i] = CaseResult(case=case, method=method, error=reason)
    return pending


def _label_chunks(impl: Method, pending: list[tuple[int, SentencizedCase]], opts: EvalOptions, method: str,
                  step: int, results: list[CaseResult | None], progress: Progress | None,
                  should_stop: Callable[[], bool] | None, engine: str = "local",
                  ray_address: str | None = None) -> tuple[float, bool]:
    """Label ``pending`` chunk by chunk into ``results``; (labeling seconds, cancelled)."""
    total = len(results)
    done = total - len(pending)
    chunks = [pending[s:s + step] for s in range(0, len(pending), step)]
    labeled: Iterator[tuple[list[LabelOutcome], float]] | None = None
    if engine == "ray" and chunks:
        from .engines.ray_engine import label_chunks

        labeled = label_chunks([[it for _, it in c] for c in chunks], method, opts, address=ray_address,
                               should_stop=should_stop)
    t_label = 0.0
    for chunk in chunks:
        if should_stop and should_stop():
            return t_label, True
        if labeled is not None:
            outs, dt = next(labeled)
        else:
            outs, dt = _label_local(impl, [it for _, it in chunk], method, opts,
                                    _ticker(progress, done, len(chunk), total))
        t_label += dt
        per_case = dt / max(1, len(chunk))
        for (i, item), out in zip(chunk, outs):
            results[i] = _to_result(item, method, out, per_case)
        done += len(chunk)
        if progress:
            progress(done, total)
    return t_label, False


def _ticker(progress: Progress | None, done: int, size: int, total: int) -> Callable[[int], None]:
    """The ``tick`` given to a method for one chunk: reports ``done`` + the cases ticked so far
    (at most the chunk's size; the chunk's end is reported by the caller). Thread-safe."""
    if progress is None:
        return lambda n: None
    lock = threading.Lock()
    ticked = [0]

    def tick(n: int) -> None:
        with lock:
            before = ticked[0]
            ticked[0] = min(size, before + max(0, int(n)))
            now = ticked[0]
        if size > now > before:  # the chunk's last case is reported once the chunk is stored
            progress(done + now, total)

    return tick


def _label_local(impl: Any, items: list[SentencizedCase], method: str, opts: EvalOptions,
                 tick: Callable[[int], None] | None = None) -> tuple[list[LabelOutcome], float]:
    tc = time.perf_counter()
    try:
        outs = impl.label(items, opts, tick or (lambda n: None))
        if len(outs) != len(items):
            raise RuntimeError(f"method returned {len(outs)} outcomes for {len(items)} cases")
    except Exception as exc:  # noqa: BLE001 - the chunk is flagged, the run goes on
        outs = [LabelOutcome(error=f"{method} failed: {type(exc).__name__}: {exc}")] * len(items)
    return list(outs), time.perf_counter() - tc


def _add_family_metrics(results: list[CaseResult], opts: EvalOptions) -> list[CaseResult]:
    from .families import compute_metrics_with_usage  # lazy: families may load models

    per_case: list[dict[str, MetricValue]]
    per_case, usages = compute_metrics_with_usage(results, opts)
    return [r.model_copy(update={"metrics": m, "usage": r.usage + u})
            for r, m, u in zip(results, per_case, usages)]


def _add_retrieval_metrics(results: list[CaseResult], opts: EvalOptions) -> list[CaseResult]:
    """Each case's retrieval metrics (``evaluators.retrieval``) after its family metrics; nothing
    when the run carries no reference passage."""
    per_case = score_cases([r.case for r in results], opts)
    return [r.model_copy(update={"metrics": {**r.metrics, **m}}) if m else r for r, m in zip(results, per_case)]


def _add_tool_call_metrics(results: list[CaseResult], opts: EvalOptions) -> tuple[list[CaseResult], list[str]]:
    """Each case's tool-call metrics (``evaluators.toolcalls``) and the run's warnings about them;
    nothing when no case has tool calls or reference tool calls."""
    per_case, warnings = score_tool_calls([r.case for r in results], opts.tool_call_order)
    out = [r.model_copy(update={"metrics": {**r.metrics, **m}}) if m else r for r, m in zip(results, per_case)]
    return out, warnings


def _add_goal_accuracy(results: list[CaseResult], opts: EvalOptions) -> tuple[list[CaseResult], list[str]]:
    """Each agent case's ``goal_accuracy`` (one LLM call, or the reason it has none:
    ``evaluators.toolcalls.goal``) and its usage; nothing for a run of no agent."""
    from .toolcalls.goal import judge

    values, usages, warnings = judge(results, opts)
    out = [r if v is None else r.model_copy(update={"metrics": {v.name: v, **r.metrics}, "usage": r.usage + u})
           for r, v, u in zip(results, values, usages)]
    return out, warnings



def _add_citation_metrics(results: list[CaseResult], opts: EvalOptions) -> list[CaseResult]:
    """Each case's citation metrics (``evaluators.citations``) when the run cites (``opts.citation_run``,
    decided over all its cases); nothing otherwise."""
    per_case = citation_metrics(results, opts.citation_run)
    return [r.model_copy(update={"metrics": {**r.metrics, **m}}) if m else r for r, m in zip(results, per_case)]


def _add_answer_metrics(results: list[CaseResult], opts: EvalOptions, method: str) -> list[CaseResult]:
    """Each scored case's answer metrics (``evaluators.answers``) after its retrieval metrics (which
    they read); LLM usage of the correctness calls added to the case's."""
    per_case, usages = score_answers(results, opts, method)
    return [r.model_copy(update={"metrics": {**r.metrics, **m}, "usage": r.usage + u}) if m else r
            for r, m, u in zip(results, per_case, usages)]


def evaluate(case: TestCase | Mapping[str, Any], method: str = "trace", **kwargs: Any) -> CaseResult:
    """Evaluate one case; same options as :func:`evaluate_batch`."""
    return evaluate_batch([case], method, **kwargs).results[0]


def estimate(
    cases: Iterable[TestCase | Mapping[str, Any]],
    method: str = "trace",
    options: EvalOptions | None = None,
    **option_overrides: Any,
) -> dict[str, Any]:
    """Dry run: LLM calls, tokens and cost ``method`` would spend on ``cases``; nothing is called.

    Returns ``{method, cases, calls, cached_calls, prompt_tokens, completion_tokens, cost_usd,
    price_known, ...}``; ``calls`` excludes cases already in the local cache (``cached_calls``).
    Tokens are approximated offline (characters / 4). ``trace`` makes 0 calls.
    """
    spec = get_method(method)
    opts = options or EvalOptions()
    if option_overrides:
        opts = EvalOptions(**{**dict(opts), **option_overrides})
    case_list = [as_test_case(c, i) for i, c in enumerate(cases)]
    items: list[SentencizedCase] = []
    skipped = 0
    for case in case_list:
        if _precheck(case) is not None:
            skipped += 1
            continue
        try:
            items.append(sentencize_case(case))
        except Exception:  # noqa: BLE001 - the real run reports it
            skipped += 1
    out: dict[str, Any] = {"method": method, **spec.build().estimate(items, opts)}
    out["skipped_cases"] = skipped
    if opts.metrics:  # family metrics' own LLM calls (reported apart from the method's)
        from .families import estimate_metric_cost

        out["family_metrics"] = estimate_metric_cost([it.case for it in items], opts)
    if (answers := estimate_answers([it.case for it in items], opts, method)) is not None:
        out["answer_correctness"] = answers  # one correctness call per case with a reference (LLM methods)
    from .toolcalls.goal import estimate as estimate_goal

    goal = estimate_goal([it.case for it in items], opts)
    if goal is not None:  # an agent's goal accuracy: one call per case (reported apart from the method's)
        out["goal_accuracy"] = goal
    return out


"""Run the selected family metrics over scored cases.

Order: validate names and parameters → per case, skip metrics whose inputs are missing → plan the
LLM tasks of the rest → make the grouped calls (two stages, concurrency across cases) → embed every
needed text in one batch → compute each metric → aggregates last. Every requested metric appears
for every case, with a value or the reason it was skipped; nothing here raises for one bad case.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

from ..citations import DECLARATIONS as CITATION_DECLARATIONS
from ..citations import FAMILY as CITATIONS_FAMILY
from ..registry import RegistryError
from ..retrieval import DECLARATIONS as RETRIEVAL_DECLARATIONS
from ..retrieval import FAMILY as RETRIEVAL_FAMILY
from ..retrieval import is_retrieval_metric
from ..toolcalls import FAMILY as TOOLCALLS_FAMILY
from ..toolcalls import is_toolcall_metric
from ..types import CaseResult, MetricValue, Usage
from .base import METRICS, Ctx, Metric, Skip, get_metric, has_input
from .llm_groups import Needs, run_groups
from .trace import FAMILY as TRACE_FAMILY


class UnknownMetricError(RegistryError, ValueError):
    """An unknown metric name (the message lists the valid ones)."""


def _dedupe(names: Iterable[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        n = str(n).strip()
        if n and n not in out:
            out.append(n)
    return out


#: Families computed without being requested: TRACE (from the labels), retrieval (with references),
#: tool calls (with tool calls), citations (when responses cite).
ALWAYS_COMPUTED = (TRACE_FAMILY, RETRIEVAL_FAMILY, TOOLCALLS_FAMILY, CITATIONS_FAMILY)


def family_metric_names() -> list[str]:
    """Names of the metrics a run may request (every registered metric but the TRACE and retrieval
    ones, which are always computed), registry order."""
    return [n for n, m in METRICS.items() if m.family not in ALWAYS_COMPUTED]


def resolve(names: Iterable[str], metric_params: Mapping[str, Mapping[str, Any]] | None = None
            ) -> list[tuple[Metric, dict[str, Any]]]:
    """(metric, normalised params) per requested name, in order. Raises ``UnknownMetricError`` /
    ``MetricParamError`` (both ValueError) with a clear message."""
    params = metric_params or {}
    out: list[tuple[Metric, dict[str, Any]]] = []
    names = _dedupe(names)
    known = family_metric_names()
    valid = ", ".join(sorted(known))
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UnknownMetricError(f"unknown metric(s) {', '.join(map(repr, unknown))}; valid: {valid}"
                                 + _trace_hint(unknown))
    stray = [k for k in params if k not in known]
    if stray:
        raise UnknownMetricError(f"metric_params names unknown metric(s) {', '.join(map(repr, stray))}; "
                                 f"valid: {valid}")
    for n in names:
        m = get_metric(n)
        out.append((m, m.normalized_params(params.get(n))))
    selected = set(names)
    for m, p in out:
        if m.aggregate and p.get("metrics"):
            absent = [x for x in p["metrics"] if x not in selected]
            if absent:
                raise UnknownMetricError(
                    f"metric {m.name!r}: aggregates {', '.join(absent)} which are not selected; add "
                    "them to the metrics")
    return out


def _trace_hint(names: list[str]) -> str:
    trace = [n for n in names if n in METRICS and get_metric(n).family == TRACE_FAMILY]
    retrieval = [n for n in names if is_retrieval_metric(n) or n in RETRIEVAL_DECLARATIONS]
    out = (f" ({', '.join(trace)}: TRACE metric(s), computed for every case without being requested)"
           if trace else "")
    if retrieval:
        out += (f" ({', '.join(retrieval)}: retrieval metric(s), computed for every case with reference passages "
                "without being requested; choose the cutoffs with --k / retrieval_k)")
    tools = [n for n in names if is_toolcall_metric(n)]
    if tools:
        out += (f" ({', '.join(tools)}: tool-call metric(s), computed for every case with tool calls without "
                "being requested)")
    cites = [n for n in names if n in CITATION_DECLARATIONS]
    if cites:
        out += (f" ({', '.join(cites)}: citation metric(s), computed for every case of a run whose responses "
                "carry citation markers without being requested)")
    return out


def validate_metric_names(names: Iterable[str],
                          metric_params: Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
    """Check names (and, when given, their parameters) before a run; returns the de-duplicated names."""
    return [m.name for m, _ in resolve(names, metric_params)]


def _missing_inputs(metric: Metric, case, params: Mapping[str, Any]) -> list[str]:
    return [i for i in metric.inputs if not has_input(case, i, params)]


def _finish(metric: Metric, value: Any, details: dict[str, Any]) -> MetricValue:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return MetricValue(name=metric.name, family=metric.family,
                           skipped=f"metric produced a non-numeric value {value!r}", details=details)
    if not math.isfinite(v):
        return MetricValue(name=metric.name, family=metric.family,
                           skipped="metric produced a non-finite value", details=details)
    return MetricValue(name=metric.name, family=metric.family, value=v, details=details)


def _embed_all(texts: list[str]) -> tuple[dict[str, Any], str | None]:
    uniq = list(dict.fromkeys(t for t in texts if t is not None))
    if not uniq:
        return {}, None
    from . import embed

    try:
        vecs = embed.encode(uniq)
    except Exception as exc:  # noqa: BLE001 - a missing model must not sink the run
        return {}, f"embeddings unavailable: {type(exc).__name__}: {exc}"
    return {t: vecs[i] for i, t in enumerate(uniq)}, None


def compute_metrics_with_usage(results: Sequence[CaseResult], opts: Any
                               ) -> tuple[list[dict[str, MetricValue]], list[Usage]]:
    resolved = resolve(opts.metrics, opts.metric_params)
    selected = tuple(m.name for m, _ in resolved)
    cases = [r.case for r in results]
    llm_configured = getattr(opts, "llm", None) is not None
    dry_run = bool(getattr(opts, "dry_run", False))

    needs, pre = plan_needs(cases, resolved, llm_configured)
    groups = run_groups(cases, needs, getattr(opts, "llm", None), dry_run)

    texts: list[str] = []
    for i, case in enumerate(cases):
        for m, p in resolved:
            if m.embed_texts is not None and m.name not in pre[i]:
                try:
                    texts.extend(m.embed_texts(case, p, groups[i]))
                except Exception:  # noqa: BLE001 - compute will report it
                    pass
    vectors, embed_error = _embed_all(texts)

    out: list[dict[str, MetricValue]] = []
    usages: list[Usage] = []
    for i, case in enumerate(cases):
        values: dict[str, MetricValue] = {}
        for m, p in sorted(resolved, key=lambda mp: mp[0].aggregate):
            if m.name in pre[i]:
                values[m.name] = pre[i][m.name]
                continue
            ctx = Ctx(case=case, params=p, groups=groups[i], embeddings=vectors, values=values,
                      selected=selected, tasks=frozenset(needs[i].tasks), scores=results[i].scores)
            details: dict[str, Any] = {}
            try:
                if m.needs_embeddings and embed_error and m.embed_texts and m.embed_texts(case, p, groups[i]):
                    raise Skip(embed_error)
                res = m.compute(ctx)
                value, extra = res if isinstance(res, tuple) else (res, {})
                details.update(extra)
                mv_ok = True
            except Skip as exc:
                mv_ok, value, reason = False, None, str(exc)
            except Exception as exc:  # noqa: BLE001 - one metric must not sink the case
                mv_ok, value, reason = False, None, f"error: {type(exc).__name__}: {exc}"
            if ctx.used_groups:
                used = [groups[i][g] for g in ctx.used_groups if g in groups[i]]
                details["llm_calls"] = list(ctx.used_groups)
                u = Usage.total(o.usage for o in used)
                if u.calls or u.cached_calls:
                    details["usage"] = u.model_dump()
                notes = [n for o in used for n in o.notes]
                if notes:
                    details["llm_notes"] = notes
                est = [o.meta.get("estimated_llm_calls") for o in used if "estimated_llm_calls" in o.meta]
                if est:
                    details["estimated_llm_calls_case"] = est[0]
            values[m.name] = _finish(m, value, details) if mv_ok else MetricValue(
                name=m.name, family=m.family, skipped=reason, details=details)
            if m.name == "aspect_critique" and mv_ok:
                for a, v in details.get("verdicts", {}).items():
                    key = f"aspect_critique.{a}"
                    values[key] = MetricValue(name=key, family=m.family, value=float(v),
                                              details={"votes": details["votes"][a],
                                                       "direction": details["directions"][a]})
        ordered = {n: values[n] for n in selected}
        ordered.update({k: v for k, v in values.items() if k not in ordered})
        out.append(ordered)
        usages.append(Usage.total(o.usage for o in groups[i].values()))
    return out, usages


def plan_needs(cases: Sequence[Any], resolved: Sequence[tuple[Metric, dict[str, Any]]],
               llm_configured: bool) -> tuple[list[Needs], list[dict[str, MetricValue]]]:
    """Per case: the LLM tasks of the metrics whose inputs are present, and the pre-skips."""
    pre: list[dict[str, MetricValue]] = [{} for _ in cases]
    needs: list[Needs] = [Needs() for _ in cases]
    for i, case in enumerate(cases):
        for m, p in resolved:
            if m.aggregate:
                continue
            missing = _missing_inputs(m, case, p)
            if missing:
                pre[i][m.name] = MetricValue(name=m.name, family=m.family,
                                             skipped=f"missing input: {', '.join(missing)}")
                continue
            if m.plan is not None:
                try:
                    m.plan(case, p, needs[i], llm_configured)
                except Exception as exc:  # noqa: BLE001
                    pre[i][m.name] = MetricValue(name=m.name, family=m.family,
                                                 skipped=f"error: {type(exc).__name__}: {exc}")
    return needs, pre


def estimate_metric_cost(cases: Sequence[Any], opts: Any) -> dict[str, Any]:
    """Dry-run estimate of the family metrics' LLM calls / tokens / cost (no network).

    ``{calls, prompt_tokens, completion_tokens, cost_usd, price_known, model, calls_per_case}``;
    zeros when no selected metric needs an LLM or no LLM is configured."""
    from .llm_groups import estimate_prompts

    resolved = resolve(opts.metrics, opts.metric_params)
    settings = getattr(opts, "llm", None)
    needs, _ = plan_needs(cases, resolved, settings is not None)
    prompts: list[tuple[str, int]] = []
    for c, n in zip(cases, needs):
        if n.tasks:
            prompts.extend(estimate_prompts(c, n))
    if settings is None or not prompts:
        return {"calls": len(prompts) if settings is not None else 0, "prompt_tokens": 0,
                "completion_tokens": 0, "cost_usd": 0.0, "price_known": True, "model": None,
                "calls_per_case": 0.0}
    from ..llm import estimate_cost

    est = estimate_cost([p for p, _ in prompts], settings, [o for _, o in prompts])
    est["calls_per_case"] = len(prompts) / max(1, len(cases))
    return est


def compute_metrics(results: Sequence[CaseResult], opts: Any) -> list[dict[str, MetricValue]]:
    """One dict per case (in order) with every name in ``opts.metrics``: a value or a skip reason.
    ``aspect_critique`` also adds ``aspect_critique.<aspect>`` (each aspect's 0/1 verdict)."""
    return compute_metrics_with_usage(results, opts)[0]


def list_metrics(include_trace: bool = False) -> list[dict[str, Any]]:
    """Declarations of the requestable metrics (name, family, inputs, range, direction, needs_llm,
    needs_embeddings, llm_calls_per_case, description, ...), registry order; with
    ``include_trace`` the always-computed ones too: the TRACE metrics and the retrieval metrics (one
    declaration per kind, named ``ndcg@K``: ``evaluators.retrieval.template`` maps ``ndcg@5`` to it)."""
    return [m.declaration() for _, m in METRICS.items() if include_trace or m.family not in ALWAYS_COMPUTED]

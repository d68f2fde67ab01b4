"""ragas_score and overall_score: per-case aggregates of the other selected metrics."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from .base import Ctx, Family, Metric, MetricParamError, Skip, get_metric, register
from .params import as_str_list
from .verdicts import oriented


def _norm(metric: str, family: str):
    def norm(p: Mapping[str, Any]) -> dict[str, Any]:
        names = as_str_list(metric, p, "metrics", None)
        for n in names or []:
            try:
                m = get_metric(n)
            except KeyError:
                raise MetricParamError(f"metric {metric!r}: 'metrics' names unknown metric {n!r}") from None
            if m.family != family or m.aggregate:
                raise MetricParamError(f"metric {metric!r}: 'metrics' may only name {family} metrics, "
                                       f"not {n!r}")
        return {"metrics": names}
    return norm


def _components(ctx: Ctx, family: str) -> tuple[list[tuple[str, float]], dict[str, str]]:
    names = ctx.params.get("metrics") or [
        n for n in ctx.selected if get_metric(n).family == family and not get_metric(n).aggregate]
    used: list[tuple[str, float]] = []
    missing: dict[str, str] = {}
    for n in names:
        mv = ctx.values.get(n)
        if mv is None:
            missing[n] = "not selected in this run"
        elif mv.value is None:
            missing[n] = mv.skipped or "no value"
        else:
            used.append((n, oriented(get_metric(n), mv.value)))
    if not used:
        if not names:
            raise Skip(f"no other {family} metric selected to aggregate")
        raise Skip(f"none of {', '.join(names)} has a value for this case")
    return used, missing


def _harmonic_mean(vals: list[float]) -> float:
    return 0.0 if min(vals) <= 0 else len(vals) / sum(1.0 / v for v in vals)


def _mean(vals: list[float]) -> float:
    return sum(vals) / len(vals)


def _aggregate(name: str, family: Family, combine: Callable[[list[float]], float], description: str,
               formula: str, example: str) -> Metric:
    """A per-case aggregate of the other ``family`` metrics (oriented values) by ``combine``."""
    def compute(ctx: Ctx):
        used, missing = _components(ctx, family)
        return combine([v for _, v in used]), {"components": {n: v for n, v in used},
                                               "not_included": missing}

    return Metric(name=name, family=family, description=description, formula=formula, example=example,
                  inputs=(), aggregate=True,
                  reference_llm_calls="0", param_names=("metrics",), normalize=_norm(name, family),
                  compute=compute)


register(_aggregate(
    "ragas_score", "ragas", _harmonic_mean,
    "Harmonic mean of the selected ragas metrics of the case (or those named in "
    "params 'metrics'); lower-is-better aspects enter as 1 - value; skipped metrics are "
    "left out and listed.",
    "n / Σ_i 1/v_i over the selected ragas metrics (lower-is-better ones as 1 − v)",
    "faithfulness 0.8 and answer_relevancy 0.6 → 0.69"))

register(_aggregate(
    "overall_score", "tonic", _mean,
    "Mean of the normalised selected Tonic metrics of the case (answer_similarity / 5; "
    "lower-is-better metrics — duplication, hate speech, PII — enter as 1 - value); "
    "skipped metrics are left out and listed.",
    "mean of the selected Tonic metrics (answer_similarity / 5; lower-is-better ones as 1 − v)",
    "answer_consistency 0.8 and answer_similarity 4 → (0.8 + 0.8) / 2 = 0.80"))

"""The one metric interface of the ragas / Tonic Validate families.

A :class:`Metric` is an immutable declaration: its name, family, the inputs it needs, its range and
direction, whether it needs an LLM or embeddings, how many LLM calls it makes per case, the
parameters it accepts, and a pure ``compute(ctx)`` that returns a value (or raises :class:`Skip`
with a reason). Metrics never call an SDK: LLM work is planned and made by ``llm_groups`` (through
``evaluators.llm``) before ``compute`` runs, and shared between the metrics of a case.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping

from ..registry import Registry, RegistryError
from ..types import MetricValue, TestCase, TraceScores

if TYPE_CHECKING:  # pragma: no cover
    from .llm_groups import GroupOutcome

Family = Literal["ragas", "tonic", "trace", "retrieval", "toolcalls", "citations"]
Input = Literal["question", "response", "documents", "ground_truth", "latency"]
Direction = Literal["higher", "lower"]

INPUTS: tuple[str, ...] = ("question", "response", "documents", "ground_truth", "latency")


class Skip(Exception):
    """Raised by ``compute`` (or the runner) to skip a metric for one case, with the reason."""


class MetricParamError(ValueError):
    """Bad ``metric_params`` for a metric (raised early, before any case is evaluated)."""


#: ``normalize(params) -> params``: validate and fill defaults; raise ``MetricParamError``.
Normalizer = Callable[[Mapping[str, Any]], dict[str, Any]]


@dataclass
class Ctx:
    """What ``compute`` sees for one case (transient, built by the runner)."""

    case: TestCase
    params: Mapping[str, Any]
    #: LLM group outcomes of this case by group name (see ``llm_groups``).
    groups: Mapping[str, "GroupOutcome"] = field(default_factory=dict)
    #: text -> L2-normalised embedding (only texts the runner prepared).
    embeddings: Mapping[str, Any] = field(default_factory=dict)
    #: Metric values of this case computed so far (aggregates read them).
    values: Mapping[str, MetricValue] = field(default_factory=dict)
    #: Every metric requested in the run, in order.
    selected: tuple[str, ...] = ()
    #: The LLM tasks planned for this case (``llm_groups.Needs.tasks``).
    tasks: frozenset[str] = frozenset()
    #: Group names read by compute (filled by :meth:`group`).
    used_groups: list[str] = field(default_factory=list)
    #: The case's TRACE scores (None when it could not be labeled).
    scores: TraceScores | None = None

    def group(self, name: str):
        """The parsed reply of one LLM group, or :class:`Skip` with the reason it is missing."""
        out = self.groups.get(name)
        if out is None:
            raise Skip(f"internal: LLM group {name!r} was not planned")
        if name not in self.used_groups:
            self.used_groups.append(name)
        if out.error is not None:
            raise Skip(out.error)
        return out.value

    def embedding(self, text: str):
        try:
            return self.embeddings[text]
        except KeyError:
            raise Skip("embedding not available") from None


@dataclass(frozen=True)
class Metric:
    name: str
    family: Family
    description: str
    #: Inputs the metric cannot do without.
    inputs: tuple[str, ...]
    compute: Callable[[Ctx], "float | tuple[float, dict[str, Any]]"]
    range: tuple[float, float] = (0.0, 1.0)
    direction: Direction = "higher"
    #: Always needs an LLM (metrics whose LLM use depends on parameters say False and explain).
    needs_llm: bool = False
    needs_embeddings: bool = False
    #: Our LLM calls per case with default parameters (shared calls counted for each metric).
    llm_calls_per_case: int = 0
    #: How those calls are made / shared (README and dashboard).
    llm_calls_note: str = ""
    #: What the reference library (ragas / Tonic Validate) makes per case, where known.
    reference_llm_calls: str = ""
    binary: bool = False
    #: Aggregates (ragas_score, overall_score) run after every other metric of the case.
    aggregate: bool = False
    #: Accepted parameter names (``metric_params[name]`` keys).
    param_names: tuple[str, ...] = ()
    normalize: Normalizer | None = None
    #: ``plan(case, params, needs, llm_available)``: add this metric's LLM tasks to ``needs``
    #: (``llm_groups.Needs``); None for metrics that never call an LLM.
    plan: Callable[[TestCase, dict[str, Any], Any, bool], None] | None = None
    #: ``embed_texts(case, params, groups) -> texts`` to embed before ``compute`` (batched per run).
    embed_texts: Callable[[TestCase, dict[str, Any], Mapping[str, Any]], list[str]] | None = None
    #: The formula in one line (docs/metrics.md, README, the dashboard's help and glossary).
    formula: str = ""
    #: A one-line worked example: inputs -> value.
    example: str = ""

    @property
    def offline(self) -> bool:
        return not self.needs_llm

    def normalized_params(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        params = dict(params or {})
        unknown = sorted(k for k in params if k not in self.param_names)
        if unknown:
            allowed = ", ".join(self.param_names) or "(none)"
            raise MetricParamError(
                f"metric {self.name!r}: unknown parameter(s) {', '.join(unknown)}; accepted: {allowed}"
            )
        return self.normalize(params) if self.normalize else params

    def declaration(self) -> dict[str, Any]:
        """The public description of the metric (dashboard multiselect, README table)."""
        return {
            "name": self.name,
            "family": self.family,
            "inputs": list(self.inputs),
            "range": list(self.range),
            "direction": self.direction,
            "needs_llm": self.needs_llm,
            "needs_embeddings": self.needs_embeddings,
            "llm_calls_per_case": self.llm_calls_per_case,
            "description": self.description,
            "formula": self.formula,
            "example": self.example,
            "llm_calls_note": self.llm_calls_note,
            "reference_llm_calls": self.reference_llm_calls,
            "binary": self.binary,
            "offline": self.offline,
            "params": list(self.param_names),
        }


METRICS: Registry[Metric] = Registry("metric")


def register(metric: Metric) -> Metric:
    """Add a metric to the registry (duplicate names raise ``RegistryError``)."""
    return METRICS.register(metric.name, metric)


def get_metric(name: str) -> Metric:
    return METRICS.get(name)


# ---------------------------------------------------------------------------------------------
# helpers shared by metric modules


def has_input(case: TestCase, name: str, params: Mapping[str, Any] | None = None) -> bool:
    if name == "question":
        return bool(case.question and case.question.strip())
    if name == "response":
        return bool(case.response and case.response.strip())
    if name == "documents":
        return any(d and d.strip() for d in case.documents)
    if name == "ground_truth":
        return bool(case.ground_truth and case.ground_truth.strip())
    if name == "latency":
        column = (params or {}).get("column", "latency")
        return latency_of(case, column) is not None
    raise ValueError(f"unknown input {name!r}")


def latency_of(case: TestCase, column: str = "latency") -> float | None:
    """Seconds from ``case.metadata[column]`` (numbers, or strings like '1.2', '1.2s', '850ms'); with
    the default column and none such, the target runner's ``latency_s`` (a case ``run`` produced)."""
    raw = case.metadata.get(column)
    if raw is None and column == "latency":
        raw = case.metadata.get("latency_s")
    if raw is None or isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        val = float(raw)
    else:
        s = str(raw).strip().lower()
        scale = 1.0
        if s.endswith("ms"):
            s, scale = s[:-2], 1e-3
        elif s.endswith("s"):
            s = s[:-1]
        try:
            val = float(s.strip()) * scale
        except ValueError:
            return None
    return val if math.isfinite(val) and val >= 0 else None


__all__ = [
    "Ctx", "INPUTS", "METRICS", "Metric", "MetricParamError", "RegistryError", "Skip", "get_metric",
    "has_input", "latency_of", "register",
]

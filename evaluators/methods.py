"""The explicit registry of evaluation methods.

A method turns sentencized cases into ``LabelOutcome``s (labels or a reason). Metrics are then
computed from the labels by ``trace_metrics.compute`` — the same function for every method.
Implementations are imported lazily so that importing the library (or rendering the first
dashboard page) never loads torch or an SDK.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

from .options import EvalOptions
from .registry import Registry
from .types import LabelOutcome, SentencizedCase

#: ``tick(n)``: n more cases are done.
Tick = Callable[[int], None]


class Method(Protocol):
    def label(
        self, items: Sequence[SentencizedCase], options: EvalOptions, tick: Tick
    ) -> list[LabelOutcome]:
        """One outcome per item, in order. Must not raise for a single bad case: return an
        outcome with ``error`` instead."""
        ...


@dataclass(frozen=True)
class MethodSpec:
    id: str
    name: str
    description: str
    needs_llm: bool
    #: "module:attribute" of a zero-argument factory returning a Method.
    target: str

    def build(self) -> Method:
        mod, _, attr = self.target.partition(":")
        return getattr(importlib.import_module(mod), attr)()


METHODS: Registry[MethodSpec] = Registry("method")

for _spec in (
    MethodSpec(
        "trace",
        "TRACE (heuristic, offline)",
        "Offline sentence labels from embedded embeddings plus lexical evidence. No key, fast.",
        False,
        "evaluators.labelers.heuristic:HeuristicMethod",
    ),
    MethodSpec(
        "gpt_labeling",
        "GPT labeling (RAGBench, 1 LLM call/case)",
        "One LLM call per case labels every document and response sentence. Needs an LLM.",
        True,
        "evaluators.labelers.llm:LLMMethod",
    ),
    MethodSpec(
        "hybrid",
        "Hybrid (heuristic + LLM, with agreement)",
        "Both labelers on every case (or, in selective mode, the LLM only where the heuristic is "
        "least sure), with per-case agreement. Needs an LLM.",
        True,
        "evaluators.labelers.hybrid:HybridMethod",
    ),
    MethodSpec(
        "jury",
        "Jury (several LLMs, majority vote)",
        "Several models label the same case; sentence-level majority vote. Needs LLMs.",
        True,
        "evaluators.labelers.hybrid:JuryMethod",
    ),
):
    METHODS.register(_spec.id, _spec)


def get_method(name: str) -> MethodSpec:
    return METHODS.get(name)


def get_evaluation_methods() -> list[dict[str, str]]:
    """[{id, name, description}, ...] as in the published description."""
    return [
        {"id": s.id, "name": s.name, "description": s.description} for _, s in METHODS.items()
    ]

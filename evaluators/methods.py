"""The explicit registry of evaluation methods, and the contract every method fulfils.

A method turns sentencized cases into ``LabelOutcome``s (labels or a reason). Metrics are then
computed from the labels by ``trace_metrics.compute`` — the same function for every method.
Implementations are imported lazily so that importing the library (or rendering the first
dashboard page) never loads torch or an SDK.

Adding a method = one module with a ``BaseMethod`` subclass (override ``label``; the rest has
defaults) plus one ``MethodSpec`` line below. The pipeline, the dry-run estimate and the
dashboard's warm-up all reach the method only through this contract:

* ``label(items, options, tick)`` — one outcome per item, in order (never raising for one case);
* ``prepare(items, options)`` — called once with every case of the run before the chunks (e.g.
  selective hybrid ranks cases globally); a failure is reported in ``RunResult.warnings``;
* ``chunk_size`` — cases per ``label`` call (progress and cancel step);
* ``estimate(items, options)`` — LLM calls / tokens / cost the method would spend; no call made;
* ``warm_up()`` — load what the first ``label`` call would load (models), so the UI can do it
  before the user waits.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from .options import EvalOptions
from .registry import Registry
from .types import LabelOutcome, SentencizedCase

#: ``tick(n)``: n more cases are done.
Tick = Callable[[int], None]

#: Cases per ``label`` call unless a method says otherwise.
CHUNK_SIZE = 64

#: The members of the contract (``MethodSpec.build`` checks an implementation has them all).
CONTRACT = ("label", "prepare", "chunk_size", "estimate", "warm_up")


class Method(Protocol):
    chunk_size: int

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick: Tick) -> list[LabelOutcome]:
        """One outcome per item, in order. Must not raise for a single bad case: return an
        outcome with ``error`` instead."""
        ...

    def prepare(self, items: Sequence[SentencizedCase], options: EvalOptions) -> None:
        """See every case of the run before the chunks are labeled."""
        ...

    def estimate(self, items: Sequence[SentencizedCase], options: EvalOptions) -> dict[str, Any]:
        """{cases, calls, cached_calls, prompt_tokens, completion_tokens, cost_usd, price_known, ...}"""
        ...

    def warm_up(self) -> None:
        """Load models / resources now instead of on the first ``label`` call."""
        ...


def no_llm_estimate(items: Sequence[SentencizedCase]) -> dict[str, Any]:
    """The estimate of a method that makes no LLM call."""
    return {"cases": len(items), "calls": 0, "cached_calls": 0, "prompt_tokens": 0,
            "completion_tokens": 0, "cost_usd": 0.0, "price_known": True}


class BaseMethod:
    """Defaults of the contract: 64 cases per chunk, nothing to prepare or warm up, no LLM call."""

    chunk_size: int = CHUNK_SIZE

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick: Tick) -> list[LabelOutcome]:
        raise NotImplementedError

    def prepare(self, items: Sequence[SentencizedCase], options: EvalOptions) -> None:
        return None

    def estimate(self, items: Sequence[SentencizedCase], options: EvalOptions) -> dict[str, Any]:
        return no_llm_estimate(items)

    def warm_up(self) -> None:
        return None


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
        impl = getattr(importlib.import_module(mod), attr)()
        missing = [m for m in CONTRACT if not hasattr(impl, m)]
        if missing:
            raise TypeError(f"method {self.id!r} ({self.target}) lacks {', '.join(missing)}; "
                            "subclass evaluators.methods.BaseMethod")
        return impl


METHODS: Registry[MethodSpec] = Registry("method")

for _spec in (
    MethodSpec(
        "trace",
        "TRACE (heuristic, offline)",
        "Offline sentence labels from the embedded MiniLM's embeddings plus lexical evidence. No key, fast.",
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
        "evaluators.labelers.jury:JuryMethod",
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

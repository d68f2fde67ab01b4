"""The tool-call metrics, declared with the family metrics (family ``"toolcalls"``).

Like the retrieval metrics they are never *requested*: ``evaluate`` computes them for every case
with tool calls or reference tool calls (``evaluators.toolcalls``; ``goal_accuracy`` in runs with an
LLM, one call per case: ``evaluators.toolcalls.goal``). The declarations give the
glossary, the help texts, the comparison's direction and docs/metrics.md what each means.
:func:`evaluators.families.list_metrics` lists them only with ``include_trace=True``.
"""

from __future__ import annotations

from ..toolcalls import DECLARATIONS, FAMILY, GOAL
from .base import Ctx, Family, Metric, Skip, register

_FAMILY: Family = FAMILY  # type: ignore[assignment]


def _computed_elsewhere(ctx: Ctx) -> float:
    raise Skip("tool-call metrics are computed by evaluators.toolcalls for every case with tool calls")


_LLM = {"needs_llm": True, "llm_calls_per_case": 1, "reference_llm_calls": "1 (ragas AgentGoalAccuracy)",
        "llm_calls_note": "one call per agent case, in runs with an LLM (gpt_labeling, hybrid); not available offline"}
_NO_LLM = {"reference_llm_calls": "0", "llm_calls_note": "no LLM: the agent's tool calls against the reference calls"}

for _name, (_description, _formula, _example, _direction, _binary) in DECLARATIONS.items():
    register(Metric(
        name=_name, family=_FAMILY, description=_description, formula=_formula, example=_example,
        inputs=(), compute=_computed_elsewhere, binary=_binary, direction=_direction,  # type: ignore[arg-type]
        range=(0.0, 1.0) if _direction == "higher" else (0.0, float("inf")),
        **(_LLM if _name == GOAL else _NO_LLM),
    ))

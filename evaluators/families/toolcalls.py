"""The tool-call metrics, declared with the family metrics (family ``"toolcalls"``).

Like the retrieval metrics they are never *requested*: ``evaluate`` computes them for every case
with tool calls or reference tool calls (``evaluators.toolcalls``). The declarations give the
glossary, the help texts, the comparison's direction and docs/metrics.md what each means.
:func:`evaluators.families.list_metrics` lists them only with ``include_trace=True``.
"""

from __future__ import annotations

from ..toolcalls import DECLARATIONS, FAMILY
from .base import Ctx, Family, Metric, Skip, register

_FAMILY: Family = FAMILY  # type: ignore[assignment]


def _computed_elsewhere(ctx: Ctx) -> float:
    raise Skip("tool-call metrics are computed by evaluators.toolcalls for every case with tool calls")


for _name, (_description, _formula, _example, _direction, _binary) in DECLARATIONS.items():
    register(Metric(
        name=_name, family=_FAMILY, description=_description, formula=_formula, example=_example,
        inputs=(), compute=_computed_elsewhere, binary=_binary, direction=_direction,  # type: ignore[arg-type]
        range=(0.0, 1.0) if _direction == "higher" else (0.0, float("inf")),
        reference_llm_calls="0", llm_calls_note="no LLM: the agent's tool calls against the reference calls",
    ))

"""The answer metrics, declared with the family metrics (family ``"answers"``).

Like the TRACE and retrieval metrics they are never *requested*: ``evaluate`` computes them for every
scored case (``evaluators.answers``) — ``declined`` and ``over_refusal`` always, ``answer_correctness``,
``answer_recall`` and ``answer_precision`` for the runs with a reference answer (``ground_truth``).
Their declarations give the glossary, the help texts, the comparison's directions and docs/metrics.md
what each means. :func:`evaluators.families.list_metrics` lists them only with ``include_trace=True``.
"""

from __future__ import annotations

from ..answers.names import DECLARATIONS, FAMILY
from .base import Ctx, Family, Metric, Skip, register

_FAMILY: Family = FAMILY  # type: ignore[assignment]


def _computed_elsewhere(ctx: Ctx) -> float:
    raise Skip("answer metrics are computed by evaluators.answers for every scored case")


for _name, (_description, _formula, _example, _direction, _binary) in DECLARATIONS.items():
    register(Metric(
        name=_name, family=_FAMILY, description=_description, formula=_formula, example=_example,
        inputs=("question", "response"), compute=_computed_elsewhere, binary=_binary,
        direction="lower" if _direction == "lower" else "higher", reference_llm_calls="0",
        llm_calls_note=("no LLM: the rule of evaluators.declined, or the method's declined label"
                        if _name in ("declined", "over_refusal") else
                        "0 offline (trace); 1 per case with an LLM method (cached)"),
    ))

"""The citation metrics, declared with the family metrics (family ``"citations"``).

Like the retrieval metrics they are never *requested*: ``evaluate`` computes them for every case of a
run in which some response carries a citation marker, decided once per run (``evaluators.citations.plan``).
The declarations give the glossary, the help texts and docs/metrics.md what each means;
:func:`evaluators.families.list_metrics` lists them only with ``include_trace=True`` (the
always-computed metrics).
"""

from __future__ import annotations

from ..citations import DECLARATIONS, FAMILY
from .base import Ctx, Family, Metric, Skip, register

_FAMILY: Family = FAMILY  # type: ignore[assignment]


def _computed_elsewhere(ctx: Ctx) -> float:
    raise Skip("citation metrics are computed by evaluators.citations for every case of a run whose responses cite")


for _name, (_description, _formula, _example, _direction) in DECLARATIONS.items():
    register(Metric(
        name=_name, family=_FAMILY, description=_description, formula=_formula, example=_example,
        inputs=("response", "documents"), compute=_computed_elsewhere,
        direction="lower" if _direction == "lower" else "higher",
        reference_llm_calls="0", llm_calls_note="no LLM of its own: judged on the case's sentence labels",
    ))

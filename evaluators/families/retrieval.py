"""The retrieval metrics, declared with the family metrics (family ``"retrieval"``).

Like the TRACE metrics they are never *requested*: ``evaluate`` computes them for every case with
reference passages (``evaluators.retrieval``), at the cutoffs of ``EvalOptions.retrieval_k``. One
declaration per kind, named by its template (``ndcg@K``, ``mrr``), gives the glossary, the help
texts and docs/metrics.md what each means; ``evaluators.retrieval.template`` maps a metric of a run
(``ndcg@5``) to its declaration. :func:`evaluators.families.list_metrics` lists them only with
``include_trace=True`` (the always-computed metrics).
"""

from __future__ import annotations

from ..retrieval import DECLARATIONS, FAMILY, binary
from .base import Ctx, Family, Metric, Skip, register

_FAMILY: Family = FAMILY  # type: ignore[assignment]


def _computed_elsewhere(ctx: Ctx) -> float:
    raise Skip("retrieval metrics are computed by evaluators.retrieval for every case with reference passages")


for _name, (_description, _formula, _example) in DECLARATIONS.items():
    register(Metric(
        name=_name, family=_FAMILY, description=_description, formula=_formula, example=_example,
        inputs=("documents",), compute=_computed_elsewhere, binary=binary(_name.replace("@K", "@1")),
        reference_llm_calls="0", llm_calls_note="no LLM: ranks against the reference passages",
    ))

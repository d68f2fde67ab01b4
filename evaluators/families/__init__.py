"""ragas- and Tonic Validate-style metrics behind one interface.

    from evaluators.families import compute_metrics, list_metrics, validate_metric_names

* :func:`list_metrics` — declarations of every metric (for the dashboard and docs).
* :func:`validate_metric_names` — check names / parameters before a run (unknown names list the
  valid ones).
* :func:`compute_metrics` — what the pipeline calls: one dict per case with every requested
  metric, valued or skipped with a reason.

Importing this package is light (no torch, no SDK): embeddings and LLM clients load on first use.
"""

from __future__ import annotations

from .base import METRICS, Ctx, Metric, MetricParamError, Skip, get_metric, register

# Registration order is the order of list_metrics() and of the README table: keep it.
# isort: off
from . import ragas as _ragas  # noqa: F401 - registers the ragas family
from . import tonic as _tonic  # noqa: F401 - registers the Tonic family
from . import aggregate as _aggregate  # noqa: F401 - registers ragas_score / overall_score
from . import trace as _trace  # noqa: F401 - registers the TRACE metrics (always computed)
from . import retrieval as _retrieval  # noqa: F401 - declares the retrieval metrics (computed with references)
from . import toolcalls as _toolcalls  # noqa: F401 - declares the tool-call metrics (computed with tool calls)
from . import citations as _citations  # noqa: F401 - declares the citation metrics (computed when responses cite)
# isort: on
from .runner import (
    UnknownMetricError,
    compute_metrics,
    compute_metrics_with_usage,
    estimate_metric_cost,
    family_metric_names,
    list_metrics,
    resolve,
    validate_metric_names,
)

__all__ = [
    "METRICS", "Ctx", "Metric", "MetricParamError", "Skip", "UnknownMetricError", "compute_metrics",
    "compute_metrics_with_usage", "estimate_metric_cost", "family_metric_names", "get_metric", "list_metrics",
    "register", "resolve", "validate_metric_names",
]

"""How far to trust the scores: agreement with human labels, method vs method, intervals.

Modules: ``labels`` (which label columns exist and what they measure), ``predictors`` (the score
series of a run), ``stats`` (the binary / graded statistics), ``humans`` (agreement with the
labels: table, ROC, prediction-powered means), ``methods`` (method vs method), ``intervals`` (the
intervals of a run's means), ``report`` (what the ``agreement`` command prints and writes).

UI-free (the dashboard and the CLI call these). Every figure carries a 95 % bootstrap interval;
with ``group_column`` whole groups (e.g. several answers to one source question) are resampled.

Human labels live in ``TestCase.labels`` (nested values by dotted path: ``faithfulness.mean``).
Label columns are detected automatically when not given:

* **binary** – bools, ``"yes"/"no"``-style strings, or 0/1 integers (not named ``*_score``);
* **graded** – other numbers, or ``{"mean": …, "median": …}`` dicts (``.mean`` is used).

Each label is compared with the metrics that measure the same thing (by name, case-insensitive):

===========================================  ===========================  =====================
label name contains                          compared with                direction
===========================================  ===========================  =====================
``halluc``, ``unsupported``, ``unfaithful``  adherence, overall_supported,  score = 1 − metric
                                             min_sentence_support,         (higher = more likely
                                             faithfulness-type family      hallucinated)
                                             metrics
``adherence``, ``faithful``, ``supported``,  the same metrics              score = metric
``grounded``
``relevan``                                  context_relevance (+ family)  score = metric
``utiliz``                                   context_utilization           score = metric
``complete``                                 completeness (+ family)       score = metric
===========================================  ===========================  =====================

``min_sentence_support`` is the lowest per-sentence support probability of the labeler (when it
gives one). Other labels are compared only when named explicitly as ``"label:metric"`` (e.g.
``"quality_score:adherence"``); the same syntax overrides the default mapping.

Binary statistics: ``auroc``; ``best_f1`` (threshold in ``note``); ``f1``, ``precision``,
``recall`` at the method's default decision — for the support metrics of a labeler that is
``overall_supported`` (a case is flagged when any sentence is not fully supported), for other
0–1 metrics the threshold 0.5. Graded statistics: ``rmse`` (label scaled to 0–1; the scale is
inferred — [0, 1], Likert 1–4, 1–5, 0–10, 0–100 — and stated in ``note``), ``spearman``,
``kendall``. A figure that is undefined (one class present, constant scores, < 2 cases) is
``None`` with the reason in ``note``.
"""

from __future__ import annotations

from .humans import COLUMNS, agreement_table, ppi_estimates, roc_points
from .intervals import run_intervals
from .labels import detect_label_columns, infer_scale, label_kind, label_target
from .methods import labeler_agreement, method_vs_method, variant_agreement
from .report import agreement_report, format_table, table_records
from .stats import BINARY_STATS, GRADED_STATS

__all__ = [
    "BINARY_STATS", "COLUMNS", "GRADED_STATS", "agreement_report", "agreement_table", "detect_label_columns",
    "format_table", "infer_scale", "label_kind", "label_target", "labeler_agreement", "method_vs_method",
    "ppi_estimates",
    "roc_points", "run_intervals", "table_records", "variant_agreement",
]

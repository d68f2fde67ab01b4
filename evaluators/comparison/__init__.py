"""Which version is better: runs of the same questions compared with paired statistics.

    from evaluators.comparison import compare_runs
    c = compare_runs(["main.json", "branch.json"])        # results files of ``evaluate --out``
    print(c.pair("main", "branch").text)                   # the verdict in words
    c.to_dict()                                            # what ``compare --json`` writes

Modules (private; this package's surface is below): ``table`` (the compact per-run table and its
builders), ``matching`` (which cases are the same question), ``paired`` (paired bootstrap, t-test,
Holm, joint ranks), ``verdict`` (verdicts and their sentences), ``changes`` (regressions and
improvements with the sentences behind them), ``compare`` (the engine and its result types),
``report`` (the comparison in words), ``trend`` (a metric over a series of runs), ``left_out``
(values that are not numbers — NaN, a text — counted per run and metric, and said), ``app`` (the
app's own latency, tokens and errors, B against A, paired by question: ``Comparison.app_between``).
"""

from __future__ import annotations

from .app import AppDiff, compare_app
from .changes import unsupported as unsupported_sentences
from .compare import Comparison, PairResult, Standing, compare_runs, compare_tables, headline_metric
from .matching import ComparisonError, Matching, Paired, match
from .matching import pair as paired_rows
from .paired import PairStats, holm, paired_stats
from .report import text as comparison_text
from .table import (
    RunTable,
    SentenceDetail,
    TableBuilder,
    sentence_details,
    table_from_file,
    table_from_records,
    table_from_run,
)
from .trend import same_test_set, trend
from .verdict import num as short_number
from .verdict import regression_words
from .verdict import sentence as verdict_sentence

__all__ = [
    "AppDiff", "Comparison", "ComparisonError", "Matching", "PairResult", "PairStats", "Paired", "RunTable",
    "SentenceDetail", "Standing", "TableBuilder", "compare_app", "compare_runs", "compare_tables", "comparison_text",
    "headline_metric", "holm", "match", "paired_rows", "paired_stats", "regression_words", "same_test_set",
    "sentence_details", "short_number", "table_from_file", "table_from_records", "table_from_run", "trend",
    "unsupported_sentences", "verdict_sentence",
]

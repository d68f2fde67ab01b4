"""Which version is better: runs of the same questions compared with paired statistics.

    from evaluators.comparison import compare_runs
    c = compare_runs(["main.json", "branch.json"])        # results files of ``evaluate --out``
    print(c.pair("main", "branch").text)                   # the verdict in words
    c.to_dict()                                            # what ``compare --json`` writes

Modules (private; this package's surface is below): ``table`` (the compact per-run table and its
builders), ``matching`` (which cases are the same question), ``paired`` (B − A per metric: p, interval
and verdict from one test; Holm; higher / lower at each metric's resolution; joint ranks), ``signflip``
(that test: the paired sign-flip test — McNemar's exact test for 0/1 metrics — and its interval),
``verdict`` (verdicts and their sentences), ``changes`` (regressions and
improvements with the sentences behind them), ``conversations`` (regressions by conversation, for
runs of turns of chats), ``compare`` (the engine and its result types), ``listing`` (every regression
of a pair, a page at a time), ``report`` (the comparison in words), ``trend`` (a metric over a series
of runs), ``left_out`` (values that are not numbers — NaN, a text — counted per run and metric, and
said), ``app`` (the app's own latency, tokens and errors, B against A, paired by question:
``Comparison.app_between``). Numbers are written one way everywhere: ``short_number`` (means,
differences), ``short_bound`` (an interval's end: exactly 0 is "0") and ``short_p_value``.
"""

from __future__ import annotations

from .app import AppDiff, compare_app
from .changes import unsupported as unsupported_sentences
from .compare import Comparison, PairResult, Standing, compare_runs, compare_tables, headline_metric
from .listing import ChangePage, changes_page
from .matching import ComparisonError, Matching, Paired, match
from .matching import pair as paired_rows
from .paired import PairStats, holm, paired_stats, resolution, resolution_words
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
from .verdict import bound as short_bound
from .verdict import num as short_number
from .verdict import p_value as short_p_value
from .verdict import regression_words
from .verdict import sentence as verdict_sentence

__all__ = [
    "AppDiff", "ChangePage", "Comparison", "ComparisonError", "Matching", "PairResult", "PairStats", "Paired",
    "RunTable", "SentenceDetail", "Standing", "TableBuilder", "changes_page", "compare_app", "compare_runs",
    "compare_tables", "comparison_text", "headline_metric", "holm", "match", "paired_rows", "paired_stats",
    "regression_words", "resolution", "resolution_words", "same_test_set", "sentence_details", "short_bound",
    "short_number", "short_p_value", "table_from_file",
    "table_from_records", "table_from_run", "trend", "unsupported_sentences", "verdict_sentence",
]

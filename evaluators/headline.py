"""A run's headline figures: what the Results page shows first — how many cases were scored, one
card per metric (its mean, spread and 95 % interval) and how many answers have a sentence the
documents do not fully support — computed once, from the run's per-case table.

Two readers take them from here and nowhere else: the Results page (``pages/3_results.py``) and the
first paint of a shared link (``ui/serving/share_paint.py``, which writes them into the page's HTML before
Streamlit's own page is ready). Same table, same function: the two can never disagree. The words
around the figures (names, decimals) are the dashboard's (``ui.vocab``).

    df = ...                                   # the per-case table (ui.history.frame)
    h = headline(df, run.method, intervals_of(run))
    h.num_scored, len(h.cards), h.support      # 16, 7, Support(scored=16, not_fully=6, none_at_all=2)

Pure pandas; the per-case table is the dashboard's (one row per case: ``id``, the scores, the
sentence counts, ``error`` …; ``overall_supported`` as 0 / 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import pandas as pd

from .answers.names import ANSWER_RECALL, DECLINED, OVER_REFUSAL
from .export import CONVERSATION_COLUMNS
from .retrieval import is_retrieval_metric
from .retrieval.names import MRR
from .toolcalls import is_toolcall_metric
from .types import EXPECTED_ADHERENCE, OVERALL_SUPPORTED, SENTENCE_COUNTS, TRACE_METRICS


def metric_columns(df: pd.DataFrame) -> list[str]:
    """Numeric score columns (TRACE first, then family metrics), without counts or human labels."""
    skip = {"id", "question", "response", "num_documents", "method", "labeled_by", "error",
            *SENTENCE_COUNTS, *CONVERSATION_COLUMNS}
    trace = [m for m in (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED) if m in df.columns]
    others = [c for c in df.columns if c not in skip and c not in trace and not c.startswith("human_")
              and pd.api.types.is_numeric_dtype(pd.to_numeric(df[c], errors="coerce"))
              and pd.to_numeric(df[c], errors="coerce").notna().any()]
    return trace + others


def summary(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """mean / std / min / median / max / n of each column, over rows that have a value."""
    rows = []
    for c in columns:
        v = pd.to_numeric(df[c], errors="coerce").dropna()
        rows.append({"metric": c, "mean": v.mean() if len(v) else None,
                     "std": v.std(ddof=1) if len(v) > 1 else 0.0 if len(v) else None,
                     "min": v.min() if len(v) else None, "median": v.median() if len(v) else None,
                     "max": v.max() if len(v) else None, "n": int(len(v))})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Card:
    """One metric's card: its mean over the cases that have a value (None: none has), the spread of
    the cases (std), how many, and the 95 % interval of the mean when the run keeps one."""

    metric: str
    mean: float | None
    std: float | None
    n: int
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Support:
    """Answers scored, those with a sentence the documents do not fully support (partially or not at
    all), and those with a sentence not supported at all — counted over the answers that answered: a
    declined answer claims nothing, so it is not a supported answer (``declined`` of them declined,
    ``over_refusals`` of those although the documents hold the answer; ``evaluators.answers``)."""

    scored: int
    not_fully: int
    none_at_all: int
    declined: int = 0
    over_refusals: int = 0

    @property
    def answered(self) -> int:
        return self.scored - self.declined


@dataclass(frozen=True)
class Correctness:
    """Answers judged against their reference answer (``answer_recall``): how many, the mean share of the
    reference facts they state, and how many miss at least one."""

    judged: int
    recall: float
    missing_some: int


@dataclass(frozen=True)
class Reach:
    """Retrieval against the reference passages (``mrr``): of ``scored`` questions, ``reached`` got at
    least one reference passage back."""

    scored: int
    reached: int


@dataclass(frozen=True)
class Headline:
    """The figures of :func:`headline`. ``stats``: :func:`summary` of every metric column (retrieval
    and tool-call metrics too: the Results page draws each as a table, not as cards)."""

    method: str
    num_cases: int
    num_scored: int
    cards: tuple[Card, ...]
    support: Support | None
    stats: pd.DataFrame = field(repr=False, compare=False)
    correctness: Correctness | None = None
    reach: Reach | None = None


def _number(v: Any) -> float | None:
    return None if v is None or pd.isna(v) else float(v)


def support(df: pd.DataFrame) -> Support | None:
    """How many answers have a sentence that is not fully supported (None when nothing was scored)."""
    if OVERALL_SUPPORTED not in df:
        return None
    ok = pd.to_numeric(df[OVERALL_SUPPORTED], errors="coerce")
    scored = ok.notna()
    n = int(scored.sum())
    if not n:
        return None
    def flag(name: str) -> pd.Series:
        return (pd.to_numeric(df[name], errors="coerce") >= 0.5) if name in df else pd.Series(False, df.index)

    declined, over = flag(DECLINED), flag(OVER_REFUSAL)
    answered = scored & ~declined
    bad = int((ok[answered] < 0.5).sum())
    none = int((pd.to_numeric(df["unsupported_sentences"], errors="coerce")[answered] > 0).sum()) \
        if "unsupported_sentences" in df else 0
    return Support(scored=n, not_fully=bad, none_at_all=none, declined=int((scored & declined).sum()),
                   over_refusals=int((scored & declined & over).sum()))


def correctness(df: pd.DataFrame) -> Correctness | None:
    """Answers judged against a reference answer (None when none was)."""
    if ANSWER_RECALL not in df:
        return None
    v = pd.to_numeric(df[ANSWER_RECALL], errors="coerce").dropna()
    if not len(v):
        return None
    return Correctness(judged=int(len(v)), recall=float(v.mean()), missing_some=int((v < 1.0 - 1e-9).sum()))


def reach(df: pd.DataFrame) -> Reach | None:
    """Questions whose retrieval was scored against reference passages, and how many got one back
    (a reference passage at any rank: ``mrr`` > 0); None when no case has reference passages."""
    if MRR not in df:
        return None
    v = pd.to_numeric(df[MRR], errors="coerce").dropna()
    return Reach(scored=int(len(v)), reached=int((v > 0).sum())) if len(v) else None


def intervals_of(run: Any) -> dict[str, Any] | None:
    """The 95 % intervals of a run's means: kept with a stored run once it ended (``StoredRun``),
    computed for a run in memory (``RunResult``); None when there are none, or they cannot be read
    (the cards then show the spread instead)."""
    try:
        if hasattr(run, "intervals"):
            return run.intervals() or None
        from .agreement import run_intervals

        return run_intervals(run)
    except Exception:  # noqa: BLE001 - error bars fall back to ± std
        return None


def headline(df: pd.DataFrame, method: str, intervals: Mapping[str, Any] | None = None) -> Headline:
    """The headline figures of a run from its per-case table ``df``; ``intervals``: the run's 95 %
    intervals by metric (``StoredRun.intervals()``), None when it has none (the cards then have no
    interval)."""
    stats = summary(df, metric_columns(df))
    ivs = intervals or {}
    cards = []
    for _, row in stats.iterrows():
        name = str(row["metric"])
        if is_retrieval_metric(name) or is_toolcall_metric(name):  # each a table of its own on Results
            continue
        iv = ivs.get(name) or {}
        cards.append(Card(metric=name, mean=_number(row["mean"]), std=_number(row["std"]), n=int(row["n"]),
                          low=_number(iv.get("low")), high=_number(iv.get("high"))))
    scored = stats.loc[stats["metric"] == "adherence", "n"] if len(stats) else pd.Series(dtype=int)
    return Headline(method=method, num_cases=len(df), num_scored=int(scored.iloc[0]) if len(scored) else 0,
                    cards=tuple(cards), support=support(df), stats=stats, correctness=correctness(df),
                    reach=reach(df))

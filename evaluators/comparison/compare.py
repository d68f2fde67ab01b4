"""``compare_runs``: runs of the same questions compared pair by pair and ranked together.

Input: runs as ``RunResult``s, results files or ready :class:`~.table.RunTable`s. The cases are
paired by one rule for all runs (:mod:`.matching`); for every metric compared, every pair of runs
gets the paired statistics of :mod:`.paired` and a verdict in words (:mod:`.verdict`); with three
or more runs the p-values of a metric are corrected for the number of pairs (Holm) and said so;
the runs are ranked on the cases they all share (:func:`.paired.standings`); for the headline
metric each pair lists its regressions and improvements (:mod:`.changes`); where the runs record
their app calls, every pair also gets the app's own latency, tokens and errors compared (:mod:`.app`);
where they record an agent's tool calls, the tools B stopped or started calling (:mod:`.tools`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..stats import LEVEL, N_BOOT
from ..types import EXPECTED_ADHERENCE, RunResult
from . import left_out
from .app import AppDiff, compare_app
from .changes import Change, pick, with_sentences
from .conversations import by_conversation
from .matching import ComparisonError, Matching, common_rows, match, pair
from .paired import PairStats, RankedMean, holm, holm_factors, paired_stats_many, standings
from .table import COMPARED_TRACE, RunTable, table_from_file, table_from_run
from .tools import ToolDiff, compare_tools
from .verdict import Verdict, higher_is_better, sentence, verdict

#: Regressions (and improvements) listed per pair by default.
TOP = 10
#: The headline metric of runs that are not all ``trace`` runs.
ADHERENCE_METRIC = "adherence"


@dataclass(frozen=True)
class PairResult:
    """Run ``b`` against run ``a`` (``a`` comes first in the order given: the baseline side)."""

    a: str
    b: str
    metric: str
    n_matched: int
    unmatched_a: int
    unmatched_b: int
    stats: PairStats
    p_adjusted: float | None
    verdict: Verdict
    text: str
    regressions: tuple[Change, ...] = ()
    improvements: tuple[Change, ...] = ()
    #: Runs of turns of chats: the conversations that regressed (``conversations.by_conversation``).
    conversations: dict[str, Any] | None = None

    def as_dict(self, with_changes: bool = True) -> dict[str, Any]:
        s = self.stats
        d: dict[str, Any] = {
            "a": self.a, "b": self.b, "metric": self.metric, "n_matched": self.n_matched, "n_compared": s.n,
            "mean_a": s.mean_a, "mean_b": s.mean_b, "diff": s.diff, "ci_low": s.ci_low, "ci_high": s.ci_high,
            "p_value": s.p_value, "p_adjusted": self.p_adjusted, "verdict": self.verdict, "wins": s.wins,
            "ties": s.ties, "losses": s.losses, "detectable_difference": s.detectable, "method": s.method,
            "text": self.text, "unmatched_a": self.unmatched_a, "unmatched_b": self.unmatched_b}
        if s.note:
            d["note"] = s.note
        if with_changes:
            d["regressions"] = [c.as_dict("lost_support") for c in self.regressions]
            d["improvements"] = [c.as_dict("won_support") for c in self.improvements]
            if self.conversations is not None:
                d["conversations"] = self.conversations
        return d


@dataclass(frozen=True)
class Standing(RankedMean):
    """One run of the leaderboard of a metric: its mean and rank, each with a 95 % interval, on the
    ``n_compared`` cases every run has (of its ``n_cases``)."""

    name: str = ""
    method: str = ""
    n_cases: int = 0
    n_compared: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "method": self.method, "n_cases": self.n_cases, "n_compared": self.n_compared,
                "mean": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high, "rank": self.rank,
                "rank_low": self.rank_low, "rank_high": self.rank_high}


@dataclass
class Comparison:
    """Everything ``compare_runs`` found; :meth:`to_dict` is the ``--json`` shape."""

    metric: str
    metrics: list[str]
    names: list[str]
    matching: Matching
    n_common: int
    unmatched: dict[str, list[str]]
    standings: dict[str, list[Standing]]
    pairs: dict[str, list[PairResult]]
    higher_better: dict[str, bool]
    level: float = LEVEL
    n_boot: int = N_BOOT
    seed: int = 0
    tables: list[RunTable] = field(default_factory=list, repr=False)
    #: The app's own latency, tokens and errors, every pair whose runs record app calls (:mod:`.app`).
    app: list[AppDiff] = field(default_factory=list)
    #: The tools B stopped / started calling, every pair whose runs record tool calls (:mod:`.tools`).
    tools: list[ToolDiff] = field(default_factory=list)

    @property
    def matched_on(self) -> str:
        return self.matching.matched_on

    @property
    def corrected(self) -> bool:
        return len(self.names) >= 3

    def correction_words(self) -> str:
        if not self.corrected:
            return ""
        k = len(self.names) * (len(self.names) - 1) // 2
        return (f"With {len(self.names)} runs there are {k} pairs: each metric's p-values are corrected for "
                f"those {k} comparisons (Holm's method), so a difference has to be clearer to count.")

    def pair(self, a: str, b: str, metric: str | None = None) -> PairResult:
        m = metric or self.metric
        for p in self.pairs[m]:
            if (p.a, p.b) == (a, b):
                return p
        raise KeyError(f"no pair {a!r} vs {b!r} for {m!r}")

    def app_between(self, a: str, b: str) -> AppDiff | None:
        """B against A on the app's own latency, tokens and errors (None: neither records calls)."""
        return next((d for d in self.app if (d.a, d.b) == (a, b)), None)

    def tools_between(self, a: str, b: str) -> ToolDiff | None:
        """The tools B stopped / started calling against A (None: neither records a tool call)."""
        return next((d for d in self.tools if (d.a, d.b) == (a, b)), None)

    def matching_words(self) -> str:
        n = len(self.names)
        both = "both runs" if n == 2 else f"all {n} runs"
        lone = sum(len(v) for v in self.unmatched.values())
        text = f"Cases paired {self.matching.words()}: {self.n_common} cases in {both}"
        return text + (f"; {lone} case(s) without a partner (listed)." if lone else "; every case paired.")

    def worse_than(self, metric: str, delta: float) -> str | None:
        """The regression gate: a message when the last run is worse than the first by more than
        ``delta`` with 95 % confidence (the interval of B − A lies entirely beyond −delta), else None."""
        p = self.pair(self.names[0], self.names[-1], metric)
        s = p.stats
        if s.ci_low is None or s.ci_high is None or s.diff is None:
            return None
        hb = self.higher_better[metric]
        beyond = s.ci_high < -delta if hb else s.ci_low > delta
        if not beyond:
            return None
        pct = f"{s.level:.0%}".replace("%", " %")
        return (f"{p.b} is worse than {p.a} on {metric} by more than {delta:g}: {p.b} − {p.a} = {s.diff:+.4f} "
                f"({pct} CI {s.ci_low:+.4f} to {s.ci_high:+.4f}, {s.n} paired questions)")

    def to_dict(self) -> dict[str, Any]:
        def block(m: str, changes: bool) -> dict[str, Any]:
            return {"runs": [s.as_dict() for s in self.standings[m]],
                    "pairs": [p.as_dict(with_changes=changes) for p in self.pairs[m]]}

        head = block(self.metric, True)
        return {
            "metric": self.metric, "matched_on": self.matched_on, "matching": self.matching_words(),
            "higher_is_better": self.higher_better[self.metric], **head,
            "unmatched": self.unmatched, "n_common": self.n_common, "level": self.level, "n_boot": self.n_boot,
            "seed": self.seed, "correction": "holm" if self.corrected else None,
            "correction_text": self.correction_words() or None,
            "other_metrics": {m: block(m, False) for m in self.metrics if m != self.metric},
            "left_out": left_out.as_dict(self.tables, self.metrics),
            **({"app": [d.as_dict() for d in self.app]} if self.app else {}),
            **({"tool_changes": [d.as_dict() for d in self.tools]} if self.tools else {}),
        }


def headline_metric(tables: Sequence[RunTable]) -> str:
    """``expected_adherence`` when every run is a ``trace`` run, else ``adherence``."""
    return EXPECTED_ADHERENCE if tables and all(t.method == "trace" for t in tables) else ADHERENCE_METRIC


def _unique_names(names: list[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        base, k = n, 2
        while n in out:
            n = f"{base} ({k})"
            k += 1
        out.append(n)
    return out


def as_tables(runs: Sequence[RunResult | RunTable | str | Path], names: Sequence[str] | None = None) -> list[RunTable]:
    """Tables of the runs given (results files are read; a run in memory is kept for its sentences)."""
    if names is not None and len(names) != len(runs):
        raise ComparisonError(f"{len(names)} names for {len(runs)} runs")
    tables = []
    for i, r in enumerate(runs):
        given = names[i] if names is not None else None
        if isinstance(r, RunTable):
            tables.append(r)
        elif isinstance(r, RunResult):
            tables.append(table_from_run(r, given or f"run {i + 1}"))
        else:
            tables.append(table_from_file(r, given))
    for t, n in zip(tables, _unique_names([t.name for t in tables])):
        t.name = n
    return tables


def _check_metrics(tables: Sequence[RunTable], metrics: Sequence[str]) -> None:
    have = [set(t.metrics()) for t in tables]
    for m in metrics:
        lacking = [t.name for t, h in zip(tables, have) if m not in h]
        if len(lacking) == len(tables):
            common = [x for x in tables[0].metrics() if all(x in h for h in have)]
            raise ComparisonError(f"no run has the metric {m!r}; metrics every run has: {', '.join(common) or 'none'}")
        if lacking:
            raise ComparisonError(f"the metric {m!r} has no value in {', '.join(lacking)} "
                                  f"(it is in {', '.join(t.name for t in tables if t.name not in lacking)})")


def _default_metrics(tables: Sequence[RunTable], headline: str) -> list[str]:
    have = [set(t.metrics()) for t in tables]
    order = [*COMPARED_TRACE, *[m for m in tables[0].values if m not in COMPARED_TRACE]]
    return [headline, *[m for m in order if m != headline and all(m in h for h in have)]]


def _check_shared(tables: Sequence[RunTable], matching: Matching) -> None:
    for i, a in enumerate(tables):
        for j in range(i + 1, len(tables)):
            if len(pair(matching, i, j)) == 0:
                b = tables[j]
                raise ComparisonError(
                    f"{a.name} and {b.name} share no case: no case id, question (or question + documents) of one "
                    f"is in the other ({len(a)} and {len(b)} cases; e.g. {a.questions[0][:60]!r} vs "
                    f"{b.questions[0][:60]!r})" if len(a) and len(b) else
                    f"{a.name if not len(a) else b.name} has no case")


def compare_tables(tables: Sequence[RunTable], metrics: Sequence[str] | None = None, *, top: int = TOP,
                   n_boot: int = N_BOOT, seed: int = 0, level: float = LEVEL) -> Comparison:
    """The comparison of ready tables (see :func:`compare_runs`)."""
    tables = list(tables)
    if len(tables) < 2:
        raise ComparisonError(f"a comparison needs at least two runs (got {len(tables)})")
    given = [m for m in (metrics or []) if m]
    headline = given[0] if given else headline_metric(tables)
    if not given and not all(headline in t.metrics() for t in tables):
        shared = [m for m in tables[0].metrics() if all(m in t.metrics() for t in tables)]
        headline = next((m for m in (ADHERENCE_METRIC, *shared) if m in shared), headline)
    wanted = list(dict.fromkeys(given)) if given else _default_metrics(tables, headline)
    _check_metrics(tables, wanted)
    matching = match(tables)
    _check_shared(tables, matching)
    common = common_rows(matching)
    n = len(tables)
    index_pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    paired = {(i, j): pair(matching, i, j) for i, j in index_pairs}
    direction = {m: higher_is_better(m) for m in wanted}
    n_tests = len(index_pairs) if n >= 3 else 1

    result_pairs: dict[str, list[PairResult]] = {m: [] for m in wanted}
    for i, j in index_pairs:
        pr = paired[i, j]
        many = paired_stats_many(np.column_stack([tables[i].values[m][pr.rows_a] for m in wanted]),
                                 np.column_stack([tables[j].values[m][pr.rows_b] for m in wanted]),
                                 seed=seed, level=level, n_tests=n_tests, metrics=wanted)
        for m, s in zip(wanted, many):
            result_pairs[m].append(PairResult(tables[i].name, tables[j].name, m, len(pr), len(pr.unmatched_a),
                                              len(pr.unmatched_b), s, None, "no_difference", ""))
    for m in wanted:
        raw = [p.stats.p_value for p in result_pairs[m]]
        adjusted = holm(raw) if n >= 3 else raw
        # each pair's interval at the level Holm tested it at: 0 outside it exactly when p_adjusted <= alpha
        factors = holm_factors(raw, 1.0 - level) if n >= 3 else [1] * len(raw)
        done = []
        for p, p_adj, f in zip(result_pairs[m], adjusted, factors):
            s = p.stats.at(f) if f and p.stats.intervals else p.stats
            v = verdict(s, p_adj, direction[m])
            done.append(replace(p, stats=s, p_adjusted=p_adj, verdict=v, text=sentence(p.a, p.b, m, s, v, p_adj,
                                                                                        n_tests)))
        result_pairs[m] = done
    result_standings = _standings(tables, common, wanted, direction, n_boot=n_boot, seed=seed, level=level)

    _attach_changes(tables, paired, index_pairs, result_pairs, headline, direction[headline], top)
    for k, (i, j) in enumerate(index_pairs):  # regressions by conversation (runs of turns of chats)
        conv = by_conversation(tables[i], tables[j], paired[i, j], headline, higher_better=direction[headline],
                               top=max(top, 1))
        if conv is not None:
            result_pairs[headline][k] = replace(result_pairs[headline][k], conversations=conv)
    lone: dict[str, list[str]] = {}
    in_common = [set(rows.tolist()) for rows in common]
    for t, keep in zip(tables, in_common):
        lone[t.name] = [t.ids[r] for r in range(len(t)) if r not in keep]
    app = [d for i, j in index_pairs if (d := compare_app(
        tables[i].name, tables[j].name, {k: v[paired[i, j].rows_a] for k, v in tables[i].app.items()},
        {k: v[paired[i, j].rows_b] for k, v in tables[j].app.items()}, n_boot=n_boot, seed=seed, level=level))]
    tools = [td for i, j in index_pairs if (td := compare_tools(tables[i], tables[j], paired[i, j]))]
    return Comparison(headline, wanted, [t.name for t in tables], matching, len(common[0]), lone, result_standings,
                      result_pairs, direction, level, n_boot, seed, tables, app, tools)


def _standings(tables: list[RunTable], common: list[np.ndarray], metrics: list[str], direction: dict[str, bool],
               **kw: Any) -> dict[str, list[Standing]]:
    """The leaderboard of every metric on the cases every run has."""
    out = {}
    for m in metrics:
        grid = np.column_stack([t.values[m][rows] for t, rows in zip(tables, common)])
        st = standings(grid, higher_better=direction[m], **kw)
        out[m] = [Standing(**asdict(x), name=t.name, method=t.method, n_cases=len(t),
                           n_compared=int(np.isfinite(grid[:, k]).sum())) for k, (t, x) in enumerate(zip(tables, st))]
    return out


def _attach_changes(tables: list[RunTable], paired: dict, index_pairs: list[tuple[int, int]],
                    result_pairs: dict[str, list[PairResult]], metric: str, higher_better: bool, top: int) -> None:
    """Regressions and improvements of every pair on the headline metric, with the sentences of
    the listed cases (fetched once per run)."""
    if top <= 0:
        return
    picked = {(i, j): pick(tables[i], tables[j], paired[i, j], metric, higher_better=higher_better, top=top)
              for i, j in index_pairs}
    need: dict[int, set[int]] = {}
    for (i, j), (worse, better) in picked.items():
        for c in (*worse, *better):
            need.setdefault(i, set()).add(c.row_a)
            need.setdefault(j, set()).add(c.row_b)
    details = {k: tables[k].fetch(sorted(rows)) for k, rows in need.items()}
    for k, ((i, j), (worse, better)) in enumerate(picked.items()):
        old = result_pairs[metric][k]
        da, db = details.get(i, {}), details.get(j, {})
        result_pairs[metric][k] = PairResult(
            old.a, old.b, old.metric, old.n_matched, old.unmatched_a, old.unmatched_b, old.stats, old.p_adjusted,
            old.verdict, old.text, tuple(with_sentences(worse, True, da, db)),
            tuple(with_sentences(better, False, da, db)))


def compare_runs(runs: Sequence[RunResult | RunTable | str | Path], metrics: Sequence[str] | None = None, *,
                 names: Sequence[str] | None = None, top: int = TOP, n_boot: int = N_BOOT, seed: int = 0,
                 level: float = LEVEL) -> Comparison:
    """Compare runs of the same questions: ``runs`` in order, the first the baseline (results files are
    named by their stem, runs in memory ``run 1``, ``run 2`` … unless ``names`` are given).
    ``metrics``: the first is the headline (default: ``expected_adherence`` for ``trace`` runs, else
    ``adherence``; then every other metric all runs have). Raises :class:`ComparisonError` (a
    ``ValueError``) naming what is wrong: fewer than two runs, runs that share no case, a metric a run
    lacks; :class:`~evaluators.export.ResultsFileError` for a file that cannot be read."""
    return compare_tables(as_tables(runs, names), metrics, top=top, n_boot=n_boot, seed=seed, level=level)

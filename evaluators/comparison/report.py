"""A comparison in words, as the ``compare`` command prints it: how the cases were paired, the
leaderboard (three or more runs; beside it, what an offline method's absolute means are good for:
``evaluators.trust``), every pair's verdict on the headline metric, the app's own latency, tokens and
errors of the last run against the first (when the runs record them), the other metrics of the
baseline against the last run (the retrieval metrics as one table, the tool-call metrics as another
with the tools the last run stopped or started calling), its regressions — how many of
all, worst first — with the sentences that lost their support, its regressions by conversation (runs
of turns of chats), its regressions on answer correctness (runs with reference answers), and the cases
without a partner. Numbers are written by ``verdict.num``."""

from __future__ import annotations

from .. import trust
from ..answers.names import ANSWER_CORRECTNESS
from ..retrieval import is_retrieval_metric
from ..toolcalls import is_toolcall_metric
from . import left_out
from .compare import Comparison
from .conversations import lines as conversation_lines
from .listing import changes_page
from .paired import level_words
from .verdict import bound, num, p_value


def _ids(ids: list[str], k: int = 8) -> str:
    return ", ".join(ids[:k]) + (f" … (+{len(ids) - k})" if len(ids) > k else "")


def leaderboard_lines(c: Comparison, metric: str | None = None) -> list[str]:
    m = metric or c.metric
    rows = sorted(c.standings[m], key=lambda s: (s.rank, s.name))
    width = max(len(s.name) for s in rows)
    pct = f"{c.level:.0%}"
    out = [f"  rank  {'run':<{width}}  mean    {pct} CI        rank range"]
    for s in rows:
        ci = f"{num(s.ci_low)}–{num(s.ci_high)}" if s.ci_low is not None and s.ci_high is not None else "n/a"
        mean = "n/a" if s.mean is None else num(s.mean)
        rr = f"{s.rank_low}" if s.rank_low == s.rank_high else f"{s.rank_low}–{s.rank_high}"
        out.append(f"  {s.rank:<4}  {s.name:<{width}}  {mean:<6}  {ci:<13}  {rr}")
    caveats = dict.fromkeys(w for x in rows if (w := trust.caveat(x.method)))
    return out + [f"  ({w})" for w in caveats]


def text(c: Comparison, top: int = 5) -> str:
    first, last = c.names[0], c.names[-1]
    better = "higher" if c.higher_better[c.metric] else "lower"
    lines = [c.matching_words(), *left_out.lines(c.tables, c.metrics),
             f"Headline metric: {c.metric} ({better} is better)."]
    if c.corrected:
        lines.append(c.correction_words())
    if len(c.names) >= 3:
        lines += ["", f"Leaderboard on {c.metric} (the {c.n_common} cases every run has; rank 1 = best; the rank "
                      "range is where the rank falls in 95 % of resamples):", *leaderboard_lines(c)]
    lines += ["", f"Verdicts on {c.metric}:"]
    lines += [f"  {p.text}" for p in c.pairs[c.metric]]
    app = c.app_between(first, last)
    if app is not None and app.lines:
        lines += ["", f"The app itself, {last} against {first} (paired by question):"]
        lines += [f"  {x}" for x in app.lines]
    others = [m for m in c.metrics if m != c.metric and not is_retrieval_metric(m) and not is_toolcall_metric(m)]
    if others:
        lines += ["", f"Other metrics, {last} against {first}:"]
        lines += [f"  {c.pair(first, last, m).text}" for m in others]
    retrieval = [m for m in c.metrics if m != c.metric and is_retrieval_metric(m)]
    if retrieval:
        lines += ["", *retrieval_table(c, first, last, retrieval)]
    lines += tool_lines(c, first, last)
    head = c.pair(first, last)
    if head.regressions:
        total = changes_page(c, first, last, count=0).total
        shown = min(top, len(head.regressions))
        lines += ["", f"Regressions of {last} against {first} on {c.metric}, worst first "
                      f"({shown} of {total} listed; the JSON holds the first {len(head.regressions)} of every "
                      "pair):"]
        for k, r in enumerate(head.regressions[:top], 1):
            q = r.question if len(r.question) <= 90 else r.question[:89] + "…"
            ids = r.a_id if r.a_id == r.b_id else f"{r.a_id} → {r.b_id}"
            lines.append(f"  {k}. [{ids}] {q}: {num(r.a)} → {num(r.b)} ({num(r.diff, True)})")
            for x in r.sentences[:3]:
                lines.append(f"       {_sentence_line(last, x)}")
    elif head.stats.n:
        lines += ["", f"No case of {last} scores lower than in {first} on {c.metric}."]
    if head.conversations is not None:
        lines += conversation_lines(head.conversations, first, last, top)
    if c.metric != ANSWER_CORRECTNESS and ANSWER_CORRECTNESS in c.metrics:
        lines += answer_regression_lines(c, first, last, top)
    lone = {k: v for k, v in c.unmatched.items() if v}
    if lone:
        lines += ["", "Cases without a partner (left out of every figure above):"]
        lines += [f"  {name}: {len(ids)} — {_ids(ids)}" for name, ids in lone.items()]
    return "\n".join(lines)


def answer_regression_lines(c: Comparison, a: str, b: str, top: int = 5) -> list[str]:
    """The questions whose answer says less of the reference answer under ``b`` (answer correctness),
    worst first: how many of all, the first ``top``."""
    page = changes_page(c, a, b, ANSWER_CORRECTNESS, count=top)
    if not page.total:
        return ["", f"No case of {b} scores lower than in {a} on {ANSWER_CORRECTNESS}."]
    out = ["", f"Regressions of {b} against {a} on {ANSWER_CORRECTNESS} (against the reference answers), worst "
               f"first ({len(page.changes)} of {page.total} listed):"]
    for k, r in enumerate(page.changes, 1):
        q = r.question if len(r.question) <= 90 else r.question[:89] + "…"
        ids = r.a_id if r.a_id == r.b_id else f"{r.a_id} → {r.b_id}"
        out.append(f"  {k}. [{ids}] {q}: {num(r.a)} → {num(r.b)} ({num(r.diff, True)})")
    return out


def tool_lines(c: Comparison, a: str, b: str) -> list[str]:
    """The tool-call metrics of ``b`` against ``a`` as one table, then the tools ``b`` stopped or
    started calling, each with the questions (when the runs record tool calls)."""
    metrics = [m for m in c.metrics if m != c.metric and is_toolcall_metric(m)]
    out = ["", *retrieval_table(c, a, b, metrics, "Tool-call metrics")] if metrics else []
    diff = c.tools_between(a, b)
    if diff is None:
        return out
    out += ["", f"Tools called, {b} against {a} ({diff.n_paired} paired questions):"]
    qids = [*diff.dropped.values(), *diff.added.values()]
    out += [f"  {s} ({_ids(ids)})" for s, ids in zip(diff.sentences, qids)]
    if not qids:
        out.append(f"  {b} called the same tools as {a} on every paired question.")
    return out


def retrieval_table(c: Comparison, a: str, b: str, metrics: list[str], title: str = "Retrieval metrics"
                    ) -> list[str]:
    """The retrieval (or other) metrics of ``b`` against ``a`` as one compact table (a line per metric:
    the two means, B − A with its interval and p — both from one test, so they agree —, how many
    questions went up and down, the verdict in a word)."""
    pct = f"{c.level:.0%}".replace("%", " %")
    rows = [c.pair(a, b, m) for m in metrics]
    n = sorted({p.stats.n for p in rows})
    on = f"{n[0]} paired questions" if len(n) == 1 else f"{n[0]}–{n[-1]} paired questions"
    width = max(6, *(len(m) for m in metrics))
    p_word = "p, corrected" if c.corrected else "p"
    out = [f"{title}, {b} against {a} ({on}; better / worse only where the {pct} interval of B − A "
           f"excludes 0, which is where p ≤ {1 - c.level:.2g}: both come from one test):",
           f"  {'metric':<{width}}  {a[:8]:>8}  {b[:8]:>8}  {'B − A':>7}  {pct + ' CI':<17}  {p_word:>8}  "
           f"{'up / down':>9}  verdict"]
    for p in rows:
        s = p.stats
        if s.diff is None:
            out.append(f"  {p.metric:<{width}}  {'n/a':>8}  {'n/a':>8}  {'':>7}  {'':<17}  {'':>8}  {'':>9}  {s.note}")
            continue
        ci = f"{bound(s.ci_low)} to {bound(s.ci_high)}" if s.ci_low is not None and s.ci_high is not None \
            else "n/a"
        if s.factor != 1 and s.ci_low is not None:
            ci += f" ({level_words(s.ci_level)})"
        word = {"b_better": "better", "a_better": "worse"}.get(p.verdict, "no difference")
        out.append(f"  {p.metric:<{width}}  {num(s.mean_a or 0.0):>8}  {num(s.mean_b or 0.0):>8}  "
                   f"{num(s.diff, True):>7}  {ci:<17}  {p_value(p.p_adjusted):>8}  "
                   f"{f'{s.wins} / {s.losses}':>9}  {word}")
    return out


def _sentence_line(b: str, x: dict) -> str:
    from .verdict import regression_words

    s = x["sentence"]
    short = dict(x, sentence=s if len(s) <= 110 else s[:109] + "…")
    return regression_words(b, [short])[0]

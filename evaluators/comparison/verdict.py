"""Verdicts: which run of a pair is better on a metric, and the sentence that says so.

A pair's verdict is ``b_better`` or ``a_better`` when the p-value (corrected for the number of
pairs when there are several) is at most 1 − level; otherwise ``no_difference``. The interval comes
from the same test (:mod:`.paired`, :mod:`.signflip`), so it leaves 0 out exactly then: a verdict
and its interval never disagree. "Better" follows the metric's direction (higher is better for every
TRACE metric; a family metric may declare lower).
"""

from __future__ import annotations

from typing import Literal

from .paired import PairStats, level_words

Verdict = Literal["a_better", "b_better", "no_difference"]


def higher_is_better(metric: str) -> bool:
    from ..families import get_metric

    try:
        return get_metric(metric).direction != "lower"
    except Exception:  # noqa: BLE001 - a metric the registry does not know: scores, higher is better
        return True


def verdict(s: PairStats, p_adjusted: float | None, higher_better: bool = True) -> Verdict:
    if s.diff is None or p_adjusted is None or p_adjusted > 1.0 - s.level:
        return "no_difference"
    return "b_better" if (s.diff > 0) == higher_better else "a_better"


def num(x: float, signed: bool = False) -> str:
    """The one way a comparison writes a mean, a difference or an interval bound — in its sentences,
    its tables and its charts alike: 2 decimals, or 3 when that is what shows the difference (0.004,
    not 0.00)."""
    digits = 2 if abs(x) >= 0.01 or x == 0 else 3
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def bound(x: float) -> str:
    """An end of an interval of a difference: signed like a difference, and an end that is exactly 0
    written "0" (the interval reaches 0 and holds it; "+0.00" could be a rounded 0.004)."""
    return "0" if x == 0 else num(x, True)


def p_value(p: float | None) -> str:
    """The one way a comparison writes a p-value, in words and tables alike: "< 0.001", else 3
    decimals ("0.018"); "" when there is none."""
    if p is None:
        return ""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def p_text(p: float | None, p_adj: float | None, n_pairs: int) -> str:
    if p is None:
        return ""

    def fmt(v: float) -> str:
        w = p_value(v)
        return w if w.startswith("<") else f"= {w}"

    if n_pairs > 1 and p_adj is not None:
        return f"p {fmt(p)}, {fmt(p_adj)} after correcting for the {n_pairs} pairs"
    return f"p {fmt(p)}"


def sentence(a: str, b: str, metric: str, s: PairStats, v: Verdict, p_adj: float | None, n_pairs: int) -> str:
    """The verdict of one pair in words, e.g. "B is worse than A on expected_adherence by 0.08
    (95 % CI 0.05–0.11), on 139 paired questions (p < 0.001)"."""
    pct = level_words(s.ci_level)
    on = f"on {s.n} paired question{'s' if s.n != 1 else ''}" + (
        f" ({s.n_missing} more paired but without a score in both runs, left out)" if s.n_missing else "")
    if s.diff is None:
        return f"{b} and {a} cannot be compared on {metric}: {s.note}."
    pt = p_text(s.p_value, p_adj, n_pairs)
    tail = f" ({pt})" if pt else ""
    if v != "no_difference" and s.ci_low is not None and s.ci_high is not None:
        word = "better" if v == "b_better" else "worse"
        lo, hi = sorted((abs(s.ci_low), abs(s.ci_high)))
        return (f"{b} is {word} than {a} on {metric} by {num(abs(s.diff))} ({pct} CI {num(lo)}–{num(hi)}), "
                f"{on}{tail}.")
    if s.changed == 0 and s.p_value is not None and s.wins == s.losses == 0 and s.diff == 0.0:
        ci = (f" ({pct} CI {bound(s.ci_low)} to {bound(s.ci_high)}: a difference on questions not asked is not "
              "ruled out)" if s.ci_low is not None and s.ci_high is not None else "")
        return (f"{b} and {a} give the same {metric} on all {s.n} paired questions"
                + (f" with a score in both runs ({s.n_missing} more paired but without one, left out)"
                   if s.n_missing else "") + f": no difference{ci}.")
    if s.ci_low is None or s.ci_high is None:
        return (f"No detectable difference between {b} and {a} on {metric} ({s.note}; {b} − {a} = "
                f"{num(s.diff, True)}{', ' + pt if pt else ''}).")
    det = (f"; these cases could have detected a difference of about {num(s.detectable)}"
           if s.detectable is not None else "")
    if s.changed and s.changed <= 5:
        det = (f"; {s.changed} question{'s' if s.changed != 1 else ''} changed, too few to narrow the interval "
               "or to rule out chance")
    return (f"No detectable difference between {b} and {a} on {metric}: {b} − {a} = {num(s.diff, True)} "
            f"({pct} CI {bound(s.ci_low)} to {bound(s.ci_high)}), {on}{tail}{det}.")


def regression_words(b: str, lost: list[dict]) -> list[str]:
    """The response sentences of a regression in words: those of B not fully supported, saying
    which were supported in A."""
    out = []
    for x in lost:
        how = "not supported at all" if x["level"] == "none" else "only partly supported"
        if x["level"] == "unlabeled":
            how = "not labeled"
        was = {"supported": " — the same sentence was fully supported in the other run",
               "not supported": " — it was not fully supported in the other run either",
               "absent": " (new: the other run's answer has no such sentence)"}[x["in_other"]]
        out.append(f"“{x['sentence']}” is {how} by {b}'s documents{was}.")
    return out

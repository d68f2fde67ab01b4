"""Compare's verdict, interval and p-value come from one procedure (issue 57 item 1): the paired
sign-flip test (the exact McNemar test for 0/1 metrics) and the interval that goes with it, so the
three can never disagree — checked on the reported case, on 0/1 metrics, and on any paired sample
(hypothesis); higher / lower counts at each metric's resolution."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluators.comparison import TableBuilder, compare_tables, paired_stats
from evaluators.comparison.paired import resolution, resolution_words

ALPHA = 0.05


def _table(name: str, values: dict[str, list[float]]):
    b = TableBuilder(name, "trace")
    n = len(next(iter(values.values())))
    for i in range(n):
        b.add(str(i), f"Question {i}?", ["d"], {m: v[i] for m, v in values.items()})
    return b.build()


def _agrees(s, p_adj: float | None, verdict: str) -> None:
    """The one contract: 0 is outside the interval exactly when p (corrected) ≤ α, exactly when
    there is a verdict; the estimate lies inside its interval."""
    if s.p_value is None:
        assert verdict == "no_difference"
        return
    rejected = p_adj <= ALPHA
    assert (verdict != "no_difference") == rejected
    if s.ci_low is not None and s.ci_high is not None:
        assert (not s.ci_low <= 0.0 <= s.ci_high) == rejected, (s, p_adj)
        assert s.ci_low <= s.diff <= s.ci_high
        if rejected:  # an interval beside a verdict never touches 0
            assert s.ci_low > 0.0 or s.ci_high < 0.0
    else:
        assert not rejected


def test_the_reported_case_cannot_contradict_itself():
    """The walk's Compare said "no detectable difference … (95 % CI −0.20 to −0.007) … p = 0.130; the
    interval leaves 0 out" beside "0 questions score higher, 14 lower": a bootstrap interval and a
    t-test on a skewed sample (13 small drops, one large). Those figures are reproduced here with the
    old pair of procedures, then the one procedure gives one answer."""
    from scipy.stats import bootstrap, ttest_rel

    a = np.array([0.9] * 16)
    b = np.array([0.9 - 0.012] * 13 + [0.0] + [0.9, 0.9])
    old_p = ttest_rel(b, a).pvalue
    old_ci = bootstrap((b - a,), np.mean, method="percentile", rng=np.random.default_rng(0)).confidence_interval
    assert old_p >= 0.05 and old_ci.high < 0  # the contradiction, as reported
    c = compare_tables([_table("v1", {"expected_adherence": list(a)}), _table("v2", {"expected_adherence": list(b)})],
                       ["expected_adherence"])
    p = c.pair("v1", "v2")
    s = p.stats
    assert p.verdict == "a_better" and s.p_value <= 0.001 and s.ci_high < 0
    assert p.text.startswith("v2 is worse than v1 on expected_adherence by 0.07")
    assert "leaves 0 out" not in p.text
    assert (s.wins, s.ties, s.losses) == (0, 2, 14) and s.changed == 14
    _agrees(s, p.p_adjusted, p.verdict)


@pytest.mark.parametrize("up,down,same", [(0, 4, 10), (1, 5, 8), (0, 6, 10), (2, 9, 20), (3, 3, 10), (7, 30, 200)])
def test_a_0_1_metric_gets_mcnemars_exact_test_and_an_interval_that_agrees(up, down, same):
    """hit@1 0.93 → 0.64 read "−0.60 to +0.00" beside no difference: now p is McNemar's exact p, and
    an interval that holds 0 reaches past it (every change one way: it still does)."""
    from scipy.stats import binomtest

    a = np.array([0.0] * up + [1.0] * down + [1.0] * same)
    b = np.array([1.0] * up + [0.0] * down + [1.0] * same)
    s = paired_stats(a, b, metric="hit@1")
    assert s.p_value == pytest.approx(binomtest(up, up + down).pvalue, rel=1e-9)
    assert "McNemar" in s.method and (s.wins, s.losses) == (up, down)
    verdict = "no_difference" if s.p_value > ALPHA else ("b_better" if s.diff > 0 else "a_better")
    _agrees(s, s.p_value, verdict)
    if s.p_value > ALPHA:
        assert s.ci_low < 0.0 < s.ci_high  # 0 inside, not at an end
    if up == 0 and s.p_value > ALPHA:  # every change one way, too few of them: past 0 by a margin
        assert s.ci_high > 0.02


def test_the_sample_apps_retrieval_table_reads_one_way():
    """Retrieval metrics shaped like the sample app's v1 against v2 (14 questions with references;
    the walk read map@3 "−0.43 to −0.03 … no difference"): the table's intervals, p and verdicts
    agree row by row, and the table says they come from one test."""
    from evaluators.comparison import comparison_text

    va = {"map@3": [1.0] * 8 + [0.75, 1.0, 1.0, 1.0, 1.0, 0.5], "hit@1": [1.0] * 13 + [0.0]}
    vb = {"map@3": [1.0] * 7 + [0.25, 0.25, 0.5, 0.8333, 0.0, 0.5, 1.0], "hit@1": [1.0] * 8 + [0.0] * 5 + [1.0]}
    c = compare_tables([_table("v1", {"expected_adherence": [0.9] * 14, **va}),
                        _table("v2", {"expected_adherence": [0.8] * 14, **vb})])
    for m in ("map@3", "hit@1"):
        p = c.pair("v1", "v2", m)
        _agrees(p.stats, p.p_adjusted, p.verdict)
    text = comparison_text(c)
    assert "which is where p ≤ 0.05: both come from one test" in text and "up / down" in text


# ------------------------------------------------------------------ any paired sample
_VALUES = {
    "zero_one": st.sampled_from([0.0, 1.0]),
    "share": st.sampled_from([0.0, 1 / 4, 1 / 3, 0.5, 2 / 3, 3 / 4, 1.0]).map(lambda v: round(v, 4)),
    "score": st.floats(0.0, 1.0).map(lambda v: round(v, 4)),
}


@st.composite
def paired_samples(draw, runs: int = 2):
    kind = draw(st.sampled_from(sorted(_VALUES)))
    n = draw(st.integers(2, 60))
    base = draw(st.lists(_VALUES[kind], min_size=n, max_size=n))
    out = [base]
    for _ in range(runs - 1):
        keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))  # unchanged questions: ties at 0
        other = draw(st.lists(_VALUES[kind], min_size=n, max_size=n))
        out.append([x if k else y for x, k, y in zip(base, keep, other)])
    metric = {"zero_one": "overall_supported", "share": "adherence", "score": "expected_adherence"}[kind]
    return metric, out


@settings(max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(paired_samples())
def test_verdict_interval_and_p_agree_on_any_paired_sample(sample):
    metric, (a, b) = sample
    c = compare_tables([_table("A", {metric: a}), _table("B", {metric: b})], [metric])
    p = c.pair("A", "B")
    _agrees(p.stats, p.p_adjusted, p.verdict)


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(paired_samples(runs=3))
def test_with_three_runs_each_interval_is_at_the_level_holm_tested_the_pair(sample):
    metric, values = sample
    c = compare_tables([_table(f"r{i}", {metric: v}) for i, v in enumerate(values)], [metric])
    for p in c.pairs[metric]:
        _agrees(p.stats, p.p_adjusted, p.verdict)
        assert p.stats.ci_level == pytest.approx(1 - ALPHA / p.stats.factor)


def test_holm_levels_are_said_in_the_words():
    rng = np.random.default_rng(4)
    base = rng.uniform(0.5, 1.0, 40)
    runs = [base, np.clip(base - 0.2 + rng.normal(0, 0.05, 40), 0, 1), np.clip(base + rng.normal(0, 0.05, 40), 0, 1)]
    c = compare_tables([_table(f"v{i + 1}", {"adherence": list(v)}) for i, v in enumerate(runs)], ["adherence"])
    first = c.pair("v1", "v2")
    assert first.verdict == "a_better" and first.stats.factor == 3 and "(98.3 % CI " in first.text


def test_a_long_run_takes_the_normal_limit_and_still_agrees(monkeypatch):
    from evaluators.comparison import signflip

    monkeypatch.setattr(signflip, "RANDOM_MAX_N", 50)
    rng = np.random.default_rng(8)
    for shift in (0.0, 0.01, 0.02, 0.05):
        a = rng.uniform(0, 1, 300)
        b = np.clip(a + shift + rng.normal(0, 0.2, 300), 0, 1)
        s = paired_stats(a, b)
        assert "normal limit" in s.method
        _agrees(s, s.p_value, "no_difference" if s.p_value > ALPHA else "x")


# ------------------------------------------------------------------ higher / lower
def test_higher_and_lower_count_only_changes_at_the_metric_resolution():
    a = np.array([0.5, 0.5, 0.5, 0.5, 1.0])
    b = np.array([0.504, 0.492, 0.52, 0.5, 0.0])
    s = paired_stats(a, b, metric="expected_adherence")  # a probability: under 0.01 is the same
    assert (s.wins, s.ties, s.losses) == (1, 3, 1) and s.resolution == 0.01
    s = paired_stats(a, b, metric="adherence")  # a share of sentences: any change counts
    assert (s.wins, s.ties, s.losses) == (2, 1, 2)
    assert resolution("hit@1") == 1.0 and resolution("overall_supported") == 1.0
    assert resolution("ndcg@5") < 1e-6 and resolution("a metric nobody registered") == 0.01
    assert "0.01" in resolution_words("expected_adherence") and "0/1" in resolution_words("hit@3")


@pytest.mark.parametrize("n", [8, 40])
def test_the_apps_latency_interval_and_p_agree(n):
    """"B is 22 % slower (95 % CI +8 % to +43 %) … p" came from a bootstrap and a Wilcoxon test; now one
    sign-flip test gives p and the interval of the ratio, so slower / faster is said exactly when the
    interval leaves 1 out."""
    from evaluators.comparison import compare_app

    rng = np.random.default_rng(n)
    for k in range(12):
        a = rng.lognormal(0, 0.5, n)
        b = a * rng.lognormal(0.04 * k - 0.2, 0.3, n)
        tok, none = np.full(n, 10.0), np.zeros(n)
        d = compare_app("A", "B", {"latency_s": a, "tokens": tok, "failed": none},
                        {"latency_s": b, "tokens": tok, "failed": none})
        lat = d.latency
        lo, hi = lat["ci_low"], lat["ci_high"]
        said = lat["verdict"] != "same"
        assert said == (lat["p_value"] <= ALPHA)
        if lo is not None and hi is not None:
            assert said == (not lo <= 1.0 <= hi) and lo <= lat["ratio"] <= hi
        assert ("sign-flip p" in d.lines[0]) == said

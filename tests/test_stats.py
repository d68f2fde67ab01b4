"""Known-answer tests of evaluators.stats (intervals, grouped bootstrap, PPI)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evaluators.agreement.stats import auroc_fast
from evaluators.stats import (
    Interval,
    bootstrap_stat,
    bootstrap_stats,
    mean_ci,
    ppi_mean,
    proportion_ci,
    resample_indices,
    wilson,
)


def _no_nan(d: dict) -> None:
    json.dumps(d, allow_nan=False)  # raises on NaN / inf


def test_mean_ci_matches_normal_theory_and_is_deterministic():
    x = np.random.default_rng(3).normal(0.6, 0.1, 400)
    iv = mean_ci(x, seed=1)
    assert iv.estimate == pytest.approx(x.mean())
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    assert iv.low == pytest.approx(x.mean() - half, abs=0.15 * half)
    assert iv.high == pytest.approx(x.mean() + half, abs=0.15 * half)
    assert iv.n == 400 and iv.method.startswith("bootstrap")
    assert mean_ci(x, seed=1) == iv  # fixed seed -> same interval
    _no_nan(iv.as_dict())


def test_mean_ci_degenerate_inputs_give_notes_not_nan():
    empty = mean_ci([])
    assert empty.estimate is None and "no values" in empty.note
    one = mean_ci([0.7])
    assert one.estimate == 0.7 and one.low is None and "one value" in one.note
    const = mean_ci([0.5] * 10)
    assert (const.low, const.estimate, const.high) == (0.5, 0.5, 0.5) and "equal" in const.note
    dropped = mean_ci([0.2, None, float("nan"), 0.4, 0.6])
    assert dropped.estimate == pytest.approx(0.4) and dropped.n == 3 and "2 missing" in dropped.note
    for iv in (empty, one, const, dropped):
        _no_nan(iv.as_dict())


def test_grouped_bootstrap_is_wider_for_clustered_data():
    rng = np.random.default_rng(0)
    group_means = rng.uniform(0, 1, 20)
    values, groups = [], []
    for g, m in enumerate(group_means):  # 10 identical answers per source: 20 independent units
        values += [m] * 10
        groups += [f"s{g}"] * 10
    flat = mean_ci(values)
    grouped = mean_ci(values, groups=groups)
    assert grouped.estimate == pytest.approx(flat.estimate)
    assert grouped.method == "bootstrap-grouped" and grouped.n_groups == 20
    assert (grouped.high - grouped.low) > 2.0 * (flat.high - flat.low)
    # with one value per group the grouped interval is the plain one
    assert mean_ci(values[::10][:5], groups=["a", "b", "c", "d", "e"]).method == "bootstrap-BCa"
    one_group = mean_ci([0.1, 0.9], groups=["x", "x"])
    assert one_group.low is None and "one group" in one_group.note


def test_resample_indices_draw_whole_groups():
    groups = np.array([0, 0, 0, 1, 2, 2])
    members = {0: {0, 1, 2}, 1: {3}, 2: {4, 5}}
    for idx in resample_indices(6, groups, 50, seed=2):
        counts = {g: 0 for g in members}
        for i in idx:
            counts[int(groups[i])] += 1
        for g, c in counts.items():  # each group appears a whole number of times
            assert c % len(members[g]) == 0


def test_wilson_known_values():
    iv = wilson(3, 10)
    z = 1.959963984540054
    p, n = 0.3, 10
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert iv.estimate == 0.3 and iv.method == "wilson"
    assert iv.low == pytest.approx(centre - half) and iv.high == pytest.approx(centre + half)
    zero = wilson(0, 20)
    assert zero.low == pytest.approx(0.0, abs=1e-12) and 0 < zero.high < 0.2
    none = wilson(0, 0)
    assert none.estimate is None and "no cases" in none.note
    with pytest.raises(ValueError, match="between 0 and n"):
        wilson(5, 3)


def test_proportion_ci_uses_wilson_unless_groups_repeat():
    assert proportion_ci([True, False, True, True]).method == "wilson"
    assert proportion_ci([True, False, True, True], groups=["a", "b", "c", "d"]).method == "wilson"
    assert proportion_ci([True, True, False, False], groups=["a", "a", "b", "b"]).method == "bootstrap-grouped"


def test_bootstrap_stat_perfect_inverted_random_and_single_class():
    y = np.array([0, 0, 0, 1, 1, 1] * 10)
    perfect = bootstrap_stat(auroc_fast, y, y + 0.0, n_boot=300)
    assert (perfect.estimate, perfect.low, perfect.high) == (1.0, 1.0, 1.0)
    inverted = bootstrap_stat(auroc_fast, y, -y + 0.0, n_boot=300)
    assert (inverted.estimate, inverted.high) == (0.0, 0.0)
    rnd = bootstrap_stat(auroc_fast, y, np.random.default_rng(5).random(len(y)), n_boot=500)
    assert rnd.low < 0.5 < rnd.high

    def auc(a, b):
        if len(set(a)) < 2:
            raise ValueError("only one class present")
        return auroc_fast(a, b)

    single = bootstrap_stat(auc, np.ones(8), np.arange(8.0), n_boot=100)
    assert single.estimate is None and "only one class" in single.note
    _no_nan(single.as_dict())


def test_bootstrap_stats_vector_reasons_and_withheld_interval():
    y = np.array([1, 0] + [0] * 38)  # about 37 % of the resamples lose the single positive

    def fn(a, s):
        if a.sum() == 0:
            return ["no positives", 1.0]
        return [auroc_fast(a, s), 1.0]

    s = np.linspace(1, 0, 40)
    auc, const = bootstrap_stats(fn, y, s, names=["auc", "c"], n_boot=400, min_valid=0.8)
    assert auc.estimate == 1.0
    assert auc.low is None and "withheld" in auc.note  # defined on < 80 % of the resamples
    assert (const.low, const.high) == (1.0, 1.0)
    kept = bootstrap_stats(fn, y, s, names=["auc", "c"], n_boot=400)[0]  # default: half suffices
    assert kept.low is not None and "resamples undefined, left out" in kept.note
    reason = bootstrap_stats(fn, np.zeros(5), np.arange(5.0), names=["auc", "c"], n_boot=50)[0]
    assert reason.estimate is None and reason.note == "no positives"


def test_bootstrap_stat_grouped_and_input_validation():
    rng = np.random.default_rng(1)
    g = np.repeat(np.arange(15), 8)
    x = np.repeat(rng.random(15), 8)
    flat = bootstrap_stat(np.mean, x, n_boot=400)
    grouped = bootstrap_stat(np.mean, x, groups=g, n_boot=400)
    assert grouped.method == "bootstrap-grouped" and grouped.n_groups == 15
    assert (grouped.high - grouped.low) > 2 * (flat.high - flat.low)
    with pytest.raises(ValueError, match="differ in length"):
        bootstrap_stat(lambda a, b: 0.0, [1, 2], [1, 2, 3])


def test_ppi_corrects_biased_predictions():
    rng = np.random.default_rng(11)
    n_all = 4000
    truth = (rng.random(n_all) < 0.3).astype(float)
    pred = np.clip(0.6 * truth + 0.25 + rng.normal(0, 0.1, n_all), 0, 1)  # biased upwards
    labeled = rng.choice(n_all, 300, replace=False)
    iv = ppi_mean(pred, pred[labeled], truth[labeled])
    assert abs(pred.mean() - truth.mean()) > 0.1  # the naive mean of predictions is far off
    assert iv.low <= truth.mean() <= iv.high
    assert iv.method == "ppi" and "300 labeled of 4000" in iv.note
    classical = mean_ci(truth[labeled])
    assert (iv.high - iv.low) < (classical.high - classical.low)  # informative predictions help
    tuned = ppi_mean(pred, pred[labeled], truth[labeled], power_tuned=True)
    assert tuned.method == "ppi++" and tuned.low <= truth.mean() <= tuned.high


def test_ppi_perfect_predictions_and_degenerate():
    pred = np.linspace(0, 1, 101)
    iv = ppi_mean(pred, pred[:10], pred[:10])
    assert iv.estimate == pytest.approx(pred.mean())
    se = pred.std(ddof=1) / math.sqrt(101)
    assert iv.high - iv.low == pytest.approx(2 * 1.959963984540054 * se)
    bad = ppi_mean(pred, [0.5], [1.0])
    assert bad.estimate is None and "at least 2 labeled" in bad.note
    clipped = ppi_mean([0.99, 1.0, 0.98], [0.99, 1.0], [1.0, 1.0], bounds=(0.0, 1.0))
    assert clipped.high <= 1.0
    with pytest.raises(ValueError, match="labeled predictions"):
        ppi_mean(pred, [0.1, 0.2], [1.0])


def test_interval_formatting():
    assert str(Interval(0.5, 0.4, 0.6, 10, "bootstrap")) == "0.500 [0.400, 0.600]"
    assert str(Interval(None, note="only one class")) == "n/a (only one class)"
    assert Interval(0.5).mean == 0.5


def test_mean_ci_and_wilson_give_scipys_figures_to_the_last_bit():
    """mean_ci and wilson compute what scipy.stats.bootstrap (BCa, else percentile) and
    binomtest(...).proportion_ci(method="wilson") give — bit for bit — without importing
    scipy.stats in a run (0.55 s of CPU of every results file's intervals)."""
    import warnings

    from scipy.stats import binomtest, bootstrap

    from evaluators.stats import BCA_MAX_N, boot_batch, mean_ci, wilson

    rng = np.random.default_rng(11)
    samples = [rng.random(n) for n in (2, 3, 7, 16, 150, 817)]
    samples += [rng.integers(0, 4, n) / 3 for n in (5, 30, 300)]  # shares: ties
    samples += [np.array([0.0] * 9 + [1.0]), np.array([0.0, 0.0, 0.0, 1.0, 1.0]), rng.random(BCA_MAX_N + 3)]
    for x in samples:
        got = mean_ci(x)
        method = "BCa" if len(x) <= BCA_MAX_N else "percentile"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = bootstrap((x,), np.mean, n_resamples=2000, method=method, rng=np.random.default_rng(0),
                            batch=boot_batch(len(x)), vectorized=True).confidence_interval
        if not (np.isfinite(ref.low) and np.isfinite(ref.high)):  # BCa undefined: the percentile interval
            assert got.method == "bootstrap-percentile"
            continue
        est = float(x.mean())
        assert (got.low, got.high) == (min(float(ref.low), est), max(float(ref.high), est)), len(x)
    for k, n in ((0, 5), (3, 5), (5, 5), (1, 817), (400, 817), (7, 16)):
        ci = binomtest(k, n).proportion_ci(method="wilson")
        assert (wilson(k, n).low, wilson(k, n).high) == (float(ci.low), float(ci.high))

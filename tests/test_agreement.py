"""Agreement with human labels, method vs method, run intervals (synthetic runs, no model)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import f1_score, precision_recall_curve, precision_score, recall_score, roc_auc_score

from evaluators import agreement
from evaluators.agreement import stats as agreement_stats
from evaluators.export import to_json_dict
from evaluators.types import SentenceLabels, SentenceSupport
from tests.test_stats_fixtures import failed_case, make_case, make_hybrid_case, make_run

N_BOOT = 300


def _binary_run(kind: str, n: int = 60, seed: int = 0, **kw):
    """Cases whose `hallucinated` label is predicted perfectly / inversely / at random by adherence."""
    rng = np.random.default_rng(seed)
    res = []
    for i in range(n):
        hall = i % 2 == 0
        if kind == "perfect":
            bad = hall
        elif kind == "inverted":
            bad = not hall
        else:
            bad = bool(rng.random() < 0.5)
        sents = [True, True, not bad, True] if rng.random() < 0.5 else [True, not bad]
        res.append(make_case(i, sents, labels={"hallucinated": hall}, **kw))
    return make_run(res)


def _rows(df, statistic, metric="adherence", label="hallucinated"):
    sel = df[(df.statistic == statistic) & (df.metric == metric) & (df.label == label)]
    assert len(sel) == 1, (statistic, metric, label, df)
    return sel.iloc[0]


def test_table_columns_and_perfect_scorer():
    df = agreement.agreement_table(_binary_run("perfect"), n_boot=N_BOOT)
    assert list(df.columns) == agreement.COLUMNS
    auroc = _rows(df, "auroc")
    assert auroc.value == 1.0 and auroc.ci_low == 1.0 and auroc.n == 60
    assert "1 − adherence" in auroc.note and "30 of 60" in auroc.note
    assert _rows(df, "best_f1").value == 1.0
    for stat in ("f1", "precision", "recall"):
        assert _rows(df, stat).value == 1.0
    json.dumps(agreement.table_records(df), allow_nan=False)


def test_inverted_and_random_scorers():
    inv = agreement.agreement_table(_binary_run("inverted"), n_boot=N_BOOT)
    assert _rows(inv, "auroc").value == 0.0
    assert _rows(inv, "f1").value == 0.0 and _rows(inv, "recall").value == 0.0
    rnd = agreement.agreement_table(_binary_run("random", n=200, seed=4), n_boot=N_BOOT)
    r = _rows(rnd, "auroc")
    assert r.ci_low < 0.5 < r.ci_high
    assert 0.3 < r.value < 0.7


def test_point_figures_equal_sklearn_with_ties():
    run = _binary_run("random", n=120, seed=9)
    df = agreement.agreement_table(run, n_boot=N_BOOT)
    y = np.array([r.case.labels["hallucinated"] for r in run.results])
    score = np.array([1 - r.scores.adherence for r in run.results])  # many ties
    flagged = np.array([not r.scores.overall_supported for r in run.results])
    assert _rows(df, "auroc").value == pytest.approx(roc_auc_score(y, score))
    p, rc, _ = precision_recall_curve(y, score)
    best = np.nanmax(2 * p * rc / np.where(p + rc > 0, p + rc, 1))
    assert _rows(df, "best_f1").value == pytest.approx(best)
    assert _rows(df, "f1").value == pytest.approx(f1_score(y, flagged))
    assert _rows(df, "precision").value == pytest.approx(precision_score(y, flagged))
    assert _rows(df, "recall").value == pytest.approx(recall_score(y, flagged))


def test_fast_replicate_formulas_equal_sklearn():
    rng = np.random.default_rng(2)
    for _ in range(30):
        n = int(rng.integers(5, 80))
        y = rng.integers(0, 2, n)
        if len(set(y)) < 2:
            continue
        s = np.round(rng.random(n), 1)  # ties
        assert agreement_stats.auroc_fast(y, s) == pytest.approx(roc_auc_score(y, s))
        p, r, _ = precision_recall_curve(y, s)
        best = np.max(np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0))
        assert agreement_stats.best_f1_fast(y, s)[0] == pytest.approx(best)
        yy = rng.random(n)
        fast = agreement_stats.graded_stats_fast(yy, s)
        assert fast[1] == pytest.approx(spearmanr(yy, s).statistic)
        assert fast[2] == pytest.approx(kendalltau(yy, s).statistic)


def test_all_ties_give_half_with_a_note():
    res = [make_case(i, [True, False], labels={"hallucinated": i % 2 == 0}) for i in range(20)]
    df = agreement.agreement_table(make_run(res), n_boot=N_BOOT)
    r = _rows(df, "auroc")
    assert r.value == 0.5 and "all scores are equal" in r.note


def test_single_class_is_a_clear_message_not_a_crash():
    res = [make_case(i, [True, i % 3 == 0], labels={"hallucinated": False}) for i in range(12)]
    df = agreement.agreement_table(make_run(res), n_boot=N_BOOT)
    r = _rows(df, "auroc")
    assert r.value is None or math.isnan(r.value)
    assert "only one class present in 'hallucinated'" in r.note
    assert r.ci_low is None or math.isnan(r.ci_low)
    # precision is still defined (every flagged case is a false positive), recall is not
    assert _rows(df, "precision").value == 0.0
    rec = _rows(df, "recall")
    assert "recall undefined" in rec.note
    json.dumps(agreement.table_records(df), allow_nan=False)
    assert agreement.roc_points(make_run(res), "hallucinated") == []


def test_graded_likert_labels():
    res = []
    for i in range(40):
        adherence_sents = [True] * (i % 4 + 1) + [False] * (3 - i % 4)  # adherence 0.25 .. 1.0
        likert = 1 + (i % 4)  # 1..4 exactly tracks adherence
        res.append(make_case(i, adherence_sents, labels={"faithfulness": {"mean": float(likert), "median": likert},
                                                       "rev": 5 - likert}))
    run = make_run(res)
    df = agreement.agreement_table(run, n_boot=N_BOOT)
    assert set(df.label) == {"faithfulness.mean"}  # 'rev' maps to no metric: not auto-compared
    rho = _rows(df, "spearman", label="faithfulness.mean")
    assert rho.value == pytest.approx(1.0)
    assert _rows(df, "kendall", label="faithfulness.mean").value == pytest.approx(1.0)
    rmse = _rows(df, "rmse", label="faithfulness.mean")
    # labels 1..4 -> 0, 1/3, 2/3, 1; adherence 0.25, 0.5, 0.75, 1.0
    expect = math.sqrt(np.mean([(0.25 - 0) ** 2, (0.5 - 1 / 3) ** 2, (0.75 - 2 / 3) ** 2, 0.0]))
    assert rmse.value == pytest.approx(expect) and "1–4" in rmse.note
    inv = agreement.agreement_table(run, ["rev:adherence"], n_boot=N_BOOT)
    assert _rows(inv, "spearman", label="rev").value == pytest.approx(-1.0)


def test_constant_scores_give_no_correlation():
    res = [make_case(i, [True], labels={"adherence_score": float(i % 3) / 2}) for i in range(10)]
    df = agreement.agreement_table(make_run(res), n_boot=N_BOOT)
    r = _rows(df, "spearman", label="adherence_score")
    assert r.value is None or math.isnan(r.value)
    assert "scores are constant" in r.note


def test_label_detection_and_explicit_columns():
    res = [make_case(i, [True, i % 2 == 0], labels={
        "hallucinated": "yes" if i % 2 else "no", "topic": "x", "relevance_score": 0.1 * i,
        "overall_supported": bool(i % 2 == 0), "spans": [[0, 1]], "quality": i / 10}) for i in range(10)]
    run = make_run(res)
    assert agreement.detect_label_columns(run.results) == {
        "hallucinated": "binary", "relevance_score": "graded", "overall_supported": "binary"}
    df = agreement.agreement_table(run, n_boot=N_BOOT)
    assert set(df[df.label == "relevance_score"].metric) == {"context_relevance"}
    # overall_supported (positive = good) is scored with adherence, not 1 − adherence
    assert _rows(df, "auroc", label="overall_supported").value == 1.0
    assert _rows(df, "auroc", label="hallucinated").value == 1.0  # "yes" exactly on the unsupported cases
    with pytest.raises(ValueError, match="not found in any case; labels present: hallucinated"):
        agreement.agreement_table(run, ["missing"])
    with pytest.raises(ValueError, match="no default metric"):
        agreement.agreement_table(run, ["quality"])
    with pytest.raises(ValueError, match="neither yes/no nor numeric"):
        agreement.agreement_table(run, ["topic"])
    with pytest.raises(ValueError, match="neither yes/no nor numeric"):
        agreement.agreement_table(run, ["spans"])
    with pytest.raises(ValueError, match="not in the run; available"):
        agreement.agreement_table(run, ["hallucinated:nope"])
    only = agreement.agreement_table(run, ["hallucinated:completeness"], n_boot=N_BOOT)
    assert set(only.metric) == {"completeness"}


def test_group_column_resamples_sources_and_widens_intervals():
    res = []
    rng = np.random.default_rng(7)
    for src in range(12):  # 12 sources x 6 responses sharing the same verdict
        hall = bool(rng.random() < 0.5)
        bad = hall if rng.random() < 0.75 else not hall
        for k in range(6):
            res.append(make_case(src * 6 + k, [True, not bad], labels={"hallucinated": hall},
                                 metadata={"meta": {"source_id": f"s{src}"}}))
    run = make_run(res)
    flat = _rows(agreement.agreement_table(run, n_boot=N_BOOT), "auroc")
    grouped = _rows(agreement.agreement_table(run, group_column="source_id", n_boot=N_BOOT), "auroc")
    assert grouped.value == flat.value
    assert "resampled by 'source_id' (12 groups)" in grouped.note
    assert (grouped.ci_high - grouped.ci_low) > 1.5 * (flat.ci_high - flat.ci_low)


def test_unscored_cases_are_left_out_and_counted():
    run = _binary_run("perfect", n=20)
    run = make_run([*run.results, failed_case(99, {"hallucinated": True})])
    r = _rows(agreement.agreement_table(run, n_boot=N_BOOT), "auroc")
    assert r.n == 20 and "1 unscored case(s) left out" in r.note


def test_family_metric_and_min_sentence_support_predictors():
    res = []
    for i in range(30):
        hall = i % 2 == 0
        res.append(make_case(i, [True, True], labels={"hallucinated": hall},
                             probs=[0.9, 0.2 if hall else 0.8],
                             family={"faithfulness": 0.1 if hall else 0.9, "answer_relevancy": 0.5}))
    df = agreement.agreement_table(make_run(res), n_boot=N_BOOT)
    assert _rows(df, "auroc", metric="min_sentence_support").value == 1.0
    assert _rows(df, "auroc", metric="faithfulness").value == 1.0
    assert _rows(df, "f1", metric="faithfulness").value == 1.0  # default threshold 0.5
    assert "answer_relevancy" not in set(df.metric)


def test_hybrid_variants_are_separate_methods():
    lab = SentenceLabels(method="gpt_labeling", document_keys=("0a",), sentences=(
        SentenceSupport(key="a", fully_supported=False),), overall_supported=False)
    from evaluators import trace_metrics

    res = []
    for i in range(10):
        c = make_case(i, [True], labels={"hallucinated": i % 2 == 0}, method="hybrid")
        res.append(c.model_copy(update={"variants": {"gpt_labeling": lab},
                                        "variant_scores": {"gpt_labeling": trace_metrics.compute(lab)}}))
    df = agreement.agreement_table(make_run(res, method="hybrid"), n_boot=N_BOOT)
    assert {"hybrid", "hybrid:gpt_labeling"} <= set(df.method)


def test_roc_points_shape():
    pts = agreement.roc_points(_binary_run("random", n=50, seed=3), "hallucinated")
    adh = [p for p in pts if p["metric"] == "adherence"]
    assert adh[0]["fpr"] == 0.0 and adh[0]["tpr"] == 0.0 and adh[0]["threshold"] is None
    assert adh[-1]["fpr"] == 1.0 and adh[-1]["tpr"] == 1.0
    assert all(a["fpr"] <= b["fpr"] and a["tpr"] <= b["tpr"] for a, b in zip(adh, adh[1:]))
    assert {p["method"] for p in pts} == {"trace"}
    assert 0 <= adh[0]["auc"] <= 1
    json.dumps(pts, allow_nan=False)


def test_method_vs_method():
    a = _binary_run("random", n=40, seed=1)
    same = agreement.method_vs_method(a, a, n_boot=N_BOOT)
    assert same["correlations"]["pearson"]["mean"] == pytest.approx(1.0)
    assert same["correlations"]["mean_abs_diff"]["mean"] == 0.0 and same["disagreements"] == []
    b = make_run([make_case(i, [True, i % 5 != 0, True, True]) for i in range(30)], method="other")
    out = agreement.method_vs_method(a, b, top=5, n_boot=N_BOOT)
    assert out["n"] == 30 and out["only_in_a"] == 10 and out["method_b"] == "other"
    diffs = [abs(d["diff"]) for d in out["disagreements"]]
    assert diffs == sorted(diffs, reverse=True) and len(diffs) <= 5 and diffs[0] > 0
    d0 = out["disagreements"][0]
    assert d0["diff"] == pytest.approx(d0["a"] - d0["b"]) and d0["question"]
    binary = agreement.method_vs_method(a, a, metric="overall_supported", n_boot=N_BOOT)
    assert binary["correlations"]["cohen_kappa"]["mean"] == pytest.approx(1.0)
    assert binary["correlations"]["agreement"]["mean"] == 1.0
    with pytest.raises(ValueError, match="in neither run"):
        agreement.method_vs_method(a, b, metric="nope")
    json.dumps(out, allow_nan=False)


def test_run_intervals_match_means_and_export():
    res = [make_case(i, [True, i % 3 != 0], relevant=1 + i % 3, family={"faithfulness": (i % 7) / 7,
                                                                         "regex_match": float(i % 2)})
           for i in range(30)]
    run = make_run([*res, failed_case(77)])
    iv = agreement.run_intervals(run)
    means = run.means()
    for m in ("context_relevance", "context_utilization", "completeness", "adherence", "overall_supported",
              "average"):
        assert iv[m]["mean"] == pytest.approx(means[m]), m
        if iv[m]["low"] is not None:
            assert iv[m]["low"] <= iv[m]["mean"] <= iv[m]["high"]
    assert iv["overall_supported"]["method"] == "wilson"
    assert iv["regex_match"]["method"] == "wilson"
    assert iv["faithfulness"]["method"].startswith("bootstrap")
    out = to_json_dict(run)
    assert out["intervals"]["adherence"] == iv["adherence"]
    json.dumps(out, allow_nan=False, default=str)
    empty = to_json_dict(make_run([failed_case(1)]))
    assert empty["intervals"]["adherence"]["mean"] is None
    grouped = agreement.run_intervals(make_run(res), group_column="gid")  # missing -> singletons
    assert grouped["adherence"]["mean"] == pytest.approx(iv["adherence"]["mean"])


def test_run_intervals_cover_expected_adherence():
    """Issue 30 item 2: the Results bar of expected_adherence had a 95 % interval of zero width
    (per-case std 0.30): run_intervals left the metric out, so the chart drew mean..mean."""
    rng = np.random.default_rng(1)
    res = [make_case(i, [True, True], probs=[float(p), float(q)])
           for i, (p, q) in enumerate(rng.uniform(0.05, 0.95, size=(40, 2)))]
    run = make_run([*res, failed_case(99)])
    iv = agreement.run_intervals(run)["expected_adherence"]
    vals = [r.scores.expected_adherence for r in res]
    assert np.std(vals) > 0.1
    assert iv["mean"] == pytest.approx(float(np.mean(vals))) and iv["n"] == 40
    assert iv["low"] < iv["mean"] < iv["high"] and iv["high"] - iv["low"] > 0.05
    assert "expected_adherence" in to_json_dict(run)["intervals"]


def test_ppi_estimates_with_partial_labels():
    rng = np.random.default_rng(0)
    res = []
    for i in range(300):
        bad = bool(rng.random() < 0.3)
        labels = {"hallucinated": bad if rng.random() < 0.9 else not bad} if i < 60 else {}
        res.append(make_case(i, [True, not bad], labels=labels))
    out = agreement.ppi_estimates(make_run(res))
    (row,) = out
    assert row["label"] == "hallucinated" and row["n_labeled"] == 60 and row["n_total"] == 300
    assert row["low"] <= row["estimate"] <= row["high"]
    assert 0 <= row["low"] and row["high"] <= 1
    assert row["labels_only"]["method"] == "wilson"
    rep = agreement.agreement_report(make_run(res), n_boot=100)
    assert "prediction-powered mean of hallucinated" in rep["text"]
    assert rep["roc"]["hallucinated"] and rep["table"]
    json.dumps({k: v for k, v in rep.items()}, allow_nan=False, default=str)


def test_format_table():
    df = agreement.agreement_table(_binary_run("perfect", n=10), n_boot=50)
    text = agreement.format_table(df)
    assert "value [95% CI]" in text and "1.000 [1.000, 1.000]" in text
    assert agreement.format_table(df.iloc[0:0]) == "(no human labels to compare with)"


def test_labeler_agreement_of_a_hybrid_run():
    """Issue 30 item 15: the agreement between trace and the LLM of a hybrid run, per metric with
    intervals, and the cases where they disagree most."""
    rng = np.random.default_rng(3)
    res = []
    for i in range(30):
        llm = [bool(x) for x in rng.random(3) < 0.7]
        trace = list(llm) if i % 3 else [not llm[0], *llm[1:]]  # every third case: one verdict differs
        res.append(make_hybrid_case(i, trace, llm, trace_probs=[0.8 if x else 0.2 for x in trace],
                                    relevant=1 + i % 3, llm_relevant=1 + i % 3))
    res.append(make_hybrid_case(90, [True], None))  # selective: the LLM never saw this one
    run = make_run([*res, failed_case(99)], method="hybrid")
    out = agreement.labeler_agreement(run, n_boot=200)
    assert (out["a"], out["b"], out["n"], out["cases"]) == ("trace", "gpt_labeling", 30, 32)
    rows = {r["metric"]: r for r in out["metrics"]}
    assert {"adherence", "expected_adherence", "overall_supported", "context_relevance"} <= set(rows)
    adh = rows["adherence"]
    diffs = [abs(r.variant_scores["trace"].adherence - r.variant_scores["gpt_labeling"].adherence) for r in res[:30]]
    assert adh["mean_abs_diff"]["value"] == pytest.approx(float(np.mean(diffs)))
    assert adh["mean_abs_diff"]["low"] <= adh["mean_abs_diff"]["value"] <= adh["mean_abs_diff"]["high"]
    assert adh["mean_a"] == pytest.approx(float(np.mean([r.variant_scores["trace"].adherence for r in res[:30]])))
    assert rows["overall_supported"]["agreement"]["value"] is not None
    assert rows["context_relevance"]["mean_abs_diff"]["value"] == pytest.approx(0.0)  # same relevance
    sent = out["sentences"]
    assert sent["support_agreement"]["low"] < sent["support_agreement"]["mean"] < 1.0
    assert sent["support_kappa"] is not None and sent["sentences_compared"] == 90
    worst = out["disagreements"]
    assert worst and {d["id"] for d in worst} <= {f"c{i}" for i in range(0, 30, 3)}
    assert worst[0]["support_agreement"] == min(d["support_agreement"] for d in worst)
    json.dumps(out, allow_nan=False)
    with pytest.raises(ValueError, match="both labelings"):
        agreement.labeler_agreement(make_run(res[30:], method="hybrid"))


def test_expected_adherence_rows_against_human_labels_on_request():
    """Issue 30 item 16: Compare's human-agreement table left out expected_adherence, the metric
    to rank by; the ``agreement`` command's default output stays as it was."""
    rng = np.random.default_rng(5)
    res = []
    for i in range(40):
        bad = bool(rng.random() < 0.4)
        p = float(rng.uniform(0.05, 0.45) if bad else rng.uniform(0.55, 0.95))
        res.append(make_case(i, [True, not bad], probs=[0.9, p], labels={"hallucinated": bad}))
    run = make_run(res)
    plain = agreement.agreement_table(run, n_boot=100)
    assert "expected_adherence" not in set(plain["metric"])
    table = agreement.agreement_table(run, n_boot=100, with_expected=True)
    rows = table[table["metric"] == "expected_adherence"].set_index("statistic")
    assert set(rows.index) == {"auroc", "best_f1"}  # f1/precision/recall: adherence's decision, not repeated
    y = [r.case.labels["hallucinated"] for r in res]
    assert rows.loc["auroc", "value"] == pytest.approx(roc_auc_score(y, [1 - r.scores.expected_adherence for r in res]))
    assert plain.equals(table[table["metric"] != "expected_adherence"].reset_index(drop=True))
    roc = agreement.roc_points(run, "hallucinated", with_expected=True)
    assert "expected_adherence" in {p["metric"] for p in roc}

"""evaluators.comparison: the matching rules, the paired statistics against reference computations
(scipy, a hand-written Holm), verdicts in words, regressions with the sentences that lost their
support, leaderboards, the trend, and bad input named clearly."""

from __future__ import annotations

import numpy as np
import pytest

from evaluators.comparison import (
    ComparisonError,
    TableBuilder,
    compare_runs,
    compare_tables,
    comparison_text,
    holm,
    match,
    paired_rows,
    paired_stats,
    same_test_set,
    table_from_records,
    table_from_run,
    trend,
)
from evaluators.export import case_dict
from evaluators.types import TestCase
from tests.ui_fixtures import fake_run

DOC = "Paris is the capital of France. The Seine flows through Paris."


def table(name: str, rows: list[tuple], metric: str = "adherence"):
    """rows: (id, question, documents, value)."""
    b = TableBuilder(name, "trace")
    for cid, q, docs, v in rows:
        b.add(cid, q, docs, {metric: v})
    return b.build()


# ---------------------------------------------------------------------------------- matching
def test_matching_by_id_when_runs_share_ids():
    a = table("a", [("1", "Q one?", ["d"], 0.5), ("2", "Q two?", ["d"], 0.7), ("3", "Q three?", ["d"], 0.2)])
    b = table("b", [("2", "Q two? ", ["other docs"], 0.6), ("1", "q ONE?", ["d"], 0.5), ("9", "new?", [], 1.0)])
    m = match([a, b])
    assert m.matched_on == "id"
    p = paired_rows(m, 0, 1)
    assert [a.ids[r] for r in p.rows_a] == ["1", "2"] and [b.ids[r] for r in p.rows_b] == ["1", "2"]
    assert [a.ids[r] for r in p.unmatched_a] == ["3"] and [b.ids[r] for r in p.unmatched_b] == ["9"]


def test_row_number_ids_of_files_in_another_order_fall_back_to_the_question():
    """Ids made from row numbers name other questions in a file of another order: the ids are not
    trusted, the questions pair the cases (whatever the retrieved documents)."""
    a = table("a", [("1", "What is A?", ["x"], 0.1), ("2", "What is B?", ["y"], 0.2)])
    b = table("b", [("1", "What is B?", ["y2"], 0.3), ("2", "what   is a?", ["x2"], 0.4)])
    m = match([a, b])
    assert m.matched_on == "question"
    p = paired_rows(m, 0, 1)
    assert [(a.ids[i], b.ids[j]) for i, j in zip(p.rows_a, p.rows_b)] == [("1", "2"), ("2", "1")]


def test_a_repeated_question_pairs_by_question_and_documents():
    """One instruction asked of many documents (a summarisation set): that question pairs by its
    documents; a question asked once still pairs by its text alone (its documents changed)."""
    q = "Summarize the article."
    a = table("a", [("a1", q, ["doc one"], 0.9), ("a2", q, ["doc two"], 0.8), ("a3", "Unique?", ["old"], 0.5)])
    b = table("b", [("b1", q, ["doc two"], 0.1), ("b2", q, ["doc one"], 0.2), ("b3", "Unique?", ["new"], 0.6),
                    ("b4", q, ["doc three"], 0.3)])
    m = match([a, b])
    assert m.matched_on == "question+documents" and m.repeated_questions == 1
    p = paired_rows(m, 0, 1)
    assert {(a.ids[i], b.ids[j]) for i, j in zip(p.rows_a, p.rows_b)} == {("a1", "b2"), ("a2", "b1"), ("a3", "b3")}
    assert [b.ids[r] for r in p.unmatched_b] == ["b4"]


def test_duplicate_keys_pair_in_order_of_occurrence():
    a = table("a", [("x", "Same?", ["d"], 0.1), ("y", "Same?", ["d"], 0.2)])
    b = table("b", [("p", "Same?", ["d"], 0.3), ("q", "Same?", ["d"], 0.4)])
    p = paired_rows(match([a, b]), 0, 1)
    assert [(a.ids[i], b.ids[j]) for i, j in zip(p.rows_a, p.rows_b)] == [("x", "p"), ("y", "q")]


def test_unmatched_cases_are_listed_and_every_comparison_says_how_it_matched():
    a = table("a", [(str(i), f"Question {i}?", ["d"], i / 10) for i in range(6)])
    b = table("b", [(f"b{i}", f"question {i}?", ["d"], i / 10 + 0.05) for i in range(1, 8)])
    c = compare_tables([a, b], ["adherence"], n_boot=200)
    assert c.matched_on == "question" and c.n_common == 5
    assert c.unmatched == {"a": ["0"], "b": ["b6", "b7"]}
    assert "by question text" in c.matching_words() and "3 case(s) without a partner" in c.matching_words()
    d = c.to_dict()
    assert d["unmatched"] == {"a": ["0"], "b": ["b6", "b7"]} and d["pairs"][0]["n_matched"] == 5
    assert "Cases without a partner" in comparison_text(c) and "b6, b7" in comparison_text(c)


# ---------------------------------------------------------------------------------- statistics
def test_paired_p_value_is_the_sign_flip_test_and_the_interval_holds_the_estimate():
    """p of B − A is the paired sign-flip (permutation) test, here against all 2^10 sign vectors by
    hand; its interval holds the mean difference; seeded, so the same figures again."""
    import itertools

    a = np.array([0.9, 0.8, 0.75, 1.0, 0.6, 0.95, 0.7, 0.85, 0.5, 0.9])
    b = np.array([0.7, 0.6, 0.5, 0.9, 0.55, 0.55, 0.7, 0.6, 0.45, 0.95])
    d = b - a
    signs = np.array(list(itertools.product([1, -1], repeat=10)))
    by_hand = float(np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12))
    s = paired_stats(a, b)
    assert s.diff == pytest.approx(float(d.mean())) and s.p_value == pytest.approx(by_hand)
    assert s.ci_low <= s.diff <= s.ci_high < 0 and s.p_value <= 0.05
    assert (s.wins, s.ties, s.losses) == (1, 1, 8) and s.changed == 9
    assert "sign-flip" in s.method and "all 512 sign patterns" in s.method and paired_stats(a, b) == s


def test_a_sample_too_big_to_enumerate_draws_seeded_sign_flips():
    rng = np.random.default_rng(3)
    a = rng.uniform(0.4, 1.0, 120)
    b = np.clip(a - 0.03 + rng.normal(0, 0.1, 120), 0, 1)
    s = paired_stats(a, b, seed=1)
    assert "20,000 random sign flips (seed 1)" in s.method
    assert paired_stats(a, b, seed=1) == s
    d = b - a
    signs = np.random.default_rng(9).choice([-1.0, 1.0], (200_000, 120))
    reference = float(np.mean(np.abs(signs @ d) >= abs(d.sum())))
    assert s.p_value == pytest.approx(reference, abs=0.006)
    assert (s.p_value <= 0.05) == (not s.ci_low <= 0 <= s.ci_high)


def test_large_runs_use_the_normal_law_of_the_sign_flips_and_of_the_means(monkeypatch):
    """Above RANDOM_MAX_N changed cases p comes from the sign-flip sum's normal limit; above
    BOOTSTRAP_MAX_N the leaderboard's intervals come from the means' normal law."""
    from scipy.stats import norm

    from evaluators.comparison import paired as paired_mod
    from evaluators.comparison import signflip

    monkeypatch.setattr(signflip, "RANDOM_MAX_N", 50)
    monkeypatch.setattr(paired_mod, "BOOTSTRAP_MAX_N", 50)
    rng = np.random.default_rng(5)
    a = rng.uniform(0, 1, 400)
    b = np.clip(a + rng.normal(0.03, 0.1, 400), 0, 1)
    s = paired_stats(a, b)
    d = (b - a)[np.abs(b - a) > 0.01 * (1 - 1e-6)]  # a score: changes under its resolution are tested as none
    assert "normal limit" in s.method
    assert s.p_value == pytest.approx(2 * norm.sf(abs(d.sum()) / np.sqrt((d ** 2).sum())))
    assert (s.p_value <= 0.05) == (not s.ci_low <= 0 <= s.ci_high)
    st = paired_mod.standings(np.column_stack([a, b]))
    for col, x in zip((a, b), st):
        half = 1.96 * col.std(ddof=1) / np.sqrt(len(col))
        assert (x.ci_low, x.ci_high) == pytest.approx((col.mean() - half, col.mean() + half), abs=0.01)
    assert [x.rank for x in st] == [2, 1]


def test_the_detectable_difference_is_the_power_formula():
    from scipy.stats import norm

    rng = np.random.default_rng(0)
    a, b = rng.uniform(size=80), rng.uniform(size=80)
    s = paired_stats(a, b)
    se = np.std(b - a, ddof=1) / np.sqrt(80)
    assert s.detectable == pytest.approx((norm.ppf(0.975) + norm.ppf(0.8)) * se)
    assert paired_stats(a, b, n_tests=15).detectable == pytest.approx(
        (norm.ppf(1 - 0.05 / 30) + norm.ppf(0.8)) * se)


def test_missing_values_are_left_out_and_counted():
    a = np.array([0.5, np.nan, 0.7, 0.9])
    b = np.array([0.6, 0.4, np.nan, 1.0])
    s = paired_stats(a, b)
    assert (s.n, s.n_missing) == (2, 2) and s.diff == pytest.approx(0.1)
    ta = table("a", [(str(i), f"Q{i}?", [], v) for i, v in enumerate(a)])
    tb = table("b", [(str(i), f"Q{i}?", [], v) for i, v in enumerate(b)])
    text = compare_tables([ta, tb], ["adherence"], n_boot=100).pair("a", "b").text
    assert "on 2 paired questions (2 more paired but without a score in both runs, left out)" in text


def test_identical_runs_have_no_difference_and_an_interval_of_what_they_cannot_rule_out():
    """No question changed: p = 1 and the interval is how much could change on questions not asked
    (the Wilson upper end of the share that changes, 0 of 50, times the metric's range)."""
    from scipy.stats import binomtest

    a = np.linspace(0, 1, 50)
    s = paired_stats(a, a.copy(), metric="adherence")
    top = binomtest(0, 50).proportion_ci(method="wilson").high
    assert (s.diff, s.p_value, s.changed) == (0.0, 1.0, 0) and (s.ci_low, s.ci_high) == pytest.approx((-top, top))
    assert (s.wins, s.ties, s.losses) == (0, 50, 0)
    t = compare_tables([table("a", [(str(i), f"Q{i}?", [], v) for i, v in enumerate(a)]),
                        table("b", [(str(i), f"Q{i}?", [], v) for i, v in enumerate(a)])], ["adherence"])
    p = t.pair("a", "b")
    assert p.verdict == "no_difference" and p.text.startswith("b and a give the same adherence on all 50 paired")
    assert "(95 % CI -0.07 to +0.07: a difference on questions not asked is not ruled out)" in p.text
    assert t.worse_than("adherence", 0.0) is None


def test_holm_matches_the_textbook_procedure():
    p = [0.01, 0.04, 0.03, 0.005, None]
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> running max: 0.02, 0.03, 0.06, 0.06
    out = holm(p)
    assert out[4] is None
    assert out[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([0.01, 0.02]) == pytest.approx([0.02, 0.02])


# ---------------------------------------------------------------------------------- verdicts
def _runs(shift: float, n: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.5, 1.0, n)
    return base, np.clip(base + shift + rng.normal(0, 0.03, n), 0, 1)


def test_verdict_in_words_for_a_worse_candidate():
    a_vals, b_vals = _runs(-0.08)
    a = table("main", [(str(i), f"Q{i}?", ["d"], v) for i, v in enumerate(a_vals)])
    b = table("branch", [(str(i), f"Q{i}?", ["d"], v) for i, v in enumerate(b_vals)])
    c = compare_tables([a, b], ["adherence"])
    p = c.pair("main", "branch")
    assert p.verdict == "a_better" and p.stats.ci_high < 0
    assert p.text.startswith("branch is worse than main on adherence by 0.0")
    assert "(95 % CI 0.0" in p.text and "on 60 paired questions" in p.text
    assert c.worse_than("adherence", 0.02) is not None and c.worse_than("adherence", 0.5) is None


def test_no_detectable_difference_names_the_smallest_detectable_one():
    rng = np.random.default_rng(1)
    vals = rng.uniform(0, 1, 40)
    noise = rng.normal(0, 0.05, 40)
    a = table("a", [(str(i), f"Q{i}?", ["d"], v) for i, v in enumerate(vals)])
    b = table("b", [(str(i), f"Q{i}?", ["d"], v + e) for i, (v, e) in enumerate(zip(vals, noise - noise.mean()))])
    p = compare_tables([a, b], ["adherence"]).pair("a", "b")
    assert p.verdict == "no_difference"
    assert p.text.startswith("No detectable difference between b and a on adherence")
    assert "could have detected a difference of about 0.0" in p.text


def test_three_runs_are_ranked_with_intervals_and_corrected_for_the_pairs():
    base, worse = _runs(-0.15, n=80)
    _, same = _runs(0.0, n=80)
    rows = lambda vals: [(str(i), f"Q{i}?", ["d"], v) for i, v in enumerate(vals)]  # noqa: E731
    c = compare_tables([table("v1", rows(base)), table("v2", rows(worse)), table("v3", rows(same))], ["adherence"])
    assert c.corrected and "3 pairs" in c.correction_words() and "Holm" in c.correction_words()
    ranks = {s.name: s for s in c.standings["adherence"]}
    assert ranks["v2"].rank == 3 and ranks["v2"].rank_low == ranks["v2"].rank_high == 3
    assert all(s.ci_low <= s.mean <= s.ci_high for s in ranks.values())
    raw = [p.stats.p_value for p in c.pairs["adherence"]]
    assert [p.p_adjusted for p in c.pairs["adherence"]] == pytest.approx(holm(raw))
    assert "after correcting for the 3 pairs" in c.pair("v1", "v2").text
    assert {(p.a, p.b): p.verdict for p in c.pairs["adherence"]}[("v1", "v2")] == "a_better"
    assert "Leaderboard" in comparison_text(c)


def test_lower_is_better_metrics_turn_the_verdict_around():
    from evaluators.families import list_metrics

    m = next(d["name"] for d in list_metrics() if d.get("direction") == "lower")  # e.g. harmfulness
    a_vals, b_vals = _runs(-0.2)
    a = table("a", [(str(i), f"Q{i}?", ["d"], v) for i, v in enumerate(a_vals)], metric=m)
    b = table("b", [(str(i), f"Q{i}?", ["d"], v) for i, v in enumerate(b_vals)], metric=m)
    assert compare_tables([a, b], [m]).pair("a", "b").verdict == "b_better"


# ---------------------------------------------------------------------------------- regressions
def test_regressions_list_the_sentences_that_lost_their_support(fake_method):
    """Same question and answer sentence; B's retriever lost the document: B's sentence is not
    supported any more, and the regression says it was supported in A."""
    qs = [f"Where is case {i}?" for i in range(5)]
    ans = "Paris is the capital of France."
    a_cases = [TestCase(id=f"a{i}", question=q, response=ans, documents=(DOC,)) for i, q in enumerate(qs)]
    b_cases = [TestCase(id=f"b{i}", question=q, response=ans if i else ans + " Dragons live in Lyon.",
                        documents=(DOC,) if i else ("Nothing relevant about anything.",))
               for i, q in enumerate(qs)]
    c = compare_runs([fake_run(a_cases), fake_run(b_cases)], ["adherence"], names=["A", "B"])
    p = c.pair("A", "B")
    assert len(p.regressions) == 1 and not p.improvements
    r = p.regressions[0]
    assert (r.a_id, r.b_id, r.a, r.b) == ("a0", "b0", 1.0, 0.0) and r.question == qs[0]
    lost = {x["sentence"]: x for x in r.sentences}
    assert lost[ans]["in_other"] == "supported" and lost[ans]["level"] in ("none", "partial")
    assert lost["Dragons live in Lyon."]["in_other"] == "absent"
    assert list(lost)[0] == ans  # the sentence that lost its support comes first
    d = c.to_dict()["pairs"][0]["regressions"][0]
    assert {"question", "a_id", "b_id", "a", "b", "lost_support"} <= set(d)
    text = comparison_text(c)
    assert "the same sentence was fully supported in the other run" in text


def test_sentence_details_follow_the_split_the_labels_refer_to(fake_method):
    from evaluators.comparison import sentence_details
    from evaluators.sentencize import sentences_of

    for r in fake_run().results:
        levels = {s.key: s.level for s in r.labels.sentences} if r.labels else {}
        sents = sentences_of(r).response_sentences if r.labels else ()
        want = [(s.text, levels.get(s.key, "unlabeled")) for s in sents]
        assert [(d.text, d.level) for d in sentence_details(r)] == want
        assert [(d.text, d.level) for d in sentence_details(r.model_copy(update={"spans": None}))] == want


def test_the_library_reads_results_files_and_records(tmp_path, fake_method):
    from evaluators.cli.common import write_json
    from evaluators.export import to_json_dict

    run = fake_run()
    path = tmp_path / "base.json"
    write_json(str(path), to_json_dict(run))
    from_records = table_from_records("r", [case_dict(r) for r in run.results], method=run.method)
    from_run = table_from_run(run, "m")
    assert from_records.ids == from_run.ids and from_records.doc_hashes == from_run.doc_hashes
    for m in ("adherence", "expected_adherence", "overall_supported", "average"):
        np.testing.assert_allclose(from_records.values[m], from_run.values[m], equal_nan=True)
    assert "unsupported_sentences" not in from_run.values  # counts are not scores
    assert from_records.fingerprint == from_run.fingerprint
    other = fake_run([c.model_copy(update={"response": c.response + " More."}) for c in (r.case for r in run.results)])
    assert table_from_run(other, "o").fingerprint != from_run.fingerprint
    c = compare_runs([path, run])
    assert c.names == ["base", "run 2"] and c.matched_on == "id"
    assert c.pair("base", "run 2").verdict == "no_difference"


def test_a_trend_of_runs_of_the_same_test_set():
    t1 = table("night 1", [(str(i), f"Q{i}?", ["d"], 0.5 + i / 100) for i in range(30)])
    t2 = table("night 2", [(str(i), f"Q{i}?", ["d"], 0.6 + i / 100) for i in range(30)])
    other = table("other set", [(str(i), f"Other {i}?", ["d"], 0.9) for i in range(30)])
    t1.started_at, t2.started_at = "2026-01-02T00:00", "2026-01-01T00:00"
    assert same_test_set(t1, t2) and not same_test_set(t1, other)
    pts = trend([t1, t2], "adherence", n_boot=200)
    assert [p["name"] for p in pts] == ["night 2", "night 1"]
    assert all(p["ci_low"] <= p["mean"] <= p["ci_high"] for p in pts) and pts[0]["n"] == 30


# ---------------------------------------------------------------------------------- bad input
def test_one_run_only_is_refused():
    with pytest.raises(ComparisonError, match="at least two runs"):
        compare_tables([table("a", [("1", "Q?", [], 0.5)])])


def test_runs_sharing_no_case_are_refused_by_name():
    a = table("main", [("1", "What is A?", [], 0.5)])
    b = table("branch", [("x", "Something else?", [], 0.5)])
    with pytest.raises(ComparisonError, match="main and branch share no case"):
        compare_tables([a, b])


def test_a_metric_no_run_has_and_a_metric_one_run_lacks_are_named():
    a = table("a", [("1", "Q?", [], 0.5)])
    b = table("b", [("1", "Q?", [], 0.4)])
    with pytest.raises(ComparisonError, match="no run has the metric 'faithfulness'.*adherence"):
        compare_tables([a, b], ["faithfulness"])
    c = table("c", [("1", "Q?", [], 0.4)], metric="faithfulness")
    with pytest.raises(ComparisonError, match="'faithfulness' has no value in a, b"):
        compare_tables([a, b, c], ["faithfulness"])


def test_the_default_headline_follows_the_method():
    t = [table("a", [("1", "Q?", [], 0.5), ("2", "R?", [], 0.1)]),
         table("b", [("1", "Q?", [], 0.4), ("2", "R?", [], 0.2)])]
    for x in t:
        x.values["expected_adherence"] = x.values["adherence"] + 0.01
    assert compare_tables(t, n_boot=50).metric == "expected_adherence"  # trace runs
    for x in t:
        x.method = "gpt_labeling"
    assert compare_tables(t, n_boot=50).metric == "adherence"


def test_changes_under_a_scores_resolution_are_no_evidence():
    """The walk: v1 declined 8 answers (expected adherence exactly 1.0), v2 answered them (0.993) —
    twelve shifts of 0.007 the counts call "the same" made "v2 is worse (p < 0.001)" beside "0 higher,
    3 lower, 12 the same". The test reads the changes the counts read: three."""
    a = np.array([1.0] * 12 + [0.9, 0.8, 0.95])
    b = np.array([0.993] * 12 + [0.3, 0.2, 0.4])
    s = paired_stats(a, b, metric="expected_adherence")
    assert (s.wins, s.ties, s.losses) == (0, 12, 3) and s.changed == 3
    assert s.p_value == pytest.approx(0.25) and s.ci_low <= 0 <= s.ci_high  # 3 changes: too few to tell
    assert s.diff == pytest.approx(float((b - a).mean()))  # the difference shown is still the means'
    # more of the same large changes do decide, and an exact-fraction metric counts every change as before
    many = paired_stats(np.r_[a, [0.9] * 6], np.r_[b, [0.3] * 6], metric="expected_adherence")
    assert many.p_value < 0.05 and many.ci_high < 0
    assert paired_stats(a, b, metric="adherence").changed == 15

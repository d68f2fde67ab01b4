"""Review mode in the library (evaluators/review): corrections and the labels they make, the review
store (owners, reload, deletion with the run), the review queue's orders, gold agreement (AUROC,
kappa, RMSE with intervals), prediction-powered estimates from gold, export / re-import in the
upload schema (and the CLI reading the file as human labels), and calibration to the reviews."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from evaluators import datasets, trace_metrics
from evaluators.review import (
    ReviewStore,
    apply,
    by_disagreement,
    by_uncertainty,
    check,
    collect,
    export_rows,
    fingerprint,
    gold_table,
    labels_from_case,
    next_case,
    ppi,
    to_jsonl,
    with_gold,
)
from evaluators.review import calibrate as cal
from evaluators.review.labels import Correction
from evaluators.store import RunStore
from evaluators.types import SentenceLabels, SentenceSupport
from tests.review_fixtures import THRESHOLD, case, hybridize, scripted_run

BASE = SentenceLabels(
    method="trace", document_keys=("0a", "0b", "1a"), relevant_keys=("0a",), utilized_keys=("0a",),
    sentences=(SentenceSupport(key="a", supporting_keys=("0a",), fully_supported=True, score=0.9),
               SentenceSupport(key="b", supporting_keys=("0b",), fully_supported=False, score=0.5),
               SentenceSupport(key="c", fully_supported=False, score=0.1)))


def corr(field, key, value, who="Ann"):
    return Correction(field=field, key=key, value=check(BASE, field, key, value), reviewer=who, at="t")


# ---- corrections ----------------------------------------------------------------------------------
def test_corrections_make_the_reviewed_labels_latest_wins_and_none_resets():
    out = apply(BASE, [corr("support", "a", {"level": "none", "keys": ["0a"]}),
                       corr("support", "c", {"level": "partial", "keys": ["1a", "0a"]}),
                       corr("relevant", "1a", True), corr("utilized", "0a", False),
                       corr("relevant", "0b", True), corr("relevant", "0b", None)])
    levels = {s.key: (s.level, s.supporting_keys) for s in out.sentences}
    assert levels == {"a": ("none", ()), "b": ("partial", ("0b",)), "c": ("partial", ("1a", "0a"))}
    assert out.relevant_keys == ("0a", "1a") and out.utilized_keys == ()
    assert out.method == "reviewed" and all(s.score is None for s in out.sentences)
    assert not out.overall_supported
    sc = trace_metrics.compute(out)
    assert sc.adherence == 0 and sc.expected_adherence == 0 and sc.context_relevance == pytest.approx(2 / 3)
    again = apply(BASE, [corr("support", "a", {"level": "none", "keys": []}), corr("support", "a", None)])
    assert again.sentences[0].level == "full"  # reset to the method's label


@pytest.mark.parametrize("field,key,value,msg", [
    ("support", "z", {"level": "full"}, "response sentence 'z'"),
    ("support", "a", {"level": "maybe"}, "one of full, partial, none"),
    ("support", "a", {"level": "partial", "keys": []}, "partially supported needs at least one"),
    ("support", "a", {"level": "full", "keys": ["9z"]}, "not document sentences of this case: 9z"),
    ("relevant", "a", True, "document sentence 'a'"),
    ("utilized", "0a", "yes", "true or false"),
    ("colour", "0a", True, "unknown label 'colour'"),
])
def test_bad_corrections_are_refused_with_a_clear_message(field, key, value, msg):
    with pytest.raises(ValueError, match=msg):
        check(BASE, field, key, value)


def test_none_support_drops_keys_and_special_keys_are_allowed():
    assert check(BASE, "support", "a", {"level": "none", "keys": ["0a"]}) == {"level": "none", "keys": []}
    assert check(BASE, "support", "a", {"level": "full", "keys": ["general"]})["keys"] == ["general"]


# ---- store ----------------------------------------------------------------------------------------
@pytest.fixture
def run5(register_method):
    return scripted_run(register_method, [case(i) for i in range(5)], lambda c, k: [0.95, 0.6, 0.1][k])


def test_store_keeps_every_correction_with_time_and_reviewer_across_reloads(tmp_path, run5):
    runs = RunStore(tmp_path / "h.sqlite3")
    rid = runs.save(run5, "r", owner="alice")
    st = ReviewStore(runs)
    r = run5.results[0]
    st.correct(rid, r, "support", "b", {"level": "none", "keys": []}, reviewer=" Ann  Lee ", owner="alice")
    got = st.correct(rid, r, "relevant", "1b", True, reviewer="Bob", owner="alice")
    assert [c.reviewer for c in got.corrections] == ["Ann Lee", "Bob"] and all(c.at for c in got.corrections)
    assert not got.reviewed and got.n_changes == 2
    with pytest.raises(ValueError, match="reviewer name"):
        st.correct(rid, r, "relevant", "1b", True, reviewer="  ", owner="alice")
    with pytest.raises(ValueError, match="partially supported"):
        st.correct(rid, r, "support", "a", {"level": "partial"}, reviewer="Ann", owner="alice")
    st.mark(rid, r, reviewer="Ann", owner="alice")
    again = ReviewStore(tmp_path / "h.sqlite3")  # a new process / a reload
    case0 = again.get(rid, "case-0", owner="alice")
    assert case0 is not None and case0.reviewed and case0.reviewer == "Ann"
    assert [s.level for s in case0.labels.sentences] == ["full", "none", "none"]
    assert "1b" in case0.labels.relevant_keys
    assert case0.base == r.labels and case0.spans == r.spans and case0.fingerprint == fingerprint(r.case)
    assert again.status(rid, owner="alice") == {"case-0": (2, True)}
    assert set(again.gold(owner="alice")) == {fingerprint(r.case)}
    again.mark(rid, r, reviewer="Ann", owner="alice", reviewed=False)
    assert again.gold(owner="alice") == {} and again.count(owner="alice") == 0


def test_reviews_are_as_private_as_the_run_and_go_with_it(tmp_path, run5):
    runs = RunStore(tmp_path / "h.sqlite3")
    rid = runs.save(run5, "alice's", owner="alice")
    st = ReviewStore(runs)
    r = run5.results[1]
    with pytest.raises(KeyError):  # bob cannot write to alice's run ...
        st.correct(rid, r, "relevant", "0a", False, reviewer="Bob", owner="bob")
    st.correct(rid, r, "relevant", "0a", False, reviewer="Ann", owner="alice")
    st.mark(rid, r, reviewer="Ann", owner="alice")
    assert st.of_run(rid, owner="bob") == {} and st.gold(owner="bob") == {}  # ... nor read it
    assert st.get(rid, "case-1", owner="bob") is None
    assert set(st.of_run(rid, owner=None)) == {"case-1"}  # shared history: everyone's
    st.correct(rid, r, "relevant", "0b", False, reviewer="Bob", owner=None)  # shared: writes allowed
    assert st.get(rid, "case-1", owner="alice").reviewers == ("Ann", "Bob")
    assert runs.delete(rid, owner="alice")
    assert st.of_run(rid, owner=None) == {}
    import sqlite3

    with sqlite3.connect(runs.path) as con:
        assert con.execute("SELECT COUNT(*) FROM review_corrections").fetchone()[0] == 0


def test_an_unscored_case_cannot_be_reviewed(tmp_path, run5):
    runs = RunStore(tmp_path / "h.sqlite3")
    rid = runs.save(run5, owner=None)
    bad = run5.results[0].model_copy(update={"labels": None, "scores": None, "error": "empty response"})
    with pytest.raises(ValueError, match="not scored \\(empty response\\)"):
        ReviewStore(runs).mark(rid, bad, reviewer="Ann", owner=None)


# ---- queue ----------------------------------------------------------------------------------------
def test_queue_by_uncertainty_confidence_then_threshold_margin(register_method):
    confs = {"case-0": 0.9, "case-1": 0.2, "case-2": 0.55}
    run = scripted_run(register_method, [case(i) for i in range(3)], lambda c, k: 0.5,
                       conf=lambda c: confs[c.id])
    q = by_uncertainty(run, reviewed={"case-1"})
    assert [x.case_id for x in q] == ["case-2", "case-0", "case-1"]  # least confident first, reviewed last
    assert q[0].priority == pytest.approx(0.45) and "confidence 0.55" in q[0].why and q[-1].reviewed
    # without a confidence: the sentence closest to the threshold (0.8) first
    probs = {"case-0": 0.1, "case-1": 0.78, "case-2": 0.95}
    run2 = scripted_run(register_method, [case(i, n_resp=1) for i in range(3)], lambda c, k: probs[c.id])
    q2 = by_uncertainty(run2)
    assert [x.case_id for x in q2] == ["case-1", "case-2", "case-0"]
    assert "0.78 vs threshold 0.80" in q2[0].why
    assert next_case(q2) == "case-1" and next_case(q2, after="case-1") == "case-2"
    assert next_case(q2, after="case-0") == "case-1"  # wraps round


def test_queue_labels_without_probabilities_ask_the_hybrid_trace_labels_else_come_last(register_method):
    probs = {"case-0": 0.1, "case-1": 0.78, "case-2": 0.95}
    run = scripted_run(register_method, [case(i, n_resp=1) for i in range(4)],
                       lambda c, k: probs.get(c.id, 0.5))
    hyb = hybridize(run, {})  # final labels (the LLM's): no scores, no confidence
    q = by_uncertainty(hyb)
    assert [x.case_id for x in q] == ["case-1", "case-2", "case-3", "case-0"]
    assert q[0].why.startswith("trace: sentence P")
    llm = hyb.model_copy(update={"results": tuple(r.model_copy(update={"variants": {}}) for r in hyb.results)})
    q = by_uncertainty(llm)
    assert [x.case_id for x in q] == ["case-0", "case-1", "case-2", "case-3"] and all(x.priority is None for x in q)


def test_queue_by_disagreement_of_hybrid_labelers_and_of_two_runs(register_method):
    run = scripted_run(register_method, [case(i) for i in range(4)], lambda c, k: 0.9)
    hyb = hybridize(run, {"case-1": ["a"], "case-2": ["a", "b", "c"], "case-3": ["b", "c"]})
    q = by_disagreement(hyb, reviewed={"case-2"})
    assert [x.case_id for x in q] == ["case-3", "case-1", "case-0", "case-2"]
    assert q[0].priority == pytest.approx(2 / 3 + (2 / 3) / 4 / 100)
    assert "2 of 3 sentences differ (b, c)" in q[0].why
    # two runs: this run's final labels vs the other run's, matched by id and texts
    other = run.model_copy(update={"results": tuple(
        r.model_copy(update={"labels": hyb.results[i].labels}) if i in (1, 2) else r
        for i, r in enumerate(run.results))})
    q2 = by_disagreement(run, other)
    assert [x.case_id for x in q2][:2] == ["case-2", "case-1"]
    changed = other.model_copy(update={"results": (other.results[0].model_copy(
        update={"case": other.results[0].case.model_copy(update={"response": "Other text."})}),
        *other.results[1:])})
    assert "case-0" not in {x.case_id for x in by_disagreement(run, changed)}  # different texts: not paired


# ---- gold agreement ---------------------------------------------------------------------------------
def _review(tmp_path, run, edits, owner="alice"):
    """Save ``run``, apply {case id: [(field, key, value)]} as corrections and mark those cases reviewed."""
    runs = RunStore(tmp_path / "h.sqlite3")
    rid = runs.save(run, "reviewed", owner=owner)
    st = ReviewStore(runs)
    by_id = {r.case.id: r for r in run.results}
    for cid, changes in edits.items():
        for field, key, value in changes:
            st.correct(rid, by_id[cid], field, key, value, reviewer="Ann", owner=owner)
        st.mark(rid, by_id[cid], reviewer="Ann", owner=owner)
    return rid, st


NONE = {"level": "none", "keys": []}
FULL = {"level": "full", "keys": ["0a"]}


def test_gold_table_scores_every_labeling_with_intervals(tmp_path, register_method):
    probs = {0: [0.95, 0.9, 0.85], 1: [0.9, 0.4, 0.95], 2: [0.2, 0.9, 0.9], 3: [0.95, 0.95, 0.95],
             4: [0.85, 0.1, 0.3], 5: [0.9, 0.9, 0.9]}
    run = scripted_run(register_method, [case(i) for i in range(6)], lambda c, k: probs[int(c.id[-1])][k])
    edits = {"case-0": [("support", "c", NONE)], "case-1": [], "case-2": [("support", "a", FULL)],
             "case-3": [("relevant", "1a", True)], "case-4": [("support", "c", FULL), ("utilized", "0b", True)]}
    rid, st = _review(tmp_path, run, edits)
    gold = collect(st.gold(owner="alice"))
    assert len(gold) == 5  # case-5 not reviewed
    hyb = hybridize(run, {"case-1": ["a"], "case-3": ["b"]})
    table = gold_table({"mine": run, "hyb": hyb}, gold, run_ids={"mine": rid}, n_boot=200)
    mine = table[table["run"] == "mine"].set_index("statistic")
    assert set(mine["n"]) == {5}
    # hand-computed figures on the five gold cases
    g = {c.case_id: c for c in st.gold(owner="alice").values()}
    ids = [f"case-{i}" for i in range(5)]
    y = [not g[i].scores.overall_supported for i in ids]
    res = {r.case.id: r for r in run.results}
    s = [1 - res[i].scores.expected_adherence for i in ids]
    assert mine.loc["AUROC: hallucinated", "value"] == pytest.approx(roc_auc_score(y, s))
    a = [int(x.fully_supported) for i in ids for x in res[i].labels.sentences]
    b = [int(x.fully_supported) for i in ids for x in g[i].labels.sentences]
    assert mine.loc["kappa: sentence supported", "value"] == pytest.approx(cohen_kappa_score(a, b))
    rel_m = [int(k in res[i].labels.relevant_keys) for i in ids for k in res[i].labels.document_keys]
    rel_g = [int(k in g[i].labels.relevant_keys) for i in ids for k in g[i].labels.document_keys]
    assert mine.loc["kappa: relevant", "value"] == pytest.approx(cohen_kappa_score(rel_m, rel_g))
    ad = np.array([res[i].scores.adherence - g[i].scores.adherence for i in ids])
    assert mine.loc["RMSE: adherence", "value"] == pytest.approx(float(np.sqrt(np.mean(ad ** 2))))
    for stat in ("kappa: sentence supported", "RMSE: adherence", "AUROC: hallucinated"):
        lo, hi, v = mine.loc[stat, ["ci_low", "ci_high", "value"]]
        assert lo is not None and lo <= v <= hi
    assert "reviews started from these labels" in mine.loc["RMSE: adherence", "note"]
    # the hybrid: both labelers scored; the LLM's labels are the final ones on every case
    assert set(table[table["run"] == "hyb"]["labeling"]) == {"trace", "gpt_labeling (= final labels)"}
    k_llm = table[(table["run"] == "hyb") & (table["labeling"].str.startswith("gpt"))
                  & (table["statistic"] == "kappa: sentence supported")]["value"].iloc[0]
    assert k_llm < mine.loc["kappa: sentence supported", "value"]


def test_gold_one_class_and_another_split_say_why(tmp_path, register_method):
    run = scripted_run(register_method, [case(i) for i in range(3)], lambda c, k: 0.95)
    _, st = _review(tmp_path, run, {"case-0": [], "case-1": []})
    gold = collect(st.gold(owner="alice"))
    other = run.model_copy(update={"results": tuple(
        r.model_copy(update={"spans": r.spans.model_copy(update={"response": r.spans.response[:2]})})
        if r.case.id == "case-1" else r for r in run.results)})
    t = gold_table({"x": other}, gold, n_boot=50).set_index("statistic")
    assert t.loc["AUROC: hallucinated", "value"] is None or np.isnan(t.loc["AUROC: hallucinated", "value"])
    assert "all 2 gold cases are supported" in t.loc["AUROC: hallucinated", "note"]
    assert "1 case(s) split differently" in t.loc["kappa: sentence supported", "note"]
    assert t.loc["kappa: sentence supported", "n"] == 1


def test_prediction_powered_estimate_uses_the_gold(tmp_path, register_method):
    run = scripted_run(register_method, [case(i) for i in range(12)], lambda c, k: 0.95 if k else 0.5)
    # every case: sentence a is unsupported by the method; the reviewer says it is supported in 4 of 6
    edits = {f"case-{i}": [("support", "a", FULL)] if i < 4 else [] for i in range(6)}
    _, st = _review(tmp_path, run, edits)
    gold = collect(st.gold(owner="alice"))
    g_run = with_gold(run, gold)
    assert sum("reviewed_hallucinated" in r.case.labels for r in g_run.results) == 6
    est = {e["label"]: e for e in ppi(run, gold)}
    h = est["reviewed_hallucinated"]
    assert h["n_labeled"] == 6 and h["n_total"] == 12
    assert h["labels_only"]["mean"] == pytest.approx(2 / 6)
    assert h["metric"] == "overall_supported" and 0 <= h["low"] <= h["estimate"] <= h["high"] <= 1
    assert ppi(run, {}) == []


# ---- export / import ---------------------------------------------------------------------------------
def test_export_reimport_reproduces_the_reviewed_labels(tmp_path, register_method):
    run = scripted_run(register_method, [case(i) for i in range(5)], lambda c, k: [0.95, 0.6, 0.1][k])
    edits = {f"case-{i}": [("support", "b", NONE), ("relevant", "1c", True)] if i % 2 else
             [("support", "c", {"level": "partial", "keys": ["1a"]}), ("utilized", "0a", False)] for i in range(5)}
    _, st = _review(tmp_path, run, edits)
    reviewed = sorted(st.gold(owner="alice").values(), key=lambda c: c.case_id)
    path = tmp_path / "reviewed.jsonl"
    path.write_text(to_jsonl(export_rows(reviewed)), encoding="utf-8")
    loaded = datasets.load_cases(path)
    assert not loaded.errors and len(loaded.cases) == 5
    assert {"hallucinated", "adherence_score", "sentence_support_information"} <= set(loaded.mapping.label_columns)
    for c, rc in zip(sorted(loaded.cases, key=lambda c: c.id), reviewed):
        assert (c.question, c.response, c.documents) == (rc.case.question, rc.case.response, rc.case.documents)
        labels, spans = labels_from_case(c)
        want = rc.labels
        assert [(s.key, s.level, s.supporting_keys) for s in labels.sentences] == \
               [(s.key, s.level, s.supporting_keys) for s in want.sentences]
        assert labels.relevant_keys == want.relevant_keys and labels.utilized_keys == want.utilized_keys
        assert labels.document_keys == want.document_keys and spans == rc.spans and not labels.notes
        assert trace_metrics.compute(labels) == trace_metrics.compute(want)
        assert c.labels["hallucinated"] == (not rc.scores.overall_supported)
        assert c.labels["adherence_score"] == pytest.approx(rc.scores.adherence)
        assert c.metadata["reviewed_by"] == "Ann"
    # gold from the uploaded file equals gold from the store
    rerun = scripted_run(register_method, loaded.cases, lambda c, k: 0.5)
    from_file = collect({}, [rerun])
    assert set(from_file) == {rc.fingerprint for rc in reviewed}
    for rc in reviewed:
        g = from_file[rc.fingerprint]
        assert g.source == "file" and g.scores == rc.scores and g.spans == rc.spans


def test_export_keeps_keys_when_the_split_differs(tmp_path, register_method):
    """The file carries its own sentence split: keys keep their meaning even when today's splitter
    would cut the texts differently (here: the stored split joins two response sentences)."""
    run = scripted_run(register_method, [case(0)], lambda c, k: 0.9)
    r = run.results[0]
    joined = r.spans.model_copy(update={"response": ((r.spans.response[0][0], r.spans.response[1][1]),
                                                     r.spans.response[2])})
    labels = r.labels.model_copy(update={"sentences": r.labels.sentences[:2]})
    run = run.model_copy(update={"results": (r.model_copy(update={"spans": joined, "labels": labels}),)})
    _, st = _review(tmp_path, run, {"case-0": [("support", "b", NONE)]})
    rows = export_rows(st.gold(owner="alice").values())
    assert [k for k, _ in rows[0]["response_sentences"]] == ["a", "b"]
    case0 = datasets.cases_from_records(rows).cases[0]
    got, spans = labels_from_case(case0)
    assert spans.response == joined.response and [s.level for s in got.sentences] == ["full", "none"]


def test_unknown_keys_in_an_upload_are_dropped_and_noted():
    from evaluators.types import TestCase

    c = TestCase(id="x", question="q?", response="One claim. Two claims.", documents=("Doc one. Doc two.",),
                 labels={"sentence_support_information": [
                     {"response_sentence_key": "a", "supporting_sentence_keys": ["0a", "7z"], "fully_supported": True},
                     {"response_sentence_key": "q", "supporting_sentence_keys": [], "fully_supported": False}],
                     "all_relevant_sentence_keys": "0a, 0b."})
    labels, _ = labels_from_case(c)
    assert [s.key for s in labels.sentences] == ["a"] and labels.sentences[0].supporting_keys == ("0a",)
    assert labels.relevant_keys == ("0a", "0b")
    assert any("7z" in n for n in labels.notes) and any("'q'" in n for n in labels.notes)
    assert labels_from_case(c.model_copy(update={"labels": {}})) is None


def test_the_cli_reads_an_exported_file_as_human_labels(tmp_path, register_method, fake_method, capsys):
    from evaluators.cli import main

    run = scripted_run(register_method, [case(i) for i in range(5)], lambda c, k: [0.95, 0.6, 0.1][k])
    _, st = _review(tmp_path, run, {f"case-{i}": [("support", "c", FULL)] if i < 2 else [] for i in range(5)})
    path = tmp_path / "reviewed.jsonl"
    path.write_text(to_jsonl(export_rows(st.gold(owner="alice").values())), encoding="utf-8")
    out = tmp_path / "agreement.json"
    code = main(["agreement", str(path), "--method", "ui_fake", "--n-boot", "50", "--no-progress",
                 "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    report = json.loads(out.read_text())
    labels = {row["label"] for row in report["table"]}
    assert {"hallucinated", "adherence_score", "relevance_score", "utilization_score",
            "completeness_score"} <= labels
    assert {row["n"] for row in report["table"] if row["label"] == "hallucinated"} == {5}


# ---- calibration -------------------------------------------------------------------------------------
def _miscalibrated(register_method, tmp_path, n_cases=30, seed=1):
    """The method's threshold is 0.8, but the reviewer's truth is 'supported when P >= 0.35'
    (with a little noise): calibration should move the threshold down and agree better."""
    rng = random.Random(seed)
    probs = {f"case-{i}": [rng.random() for _ in range(4)] for i in range(n_cases)}
    run = scripted_run(register_method, [case(i, n_resp=4) for i in range(n_cases)], lambda c, k: probs[c.id][k])
    edits = {}
    for cid, ps in probs.items():
        truth = [(p >= 0.35) != (rng.random() < 0.05) for p in ps]
        edits[cid] = [("support", "abcd"[k], FULL if t else NONE) for k, t in enumerate(truth)]
    rid, st = _review(tmp_path, run, edits)
    return run, collect(st.gold(owner="alice")), rid


def test_calibration_is_refused_below_the_minimum_and_says_what_is_missing(tmp_path, register_method):
    run, gold, _ = _miscalibrated(register_method, tmp_path, n_cases=8)
    d = cal.data(run, gold)
    assert len(d.cases) == 8 and len(d.p) == 32
    why = cal.readiness(d)
    assert why and f"{cal.MIN_CASES} gold cases" in why and "you have 8" in why
    with pytest.raises(ValueError, match="needs at least"):
        cal.fit(d)
    with pytest.raises(ValueError, match="needs at least"):
        cal.cross_validate(d)


def test_calibration_cross_validated_before_after_and_applied_only_to_a_copy(tmp_path, register_method):
    run, gold, _ = _miscalibrated(register_method, tmp_path)
    d = cal.data(run, gold)
    assert cal.readiness(d) is None and d.threshold == THRESHOLD
    rows = {r["statistic"]: r for r in cal.cross_validate(d, n_boot=200)}
    k = rows["kappa: sentence supported"]
    assert k["after"] > k["before"] + 0.2 and k["change_low"] > 0 and k["n_cases"] == 30
    helps, text = cal.verdict(list(rows.values()))
    assert helps and "agrees better" in text
    assert rows["Brier score (lower is better)"]["after"] < rows["Brier score (lower is better)"]["before"]
    c = cal.fit(d)
    assert 0.2 < c.threshold < 0.5 and c.old_threshold == THRESHOLD and c.n_sentences == 120
    new = cal.apply(run, c)
    assert run.results[0].labels.extra["threshold"] == THRESHOLD  # the original is untouched
    assert new.settings["calibrated_to_reviews"]["n_cases"] == 30
    for old_r, new_r in zip(run.results, new.results):
        for s_old, s_new in zip(old_r.labels.sentences, new_r.labels.sentences):
            assert s_new.fully_supported == (float(c.prob(s_old.score)) >= 0.5)
        assert new_r.scores == trace_metrics.compute(new_r.labels)
    assert new.means()["adherence"] > run.means()["adherence"]
    # the calibrated copy agrees better with the gold than the original
    t_old = gold_table({"x": run}, gold, n_boot=0).set_index("statistic")
    t_new = gold_table({"x": new}, gold, n_boot=0).set_index("statistic")
    assert t_new.loc["kappa: sentence supported", "value"] > t_old.loc["kappa: sentence supported", "value"]
    # a hybrid copy: the trace variant is re-decided, the LLM's labels stay
    hyb = cal.apply(hybridize(run, {}), c)
    r0 = hyb.results[0]
    assert r0.labels.method == "gpt_labeling" and r0.labels == hybridize(run, {}).results[0].labels
    assert r0.variants["trace"] == new.results[0].labels and "support_agreement" in r0.agreement


def test_calibration_refuses_scores_that_do_not_rank_the_labels(tmp_path, register_method):
    rng = random.Random(3)
    probs = {f"case-{i}": [rng.random() for _ in range(4)] for i in range(25)}
    run = scripted_run(register_method, [case(i, n_resp=4) for i in range(25)], lambda c, k: probs[c.id][k])
    edits = {cid: [("support", "abcd"[k], NONE if p >= 0.5 else FULL) for k, p in enumerate(ps)]
             for cid, ps in probs.items()}
    _, st = _review(tmp_path, run, edits)
    d = cal.data(run, collect(st.gold(owner="alice")))
    with pytest.raises(ValueError, match="do not rank your labels"):
        cal.fit(d)
    helps, text = cal.verdict(cal.cross_validate(d, n_boot=100))
    assert not helps and "no clear difference" in text


def test_special_sentences_are_left_alone(tmp_path):
    lab = BASE.model_copy(update={"sentences": (
        SentenceSupport(key="a", supporting_keys=("general",), fully_supported=True, score=1.0),
        SentenceSupport(key="b", supporting_keys=("0a",), fully_supported=False, score=0.5))})
    c = cal.Calibration(slope=1.0, intercept=3.0, threshold=0.05, old_threshold=0.8, n_cases=20, n_sentences=40)
    out = cal.relabel(lab, c)
    assert out.sentences[0] == lab.sentences[0]
    assert out.sentences[1].fully_supported and out.sentences[1].score == pytest.approx(float(c.prob(0.5)), abs=1e-4)

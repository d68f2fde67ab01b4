"""hybrid (heuristic + LLM, selective) and jury (majority vote) against the loopback server."""

from __future__ import annotations

import pytest

from evaluators import TestCase, evaluate_batch
from evaluators.agreement import variant_agreement
from evaluators.labelers import hybrid
from evaluators.pipeline import estimate
from evaluators.types import LabelOutcome, SentenceLabels, SentenceSupport
from tests.llm_server import PARIS_CASE as CASE
from tests.llm_server import PARIS_LABELS as GOOD
from tests.llm_server import Reply, labels_reply

pytestmark = pytest.mark.usefixtures("close_llm_clients")


def cases(n: int) -> list[TestCase]:
    return [CASE.model_copy(update={"id": f"c{i}", "question": f"{CASE.question} (#{i})"}) for i in range(n)]


def fake_heuristic(confidences: dict[str, float] | None = None, fail: set[str] = frozenset()):
    """A stand-in heuristic: relevant 0a only, utilized 0a+0b, sentence b unsupported."""
    def run(items, options):
        outs = []
        for it in items:
            if it.case.id in fail:
                outs.append(LabelOutcome(error="heuristic exploded"))
                continue
            outs.append(LabelOutcome(labeled_by="trace", labels=SentenceLabels(
                method="trace", document_keys=it.doc_keys, relevant_keys=("0a",), utilized_keys=("0a", "0b"),
                sentences=(SentenceSupport(key="a", supporting_keys=("0a",), fully_supported=True),
                           SentenceSupport(key="b", fully_supported=False),
                           SentenceSupport(key="c", fully_supported=False)),
                confidence=(confidences or {}).get(it.case.id, 0.9))))
        return outs
    return run


@pytest.fixture
def llm(loopback_settings):
    return loopback_settings(model="judge", max_retries=1, timeout_s=60.0)  # 60 s: the library default


def test_hybrid_labels_every_case_with_both_and_agreement(llm_server, llm, monkeypatch):
    monkeypatch.setattr(hybrid, "_heuristic_outcomes", fake_heuristic())
    llm_server.respond(lambda req: GOOD)
    run = evaluate_batch(cases(3), "hybrid", llm=llm)
    assert llm_server.count == 3
    r = run.results[0]
    assert r.error is None and r.labeled_by == "gpt_labeling"
    assert set(r.variants) == {"trace", "gpt_labeling"}
    assert r.scores == r.variant_scores["gpt_labeling"]
    assert r.variant_scores["trace"].adherence == pytest.approx(1 / 3)
    a = r.agreement
    assert a["support_agreement"] == pytest.approx(2 / 3)        # b differs
    assert a["support_level_agreement"] == pytest.approx(2 / 3)
    assert a["relevance_agreement"] == pytest.approx(4 / 5)      # 0b differs
    assert a["utilization_agreement"] == pytest.approx(3 / 5)    # 0b, 1a differ
    assert a["adherence_abs_diff"] == pytest.approx(1 / 3)
    assert a["completeness_abs_diff"] == pytest.approx(0.5)      # trace 1.0 vs llm 0.5
    assert a["overall_supported_agreement"] == 1.0
    assert r.usage.calls == 1
    summary = variant_agreement(run)
    assert summary["cases_with_both"] == 3 and summary["labeled_by"] == {"gpt_labeling": 3}
    assert summary["mean"]["support_agreement"] == pytest.approx(2 / 3)
    assert summary["sentences_compared"] == 9
    assert summary["support_kappa"] == pytest.approx(0.4)  # trace 1/3 full vs llm 2/3 full


def test_dry_run_option_never_calls(llm_server, llm, monkeypatch):
    monkeypatch.setattr(hybrid, "_heuristic_outcomes", fake_heuristic())
    llm_server.respond(lambda req: GOOD)
    for method, extra in (("gpt_labeling", {}), ("hybrid", {}), ("jury", {"jury": (llm, llm)})):
        run = evaluate_batch(cases(2), method, llm=llm, dry_run=True, **extra)
        assert all("dry run" in r.error for r in run.results), method
    assert llm_server.count == 0


def test_selective_budget_is_global_across_chunks(llm_server, llm, monkeypatch):
    conf = {f"c{i}": 0.9 for i in range(10)}
    conf.update({"c1": 0.2, "c6": 0.1, "c9": 0.3, "c4": 0.35})
    monkeypatch.setattr(hybrid, "_heuristic_outcomes", fake_heuristic(conf))
    llm_server.respond(lambda req: GOOD)
    run = evaluate_batch(cases(10), "hybrid", llm=llm, selective_budget=3, chunk_size=4)
    assert llm_server.count == 3
    by = {r.case.id: r.labeled_by for r in run.results}
    assert sorted(k for k, v in by.items() if v == "gpt_labeling") == ["c1", "c6", "c9"]
    assert all(r.error is None for r in run.results)
    r0 = run.results[0]
    assert r0.labeled_by == "trace" and set(r0.variants) == {"trace"} and r0.agreement == {}
    assert run.usage.calls == 3


def test_selective_share_and_unlabeled_first(llm_server, llm, monkeypatch):
    monkeypatch.setattr(hybrid, "_heuristic_outcomes", fake_heuristic(fail={"c5"}))
    llm_server.respond(lambda req: GOOD)
    run = evaluate_batch(cases(10), "hybrid", llm=llm, selective_share=0.25)
    assert llm_server.count == 3  # ceil(2.5)
    assert run.results[5].labeled_by == "gpt_labeling" and run.results[5].error is None
    assert any("no heuristic labels" in n for n in run.results[5].labels.notes)
    est = estimate(cases(10), "hybrid", llm=llm, selective_share=0.25)
    assert est["cases"] == 10 and est["cached_calls"] + est["calls"] == 3


def test_selective_llm_failure_falls_back_to_heuristic(llm_server, llm, monkeypatch):
    monkeypatch.setattr(hybrid, "_heuristic_outcomes", fake_heuristic({"c0": 0.1}))
    llm_server.respond(lambda req: Reply.error(500, "down"))
    run = evaluate_batch(cases(3), "hybrid", llm=llm, selective_budget=1)
    r = run.results[0]
    assert r.error is None and r.labeled_by == "trace"
    assert any("gpt_labeling failed" in n and "HTTP 500" in n for n in r.labels.notes)
    assert r.usage.calls == 0 and r.usage.retries == 2  # two unanswered attempts, none billed


def test_hybrid_without_llm_is_a_clear_error():
    run = evaluate_batch(cases(1), "hybrid")
    assert run.results[0].scores is None and "needs an LLM" in run.results[0].error


def test_hybrid_with_the_real_heuristic(llm_server, llm):
    llm_server.respond(lambda req: GOOD)
    run = evaluate_batch([CASE], "hybrid", llm=llm)
    r = run.results[0]
    if "trace" not in r.variants:
        pytest.skip(f"heuristic labeler did not label: {r.labels.notes if r.labels else r.error}")
    assert r.error is None and r.labeled_by == "gpt_labeling"
    assert r.variants["trace"].method == "trace"
    assert 0.0 <= r.agreement["support_agreement"] <= 1.0
    assert r.variant_scores["gpt_labeling"].adherence == pytest.approx(2 / 3)


# ---------------------------------------------------------------------- jury
def jury_responder(req):
    model = req["model"]
    if model == "m1":
        return labels_reply(["0a", "0b"], ["0a"], {"a": (["0a"], True), "b": (["0b"], True), "c": ([], False)})
    if model == "m2":
        return labels_reply(["0a"], ["0a", "1a"], {"a": (["0a"], True), "b": (["0b"], False), "c": ([], False)})
    if model == "m3":
        return labels_reply(["0a", "0b", "1b"], ["0a", "1a"],
                            {"a": (["0a", "0c"], True), "b": (["0b"], True), "c": (["general"], True)})
    return Reply.error(500, "juror down")


def test_jury_majority_vote_keeps_the_split(llm_server, llm):
    llm_server.respond(jury_responder)
    jury = tuple(llm.model_copy(update={"model": m}) for m in ("m1", "m2", "m3"))
    run = evaluate_batch([CASE], "jury", jury=jury)
    r = run.results[0]
    assert r.error is None and r.labeled_by == "jury" and llm_server.count == 3
    lab = r.labels
    assert lab.relevant_keys == ("0a", "0b")          # 1b: 1 of 3
    assert lab.utilized_keys == ("0a", "1a")          # 0a: 3, 1a: 2
    assert [s.level for s in lab.sentences] == ["full", "full", "none"]
    assert lab.sentences[0].supporting_keys == ("0a",)  # 0c cited by 1 of 3
    assert lab.extra["votes"]["sentences"]["b"] == {"full": 2, "partial": 1, "none": 0}
    assert lab.extra["votes"]["sentences"]["c"] == {"full": 1, "partial": 0, "none": 2}
    assert lab.extra["votes"]["relevant"] == {"0a": 3, "0b": 2, "1b": 1}
    assert lab.extra["jurors"] == ["openai_compatible/m1", "openai_compatible/m2", "openai_compatible/m3"]
    assert lab.confidence == pytest.approx((3 / 3 + 2 / 3 + 2 / 3) / 3)
    assert len(r.variants) == 3 and r.variant_scores["juror3:openai_compatible/m3"].adherence == 1.0
    assert r.agreement["unanimous_support_share"] == pytest.approx(1 / 3)
    assert r.scores.adherence == pytest.approx(2 / 3)
    assert r.usage.calls == 3


def test_jury_survives_a_failed_juror_and_ties_go_low(llm_server, llm):
    llm_server.respond(jury_responder)
    jury = tuple(llm.model_copy(update={"model": m}) for m in ("m1", "m2", "broken"))
    r = evaluate_batch([CASE], "jury", jury=jury).results[0]
    assert r.error is None
    assert "openai_compatible/broken" in r.labels.extra["failed_jurors"]
    assert any("2 of 3 jurors answered" in n for n in r.labels.notes)
    # b: m1 full vs m2 partial -> tie goes to the lower level
    assert r.labels.sentences[1].level == "partial"
    assert r.labels.relevant_keys == ("0a",)  # 0b: 1 of 2 is not a strict majority


def test_jury_needs_two_jurors_and_identical_jurors_sample_separately(llm_server, llm):
    assert "at least two" in evaluate_batch([CASE], "jury", jury=(llm,)).results[0].error
    llm_server.respond(lambda req: GOOD)
    r = evaluate_batch([CASE], "jury", jury=(llm, llm)).results[0]
    assert r.error is None and llm_server.count == 2
    assert len(r.variants) == 2


def test_estimate_jury_sums_jurors(llm):
    jury = tuple(llm.model_copy(update={"model": m}) for m in ("m1", "m2"))
    est = estimate(cases(4), "jury", jury=jury)
    assert est["calls"] == 8 and set(est["jurors"]) == {"openai_compatible/m1", "openai_compatible/m2"}

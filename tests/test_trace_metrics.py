"""TRACE metrics from sentence labels: hand-computed cases."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evaluators.trace_metrics import compute
from evaluators.types import SentenceLabels, SentenceSupport, TraceScores


def sup(key, keys=(), full=False):
    return SentenceSupport(key=key, supporting_keys=tuple(keys), fully_supported=full)


def labels(doc, rel=(), util=(), sents=(), **kw):
    return SentenceLabels(method="test", document_keys=tuple(doc), relevant_keys=tuple(rel),
                          utilized_keys=tuple(util), sentences=tuple(sents), **kw)


DOC10 = [f"0{c}" for c in "abcde"] + [f"1{c}" for c in "abcde"]


def test_hand_computed_case():
    # 10 doc sentences; R = {0a,0b,0c,1a} (4); U = {0b,0c,1b} (3); R∩U = {0b,0c} (2)
    # response: a full, b partial, c none, d full
    lab = labels(DOC10, rel=["0a", "0b", "0c", "1a"], util=["0b", "0c", "1b"],
                 sents=[sup("a", ["0b"], True), sup("b", ["0c"]), sup("c"), sup("d", ["1b"], True)])
    s = compute(lab)
    assert s.context_relevance == pytest.approx(4 / 10)
    assert s.context_utilization == pytest.approx(3 / 10)  # |U| / |D|, not |R∩U| / |R|
    assert s.completeness == pytest.approx(2 / 4)
    assert s.adherence == pytest.approx(2 / 4)
    assert s.overall_supported is False
    assert (s.fully_supported_sentences, s.partially_supported_sentences, s.unsupported_sentences) == (2, 1, 1)
    assert (s.num_document_sentences, s.num_response_sentences) == (10, 4)
    assert s.average() == pytest.approx((0.4 + 0.3 + 0.5 + 0.5) / 4)


def test_utilization_differs_from_completeness_formula():
    # R = {0a}, U = {0a, 0b, 0c}: completeness 1.0 but utilization 3/10; the confused
    # formula |R∩U|/|R| would give 1.0 for utilization.
    s = compute(labels(DOC10, rel=["0a"], util=["0a", "0b", "0c"], sents=[sup("a", ["0a"], True)]))
    assert s.context_utilization == pytest.approx(0.3)
    assert s.completeness == 1.0
    assert s.context_relevance == pytest.approx(0.1)


def test_completeness_is_one_when_nothing_relevant():
    s = compute(labels(DOC10, rel=[], util=["0a"], sents=[sup("a", ["0a"], True)]))
    assert s.completeness == 1.0
    assert s.context_relevance == 0.0
    assert s.context_utilization == pytest.approx(0.1)


def test_completeness_zero_when_relevant_unused():
    s = compute(labels(DOC10, rel=["0a", "0b"], util=["1e"], sents=[sup("a", ["1e"], True)]))
    assert s.completeness == 0.0


def test_all_supported():
    s = compute(labels(["0a", "0b"], rel=["0a", "0b"], util=["0a", "0b"],
                       sents=[sup("a", ["0a"], True), sup("b", ["0b"], True)]))
    assert s.overall_supported is True
    assert s.adherence == 1.0
    assert s.average() == 1.0
    assert s.unsupported_sentences == s.partially_supported_sentences == 0


def test_fully_supported_without_keys_counts_as_full():
    # "general knowledge" sentences: fully supported with a special key or none
    s = compute(labels(["0a"], sents=[sup("a", ["general"], True), sup("b", [], True)]))
    assert s.fully_supported_sentences == 2
    assert s.adherence == 1.0


def test_no_document_sentences():
    s = compute(labels([], rel=[], util=[], sents=[sup("a"), sup("b", [], True)]))
    assert s.context_relevance == 0.0
    assert s.context_utilization == 0.0
    assert s.completeness == 1.0
    assert s.adherence == 0.5
    assert s.num_document_sentences == 0


def test_no_response_sentences():
    s = compute(labels(["0a"], rel=["0a"]))
    assert s.adherence == 1.0
    assert s.overall_supported is True
    assert s.num_response_sentences == 0


def test_unknown_and_duplicate_keys_ignored():
    lab = labels(["0a", "0b", "0c", "0d"], rel=["0a", "0a", "9z", "x"], util=["0a", "0b", "0b", "7q"],
                 sents=[sup("a", ["0a"], True)])
    s = compute(lab)
    assert s.context_relevance == pytest.approx(1 / 4)
    assert s.context_utilization == pytest.approx(2 / 4)
    assert s.completeness == 1.0


def test_duplicate_document_keys_counted_once():
    s = compute(labels(["0a", "0a", "0b"], rel=["0a"], util=["0b"]))
    assert s.num_document_sentences == 2
    assert s.context_relevance == 0.5


def test_support_levels():
    assert sup("a", ["0a"], True).level == "full"
    assert sup("a", ["0a"], False).level == "partial"
    assert sup("a", [], False).level == "none"
    assert sup("a", [], True).level == "full"


def test_metrics_dict_and_aliases():
    s = compute(labels(DOC10, rel=["0a", "0b"], util=["0a"], sents=[sup("a", ["0a"], True), sup("b")]))
    d = s.metrics_dict()
    assert d["context_relevance"] == s.relevance == pytest.approx(0.2)
    assert d["context_utilization"] == s.utilization == pytest.approx(0.1)
    assert d["completeness"] == pytest.approx(0.5)
    assert d["adherence"] == pytest.approx(0.5)
    assert s.num_fully_supported_sentences == d["fully_supported_sentences"] == 1
    assert d["unsupported_sentences"] == 1


def test_scores_are_immutable():
    s = compute(labels(["0a"]))
    assert isinstance(s, TraceScores)
    with pytest.raises(ValidationError, match="frozen"):
        s.adherence = 0.0  # type: ignore[misc]


@pytest.mark.parametrize("n_doc,n_rel,n_util,n_overlap", [(1, 1, 1, 1), (7, 3, 5, 2), (30, 0, 4, 0), (5, 5, 0, 0)])
def test_ratios_in_range(n_doc, n_rel, n_util, n_overlap):
    doc = [f"0{chr(97 + i)}" if i < 26 else f"1{chr(97 + i - 26)}" for i in range(n_doc)]
    rel = doc[:n_rel]
    util = doc[n_rel - n_overlap: n_rel - n_overlap + n_util]
    s = compute(labels(doc, rel=rel, util=util))
    assert s.context_relevance == pytest.approx(n_rel / n_doc)
    assert s.context_utilization == pytest.approx(n_util / n_doc)
    expected_comp = (len(set(rel) & set(util)) / n_rel) if n_rel else 1.0
    assert s.completeness == pytest.approx(expected_comp)
    for v in (s.context_relevance, s.context_utilization, s.completeness, s.adherence):
        assert 0.0 <= v <= 1.0


def test_run_result_json_round_trip_with_computed_level():
    from evaluators.types import CaseResult, RunResult, SentenceLabels, SentenceSupport, TestCase

    labels = SentenceLabels(method="trace", document_keys=("0a",), relevant_keys=("0a",),
                            sentences=(SentenceSupport(key="a", supporting_keys=("0a",), fully_supported=False),))
    run = RunResult(method="trace", results=(CaseResult(case=TestCase(id="1", question="q", response="r"),
                                                        method="trace", labels=labels),))
    back = RunResult.model_validate_json(run.model_dump_json())
    assert back == run and back.results[0].labels.sentences[0].level == "partial"


def test_trace_metrics_are_registered_like_any_family():
    """One vocabulary: the TRACE metrics are declared in the metric registry (family 'trace'),
    read through CaseResult.value, never requested as family metrics."""
    from evaluators.families import METRICS, Ctx, list_metrics, validate_metric_names
    from evaluators.types import (
        AVERAGE,
        EXPECTED_ADHERENCE,
        OVERALL_SUPPORTED,
        SUMMARY_METRICS,
        TRACE_METRICS,
        TestCase,
    )

    assert [n for n, m in METRICS.items() if m.family == "trace"] == [
        *TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED, AVERAGE]
    assert METRICS.get("overall_supported").binary and not METRICS.get("adherence").binary
    assert not {d["name"] for d in list_metrics()} & set(SUMMARY_METRICS)
    assert {d["name"] for d in list_metrics(include_trace=True)} >= set(SUMMARY_METRICS)
    with pytest.raises(ValueError, match="adherence: TRACE metric"):
        validate_metric_names(["adherence"])
    labels = SentenceLabels(method="x", document_keys=("0a", "0b"), relevant_keys=("0a",),
                            utilized_keys=("0a",),
                            sentences=(SentenceSupport(key="a", supporting_keys=("0a",), fully_supported=True),
                                       SentenceSupport(key="b", fully_supported=False)))
    scores = compute(labels)
    case = TestCase(id="1", question="q", response="r")
    for name in SUMMARY_METRICS:
        got = METRICS.get(name).compute(Ctx(case=case, params={}, scores=scores))
        assert got == scores.value(name)
    assert scores.value("average") == pytest.approx((0.5 + 0.5 + 1.0 + 0.5) / 4)


def test_expected_adherence_is_the_mean_probability_and_adherence_without_probabilities():
    from evaluators.schema import load_run
    from evaluators.types import CaseResult, RunResult, TestCase

    def lab(*sents):
        return SentenceLabels(method="m", document_keys=("0a",), sentences=tuple(
            SentenceSupport(key=k, fully_supported=f, score=p) for k, f, p in sents))

    # heuristic-style: probabilities; two cases with the same adherence (1/2) are ordered by them
    a = compute(lab(("a", True, 0.9), ("b", False, 0.4)))
    b = compute(lab(("a", True, 0.6), ("b", False, 0.05)))
    assert a.adherence == b.adherence == 0.5
    assert a.expected_adherence == pytest.approx(0.65) and b.expected_adherence == pytest.approx(0.325)
    # LLM-style labels carry no probability: expected adherence = adherence (the verdicts as 1 / 0)
    llm = compute(lab(("a", True, None), ("b", False, None), ("c", True, None)))
    assert llm.expected_adherence == pytest.approx(llm.adherence) == pytest.approx(2 / 3)
    assert compute(lab()).expected_adherence == 1.0  # no claim made
    assert compute(lab(("a", True, 1.7))).expected_adherence == 1.0  # clipped to [0, 1]
    # a result stored before the field existed gets it from its labels (and its variants' labels)
    labels = lab(("a", True, 0.9), ("b", False, 0.4))
    cr = CaseResult(case=TestCase(id="1", question="q", response="r", documents=["d"]), method="trace",
                    labels=labels, scores=compute(labels), variants={"trace": labels},
                    variant_scores={"trace": compute(labels)})
    old = RunResult(method="trace", results=(cr,)).model_dump(exclude_computed_fields=True)
    case = old["results"][0]
    del case["scores"]["expected_adherence"], case["variant_scores"]["trace"]["expected_adherence"]
    back = load_run(old).results[0]
    assert back.scores.expected_adherence == pytest.approx(0.65) == back.value("expected_adherence")
    assert back.variant_scores["trace"].expected_adherence == pytest.approx(0.65)

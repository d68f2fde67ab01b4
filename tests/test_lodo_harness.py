"""bench/lodo*.py: the leave-one-domain-out harness (data mapping, long pages, figures, routing) on rows built here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.lodo_data import LabeledCase, ragbench_item, ragbench_key
from bench.lodo_metrics import domain_figures, naive_context, naive_f1_cut, novel_token_ratio, rmse
from bench.lodo_route import judge_score, route_domain
from bench.shared_data import record_to_case


def _ragbench_row():
    return {
        "id": "r1", "source": "ragbench", "task": "covidqa", "split": "validation",
        "question": "Where was alpha-tubulin found?",
        "documents": ["Title: A paper\nPassage: Alpha-tubulin was abundant in the cytoplasm. It was weak in nuclei."],
        "response": "Alpha-tubulin was abundant in the cytoplasm. It was absent from mitochondria.",
        "labels": {
            "hallucinated": True,
            "documents_sentences": [[["0a", "Title: A paper"],
                                     ["0b", "Passage: Alpha-tubulin was abundant in the cytoplasm."],
                                     ["0c", "It was weak in nuclei."]]],
            "response_sentences": [["a", "Alpha-tubulin was abundant in the cytoplasm."],
                                   ["b", "It was absent from mitochondria."]],
            "unsupported_response_sentence_keys": ["b."],
            "all_relevant_sentence_keys": ["0b", "0c."],
            "all_utilized_sentence_keys": ["0b", "general"],
            "relevance_score": 2 / 3, "utilization_score": 1 / 3, "completeness_score": 0.5,
        },
        "meta": {},
    }


def test_ragbench_rows_are_labelled_on_their_own_split():
    row = _ragbench_row()
    case = record_to_case(row)
    item = ragbench_item(case, row["labels"])
    assert item.doc_keys == ("0a", "0b", "0c")
    assert item.response_keys == ("a", "b")
    b = item.doc_sentences[1]
    assert case.documents[0][b.start:b.end] == b.text and b.doc == 0
    r = item.response_sentences[1]
    assert case.response[r.start:r.end] == r.text
    unsup = {ragbench_key(k) for k in row["labels"]["unsupported_response_sentence_keys"]}
    assert [s.key not in unsup for s in item.response_sentences] == [True, False]
    assert ragbench_key("0c.") == "0c"


def _lc(h, supported, group="g", scores=None, relevant=None):
    row = _ragbench_row()
    case = record_to_case(row)
    return LabeledCase(domain="x", group=group, item=ragbench_item(case, row["labels"]), hallucinated=h,
                       supported=supported, relevant=relevant, utilized=set() if relevant is not None else None,
                       scores=scores or {})


def test_naive_references():
    assert novel_token_ratio("The cat sat on the mat", ["the cat sat", "on a mat"]) == pytest.approx(0.0)
    assert novel_token_ratio("Dogs bark loudly", ["the cat sat"]) == pytest.approx(1.0)
    assert novel_token_ratio("", ["x"]) == 0.0
    dq = np.array([0.6, 0.2, 0.55])
    S = np.array([[0.7, 0.1, 0.2]])
    rel, util, comp = naive_context(dq, S)
    assert rel == pytest.approx(2 / 3) and util == pytest.approx(1 / 3) and comp == pytest.approx(0.5)
    assert naive_context(np.zeros(0), np.zeros((1, 0))) == (0.0, 0.0, 1.0)


def _out(score, flag, probs, novel, rel=0.5, util=0.2, comp=1.0, conf=0.5):
    return {"score": score, "flag": flag, "minp": 1 - min(probs), "expected": 1 - sum(probs) / len(probs),
            "rel": rel, "util": util, "comp": comp,
            "conf": conf, "probs": probs, "full": [p >= 0.5 for p in probs], "novel": novel,
            "naive_rel": 0.3, "naive_util": 0.3, "naive_comp": 1.0}


def test_domain_figures_auroc_f1_rmse():
    cases = [_lc(True, [True, False], "g1", {"relevance": 0.5, "utilization": 0.2, "completeness": 1.0}, set()),
             _lc(False, [True, True], "g2", {"relevance": 0.3, "utilization": 0.2, "completeness": 1.0}, set()),
             _lc(True, [False, True], "g3", {"relevance": 0.5, "utilization": 0.4, "completeness": 0.5}, set()),
             _lc(False, [True, True], "g4", {"relevance": 0.5, "utilization": 0.2, "completeness": 1.0}, set())]
    outs = [_out(0.5, True, [0.9, 0.2], 0.4), _out(0.0, False, [0.9, 0.8], 0.1),
            _out(0.5, True, [0.3, 0.9], 0.05), _out(0.5, True, [0.9, 0.4], 0.2)]
    r = domain_figures(cases, outs, n_boot=50, naive_cut=0.15)
    assert r["n"] == 4 and r["hallucinated"] == 2
    assert r["auroc"] == pytest.approx(0.75)          # positives 0.5, 0.5; negatives 0.0, 0.5
    assert r["f1"] == pytest.approx(0.8)              # 3 flags, 2 right: P 2/3, R 1
    assert r["auroc_expected"] == pytest.approx(1.0)  # 1 - mean P: h 0.45, 0.40; clean 0.15, 0.35 (no tie)
    assert r["naive_auroc"] == pytest.approx(0.5)
    assert r["naive_f1"] == pytest.approx(0.5)        # flags: 0.4 (h), 0.2 (not) -> P 1/2, R 1/2
    assert r["sentence_auroc"] == pytest.approx(1.0)  # the two unsupported sentences have the lowest P
    assert r["relevance_rmse"] == pytest.approx(rmse([0.5] * 4, [0.5, 0.3, 0.5, 0.5]))
    assert r["naive_relevance_rmse"] == pytest.approx(rmse([0.3] * 4, [0.5, 0.3, 0.5, 0.5]))
    lo, hi = r["auroc_ci"]
    assert 0.0 <= lo <= r["auroc"] <= hi <= 1.0
    per = {"a": (cases, outs), "b": (cases, outs)}
    assert naive_f1_cut(per, ["a"]) < 0.4


def test_judge_score_and_routing_prefers_what_trace_gets_wrong():
    assert judge_score(_lc(True, [True, False])) == pytest.approx(0.5)
    assert judge_score(_lc(False, [None, None])) == 0.0
    rng = np.random.default_rng(0)
    cases, outs = [], []
    for i in range(60):
        h = i % 3 == 0
        wrong = i % 5 == 0
        flag = h != wrong
        cases.append(_lc(h, [not h, True], f"g{i}"))
        # trace: right verdict mostly; its confidence is low exactly where it is wrong
        outs.append(_out(0.5 if flag else 0.0, flag, [0.3 if flag else 0.9, 0.9], rng.random(),
                         conf=0.1 if wrong else 0.9))
    r = route_domain(cases, outs, share=0.3, n_random=50)
    assert r["sent"] == math.ceil(0.3 * 60)
    assert r["conf_auroc_wrong"] == pytest.approx(1.0)
    assert r["wrong_caught"] == pytest.approx(1.0)
    assert r["picked"] == pytest.approx(r["oracle"])
    assert r["picked"] > r["random"] > r["trace"] - 0.05


def _labeled(n: int, group: str, texts: list[list[str]], gold: list[tuple[str, ...]]) -> LabeledCase:
    docs = [" ".join(t) for t in texts]
    row = {"id": f"c{n}", "question": "q?", "documents": docs, "response": "A claim.",
           "labels": {"documents_sentences": [[[f"{d}{chr(97 + i)}", s] for i, s in enumerate(t)]
                                              for d, t in enumerate(texts)],
                      "response_sentences": [["a", "A claim."]]}}
    case = record_to_case(row)
    return LabeledCase(domain="x", group=group, item=ragbench_item(case, row["labels"]), hallucinated=False,
                       supported=[True], relevant={"0a"}, utilized=set(gold[0]), support_keys=list(gold))


def test_a_case_rebuilt_as_one_long_page_keeps_its_evidence_and_takes_no_copy_of_it():
    from bench.lodo_pages import pages

    own = _labeled(0, "g0", [["Own one.", "Own two."], ["Own three."]], [("0b", "1a")])
    same_q = _labeled(1, "g0", [["Same question."]], [("0a",)])
    copy = _labeled(2, "g2", [["Own two.", "A copy of the evidence."]], [("0a",)])
    others = [_labeled(3 + i, f"g{3 + i}", [[f"Other {i} a.", f"Other {i} b."]], [("0a",)]) for i in range(20)]
    paged = pages([own, same_q, copy, *others], size=12, seed=3)[0]
    sents = paged.item.doc_sentences
    assert {s.doc for s in sents} == {0} and len(sents) >= 12 and len(paged.item.case.documents) == 1
    assert [s.key for s in sents] == [f"0{chr(97 + i)}" for i in range(len(sents))]
    text = {s.key: s.text for s in sents}
    (gold,) = paged.support_keys
    assert sorted(text[k] for k in gold) == ["Own three.", "Own two."]  # the annotator's keys, re-keyed
    order = [s.text for s in sents]
    assert order.index("Own one.") + 1 == order.index("Own two.")  # a passage stays whole
    assert "Same question." not in order and "A copy of the evidence." not in order
    assert all(paged.item.case.documents[0][s.start:s.end] == s.text for s in sents)

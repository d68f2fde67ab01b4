"""``trace``'s context relevance is a function of the question and the documents alone (issue 47):
two responses to the same question over the same documents get the same relevant keys and the same
context_relevance, while utilization (and so completeness) still follows the response."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest

from evaluators import EvalOptions, TestCase, evaluate_batch
from evaluators.encoder import embeddings
from evaluators.labelers import context_model as cm

ROOT = Path(__file__).resolve().parents[1]

DOCS = (
    "Mars has two small moons, Phobos and Deimos. Phobos is the larger of the two and orbits "
    "closer to the planet. Deimos takes about 30 hours to circle Mars.",
    "Roman aqueducts carried water over long distances using gravity. The Pont du Gard in France is "
    "one of the best preserved aqueduct bridges.",
)
QUESTION = "How many moons does Mars have?"
RESPONSES = (
    "Mars has two moons, Phobos and Deimos.",
    "Mars has two moons. Roman aqueducts carried water using gravity, like the Pont du Gard.",
    "Mars has 14 moons, the largest of which is Titan.",
    "The documents do not say.",
)


@pytest.fixture(scope="module")
def model():
    return embeddings.load()


def test_relevance_features_take_no_response():
    params = set(inspect.signature(cm.relevance_features).parameters)
    assert params == {"question", "dq_in", "infos", "doc_ids"}
    assert not {"r_cos", "r_cos_rel", "r_cover"} & set(cm.REL_FEATURES)
    ctx = cm.load_params()
    assert ctx is not None and not ctx["relevance"].get("include_utilized")


def _run(cases):
    res = evaluate_batch(cases, "trace", options=EvalOptions())
    assert all(r.error is None for r in res.results), [r.error for r in res.results]
    return {r.case.id: r for r in res.results}


def test_synthetic_responses_change_nothing_but_utilization(model):
    cases = [TestCase(id=f"r{i}", question=QUESTION, response=r, documents=DOCS) for i, r in enumerate(RESPONSES)]
    out = _run(cases)
    rel = {r.labels.relevant_keys for r in out.values()}
    assert len(rel) == 1, rel
    assert len({r.value("context_relevance") for r in out.values()}) == 1
    # the relevant sentences are about Mars's moons, not the aqueducts the second answer used
    keys = next(iter(rel))
    assert keys and all(k.startswith("0") for k in keys), keys
    # utilization still follows the response: the aqueduct answer used document 1
    assert any(k.startswith("1") for k in out["r1"].labels.utilized_keys)
    assert not any(k.startswith("1") for k in out["r0"].labels.utilized_keys)
    assert out["r0"].value("context_utilization") != out["r3"].value("context_utilization")


def _sample(name):
    rows = [json.loads(x) for x in (ROOT / "data" / name).read_text(encoding="utf-8").splitlines() if x.strip()]
    return [TestCase(id=r["id"], question=r["question"], response=r["response"], documents=tuple(r["documents"]))
            for r in rows]


def test_the_two_sample_versions_share_relevance(model):
    v1, v2 = _sample("sample_rag.jsonl"), _sample("sample_rag_version2.jsonl")
    same = {a.id for a, b in zip(v1, v2) if a.question == b.question and a.documents == b.documents}
    assert len(same) == 15  # all but sw-list-comprehension (its retriever changed)
    r1, r2 = _run(v1), _run(v2)
    for cid in same:
        assert r1[cid].labels.relevant_keys == r2[cid].labels.relevant_keys, cid
        assert r1[cid].value("context_relevance") == r2[cid].value("context_relevance"), cid
    # ... and the answer's changes still move utilization somewhere
    assert any(r1[c].labels.utilized_keys != r2[c].labels.utilized_keys for c in same)
    # the Mars case: documents about Roman aqueducts hold nothing relevant to "How many moons does
    # Mars have?", whether the answer says so (v1) or invents 14 moons (v2)
    for r in (r1, r2):
        mars = r["irrelevant-mars-moons"]
        assert mars.labels.relevant_keys == () and mars.value("context_relevance") == 0.0
        assert mars.labels.relevance_explanation.startswith("no document sentence relates to the question")


def test_unrelated_sentences_are_never_relevant():
    """``top_expected`` would round an expected count of 0.5 up to one sentence; a sentence far from
    the question (cosine < UNRELATED_COS) sharing none of its words is dropped, a close one or one
    naming a question word is kept."""
    cols = {f: i for i, f in enumerate(cm.REL_FEATURES)}
    feats = np.zeros((3, len(cm.REL_FEATURES)))
    feats[:, cols["q_cos"]] = [0.09, 0.08, 0.35]
    feats[:, cols["q_kw_share"]] = [0.0, 0.5, 0.0]
    rule = {"select": "top_expected"}
    probs = np.array([0.2, 0.18, 0.15])
    assert cm.select(probs, rule).tolist() == [0]
    assert cm.relevant(probs, feats, rule).tolist() == []
    assert cm.relevant(np.array([0.9, 0.9, 0.9]), feats, rule).tolist() == [1, 2]


def test_relevance_rows_do_not_move_with_the_prepared_response():
    """The labeler computes relevance from ``dq`` and the document analyses alone: a prepared case
    whose response side (``S``, ``sent``) is replaced gives the same rows."""
    from evaluators.labelers.heuristic_features import build_doc_index

    docs = ["The Eiffel Tower is in Paris.", "It opened in 1889.", "Bananas are yellow."]
    doc = build_doc_index(tuple(docs), (0, 0, 1), ("\n".join(docs[:2]), docs[2]))
    dq = np.array([0.8, 0.5, 0.0])
    a = cm.context_features("Where is the Eiffel Tower?", ["It opened in 1889."],
                            {"dq": dq, "doc": doc, "S": np.array([[0.3, 0.9, 0.1]]),
                             "sent": [{"special": None, "support": [1], "ev": {"cov_top": 1.0}}]}, [0, 0, 1])
    b = cm.context_features("Where is the Eiffel Tower?", ["Bananas are yellow.", "Paris."],
                            {"dq": dq, "doc": doc, "S": np.array([[0.1, 0.1, 0.9], [0.7, 0.1, 0.1]]),
                             "sent": [{"special": None, "support": [2], "ev": {"cov_top": 1.0}}]}, [0, 0, 1])
    assert np.array_equal(a[0], b[0])
    assert not np.array_equal(a[1], b[1])


def test_the_llm_labeler_is_asked_relevance_from_question_and_documents_only():
    from evaluators.labelers.llm import INSTRUCTIONS

    step = INSTRUCTIONS.split("1. Relevance.", 1)[1].split("2. Overall support.", 1)[0]
    assert "Using only the documents and the question" in step and "ignore the response" in step

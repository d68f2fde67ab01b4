"""The learned parts of ``trace`` (adherence combiner, relevance / utilization, routing confidence):
feature design, the fitting helpers of bench/lodo_fit.py and the shipped params, on tiny synthetic
data (no training on the shared sets here)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evaluators.labelers import adherence_model as am
from evaluators.labelers import confidence as conf
from evaluators.labelers import context_model as cm
from evaluators.labelers.heuristic_features import FEATURES


def _prepared(n_sent=3, n_doc=4, special=None):
    rng = np.random.default_rng(0)
    S = rng.uniform(0.1, 0.9, size=(n_sent, n_doc))
    sents = []
    for si in range(n_sent):
        feats = [float(S[si].max())] + [0.5] * (len(FEATURES) - 1)
        sents.append({"text": ["Alpha beta.", "Gamma zeta omega.", "Thanks!"][si % 3], "key": "abc"[si],
                      "special": special if si == n_sent - 1 else None, "support": [int(np.argmax(S[si]))],
                      "feats": feats, "ev": {"cov_top": 0.5}})
    return {"sent": sents, "S": S, "doc_kind": "prose", "dq": rng.uniform(0, 1, n_doc)}


def test_adherence_design_rows_and_case_relative_features():
    p = _prepared()
    X, rows = am.design(p, "Alpha beta. Gamma zeta omega. Thanks!", ["alpha beta gamma", "thanks"])
    assert rows == [0, 1, 2] and X.shape == (3, len(am.ALL_FEATURES))
    col = {f: i for i, f in enumerate(am.ALL_FEATURES)}
    assert np.allclose(X[:, : len(FEATURES)], [sp["feats"] for sp in p["sent"]])
    assert X[0, col["tok_novel"]] == pytest.approx(0.0)           # every word is in a document
    assert X[1, col["tok_novel"]] == pytest.approx(2 / 3)         # zeta, omega are not
    assert X[0, col["case_novel"]] == pytest.approx(2 / 6)
    assert X[2, col["is_last"]] == 1.0 and X[0, col["pos"]] == 0.0 and X[2, col["pos"]] == 1.0
    sim = X[:, col["sim_max"]]
    assert np.allclose(X[:, col["sim_rel"]], sim - np.median(sim))
    assert np.all(X[:, col["sim_second"]] <= sim + 1e-12)
    # a sentence without features (no documents) gets no row
    p["sent"][1]["feats"] = None
    X2, rows2 = am.design(p, "x", ["y"])
    assert rows2 == [0, 2] and X2.shape[0] == 2
    probs = am.sentence_probs(p, {"mean": [0.0] * len(am.ALL_FEATURES), "scale": [1.0] * len(am.ALL_FEATURES),
                                  "coef": [0.0] * len(am.ALL_FEATURES), "intercept": 0.0}, "x", ["y"])
    assert np.isnan(probs[1]) and probs[0] == pytest.approx(0.5)


def test_fit_lr_is_calibrated_and_weights_domains_equally():
    from bench.lodo_fit import fit_lr

    rng = np.random.default_rng(1)
    Xs, ys = [], []
    for n in (2000, 200):  # a big and a small domain, same relation
        x = rng.normal(size=(n, 2))
        p = 1 / (1 + np.exp(-(2 * x[:, 0] - 1)))
        Xs.append(x)
        ys.append((rng.random(n) < p).astype(int))
    m = fit_lr(Xs, ys, C=10.0)
    assert m["coef"][0] == pytest.approx(2.0, abs=0.35) and abs(m["coef"][1]) < 0.35
    pr = am.predict(m, np.vstack(Xs))
    assert abs(pr.mean() - np.concatenate(ys).mean()) < 0.03
    # a feature without variance takes the prior's coefficient instead of 0
    Xd = [np.hstack([x, np.zeros((len(x), 1))]) for x in Xs]
    m2 = fit_lr(Xd, ys, C=10.0, prior={"coef": [0.0, 0.0, -3.0], "scale": [1.0, 1.0, 1.0]})
    assert m2["coef"][2] == pytest.approx(-3.0)


def test_threshold_rule_picks_a_separating_threshold():
    from bench.lodo_fit import choose_threshold

    class C:
        def __init__(self, h):
            self.hallucinated = h

    cases = [C(True), C(False)] * 20
    probs = [np.array([0.9, 0.55]) if c.hallucinated else np.array([0.9, 0.8]) for c in cases]
    thr, obj = choose_threshold({"d": (cases, probs)})
    assert 0.55 < thr <= 0.8 and obj == pytest.approx(1.0)


def test_context_selection_rules():
    p = np.array([0.9, 0.6, 0.3, 0.1, 0.05])
    assert cm.select(p, {"select": "top_expected"}).tolist() == [0, 1]          # round(1.95) = 2
    assert cm.select(p, {"select": "threshold", "threshold": 0.5}).tolist() == [0, 1]
    assert cm.select(np.array([0.1, 0.2]), {"select": "top_expected"}).tolist() == []
    with pytest.raises(ValueError):
        cm.select(p, {"select": "nope"})


def test_context_features_follow_the_question_and_the_response():
    """Relevance rows from the question (and documents), utilization rows from the response."""
    from evaluators.labelers.heuristic_features import build_doc_index

    docs = ["The Eiffel Tower is in Paris.", "It opened in 1889.", "Bananas are yellow."]
    p = {"dq": np.array([0.8, 0.5, 0.0]), "S": np.array([[0.3, 0.9, 0.1]]),
         "doc": build_doc_index(tuple(docs), (0, 0, 1), ("\n".join(docs[:2]), docs[2])),
         "sent": [{"special": None, "support": [1], "ev": {"cov_top": 1.0}}]}
    fr, fu = cm.context_features("Where is the Eiffel Tower?", ["It opened in 1889."], p, [0, 0, 1])
    assert fr.shape == (3, len(cm.REL_FEATURES)) and fu.shape == (3, len(cm.UTIL_FEATURES))
    r = {f: i for i, f in enumerate(cm.REL_FEATURES)}
    u = {f: i for i, f in enumerate(cm.UTIL_FEATURES)}
    assert fr[0, r["q_kw_count"]] >= 2 and fr[2, r["q_kw_count"]] == 0
    assert fr[0, r["q_cos_rank"]] == 1.0 and fr[2, r["doc_rank"]] > fr[0, r["doc_rank"]]
    assert fu[1, u["is_best"]] == 1.0 and fu[1, u["in_support"]] == 1.0 and fu[0, u["in_support"]] == 0.0
    assert fu[1, u["num_shared"]] == 1.0 and fu[1, u["r_cover"]] == 1.0


def test_confidence_points_at_the_side_the_verdict_is_on():
    assert conf.novel_token_ratio("a b c d", ["a b"]) == pytest.approx(0.5)
    f = conf.case_features([0.9, 0.2], 0.5, 0.3)
    assert len(f) == len(conf.CASE_FEATURES) and f[4] == 1.0
    n = len(conf.CASE_FEATURES)
    model = {"mean": [0.0] * n, "scale": [1.0] * n, "coef": [0.0] * n, "intercept": 2.0}  # P(halluc.) 0.88
    ph = 1 / (1 + np.exp(-2))
    assert conf.p_wrong(model, [0.2, 0.1], 0.5, 0.0) == pytest.approx(1 - ph)       # all flagged
    assert conf.p_wrong(model, [0.9, 0.8], 0.5, 0.0) == pytest.approx(ph)           # none flagged
    assert conf.p_wrong(model, [0.9, 0.2], 0.5, 0.0) == pytest.approx(0.5)          # half: expected disagreement
    # margin rule without a model: far from the threshold = sure
    assert conf.p_wrong(None, [0.99], 0.5, 0.0) < conf.p_wrong(None, [0.52], 0.5, 0.0)


@pytest.mark.parametrize("mod,feats", [(am, am.ALL_FEATURES), (conf, conf.CASE_FEATURES)])
def test_params_with_a_wrong_feature_list_are_refused(tmp_path, monkeypatch, mod, feats):
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps({"features": list(feats)[:-1]}), encoding="utf-8")
    monkeypatch.setattr(mod, "PARAMS_PATH", bad)
    mod.load_params.cache_clear()
    try:
        with pytest.raises(ValueError, match="feature list"):
            mod.load_params()
    finally:
        mod.load_params.cache_clear()


def test_shipped_params_are_consistent():
    """The artefacts ``trace`` loads by default: feature lists, shapes, one threshold in (0, 1)."""
    from evaluators.labelers.heuristic import load_params

    p = load_params()
    assert 0.0 < p["threshold"] < 1.0
    if am.load_params() is not None:
        m = p["model"]
        assert p["features"] == list(am.ALL_FEATURES)
        assert len(m["coef"]) == len(m["mean"]) == len(m["scale"]) == len(am.ALL_FEATURES)
        assert "fitted_on" in p and len(p["fitted_on"]) >= 2
    ctx = cm.load_params()
    if ctx is not None:
        for part, feats in (("relevance", cm.REL_FEATURES), ("utilization", cm.UTIL_FEATURES)):
            assert len(ctx[part]["coef"]) == len(feats)
    c = conf.load_params()
    if c is not None:
        assert len(c["coef"]) == len(conf.CASE_FEATURES)


def test_learned_relevance_keeps_the_expected_count():
    from types import SimpleNamespace

    from evaluators.labelers.heuristic import HeuristicMethod

    it = SimpleNamespace(doc_keys=("0a", "0b", "0c", "0d"))
    p = {"dq": np.array([0.9, 0.5, 0.2, 0.1])}
    n = len(cm.REL_FEATURES)
    model = {"mean": [0.0] * n, "scale": [1.0] * n, "coef": [4.0] + [0.0] * (n - 1), "intercept": 0.0,
             "select": "top_expected"}
    feats = np.zeros((4, n))
    feats[:, 0] = [2.0, 1.0, -1.0, -3.0]            # P ~ 0.998, 0.982, 0.018, 0.000 -> 2 expected
    rel, expl = HeuristicMethod._relevance_learned(it, p, model, feats)
    assert rel == {0, 1} and "0a" in expl and "expected count 2.0" in expl

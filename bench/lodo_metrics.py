"""Per-case outcomes and per-domain figures of the leave-one-domain-out harness (``bench/lodo.py``).

Per case (from a ``SentenceLabels`` and the case's labels):
* ``score``  = 1 − adherence (share of response sentences not fully supported) — the ranking whose
  AUROC against ``hallucinated`` is "adherence AUROC";
* ``expected`` = 1 − expected adherence (mean P(supported) of the response sentences,
  ``trace_metrics.expected_adherence``) — the tie-free ranking the product sorts cases by; its AUROC
  ("AUROC expected") is reported beside the AUROC of 1 − adherence (which ties every case whose
  sentences all pass, most of them);
* ``flag``   = not every sentence fully supported (F1 against ``hallucinated``);
* ``minp``   = 1 − the lowest P(supported) (a threshold-free ranking, reported beside);
* ``rel`` / ``util`` / ``comp`` = context_relevance / context_utilization / completeness by the
  product's own formulas (``evaluators.trace_metrics``), compared with RAGBench's stored
  ``relevance_score`` / ``utilization_score`` / ``completeness_score`` by RMSE.

Naive references (no fitting, no labels):
* novel-token ratio: share of the response's word tokens (``\\w+``, lower case) found in no document;
* relevance by a fixed cosine cut-off: a document sentence is relevant when its cosine to the
  question is >= ``NAIVE_COS`` (0.5, fixed before looking at any result); utilized when its
  cosine to some response sentence is >= ``NAIVE_COS``; completeness follows from the two.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from evaluators import trace_metrics
from evaluators.labelers.confidence import novel_token_ratio  # noqa: F401 - the one definition
from evaluators.types import SentenceLabels

NAIVE_COS = 0.5


def naive_context(dq: np.ndarray, S: np.ndarray) -> tuple[float, float, float]:
    """(relevance, utilization, completeness) of the fixed-cosine reference.

    ``dq``: cosine of each document sentence to the question; ``S``: response x document cosines."""
    n = len(dq)
    if n == 0:
        return 0.0, 0.0, 1.0
    rel = dq >= NAIVE_COS
    util = (S.max(axis=0) >= NAIVE_COS) if S.size else np.zeros(n, bool)
    comp = float((rel & util).sum() / rel.sum()) if rel.any() else 1.0
    return float(rel.mean()), float(util.mean()), comp


def outcome(labels: SentenceLabels, lc: Any) -> dict[str, Any]:
    """One case's figures from its predicted labels and its LabeledCase ``lc``."""
    t = trace_metrics.compute(labels)
    scores = [s.score for s in labels.sentences if s.score is not None]
    probs = [1.0 if s.score is None else float(s.score) for s in labels.sentences]
    out = {
        "score": 1.0 - t.adherence,
        "expected": 1.0 - t.expected_adherence,
        "flag": not t.overall_supported,
        "minp": 1.0 - (min(scores) if scores else 1.0),
        "rel": t.context_relevance,
        "util": t.context_utilization,
        "comp": t.completeness,
        "conf": labels.confidence,
        "probs": probs,
        "full": [bool(s.fully_supported) for s in labels.sentences],
        "p_h": (labels.extra or {}).get("p_hallucinated"),
    }
    return out


def auroc(y, s) -> float | None:
    from sklearn.metrics import roc_auc_score

    y = np.asarray(y, dtype=int)
    if len(set(y.tolist())) < 2:
        return None
    return float(roc_auc_score(y, s))


def _f1(y, flag) -> float:
    from sklearn.metrics import f1_score

    return float(f1_score(np.asarray(y, dtype=int), np.asarray(flag, dtype=int), zero_division=0))


def boot_ci(y, s, groups, fn, n: int = 500, seed: int = 7) -> tuple[float, float] | None:
    rng = np.random.default_rng(seed)
    y, s, groups = np.asarray(y), np.asarray(s), np.asarray(groups)
    ug = np.unique(groups)
    idx = {g: np.flatnonzero(groups == g) for g in ug}
    vals = []
    for _ in range(n):
        pick = rng.choice(ug, size=len(ug), replace=True)
        ii = np.concatenate([idx[g] for g in pick])
        v = fn(y[ii], s[ii])
        if v is not None:
            vals.append(v)
    if not vals:
        return None
    return float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5))


def rmse(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.sqrt(np.mean((a - b) ** 2)))


def domain_figures(cases: Sequence[Any], outs: Sequence[dict[str, Any]], n_boot: int = 500,
                   naive_cut: float | None = None) -> dict[str, Any]:
    """Figures of one domain from its LabeledCases and their outcomes (same order)."""
    y = [c.hallucinated for c in cases]
    g = [c.group for c in cases]
    res: dict[str, Any] = {"n": len(cases), "hallucinated": int(sum(y))}
    score = [o["score"] for o in outs]
    res["auroc"] = auroc(y, score)
    res["auroc_ci"] = boot_ci(y, score, g, auroc, n_boot) if n_boot else None
    expected = [o["expected"] for o in outs]
    res["auroc_expected"] = auroc(y, expected)
    res["auroc_expected_ci"] = boot_ci(y, expected, g, auroc, n_boot) if n_boot else None
    res["auroc_minp"] = auroc(y, [o["minp"] for o in outs])
    res["f1"] = _f1(y, [o["flag"] for o in outs])
    res["flag_rate"] = float(np.mean([o["flag"] for o in outs]))
    novel = [o["novel"] for o in outs]
    res["naive_auroc"] = auroc(y, novel)
    if naive_cut is not None:
        res["naive_cut"] = naive_cut
        res["naive_f1"] = _f1(y, [v > naive_cut for v in novel])
    # sentence level, where labels exist
    sy, sp = [], []
    for c, o in zip(cases, outs):
        for lab, p in zip(c.supported, o["probs"]):
            if lab is not None:
                sy.append(int(not lab))
                sp.append(1.0 - p)
    if sy:
        res["sentences"] = len(sy)
        res["sentence_auroc"] = auroc(sy, sp)
    ctx = [(c, o) for c, o in zip(cases, outs) if c.has_context_labels and c.scores]
    if ctx:
        for m, key in (("relevance", "rel"), ("utilization", "util"), ("completeness", "comp")):
            truth = [c.scores[m] for c, _ in ctx]
            res[f"{m}_rmse"] = rmse([o[key] for _, o in ctx], truth)
            res[f"{m}_mean"] = float(np.mean([o[key] for _, o in ctx]))
            res[f"{m}_true_mean"] = float(np.mean(truth))
            res[f"naive_{m}_rmse"] = rmse([o[f"naive_{key}"] for _, o in ctx], truth)
    return res


def naive_f1_cut(per_domain: dict[str, tuple[Sequence[Any], Sequence[dict[str, Any]]]],
                 domains: Sequence[str]) -> float:
    """The novel-token cut-off with the best mean F1 over ``domains`` (grid 0..0.5, step 0.01)."""
    best, best_v = 0.0, -1.0
    for cut in np.round(np.arange(0.0, 0.501, 0.01), 3):
        v = np.mean([_f1([c.hallucinated for c in per_domain[d][0]],
                         [o["novel"] > cut for o in per_domain[d][1]]) for d in domains])
        if v > best_v:
            best, best_v = float(cut), float(v)
    return best

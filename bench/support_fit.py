"""Fitting the supporting-key selector of ``trace`` (``evaluators/labelers/heuristic_selector.py``,
``support_params.json``) leave-one-domain-out on the seven RAGBench dev subsets
(``python -m bench.support_keys --fit``).

What is fitted: one logistic regression over the candidates' ``SELECT_FEATURES`` (how far below the
anchor, the share of the claim it carries, that against the best greedy sentence, next to a greedy
sentence, chosen by the greedy rule, a copy of a greedy sentence; its cosine as a z-score among the
case's sentences, the share of its own content words the claim holds, the claim's parts and the
documents' sentences (log), after / before a greedy sentence, its length) — the label is whether RAGBench's
annotator names the candidate among the sentence's supporting keys — each subset weighted equally;
and its ONE threshold: the lowest probability that still keeps the macro precision of the training
subsets, predicted inner leave-one-domain-out, at ``MIN_PRECISION`` or more (the issue's operating
point, precision 0.60, with a margin for transfer), the macro recall as high as it goes there.

Rows: every response sentence the annotator calls supported and backs with document sentences, that
``trace`` names keys for (fully or partly supported) — the sentences whose keys are scored. The
verdicts do not depend on the selector (it only picks the keys), so the rows are made once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evaluators.labelers import heuristic_parts as parts
from evaluators.labelers import heuristic_selector as selector

#: the training subsets' macro precision the threshold keeps (inner leave-one-domain-out)
MIN_PRECISION = 0.61
GRID = np.round(np.arange(0.10, 0.70, 0.0125), 4)
C = 1.0


def rows(cases, prepared, label_outs, gold_of) -> list[dict[str, Any]]:
    """Per scored sentence: candidate indices, their features, the greedy set and the gold keys."""
    out: list[dict[str, Any]] = []
    for c, p, lo in zip(cases, prepared, label_outs):
        keys = c.item.doc_keys
        kidx = {k: i for i, k in enumerate(keys)}
        S = np.asarray(p["S"])
        for si, s in enumerate(lo.labels.sentences):
            gold = gold_of(c, si, set(keys))
            if gold is None or not (c.supported[si] if si < len(c.supported) else False):
                continue
            sp = p["sent"][si]
            if sp["special"] is not None or p["doc_kind"] != "prose" or not any(k in kidx for k in s.supporting_keys):
                continue
            pts = parts.parts_of(sp["text"])
            car, weight = parts.carriers_and_weights(pts, p["doc"])
            greedy = parts.greedy(pts, car, weight, S[si], parts.MAX_KEYS)
            idx, X = selector.candidate_rows(car, weight, S[si], p["doc"], greedy, pts)
            g = {kidx[k] for k in gold}
            out.append({"idx": idx, "X": X, "greedy": greedy, "gold": g,
                        "y": np.asarray([int(i in g) for i in idx])})
    return out


def fit(domains: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Logistic regression over the candidates of ``domains``, each domain weighted equally."""
    from sklearn.linear_model import LogisticRegression

    Xs = [np.vstack([r["X"] for r in rs]) for rs in domains.values() if rs]
    ys = [np.concatenate([r["y"] for r in rs]) for rs in domains.values() if rs]
    X, y = np.vstack(Xs), np.concatenate(ys)
    w = np.concatenate([np.full(len(v), 1.0 / len(v)) for v in ys])
    w *= len(w) / w.sum()
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    lr = LogisticRegression(C=C, max_iter=3000).fit((X - mean) / scale, y, sample_weight=w)
    return {"features": list(selector.SELECT_FEATURES), "mean": mean.tolist(), "scale": scale.tolist(),
            "coef": lr.coef_[0].tolist(), "intercept": float(lr.intercept_[0])}


def figures(rs: list[dict[str, Any]], model: dict[str, Any], thr: float) -> tuple[float, float]:
    """(recall, precision) of the selected keys over one domain's rows (micro, as bench/support_keys)."""
    m = {**model, "threshold": thr}
    hit = gold = named = 0
    for r in rs:
        chosen = set(selector.select(r["idx"], r["X"], r["greedy"], m))
        hit += len(chosen & r["gold"])
        gold += len(r["gold"])
        named += len(chosen)
    return hit / max(1, gold), hit / max(1, named)


def choose_threshold(domains: dict[str, list[dict[str, Any]]]) -> tuple[float, float, float]:
    """(threshold, macro recall, macro precision) on inner leave-one-domain-out predictions."""
    inner = {d: fit({e: v for e, v in domains.items() if e != d}) for d in domains}
    best: tuple[float, float, float] | None = None
    for t in GRID:
        figs = [figures(domains[d], inner[d], float(t)) for d in domains]
        R, P = float(np.mean([f[0] for f in figs])), float(np.mean([f[1] for f in figs]))
        if P >= MIN_PRECISION and (best is None or R > best[1]):
            best = (float(t), R, P)
    return best if best is not None else (float(GRID[-1]), float("nan"), float("nan"))


def fit_selector(domains: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The selector fitted on ``domains`` with its threshold (see the module docstring)."""
    thr, R, P = choose_threshold(domains)
    return {**fit(domains), "threshold": thr, "inner_macro_recall": R, "inner_macro_precision": P,
            "fitted_on": sorted(domains)}

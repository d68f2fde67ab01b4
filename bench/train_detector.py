"""Fit (and measure) the combiner of the offline ``trace`` labeler.

    .venv/bin/python bench/train_detector.py            # measure + write heuristic_params.json
    .venv/bin/python bench/train_detector.py --no-write # measure only

Data: the shared human-labeled dev sets (../shared/data; skipped when absent). Nothing is copied.
* RAGTruth Summary / Data2txt have span labels: a response sentence is "hallucinated" when a human
  span overlaps its character range. These sentences train the logistic combiner.
* MTRAG has only response-level labels: it is NOT used for fitting, only measured (records without
  documents are left out, as the data README says) — an out-of-distribution check.

Honesty: the dev data is also the training data, so the figures that count are the out-of-fold ones
(GroupKFold by source document: all responses of one article / business / task in one fold).
In-sample figures are printed next to them. Intervals: percentile bootstrap over source groups.

The sentence threshold is chosen ONCE on the pooled out-of-fold RAGTruth predictions (maximising
response-level F1 pooled over both files), rounded to 0.05 and written to the params file: one
setting for every dataset, no per-file tuning.

"before" = a simple baseline: a sentence is supported when its best document-sentence cosine is at
least 0.5 (embedding similarity only).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.shared_data import file_label, load_shared, shared_files  # noqa: E402
from evaluators.labelers.heuristic import PARAMS_PATH, HeuristicMethod  # noqa: E402
from evaluators.labelers.heuristic_features import FEATURES  # noqa: E402
from evaluators.options import EvalOptions  # noqa: E402
from evaluators.sentencize import sentencize_case  # noqa: E402

SEED = 7
N_BOOT = 1000
BASELINE_SIM = 0.5


EMB_CACHE = Path("/tmp/trace_train_embeddings.npz")


def load_embedding_cache() -> None:
    """Speed up re-runs: pre-fill the encoder's LRU cache from a /tmp file of earlier runs."""
    from evaluators import embeddings

    if EMB_CACHE.exists():
        z = np.load(EMB_CACHE, allow_pickle=False)
        for t, v in zip(z["texts"].tolist(), z["vecs"]):
            embeddings._cache[t] = v


def save_embedding_cache() -> None:
    from evaluators import embeddings

    texts = list(embeddings._cache)
    if texts:
        np.savez(EMB_CACHE, texts=np.asarray(texts), vecs=np.stack([embeddings._cache[t] for t in texts]))


def collect(cases):
    """Per case: feature rows, special flags, sentence targets (or None), response label, group."""
    items = [sentencize_case(c) for c in cases]
    method = HeuristicMethod()
    _, prepared = method.featurize(items, EvalOptions())
    out = []
    for it, p in zip(items, prepared):
        if isinstance(p, Exception):
            raise p
        spans = it.case.labels.get("hallucination_spans")
        rows, special, target = [], [], []
        for s, sp in zip(it.response_sentences, p["sent"]):
            special.append(sp["special"] is not None)
            rows.append(sp["feats"] if sp["feats"] is not None else [0.0] * len(FEATURES))
            if spans is None:
                target.append(None)
            else:
                target.append(any(a < s.end and b > s.start for a, b in spans))
        out.append({
            "id": it.case.id,
            "X": np.asarray(rows, dtype=np.float64).reshape(-1, len(FEATURES)),
            "special": np.asarray(special, dtype=bool),
            "target": target,
            "y": bool(it.case.labels.get("hallucinated")),
            "group": it.case.metadata["source_id"],
            "has_docs": bool(it.doc_sentences),
        })
    return out


def fit_lr(X, y, C=1.0):
    from sklearn.linear_model import LogisticRegression

    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    lr = LogisticRegression(C=C, max_iter=2000)
    lr.fit((X - mean) / scale, y)
    return {"mean": mean, "scale": scale, "coef": lr.coef_[0], "intercept": float(lr.intercept_[0])}


def predict(params, X):
    z = ((X - params["mean"]) / params["scale"]) @ params["coef"] + params["intercept"]
    return 1.0 / (1.0 + np.exp(-z))


def case_scores(case, probs, thr):
    """(1 - adherence, 1 - min score, flagged) for one case."""
    p = np.where(case["special"], 1.0, probs)
    if not case["has_docs"]:
        p = np.where(case["special"], 1.0, 0.0)
    if p.size == 0:
        return 0.0, 0.0, False
    full = p >= thr
    return 1.0 - full.mean(), 1.0 - p.min(), bool((~full).any())


def boot_ci(y, s, groups, fn, n=N_BOOT, seed=SEED):
    rng = np.random.default_rng(seed)
    y, s, groups = np.asarray(y), np.asarray(s), np.asarray(groups)
    ug = np.unique(groups)
    idx_by_g = {g: np.flatnonzero(groups == g) for g in ug}
    vals = []
    for _ in range(n):
        pick = rng.choice(ug, size=len(ug), replace=True)
        idx = np.concatenate([idx_by_g[g] for g in pick])
        if len(set(y[idx])) < 2:
            continue
        vals.append(fn(y[idx], s[idx]))
    return float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5))


def auroc(y, s):
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, s))


def f1(y, flag):
    from sklearn.metrics import f1_score

    return float(f1_score(y, flag, zero_division=0))


def response_table(cases, probs_per_case, thr):
    y = [c["y"] for c in cases]
    g = [c["group"] for c in cases]
    s_adh, s_min, flag = zip(*(case_scores(c, p, thr) for c, p in zip(cases, probs_per_case)))
    res = {"n": len(cases), "pos": int(sum(y))}
    res["auroc_adh"] = auroc(y, s_adh)
    res["auroc_adh_ci"] = boot_ci(y, s_adh, g, auroc)
    res["auroc_min"] = auroc(y, s_min)
    res["auroc_min_ci"] = boot_ci(y, s_min, g, auroc)
    res["f1"] = f1(y, flag)
    res["f1_ci"] = boot_ci(y, np.asarray(flag, dtype=float), g, lambda a, b: f1(a, b > 0.5))
    return res


def fmt(r):
    return (f"n={r['n']:3d} pos={r['pos']:3d}  AUROC(1-adh) {r['auroc_adh']:.3f} "
            f"[{r['auroc_adh_ci'][0]:.3f},{r['auroc_adh_ci'][1]:.3f}]  AUROC(1-min) {r['auroc_min']:.3f} "
            f"[{r['auroc_min_ci'][0]:.3f},{r['auroc_min_ci'][1]:.3f}]  F1 {r['f1']:.3f} "
            f"[{r['f1_ci'][0]:.3f},{r['f1_ci'][1]:.3f}]")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--folds", type=int, default=5)
    args = ap.parse_args()
    files = shared_files()
    if not files:
        print("../shared/data is absent: nothing to train on (skipped)")
        return 0
    t0 = time.perf_counter()
    load_embedding_cache()
    data: dict[str, list] = {}
    for f in files:
        cases = load_shared(f)
        if file_label(f).startswith("mtrag"):
            cases = [c for c in cases if c.documents]
        data[file_label(f)] = collect(cases)
    save_embedding_cache()
    print(f"features for {sum(len(v) for v in data.values())} cases in {time.perf_counter() - t0:.1f}s")
    train_files = [k for k, v in data.items() if v and v[0]["target"] and v[0]["target"][0] is not None]
    # training rows: non-special response sentences of span-labeled files
    rows, ys, groups, owner = [], [], [], []
    for k in train_files:
        for ci, c in enumerate(data[k]):
            for si, t in enumerate(c["target"]):
                if c["special"][si] or not c["has_docs"]:
                    continue
                rows.append(c["X"][si])
                ys.append(int(not t))  # 1 = supported
                groups.append(f"{k}:{c['group']}")
                owner.append((k, ci, si))
    X, y, groups = np.asarray(rows), np.asarray(ys), np.asarray(groups)
    print(f"training sentences: {len(y)} ({(1 - y).sum()} hallucinated) from {', '.join(train_files)}")
    n_special = sum(int(c["special"].sum()) for k in train_files for c in data[k])
    n_special_h = sum(1 for k in train_files for c in data[k] for si, t in enumerate(c["target"])
                      if c["special"][si] and t)
    print(f"sentences needing no support: {n_special} ({n_special_h} of them inside a human span)")

    from sklearn.model_selection import GroupKFold

    oof = np.zeros(len(y))
    for tr, te in GroupKFold(n_splits=args.folds).split(X, y, groups):
        oof[te] = predict(fit_lr(X[tr], y[tr], args.C), X[te])
    full_params = fit_lr(X, y, args.C)
    ins = predict(full_params, X)
    print(f"sentence AUROC (supported vs hallucinated): OOF {auroc(y, oof):.3f}  in-sample {auroc(y, ins):.3f}")
    try:
        from sklearn.ensemble import HistGradientBoostingClassifier

        oof_gb = np.zeros(len(y))
        for tr, te in GroupKFold(n_splits=args.folds).split(X, y, groups):
            gb = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                                random_state=SEED).fit(X[tr], y[tr])
            oof_gb[te] = gb.predict_proba(X[te])[:, 1]
        print(f"  (gradient boosting, same features: OOF sentence AUROC {auroc(y, oof_gb):.3f})")
    except Exception as exc:  # noqa: BLE001
        print("  gradient boosting skipped:", exc)

    def per_case_probs(source: np.ndarray, use_model=None):
        """Map per-sentence probabilities back to cases (train files from `source`, others via model)."""
        out = {k: [np.ones(len(c["target"])) for c in v] for k, v in data.items()}
        for (k, ci, si), p in zip(owner, source):
            out[k][ci][si] = p
        if use_model is not None:
            for k, v in data.items():
                if k in train_files:
                    continue
                for ci, c in enumerate(v):
                    out[k][ci] = predict(use_model, c["X"]) if len(c["X"]) else np.ones(0)
        return out

    oof_cases = per_case_probs(oof, full_params)
    ins_cases = per_case_probs(ins, full_params)
    # the one threshold: best pooled response-level F1 on OOF RAGTruth predictions
    best_thr, best_f1 = 0.5, -1.0
    for thr in np.arange(0.05, 0.96, 0.05):
        ys_, fl = [], []
        for k in train_files:
            for c, p in zip(data[k], oof_cases[k]):
                ys_.append(c["y"])
                fl.append(case_scores(c, p, thr)[2])
        sc = f1(ys_, fl)
        if sc > best_f1 + 1e-9:
            best_thr, best_f1 = round(float(thr), 2), sc
    print(f"fixed sentence threshold: {best_thr} (pooled OOF RAGTruth response F1 {best_f1:.3f})\n")

    # baseline: best cosine >= 0.5
    base_cases = {k: [np.where(c["X"][:, 0] >= BASELINE_SIM, 1.0, 0.0) if len(c["X"]) else np.ones(0)
                      for c in v] for k, v in data.items()}
    fallback = json.loads(json.dumps({"mean": [0.0] * len(FEATURES), "scale": [1.0] * len(FEATURES)}))
    from evaluators.labelers.heuristic import _FALLBACK

    hand = {"mean": np.zeros(len(FEATURES)), "scale": np.ones(len(FEATURES)),
            "coef": np.asarray(_FALLBACK["coef"]), "intercept": _FALLBACK["intercept"]}
    del fallback
    hand_cases = {k: [predict(hand, c["X"]) if len(c["X"]) else np.ones(0) for c in v] for k, v in data.items()}
    report: dict[str, dict] = {}
    for k, v in data.items():
        tag = "" if k in train_files else "   (not used for fitting)"
        print(f"== {k}{tag}")
        r_base = response_table(v, base_cases[k], 0.5)
        r_hand = response_table(v, hand_cases[k], 0.5)
        r_oof = response_table(v, oof_cases[k], best_thr)
        r_ins = response_table(v, ins_cases[k], best_thr)
        print("  before (cosine>=0.5)  ", fmt(r_base))
        print("  hand-set weights      ", fmt(r_hand))
        print("  fitted, grouped-CV OOF", fmt(r_oof))
        print("  fitted, in-sample     ", fmt(r_ins))
        report[k] = {"baseline": r_base, "hand": r_hand, "oof": r_oof, "in_sample": r_ins}
    print("\ncoefficients (standardised features):")
    for name, c in sorted(zip(FEATURES, full_params["coef"]), key=lambda t: -abs(t[1])):
        print(f"  {name:14s} {c:+.3f}")
    if not args.no_write:
        params = {
            "version": 1,
            "model": "logistic regression on standardised features; P(supported)",
            "features": list(FEATURES),
            "mean": [round(float(x), 6) for x in full_params["mean"]],
            "scale": [round(float(x), 6) for x in full_params["scale"]],
            "coef": [round(float(x), 6) for x in full_params["coef"]],
            "intercept": round(float(full_params["intercept"]), 6),
            "threshold": best_thr,
            "C": args.C,
            "trained_on": {k: len(data[k]) for k in train_files},
            "training_sentences": int(len(y)),
            "cv": {k: {"oof_auroc_1_minus_adherence": round(r["oof"]["auroc_adh"], 4),
                       "oof_f1": round(r["oof"]["f1"], 4)} for k, r in report.items()},
            "source": "bench/train_detector.py",
        }
        PARAMS_PATH.write_text(json.dumps(params, indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {PARAMS_PATH.relative_to(ROOT)}")
    print(f"total {time.perf_counter() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

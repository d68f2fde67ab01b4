"""Fit (and measure) the combiner of the offline ``trace`` labeler.

    .venv/bin/python -m bench.train_detector            # measure + write heuristic_params.json
    .venv/bin/python -m bench.train_detector --no-write # measure only

Data: the shared human-labeled dev sets (../shared/data; skipped when absent). Nothing is copied.
* RAGTruth Summary / Data2txt have span labels: a response sentence is "hallucinated" when a human
  span overlaps its character range. These sentences train the logistic combiner.
* MTRAG has only response-level labels: it is NOT used for fitting, only measured (records without
  documents are left out, as the data README says) — an out-of-distribution check.
* Only ``*_dev.jsonl`` files are fitted on. Any other file in ../shared/data (a held-out set) is
  measured with the fitted model, never fitted on, span labels or not.

Honesty: the dev data is also the training data, so the figures that count are the out-of-fold ones
(GroupKFold by source document: all responses of one article / business / task in one fold).
In-sample figures are printed next to them. Intervals: percentile bootstrap over source groups.

The sentence threshold is chosen ONCE on the out-of-fold RAGTruth predictions (maximising the mean
over both files of response-level AUROC(1 - adherence) + F1, grid step 0.025, each grid point
averaged with its two neighbours) and written to the params file: one setting for every dataset, no
per-file tuning.

"before" = a simple baseline: a sentence is supported when its best document-sentence cosine is at
least 0.5 (embedding similarity only).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

from bench import lodo_cache  # noqa: E402
from bench.shared_data import file_label, load_shared, shared_files  # noqa: E402
from evaluators.labelers.heuristic import PARAMS_PATH, HeuristicMethod  # noqa: E402
from evaluators.labelers.heuristic_features import FEATURES  # noqa: E402
from evaluators.options import EvalOptions  # noqa: E402
from evaluators.sentencize import sentencize_case  # noqa: E402

SEED = 7
N_BOOT = 1000
BASELINE_SIM = 0.5


#: Vectors of earlier runs (git-ignored): re-runs skip the encoder (``bench.lodo_cache`` format).
EMB_CACHE = ROOT / "bench" / "out" / "detector_emb"


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
            "kind": p["doc_kind"],
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


def oof_fit(cases_by_file, files, kind, C, folds):
    """Fit on the non-special sentences of `kind` cases of span-labeled `files`.

    Returns (full-data params, {(file, case, sentence): out-of-fold prob}, sentence AUROC OOF/in)."""
    from sklearn.model_selection import GroupKFold

    rows, ys, groups, owner = [], [], [], []
    for k in files:
        for ci, c in enumerate(cases_by_file[k]):
            if kind is not None and c["kind"] != kind:
                continue
            for si, t in enumerate(c["target"]):
                if c["special"][si] or not c["has_docs"] or t is None:
                    continue
                rows.append(c["X"][si])
                ys.append(int(not t))  # 1 = supported
                groups.append(f"{k}:{c['group']}")
                owner.append((k, ci, si))
    X, y, groups = np.asarray(rows), np.asarray(ys), np.asarray(groups)
    oof = np.zeros(len(y))
    for tr, te in GroupKFold(n_splits=folds).split(X, y, groups):
        oof[te] = predict(fit_lr(X[tr], y[tr], C), X[te])
    params = fit_lr(X, y, C)
    ins = predict(params, X)
    return params, dict(zip(owner, oof)), dict(zip(owner, ins)), (auroc(y, oof), auroc(y, ins), len(y),
                                                                  int((1 - y).sum()))


def probs_for(data, model_for_kind, overrides=None):
    """Per file, per case: sentence probabilities from the model of the case's document kind;
    `overrides` {(file, case, sentence): p} replaces some (out-of-fold predictions)."""
    out = {}
    for k, v in data.items():
        out[k] = []
        for ci, c in enumerate(v):
            m = model_for_kind[c["kind"]]
            p = predict(m, c["X"]) if len(c["X"]) else np.ones(0)
            if overrides:
                p = p.copy()
                for si in range(len(p)):
                    if (k, ci, si) in overrides:
                        p[si] = overrides[(k, ci, si)]
            out[k].append(p)
    return out


PROSE_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def blend_probs(p0, p1, w):
    """Per file, per case: sigmoid((1-w)*logit(p0) + w*logit(p1))."""
    def logit(p):
        p = np.clip(p, 1e-9, 1 - 1e-9)
        return np.log(p / (1 - p))

    return {k: [1.0 / (1.0 + np.exp(-((1 - w) * logit(a) + w * logit(b)))) if len(a) else a
                for a, b in zip(p0[k], p1[k])] for k in p0}


def blend_model(hand, fitted, w):
    """One linear model on raw features equal to the logit average of two (mean 0, scale 1)."""
    c_fit = np.asarray(fitted["coef"]) / np.asarray(fitted["scale"])
    b_fit = float(fitted["intercept"]) - float(np.asarray(fitted["mean"]) @ c_fit)
    c_hand = np.asarray(hand["coef"]) / np.asarray(hand["scale"])
    b_hand = float(hand["intercept"]) - float(np.asarray(hand["mean"]) @ c_hand)
    n = len(c_fit)
    return {"mean": np.zeros(n), "scale": np.ones(n), "coef": (1 - w) * c_hand + w * c_fit,
            "intercept": (1 - w) * b_hand + w * b_fit}


def choose_threshold(data, files, probs):
    """The grid point with the best 3-point moving average of the objective.

    The objective curve is jagged (one response more or less flips a neighbour of the peak);
    averaging each point with its neighbours picks a plateau, not a spike."""
    grid = np.round(np.arange(0.05, 0.951, 0.025), 3)
    raw = []
    for thr in grid:
        objs = []
        for k in files:
            ys_ = [c["y"] for c in data[k]]
            sc = [case_scores(c, p, thr) for c, p in zip(data[k], probs[k])]
            objs.append(auroc(ys_, [a for a, _, _ in sc]) + f1(ys_, [f for *_, f in sc]))
        raw.append(float(np.mean(objs)) / 2)
    smooth = [float(np.mean(raw[max(i - 1, 0): i + 2])) for i in range(len(raw))]
    i = int(np.argmax(smooth))
    return float(grid[i]), raw[i]


def main() -> int:
    from evaluators.labelers.heuristic import HAND_PROSE

    ap = argparse.ArgumentParser()
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--prose-weight", default="auto",
                    help="weight w of the fitted prose LR in the shipped prose model "
                         "(1-w)*hand + w*fitted, in logit space; auto = the best RAGTruth OOF "
                         f"objective over {PROSE_WEIGHTS}")
    args = ap.parse_args()
    files = shared_files()
    if not files:
        print("../shared/data is absent: nothing to train on (skipped)")
        return 0
    t0 = time.perf_counter()
    lodo_cache.load(EMB_CACHE)
    data: dict[str, list] = {}
    dev_labels = {file_label(f) for f in files if f.stem.endswith("_dev")}
    for f in files:
        cases = load_shared(f)
        if file_label(f).startswith("mtrag"):
            cases = [c for c in cases if c.documents]
        data[file_label(f)] = collect(cases)
    lodo_cache.save(EMB_CACHE)
    print(f"features for {sum(len(v) for v in data.values())} cases in {time.perf_counter() - t0:.1f}s")
    # Fit only on dev files: a held-out file dropped next to them (not named *_dev.jsonl) is measured,
    # never fitted on, even when it has span labels.
    span_files = [k for k, v in data.items()
                  if k in dev_labels and v and any(t is not None for c in v for t in c["target"])]
    n_special = sum(int(c["special"].sum()) for k in span_files for c in data[k])
    n_special_h = sum(1 for k in span_files for c in data[k] for si, t in enumerate(c["target"])
                      if c["special"][si] and t)
    print(f"span-labeled files: {', '.join(span_files)}; sentences needing no support: {n_special} "
          f"({n_special_h} inside a human span)")
    hand = {k: np.asarray(HAND_PROSE[k], dtype=np.float64) for k in ("mean", "scale", "coef")}
    hand["intercept"] = float(HAND_PROSE["intercept"])

    # 1. structured (JSON) documents: fitted logistic regression, grouped CV
    st_params, st_oof, st_ins, st_auc = oof_fit(data, span_files, "structured", args.C, args.folds)
    print(f"structured model: {st_auc[2]} sentences ({st_auc[3]} hallucinated); sentence AUROC "
          f"OOF {st_auc[0]:.3f} in-sample {st_auc[1]:.3f}")
    # 2. prose documents: a fitted LR, shipped instead of HAND_PROSE only when it does better (--prose)
    pr_params, pr_oof, pr_ins, pr_auc = oof_fit(data, span_files, "prose", args.C, args.folds)
    print(f"prose LR: {pr_auc[2]} sentences; sentence AUROC OOF {pr_auc[0]:.3f} in-sample {pr_auc[1]:.3f}")
    # 3. one LR over everything (comparison)
    all_params, all_oof, _, all_auc = oof_fit(data, span_files, None, args.C, args.folds)
    print(f"single pooled LR (comparison only): sentence AUROC OOF {all_auc[0]:.3f}")

    hand_oof = probs_for(data, {"structured": st_params, "prose": hand}, st_oof)
    fitted_prose_oof = probs_for(data, {"structured": st_params, "prose": pr_params}, {**st_oof, **pr_oof})
    # The prose model: the a-priori hand weights shrunk towards the LR fitted on RAGTruth Summary
    # (a logit average; one linear model). Summary alone is too small and too unlike QA to trust
    # the LR alone; the hand weights alone ignore the data. w is picked on the RAGTruth OOF objective.
    blends = {w: blend_probs(hand_oof, fitted_prose_oof, w) for w in PROSE_WEIGHTS}
    blend_choice = {w: choose_threshold(data, span_files, b) for w, b in blends.items()}
    pooled_oof = probs_for(data, {"structured": all_params, "prose": all_params}, all_oof)
    base = {k: [np.where(c["X"][:, 0] >= BASELINE_SIM, 1.0, 0.0) if len(c["X"]) else np.ones(0)
                for c in v] for k, v in data.items()}

    thr_hand, obj_hand = blend_choice[0.0]
    thr_fp, obj_fp = blend_choice[1.0]
    thr_pl, _ = choose_threshold(data, span_files, pooled_oof)
    # Which prose model ships: decided on the RAGTruth OOF objective only (MTRAG stays unseen).
    if args.prose_weight == "auto":
        w = max(PROSE_WEIGHTS, key=lambda v: (round(blend_choice[v][1], 9), -abs(v - 0.5)))
    else:
        w = float(args.prose_weight)
        if w not in blends:
            blends[w] = blend_probs(hand_oof, fitted_prose_oof, w)
            blend_choice[w] = choose_threshold(data, span_files, blends[w])
    print("prose model, RAGTruth OOF objective by weight of the fitted LR: "
          + ", ".join(f"w={v}: {o:.3f} (thr {t})" for v, (t, o) in sorted(blend_choice.items()))
          + f" -> shipping w={w}")
    thr, obj = blend_choice[w]
    shipped_oof = blends[w]
    prose_model = blend_model(hand, pr_params, w)
    shipped_ins = probs_for(data, {"structured": st_params, "prose": prose_model}, st_ins)
    print(f"fixed sentence threshold: {thr} (mean OOF over {', '.join(span_files)} of "
          f"(AUROC(1-adh)+F1)/2 = {obj:.3f})\n")
    report: dict[str, dict] = {}
    for k, v in data.items():
        tag = ("" if k in span_files else "   (never used for fitting or the threshold: "
               + ("no span labels)" if k in dev_labels else "held out, not a *_dev file)"))
        print(f"== {k}{tag}")
        rows = {
            "before: cosine>=0.5": response_table(v, base[k], 0.5),
            f"pooled LR, OOF (thr {thr_pl})": response_table(v, pooled_oof[k], thr_pl),
            f"hand prose, OOF (thr {thr_hand})": response_table(v, hand_oof[k], thr_hand),
            f"fitted prose LR, OOF (thr {thr_fp})": response_table(v, fitted_prose_oof[k], thr_fp),
            "SHIPPED, grouped-CV OOF": response_table(v, shipped_oof[k], thr),
            "SHIPPED, in-sample": response_table(v, shipped_ins[k], thr),
        }
        for name, r in rows.items():
            print(f"  {name:32s} {fmt(r)}")
        report[k] = rows
    for label, prm in (("structured", st_params), ("prose (fitted)", pr_params)):
        print(f"\n{label} model coefficients (standardised features):")
        for name, c in sorted(zip(FEATURES, prm["coef"]), key=lambda t: -abs(t[1])):
            print(f"  {name:14s} {c:+.3f}")
    if not args.no_write:
        def js(m, source):
            return {"mean": [round(float(x), 6) for x in m["mean"]],
                    "scale": [round(float(x), 6) for x in m["scale"]],
                    "coef": [round(float(x), 6) for x in m["coef"]],
                    "intercept": round(float(m["intercept"]), 6), "source": source}

        params = {
            "version": 2,
            "model": "logistic combiner over FEATURES; P(supported) = sigmoid(((x-mean)/scale).coef + intercept)",
            "features": list(FEATURES),
            "threshold": thr,
            "threshold_rule": "one value for every dataset: best mean OOF (AUROC(1-adherence)+F1)/2 over "
                              "the RAGTruth dev files, grid 0.05..0.95 step 0.025, 3-point moving "
                              "average",
            "models": {
                "prose": ({**HAND_PROSE, "source": "hand-set a priori (heuristic.HAND_PROSE)"} if w == 0 else
                          js(prose_model, f"bench/train_detector.py: logit average {1 - w:g} x hand-set "
                                          f"a-priori weights (heuristic.HAND_PROSE) + {w:g} x logistic "
                                          f"regression (C={args.C}) on {pr_auc[2]} sentences of "
                                          "prose-document cases; raw features")),
                "structured": js(st_params, f"bench/train_detector.py: logistic regression (C={args.C}) on "
                                            f"{st_auc[2]} sentences of JSON-document cases"),
            },
            "cv": {k: {name: {"auroc_1_minus_adherence": round(r["auroc_adh"], 4), "f1": round(r["f1"], 4)}
                       for name, r in rows.items() if name.startswith("SHIPPED")}
                   for k, rows in report.items()},
        }
        PARAMS_PATH.write_text(json.dumps(params, indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {PARAMS_PATH.relative_to(ROOT)}")
    print(f"total {time.perf_counter() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Fitting for the leave-one-domain-out harness: the adherence combiner, relevance / utilization
and the routing confidence — per fold on the other domains, and once on all of them to ship.

    .venv/bin/python -m bench.lodo                 # LODO table: shipped (before) vs fitted (after)
    .venv/bin/python -m bench.lodo --write         # ... and write the params fitted on ALL domains

Per outer fold (held-out domain d; training domains T = the nine sentence-labelled domains minus d;
MTRAG has response labels only and is never in T):

1. adherence combiner: logistic regression over the FEATURES of every response sentence of T that
   needs support (RAGBench: supported iff its key is not in ``unsupported_response_sentence_keys``;
   RAGTruth: no human span overlaps it), each domain weighted equally;
2. the ONE threshold, by the rule used since issue 7 — the grid point (0.05..0.95, step 0.025, each
   point averaged with its two neighbours) with the best mean over T of (AUROC(1 − adherence) + F1)/2 —
   computed on inner leave-one-domain-out predictions (each domain of T predicted by a model fitted
   on the rest of T), so it is chosen for transfer, not in-sample;
3. relevance and utilization: logistic regressions over ``context_model`` features of the RAGBench
   domains of T, each domain weighted equally; sentences chosen by ``top_expected`` (relevance from
   question and documents alone: its features take no response);
4. confidence (``evaluators/labelers/confidence.py``): P(the case verdict of trace is wrong) from
   case-level signals, fitted on the inner-LODO case outcomes of T.

Everything for d is then labelled by ``HeuristicMethod.label_prepared`` with the fold's params.
"""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np

from bench.lodo_data import RAGBENCH_DOMAINS
from bench.lodo_harness import RESULTS, evaluate, legacy_params, shipped_labeler, write
from evaluators.labelers import adherence_model as am
from evaluators.labelers import confidence as conf_mod
from evaluators.labelers import context_model as cm
from evaluators.labelers.heuristic import HAND_PROSE

#: prior for features without variance in a fold (e.g. JSON attributes when no structured domain is
#: in it): the hand-set prose weights, 0 for the case-relative extras
PRIOR = {"coef": list(HAND_PROSE["coef"]) + [0.0] * len(am.EXTRA_FEATURES),
         "scale": [1.0] * len(am.ALL_FEATURES)}

GRID = np.round(np.arange(0.05, 0.951, 0.025), 3)
C_ADH = 1.0
C_CTX = 1.0
ROUTE_SHARE = 0.3


# ---------------------------------------------------------------- tables
def sentence_rows(cases, prepared) -> dict[str, Any]:
    """Sentence-level design of one domain (``adherence_model.design``): X, y (1 supported / 0 not /
    -1 unknown), owner (case index, sentence index)."""
    Xs, y, owner = [], [], []
    for ci, (c, p) in enumerate(zip(cases, prepared)):
        X, rows = am.design(p, c.item.case.response, c.item.case.documents)
        keep = [r for r, si in enumerate(rows) if p["sent"][si]["special"] is None]
        if not keep:
            continue
        Xs.append(X[keep])
        for r in keep:
            si = rows[r]
            lab = c.supported[si] if si < len(c.supported) else None
            y.append(-1 if lab is None else int(lab))
            owner.append((ci, si))
    X = np.vstack(Xs) if Xs else np.zeros((0, len(am.ALL_FEATURES)))
    return {"X": X, "y": np.asarray(y, dtype=int), "owner": owner}


def context_rows(cases, prepared) -> dict[str, Any]:
    """Document-sentence design of one RAGBench domain (relevance and utilization)."""
    XR, XU, yr, yu, owner = [], [], [], [], []
    for ci, (c, p) in enumerate(zip(cases, prepared)):
        it = c.item
        if not it.doc_sentences or not c.has_context_labels:
            continue
        fr, fu = cm.context_features(it.case.question, [s.text for s in it.response_sentences], p,
                                     [s.doc or 0 for s in it.doc_sentences])
        keys = it.doc_keys
        XR.append(fr)
        XU.append(fu)
        yr.extend(int(k in c.relevant) for k in keys)
        yu.extend(int(k in c.utilized) for k in keys)
        owner.extend((ci, i) for i in range(len(keys)))
    if not XR:
        return {"XR": np.zeros((0, len(cm.REL_FEATURES))), "XU": np.zeros((0, len(cm.UTIL_FEATURES))),
                "yr": np.zeros(0, int), "yu": np.zeros(0, int), "owner": []}
    return {"XR": np.vstack(XR), "XU": np.vstack(XU), "yr": np.asarray(yr), "yu": np.asarray(yu), "owner": owner}


# ---------------------------------------------------------------- models
def fit_lr(Xs, ys, C=1.0, prior: dict[str, Any] | None = None) -> dict[str, Any]:
    """Logistic regression over several domains, each weighted equally (raw-feature model dict).

    Features with no variance in the training data get the coefficient of ``prior`` (raw scale)
    instead of 0 — e.g. JSON attribute features when no structured domain is in the fold."""
    from sklearn.linear_model import LogisticRegression

    X = np.vstack(Xs)
    y = np.concatenate(ys)
    w = np.concatenate([np.full(len(v), 1.0 / max(1, len(v))) for v in ys])
    w *= len(w) / w.sum()
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    dead = scale < 1e-9
    scale[dead] = 1.0
    lr = LogisticRegression(C=C, max_iter=3000)
    lr.fit((X - mean) / scale, y, sample_weight=w)
    coef = lr.coef_[0].copy()
    intercept = float(lr.intercept_[0])
    # to raw features (mean 0, scale 1) so a prior can be added for dead features
    c_raw = coef / scale
    b_raw = intercept - float(mean @ c_raw)
    if prior is not None and dead.any():
        pc = np.asarray(prior["coef"], dtype=np.float64) / np.asarray(prior["scale"], dtype=np.float64)
        c_raw[dead] = pc[dead]
    return {"mean": [0.0] * X.shape[1], "scale": [1.0] * X.shape[1], "coef": c_raw.tolist(),
            "intercept": b_raw}


def predict(model: dict[str, Any], X: np.ndarray) -> np.ndarray:
    return cm.predict(model, X)


def case_probs(cases, prepared, rows, probs) -> list[np.ndarray]:
    """Per case: P per response sentence (special -> 1; no documents -> 0)."""
    out = [np.ones(len(p["sent"])) for p in prepared]
    for ci, p in enumerate(prepared):
        if not cases[ci].item.doc_sentences:
            out[ci] = np.asarray([1.0 if sp["special"] is not None else 0.0 for sp in p["sent"]])
    for (ci, si), pr in zip(rows["owner"], probs):
        out[ci][si] = pr
    return out


def _auroc(y, s):
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, s)) if len(set(y)) > 1 else 0.5


def _f1(y, f):
    from sklearn.metrics import f1_score

    return float(f1_score(y, f, zero_division=0))


def choose_threshold(domains_probs: dict[str, tuple[list[Any], list[np.ndarray]]]) -> tuple[float, float]:
    raw = []
    for thr in GRID:
        objs = []
        for cases, probs in domains_probs.values():
            y = [int(c.hallucinated) for c in cases]
            score = [float((p < thr).mean()) if len(p) else 0.0 for p in probs]
            flag = [bool((p < thr).any()) for p in probs]
            objs.append((_auroc(y, score) + _f1(y, flag)) / 2)
        raw.append(float(np.mean(objs)))
    smooth = [float(np.mean(raw[max(i - 1, 0): i + 2])) for i in range(len(raw))]
    i = int(np.argmax(smooth))
    return float(GRID[i]), smooth[i]


def fit_confidence(data, inner: dict[str, tuple[list[Any], list[np.ndarray]]], thr: float) -> dict[str, Any]:
    """P(hallucinated) from case-level signals (``confidence.CASE_FEATURES``) on inner-LODO outcomes."""
    Xs, ys = [], []
    for d, (cases, probs) in inner.items():
        prepared = data[d][1]
        Xs.append(np.asarray([conf_mod.case_features(pr, thr, p["novel"]) for pr, p in zip(probs, prepared)]))
        ys.append(np.asarray([int(c.hallucinated) for c in cases]))
    m = fit_lr(Xs, ys, 1.0)
    return {**m, "features": list(conf_mod.CASE_FEATURES), "threshold": thr}


# ---------------------------------------------------------------- one fold
def fit_fold(data, train: list[str], tables, ctx_tables, log=print) -> dict[str, Any]:
    """All params fitted on the domains ``train`` (see module docstring)."""
    sent_train = [d for d in train if (tables[d]["y"] >= 0).any()]

    def fit_adh(domains):
        Xs = [tables[d]["X"][tables[d]["y"] >= 0] for d in domains]
        ys = [tables[d]["y"][tables[d]["y"] >= 0] for d in domains]
        return fit_lr(Xs, ys, C_ADH, prior=PRIOR)

    # inner LODO predictions of each training domain (for the threshold and the confidence model)
    inner: dict[str, tuple[list[Any], list[np.ndarray]]] = {}
    for t in train:
        rest = [x for x in sent_train if x != t]
        m = fit_adh(rest)
        cases, prepared = data[t]
        inner[t] = (cases, case_probs(cases, prepared, tables[t], predict(m, tables[t]["X"])))
    thr, obj = choose_threshold(inner)
    adh = fit_adh(sent_train)
    params = {"features": list(am.ALL_FEATURES), "threshold": thr,
              "model": {**adh, "source": f"fitted on {','.join(train)}"}}
    # context models
    ctx_train = [d for d in train if d in RAGBENCH_DOMAINS and len(ctx_tables[d]["yr"])]
    context = None
    if ctx_train:
        rel = fit_lr([ctx_tables[d]["XR"] for d in ctx_train], [ctx_tables[d]["yr"] for d in ctx_train], C_CTX)
        util = fit_lr([ctx_tables[d]["XU"] for d in ctx_train], [ctx_tables[d]["yu"] for d in ctx_train], C_CTX)
        context = {"relevance": {**rel, "features": list(cm.REL_FEATURES), "select": "top_expected"},
                   "utilization": {**util, "features": list(cm.UTIL_FEATURES), "select": "top_expected",
                                   "union_support": True}}
    # confidence model from the inner case outcomes
    confidence = fit_confidence(data, inner, thr)
    log(f"    fold without [{','.join(sorted(set(data) - set(train)))}]: threshold {thr} "
        f"(inner objective {obj:.3f})")
    return {"params": params, "context": context, "confidence": confidence}


def run_after(data, args, meta) -> int:
    from evaluators.labelers.heuristic import HeuristicMethod
    from evaluators.options import EvalOptions

    t0 = time.perf_counter()
    tables = {d: sentence_rows(*data[d]) for d in data}
    ctx_tables = {d: context_rows(*data[d]) if d in RAGBENCH_DOMAINS else context_rows([], [])
                  for d in data}
    print(f"design tables in {time.perf_counter() - t0:.0f}s: "
          + ", ".join(f"{d} {int((tables[d]['y'] >= 0).sum())} sent / {len(ctx_tables[d]['yr'])} doc"
                      for d in data))
    labelled = [d for d in data if (tables[d]["y"] >= 0).any()]
    folds: dict[str, dict[str, Any]] = {}
    for d in data:
        folds[d] = fit_fold(data, [x for x in labelled if x != d], tables, ctx_tables)
    method = HeuristicMethod()

    legacy = getattr(args, "adherence", "learned") == "legacy"

    def fold_labeler(d):
        f = folds[d]
        settings = method._settings(EvalOptions())
        if legacy:  # what ships: the earlier adherence combiners + threshold, learned context per fold

            params, confidence = legacy_params(), "hand"
        else:
            params, confidence = f["params"], f["confidence"]
        settings["threshold"] = params["threshold"]

        def run(domain, cases, prepared):
            return method.label_prepared([c.item for c in cases], prepared, settings, params,
                                         context=f["context"], confidence=confidence)
        return run

    print("shipped labeler (before):")
    before = evaluate(data, lambda d: shipped_labeler(), args.n_boot)
    print("LODO-fitted (after):")
    after = evaluate(data, fold_labeler, args.n_boot)
    from bench.lodo_route import route_table

    print(f"selective routing, {int(ROUTE_SHARE * 100)} % sent to a perfect judge — before:")
    route_before = route_table(before["raw"], ROUTE_SHARE)
    print("after:")
    route_after = route_table(after["raw"], ROUTE_SHARE)
    print("after, ranked by expected adherence:")
    route_expected = route_table(after["raw"], ROUTE_SHARE, key="expected")
    meta = {**meta, "thresholds": {d: f["params"]["threshold"] for d, f in folds.items()},
            "routing": {"before": route_before, "after": route_after, "after_expected": route_expected}}
    name = args.name or "after"
    write(name, {"before": before, "after": after}, "trace before → after (LODO)", meta)
    from bench.lodo_route import route_markdown

    md = RESULTS / f"lodo_{name}.md"
    routes = route_markdown({"before": route_before, "after": route_after,
                             "after, expected adherence": route_expected})
    md.write_text(md.read_text(encoding="utf-8") + "\n" + routes,
                  encoding="utf-8")
    if getattr(args, "write", False):
        full = fit_fold(data, labelled, tables, ctx_tables)
        write_params(full, labelled, getattr(args, "write_all", False))
    return 0


def rounded(obj: Any) -> Any:
    """``obj`` with every float to 6 significant digits (parameter files that diff well)."""
    if isinstance(obj, float):
        return float(f"{obj:.6g}")
    if isinstance(obj, dict):
        return {k: rounded(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [rounded(v) for v in obj]
    return obj


def write_params(full: dict[str, Any], domains: list[str], all_parts: bool = False) -> None:
    """The artefact ``trace`` ships, fitted on ALL sentence-labelled domains: the relevance /
    utilization models; with ``all_parts`` also the adherence combiner and the confidence model."""
    from evaluators.labelers import adherence_model, confidence, context_model

    note = {"fitted_on": domains, "by": "bench/lodo.py --write (bench/lodo_fit.py)",
            "figures": "leave-one-domain-out, bench/results/lodo_after.md"}
    adh = {**full["params"], "threshold_rule": "best mean over the training domains of (AUROC(1 - adherence) "
           "+ F1)/2 on inner leave-one-domain-out predictions, grid 0.05..0.95 step 0.025 smoothed", **note}
    outs = [(context_model.PARAMS_PATH, {**full["context"], **note})]
    if all_parts:  # the learned adherence combiner and confidence did not beat the legacy ones (README)
        outs += [(adherence_model.PARAMS_PATH, adh), (confidence.PARAMS_PATH, {**full["confidence"], **note})]
    for path, obj in outs:
        path.write_text(json.dumps(rounded(obj), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(path.parents[2])}")

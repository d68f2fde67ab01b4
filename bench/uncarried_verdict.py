"""Issue 55, the verdict: may a part carried nowhere make a sentence partly supported without adherence
AUROC falling on any dev set?

    .venv/bin/python -m bench.uncarried_verdict --n-boot 500 --write uncarried_verdict

Variants, each through the product's own code path (``HeuristicMethod.label_prepared`` with
``support={"uncarried": {"coef": ...}}``: P(supported) moved by ``heuristic_parts.with_uncarried``
before the level is read):

* ``learned`` — the evidence the combiner learns: logit(P) + b · (uncarried numbers, uncarried names,
  share of the claim's weight carried nowhere; ``heuristic_parts.UNCARRIED_FEATURES``), b ≤ 0 fitted
  leave-one-domain-out on the sentence labels of the other sentence-labelled domains (each weighted
  equally; MTRAG has response labels only and is never fitted on), P unchanged for a sentence that
  carries every part;
* ``learned_calibrated`` — the same with P recalibrated in the fit (sigmoid(a + c · logit(P) + b · f)):
  b is the effect of the parts carried nowhere at a given P; only b is applied;
* ``names`` / ``numbers`` — the hard rules restricted to what is decisive: a name (a number) no
  document sentence carries and the question does not give makes the sentence not fully supported
  (b = −20 on that count). A number that contradicts a document's number in the same slot already
  makes a sentence unsupported (``heuristic_contradiction``), before and after.

Per dev set: adherence AUROC (1 − adherence against ``hallucinated``) and expected-adherence AUROC,
before and after, the 95 % bootstrap interval of each and of the paired difference (same resampled
question / source groups). A variant is kept only when no dev set's AUROC falls.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

from bench import machine
from bench.lodo_data import DOMAINS, available
from bench.lodo_harness import outcomes, prepare
from bench.lodo_metrics import auroc
from bench.results_file import finish
from evaluators.labelers import heuristic_parts as parts
from evaluators.labelers.heuristic import HeuristicMethod
from evaluators.options import EvalOptions

HARD = -20.0
L2 = 0.01


def labeler(coef: list[float] | None):
    method = HeuristicMethod()
    settings = method._settings(EvalOptions())
    support: dict[str, Any] = {"uncarried": {"coef": coef} if coef else None}

    def run(cases, prepared):
        return method.label_prepared([c.item for c in cases], prepared, settings, support=support)

    return run


def sentence_rows(cases, prepared, outs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, P before, label supported) of every labelled prose sentence with parts."""
    F, P, Y = [], [], []
    for c, p, lo in zip(cases, prepared, outs):
        asked = " ".join([c.item.case.question, *(t.text for t in c.item.case.history)])
        S = np.asarray(p["S"])
        for si, (sp, s) in enumerate(zip(p["sent"], lo.labels.sentences)):
            lab = c.supported[si] if si < len(c.supported) else None
            if lab is None or sp["special"] is not None or sp["feats"] is None or p["doc_kind"] != "prose" \
                    or s.score is None or not S.shape[1]:
                continue
            att = parts.attribute(sp["text"], S[si], p["doc"], selector=None)
            F.append(parts.uncarried_features(att, asked))
            P.append(float(s.score))
            Y.append(int(lab))
    return np.asarray(F, float).reshape(-1, len(parts.UNCARRIED_FEATURES)), np.asarray(P), np.asarray(Y)


def fit_offsets(rows: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], calibrate: bool = False) -> list[float]:
    """b ≤ 0 minimising the domains' mean log loss of sigmoid(logit(P) + b · f) (+ a small L2 on b).
    ``calibrate``: sigmoid(a + c · logit(P) + b · f) with a, c free — b is then the effect of the parts
    carried nowhere at a given (recalibrated) P, and only b is applied (P's own calibration is kept)."""
    from scipy.optimize import minimize

    k = len(parts.UNCARRIED_FEATURES)

    def loss(w):
        a, c, b = (w[0], w[1], w[2:]) if calibrate else (0.0, 1.0, w)
        tot, grad = 0.0, np.zeros_like(w)
        for F, P, Y in rows.values():
            if not len(Y):
                continue
            p = np.clip(P, 1e-6, 1 - 1e-6)
            lp = np.log(p / (1 - p))
            q = np.clip(1 / (1 + np.exp(-(a + c * lp + F @ b))), 1e-9, 1 - 1e-9)
            tot += float(-np.mean(Y * np.log(q) + (1 - Y) * np.log(1 - q)))
            r = (q - Y) / len(Y)
            gb = F.T @ r
            grad += np.concatenate([[r.sum(), r @ lp], gb]) if calibrate else gb
        n = max(1, sum(1 for r in rows.values() if len(r[2])))
        pen = w[2:] if calibrate else w
        g = grad / n
        g[-k:] += 2 * L2 * pen
        return tot / n + L2 * float(pen @ pen), g

    x0 = np.concatenate([[0.0, 1.0], np.zeros(k)]) if calibrate else np.zeros(k)
    bounds = ([(None, None)] * 2 if calibrate else []) + [(None, 0.0)] * k
    res = minimize(loss, x0, jac=True, bounds=bounds, method="L-BFGS-B")
    return [float(x) for x in res.x[-k:]]


def paired(cases, before, after, key: str, n: int, seed: int = 7) -> dict[str, Any]:
    y = np.asarray([int(c.hallucinated) for c in cases])
    a = np.asarray([o[key] for o in before])
    b = np.asarray([o[key] for o in after])
    out: dict[str, Any] = {"before": auroc(y, a), "after": auroc(y, b)}
    if out["before"] is None:
        return out
    out["delta"] = out["after"] - out["before"]
    if n:
        groups = np.asarray([c.group for c in cases])
        ug = np.unique(groups)
        idx = {g: np.flatnonzero(groups == g) for g in ug}
        rng = np.random.default_rng(seed)
        va, vb, vd = [], [], []
        for _ in range(n):
            ii = np.concatenate([idx[g] for g in rng.choice(ug, size=len(ug), replace=True)])
            x, z = auroc(y[ii], a[ii]), auroc(y[ii], b[ii])
            if x is not None and z is not None:
                va.append(x)
                vb.append(z)
                vd.append(z - x)
        out["before_ci"] = [float(np.percentile(va, 2.5)), float(np.percentile(va, 97.5))]
        out["after_ci"] = [float(np.percentile(vb, 2.5)), float(np.percentile(vb, 97.5))]
        out["delta_ci"] = [float(np.percentile(vd, 2.5)), float(np.percentile(vd, 97.5))]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-boot", type=int, default=500)
    ap.add_argument("--domains", default=None)
    ap.add_argument("--write", default=None)
    ap.add_argument("--variants", default=None, help="comma-separated (default: all)")
    args = ap.parse_args(argv)
    os.environ.setdefault("RAG_EVAL_EMBED_CACHE", "off")
    if not available():
        print("skipped: ../shared/data is absent")
        return 0
    t0 = time.perf_counter()
    domains = [d.strip() for d in args.domains.split(",")] if args.domains else list(DOMAINS)
    data = prepare(domains, "ragbench")
    base = labeler(None)
    before_labels = {d: base(*data[d]) for d in data}
    before = {d: outcomes(*data[d], before_labels[d]) for d in data}
    rows = {d: sentence_rows(*data[d], before_labels[d]) for d in data}
    labelled = [d for d in data if len(rows[d][2])]
    k = len(parts.UNCARRIED_FEATURES)
    variants: dict[str, dict[str, list[float]]] = {
        "learned": {d: fit_offsets({e: rows[e] for e in labelled if e != d}) for d in data},
        "learned_calibrated": {d: fit_offsets({e: rows[e] for e in labelled if e != d}, True) for d in data},
        "names": {d: [0.0, HARD, 0.0] for d in data},
        "numbers": {d: [HARD, 0.0, 0.0] for d in data},
    }
    if args.variants:
        variants = {v: variants[v] for v in args.variants.split(",")}
    assert all(len(v) == k for vs in variants.values() for v in vs.values())
    record: dict[str, Any] = {**machine.stamp(), "features": list(parts.UNCARRIED_FEATURES),
                              "offsets": variants, "variants": {}}
    for name, per in variants.items():
        res: dict[str, Any] = {}
        for d in data:
            after = outcomes(*data[d], labeler(per[d])(*data[d]))
            cases = data[d][0]
            res[d] = {"adherence": paired(cases, before[d], after, "score", args.n_boot),
                      "expected": paired(cases, before[d], after, "expected", args.n_boot),
                      "flag_rate_before": float(np.mean([o["flag"] for o in before[d]])),
                      "flag_rate_after": float(np.mean([o["flag"] for o in after]))}
            a = res[d]["adherence"]
            e = res[d]["expected"]
            print(f"{name:8s} {d:18s} AUROC {a['before']:.3f} -> {a['after']:.3f} (Δ {a.get('delta', 0):+.3f} "
                  f"{a.get('delta_ci')})  expected {e['before']:.3f} -> {e['after']:.3f}  coef "
                  f"{[round(x, 2) for x in per[d]]}")
        fell = [d for d, r in res.items() if r["adherence"].get("delta", 0) < 0 or r["expected"].get("delta", 0) < 0]
        record["variants"][name] = {"domains": res, "fell_on": fell, "kept": not fell}
        print(f"{name}: AUROC fell on {fell or 'no dev set'}")
    return finish(record, t0, args.write)


if __name__ == "__main__":
    raise SystemExit(main())

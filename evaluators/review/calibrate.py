"""Calibrate the offline method to the reviewer's own labels — shown first, applied only on request.

``trace`` gives each response sentence a probability P(supported) and calls it fully supported
at its threshold. On the gold cases (reviewed, or human labels of an upload) this module fits a
**Platt recalibration** of that probability: ``P' = σ(a · logit(P) + b)`` by logistic regression
of the gold verdict "fully supported" on ``logit(P)``, decided at ``P' ≥ 0.5`` (the equivalent
threshold on the raw probability is ``σ(−b / a)``). Sentences that need no support (special keys)
and sentences without a probability are left as they are.

* :func:`data` — the (P, gold verdict, case) of every usable sentence;
* :func:`readiness` — why there is not enough gold yet (None when there is): at least
  :data:`MIN_CASES` gold cases and :data:`MIN_PER_CLASS` sentences of each verdict. The fit has one
  predictor (plus the intercept); ten events of the rarer verdict per predictor is the usual floor
  for a logistic model, and 20 cases make a 5-fold cross-validation over cases meaningful;
* :func:`cross_validate` — agreement with the gold before and after, each sentence predicted by a
  fit that never saw its case (5 folds over cases), with paired bootstrap intervals of the change;
* :func:`fit` — the calibration on every gold sentence; :func:`apply` — a re-labeled copy of a run
  (nothing else changes; the copy's settings say what was applied).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Mapping

import numpy as np

from .. import trace_metrics
from ..labelers.agreement import agreement
from ..stats import N_BOOT, bootstrap_stats
from ..types import CaseResult, RunResult, SentenceLabels, SentenceSupport, is_special_key
from .gold import Gold, matched

TRACE = "trace"
MIN_CASES = 20
MIN_PER_CLASS = 10
FOLDS = 5
_EPS = 1e-4


def trace_labels(r: CaseResult) -> SentenceLabels | None:
    """The offline method's labels of a case: the final labels when ``trace`` made them, else the
    hybrid's ``trace`` variant."""
    if r.labels is not None and r.labels.method == TRACE:
        return r.labels
    return r.variants.get(TRACE)


def _usable(s: SentenceSupport) -> bool:
    return s.score is not None and not any(is_special_key(k) for k in s.supporting_keys)


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, _EPS, 1 - _EPS)
    return np.log(q / (1 - q))


@dataclass(frozen=True)
class Data:
    """Every usable sentence of the gold cases: P(supported), the method's verdict, the gold verdict,
    the case (index into ``cases``); and per case the gold "hallucinated" and the other sentences'
    fixed probabilities (for expected adherence)."""

    p: np.ndarray
    verdict: np.ndarray
    gold: np.ndarray
    case: np.ndarray
    cases: tuple[str, ...]
    hallucinated: np.ndarray
    #: per case: (sum of the probabilities of sentences left as they are, number of sentences)
    fixed: tuple[tuple[float, int], ...]
    threshold: float


def data(run: RunResult, gold: Mapping[str, Gold]) -> Data:
    p: list[float] = []
    verdict: list[int] = []
    y: list[int] = []
    case: list[int] = []
    ids: list[str] = []
    halluc: list[bool] = []
    fixed: list[tuple[float, int]] = []
    thresholds: list[float] = []
    for r, g in matched(run, gold):
        lab = trace_labels(r)
        if lab is None:
            continue
        gs = {x.key: x.fully_supported for x in g.labels.sentences}
        if [s.key for s in lab.sentences] != list(gs):
            continue  # split differently from the gold
        i = len(ids)
        ids.append(r.case.id)
        halluc.append(not g.scores.overall_supported)
        rest = 0.0
        for s in lab.sentences:
            if _usable(s):
                p.append(float(s.score))  # type: ignore[arg-type]
                verdict.append(int(s.fully_supported))
                y.append(int(gs[s.key]))
                case.append(i)
            else:
                rest += float(s.score) if s.score is not None else float(s.fully_supported)
        fixed.append((rest, len(lab.sentences)))
        if isinstance(lab.extra.get("threshold"), (int, float)):
            thresholds.append(float(lab.extra["threshold"]))
    return Data(np.array(p, dtype=float), np.array(verdict, dtype=int), np.array(y, dtype=int),
                np.array(case, dtype=int), tuple(ids), np.array(halluc, dtype=int), tuple(fixed),
                float(np.median(thresholds)) if thresholds else 0.5)


def readiness(d: Data) -> str | None:
    """Why calibration cannot be fitted yet (None when it can)."""
    pos, neg = int(d.gold.sum()), int(len(d.gold) - d.gold.sum())
    missing = []
    if len(d.cases) < MIN_CASES:
        missing.append(f"{MIN_CASES} gold cases with the offline method's probabilities (you have {len(d.cases)})")
    if min(pos, neg) < MIN_PER_CLASS:
        missing.append(f"{MIN_PER_CLASS} sentences of each verdict (you have {pos} supported, {neg} not)")
    return ("Calibration needs at least " + " and ".join(missing) + ".") if missing else None


@dataclass(frozen=True)
class Calibration:
    """``P' = σ(slope · logit(P) + intercept)``, decided at ``P' ≥ 0.5``."""

    slope: float
    intercept: float
    #: The raw P(supported) where P' = 0.5 (the new decision threshold), and the method's old one.
    threshold: float
    old_threshold: float
    n_cases: int
    n_sentences: int

    def prob(self, p: float | np.ndarray) -> Any:
        z = self.slope * _logit(np.asarray(p, dtype=float)) + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def as_dict(self) -> dict[str, Any]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def _fit_arrays(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    from sklearn.linear_model import LogisticRegression

    m = LogisticRegression(C=1.0)
    m.fit(_logit(p).reshape(-1, 1), y)
    return float(m.coef_[0, 0]), float(m.intercept_[0])


def fit(d: Data) -> Calibration:
    """The calibration on every gold sentence. ValueError when there is not enough gold
    (:func:`readiness`) or the method's probabilities do not rank the gold verdicts at all (a fitted
    slope <= 0: recalibrating would invert them)."""
    why = readiness(d)
    if why:
        raise ValueError(why)
    a, b = _fit_arrays(d.p, d.gold)
    if a <= 0:
        raise ValueError("the offline method's probabilities do not rank your labels (higher P(supported) "
                         "is not more often supported): a calibration would not help")
    thr = 1.0 / (1.0 + math.exp(b / a))
    return Calibration(a, b, thr, d.threshold, len(d.cases), len(d.p))


def _figures(d: Data, members: list[np.ndarray], p: np.ndarray, verdict: np.ndarray, idx: np.ndarray) -> list[Any]:
    """Sentence kappa, accuracy, Brier score and case AUROC (1 − expected adherence) on the sentences
    of cases ``idx`` (a resample of case indices, repeats allowed; ``members[i]`` = sentences of case i)."""
    from ..agreement.stats import auroc_fast

    sel = np.concatenate([members[i] for i in idx]) if len(idx) else np.array([], int)
    y, v, q = d.gold[sel], verdict[sel], p[sel]
    out: list[Any] = []
    if len(y) == 0:
        return [None, None, None, None]
    pa, pb = float(v.mean()), float(y.mean())
    pe = pa * pb + (1 - pa) * (1 - pb)
    out.append((float((v == y).mean()) - pe) / (1 - pe) if pe < 1 else None)
    out.append(float((v == y).mean()))
    out.append(float(np.mean((q - y) ** 2)))
    sums = np.bincount(d.case, weights=p, minlength=len(d.cases))
    ea = np.array([(sums[i] + d.fixed[i][0]) / max(1, d.fixed[i][1]) for i in idx])
    out.append(auroc_fast(d.hallucinated[idx], 1.0 - ea))
    return out


FIGURES = ("kappa: sentence supported", "accuracy: sentence supported", "Brier score (lower is better)",
           "AUROC: hallucinated")


def cross_validate(d: Data, *, folds: int = FOLDS, n_boot: int = N_BOOT, seed: int = 0) -> list[dict[str, Any]]:
    """Agreement with the gold before (the method's verdicts and probabilities) and after
    calibration, every sentence predicted out of fold (folds over cases): rows
    {statistic, before, after, change, change_low, change_high, n_cases, n_sentences, note}."""
    why = readiness(d)
    if why:
        raise ValueError(why)
    k = min(folds, len(d.cases))
    rng = np.random.default_rng(seed)
    fold_of = rng.permutation(len(d.cases)) % k
    p_cv, v_cv = d.p.copy(), d.verdict.copy()  # a fold left as before keeps the method's own verdicts
    flat = backwards = 0
    for f in range(k):
        test = fold_of[d.case] == f
        train = ~test
        if len(np.unique(d.gold[train])) < 2:
            flat += 1
            continue
        a, b = _fit_arrays(d.p[train], d.gold[train])
        if a <= 0:  # what fit() refuses: the probabilities rank the labels backwards
            backwards += 1
            continue
        z = a * _logit(d.p[test]) + b
        p_cv[test] = 1.0 / (1.0 + np.exp(-z))
        v_cv[test] = (p_cv[test] >= 0.5).astype(int)
    n = len(d.cases)
    members = [np.flatnonzero(d.case == i) for i in range(n)]

    def paired(idx: np.ndarray) -> list[Any]:
        idx = idx.astype(int)
        before = _figures(d, members, d.p, d.verdict, idx)
        after = _figures(d, members, p_cv, v_cv, idx)
        return [None if x is None or y is None else y - x for x, y in zip(before, after)]

    all_idx = np.arange(n)
    before = _figures(d, members, d.p, d.verdict, all_idx)
    after = _figures(d, members, p_cv, v_cv, all_idx)
    ivs = bootstrap_stats(paired, all_idx, n_boot=n_boot, seed=seed, names=list(FIGURES))
    note = "; ".join([f"{k}-fold cross-validation over cases"]
                     + ([f"{flat} fold(s) had one verdict only (left as before)"] if flat else [])
                     + ([f"{backwards} fold(s) ranked your labels backwards (left as before)"] if backwards else []))
    return [{"statistic": name, "before": b, "after": a, "change": iv.estimate, "change_low": iv.low,
             "change_high": iv.high, "n_cases": n, "n_sentences": len(d.p), "note": note}
            for name, b, a, iv in zip(FIGURES, before, after, ivs)]


def verdict(rows: list[dict[str, Any]]) -> tuple[bool, str]:
    """(helps, a plain sentence) from :func:`cross_validate`'s rows: calibration helps when the
    sentence kappa's change has a 95 % interval above 0."""
    k = next(r for r in rows if r["statistic"] == FIGURES[0])
    if k["change"] is None:
        return False, "The sentence kappa is undefined on these cases: no verdict on calibration."
    span = "" if k["change_low"] is None else f" (95 % interval {k['change_low']:+.2f} to {k['change_high']:+.2f})"
    text = f"Sentence kappa {k['before']:.2f} → {k['after']:.2f}, a change of {k['change']:+.2f}{span}: "
    if k["change_low"] is not None and k["change_low"] > 0:
        return True, text + "calibrating agrees better with your labels on cases it never saw."
    if k["change_high"] is not None and k["change_high"] < 0:
        return False, text + "calibrating agrees worse with your labels; keep the method as it is."
    return False, text + "no clear difference on your labels; applying it is not worth much yet."


def relabel(lab: SentenceLabels, cal: Calibration) -> SentenceLabels:
    """One case's offline labels re-decided with ``cal`` (sentences needing no support, or without a
    probability, unchanged)."""
    sents = []
    for s in lab.sentences:
        if not _usable(s):
            sents.append(s)
            continue
        q = float(cal.prob(float(s.score)))  # type: ignore[arg-type]
        sents.append(s.model_copy(update={
            "score": round(q, 4), "fully_supported": q >= 0.5,
            "explanation": f"{s.explanation} [calibrated to your labels: P {s.score:.2f} → {q:.2f}]".strip()}))
    return lab.model_copy(update={
        "sentences": tuple(sents), "overall_supported": all(x.fully_supported for x in sents), "confidence": None,
        "extra": {**lab.extra, "threshold": 0.5, "calibration": cal.as_dict()},
        "notes": (*lab.notes, f"recalibrated on {cal.n_cases} reviewed cases (raw threshold "
                              f"{cal.old_threshold:.2f} → {cal.threshold:.2f}); relevant / utilized keys unchanged")})


def apply(run: RunResult, cal: Calibration) -> RunResult:
    """A copy of ``run`` whose offline labels (``trace``: the final labels it made and the hybrid's
    ``trace`` variant) are re-decided with the calibration; metrics and hybrid agreement recomputed;
    ``settings["calibrated_to_reviews"]`` records the calibration."""
    out = []
    for r in run.results:
        upd: dict[str, Any] = {}
        if r.labels is not None and r.labels.method == TRACE:
            upd["labels"] = relabel(r.labels, cal)
            upd["scores"] = trace_metrics.compute(upd["labels"])
        if TRACE in r.variants:
            variants = {**r.variants, TRACE: relabel(r.variants[TRACE], cal)}
            upd["variants"] = variants
            upd["variant_scores"] = {k: trace_metrics.compute(v) for k, v in variants.items()}
            others = [k for k in variants if k != TRACE]
            if others:
                upd["agreement"] = agreement(variants[TRACE], variants[others[0]])
        out.append(r.model_copy(update=upd) if upd else r)
    return run.model_copy(update={"results": tuple(out),
                                  "settings": {**run.settings, "calibrated_to_reviews": cal.as_dict()}})

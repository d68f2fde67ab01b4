"""Method vs method: agreement of two runs on the same cases for one metric, and of the two label
sets (variants) of a hybrid run (:func:`variant_agreement`, :func:`labeler_agreement`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from ..stats import N_BOOT, bootstrap_stats, mean_ci
from ..types import EXPECTED_ADHERENCE, OVERALL_SUPPORTED, TRACE_METRICS, RunResult
from .labels import groups_for


def metric_values(run: RunResult, metric: str) -> dict[str, float]:
    """case id -> value of ``metric`` on every scored case that has one (``CaseResult.value``)."""
    return {r.case.id: v for r in run.results if r.ok and (v := r.value(metric)) is not None}


def method_vs_method(run_a: RunResult, run_b: RunResult, metric: str = "adherence", top: int = 10, *,
                     n_boot: int = N_BOOT, seed: int = 0, group_column: str | None = None) -> dict[str, Any]:
    """Agreement of two runs on the same cases (matched by id) for one metric.

    Returns {metric, method_a, method_b, n, correlations: {pearson, spearman, kendall,
    mean_abs_diff[, cohen_kappa, agreement]}: Interval-as-dict (+ "value" = "mean"),
    disagreements: [{id, question, a, b, diff}] largest |a − b| first}.
    """
    from scipy.stats import kendalltau, pearsonr, spearmanr
    from sklearn.metrics import cohen_kappa_score

    va, vb = metric_values(run_a, metric), metric_values(run_b, metric)
    if not va and not vb:
        raise ValueError(f"metric '{metric}' is in neither run")
    ids = [i for i in va if i in vb]
    a = np.array([va[i] for i in ids], dtype=float)
    b = np.array([vb[i] for i in ids], dtype=float)
    binary = bool(len(ids)) and set(np.unique(np.r_[a, b])) <= {0.0, 1.0}

    def corr(x: np.ndarray, y: np.ndarray) -> list[Any]:
        if len(x) < 2:
            return ["fewer than 2 shared cases"] * 3 + [float(np.mean(np.abs(x - y))) if len(x) else None] \
                + ([None, None] if binary else [])
        mad = float(np.mean(np.abs(x - y)))
        if np.all(x == x[0]) or np.all(y == y[0]):
            msg = "one method's scores are constant: no correlation"
            res: list[Any] = [msg, msg, msg, mad]
        else:
            res = [float(pearsonr(x, y).statistic), float(spearmanr(x, y).statistic),
                   float(kendalltau(x, y).statistic), mad]
        if binary:
            both_const = np.all(x == x[0]) and np.all(y == y[0]) and x[0] == y[0]
            kappa: Any = "both methods give one identical verdict: kappa undefined" if both_const \
                else float(cohen_kappa_score(x.astype(int), y.astype(int)))
            res += [kappa, float(np.mean(x == y))]
        return res

    names = ["pearson", "spearman", "kendall", "mean_abs_diff"] + (["cohen_kappa", "agreement"] if binary else [])
    groups = groups_for([r for r in run_a.results if r.case.id in set(ids)], group_column) if group_column else {}
    g = [groups.get(i) for i in ids] if group_column else None
    ivs = bootstrap_stats(corr, a, b, groups=g, n_boot=n_boot, seed=seed, names=names)
    questions = {r.case.id: r.case.question for r in run_a.results}
    diffs = sorted(((i, x, y) for i, x, y in zip(ids, a, b)), key=lambda t: -abs(t[1] - t[2]))
    dis = [{"id": i, "question": questions.get(i, ""), "a": float(x), "b": float(y), "diff": float(x - y)}
           for i, x, y in diffs[: max(0, top)] if x != y]
    return {
        "metric": metric,
        "method_a": run_a.method,
        "method_b": run_b.method,
        "n": len(ids),
        "only_in_a": len([i for i in va if i not in vb]),
        "only_in_b": len([i for i in vb if i not in va]),
        "correlations": {k: {**iv.as_dict(), "value": iv.estimate} for k, iv in zip(names, ivs)},
        "disagreements": dis,
    }


def variant_agreement(run: RunResult, a: str = "trace", b: str = "gpt_labeling") -> dict[str, Any]:
    """Run-level agreement of two variants (hybrid: trace vs gpt_labeling) from a RunResult:
    how many cases each labeler labeled, the mean of every per-case figure, and Cohen's kappa
    of the pooled sentence-level verdicts (support over response sentences, relevance and
    utilization over document sentences; None when undefined, e.g. one class only)."""
    both = [r for r in run.results if a in r.variants and b in r.variants]
    out: dict[str, Any] = {
        "cases": len(run.results),
        "cases_with_both": len(both),
        "labeled_by": dict(Counter(r.labeled_by for r in run.results if r.labeled_by)),
    }
    keys = sorted({k for r in both for k in r.agreement})
    out["mean"] = {k: sum(r.agreement[k] for r in both if k in r.agreement) /
                   max(1, sum(1 for r in both if k in r.agreement)) for k in keys}
    sup_a, sup_b, rel_a, rel_b, use_a, use_b = [], [], [], [], [], []
    for r in both:
        la, lb = r.variants[a], r.variants[b]
        mb = {x.key: x.fully_supported for x in lb.sentences}
        for x in la.sentences:
            if x.key in mb:
                sup_a.append(int(x.fully_supported))
                sup_b.append(int(mb[x.key]))
        ra, rb, ua, ub = set(la.relevant_keys), set(lb.relevant_keys), set(la.utilized_keys), set(lb.utilized_keys)
        for k in la.document_keys:
            rel_a.append(int(k in ra))
            rel_b.append(int(k in rb))
            use_a.append(int(k in ua))
            use_b.append(int(k in ub))

    def kappa(x: list[int], y: list[int]) -> float | None:
        if not x or len(set(x) | set(y)) < 2:
            return None
        from sklearn.metrics import cohen_kappa_score

        v = float(cohen_kappa_score(x, y))
        return None if v != v else v

    out["support_kappa"] = kappa(sup_a, sup_b)
    out["relevance_kappa"] = kappa(rel_a, rel_b)
    out["utilization_kappa"] = kappa(use_a, use_b)
    out["sentences_compared"] = len(sup_a)
    return out



#: The metrics :func:`labeler_agreement` compares by default.
LABELER_METRICS: tuple[str, ...] = (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED)


def _variant_run(results: list[Any], variant: str) -> RunResult:
    """The cases as one labeler alone scored them (its labels and scores; no family metrics)."""
    return RunResult(method=variant, results=tuple(
        r.model_copy(update={"labels": r.variants[variant], "scores": r.variant_scores[variant], "metrics": {},
                             "variants": {}, "variant_scores": {}, "agreement": {}}) for r in results))


def labeler_agreement(run: RunResult, a: str = "trace", b: str = "gpt_labeling",
                      metrics: tuple[str, ...] = LABELER_METRICS, *, top: int = 10, n_boot: int = N_BOOT,
                      seed: int = 0) -> dict[str, Any]:
    """How far the two labelers of a hybrid run agree, on the cases both labeled.

    Returns ``{a, b, n, cases, metrics, sentences, disagreements}``:

    * ``metrics``: per metric ``{metric, n, mean_a, mean_b, mean_abs_diff, spearman[, agreement,
      cohen_kappa]}``, each statistic an interval dict (``value``, ``low``, ``high``, ``note``) from
      :func:`method_vs_method` (bootstrap over cases);
    * ``sentences``: ``support_agreement`` (share of response sentences with the same fully-supported
      verdict, mean over cases with a bootstrap interval) and the pooled Cohen's kappas of
      :func:`variant_agreement`;
    * ``disagreements``: the ``top`` cases where they disagree most — lowest share of agreeing
      sentence verdicts first, then the largest adherence difference — with both adherences.

    ValueError when no case has both labelings (selective hybrid sends only some cases to the LLM).
    """
    both = [r for r in run.results if r.ok and a in r.variant_scores and b in r.variant_scores
            and a in r.variants and b in r.variants]
    if not both:
        raise ValueError(f"no case has both labelings ({a} and {b}): only hybrid runs keep both, and "
                         "selective hybrid only for the cases it sent to the LLM")
    ra, rb = _variant_run(both, a), _variant_run(both, b)
    rows = []
    for m in metrics:
        va, vb = metric_values(ra, m), metric_values(rb, m)
        res = method_vs_method(ra, rb, m, top=0, n_boot=n_boot, seed=seed)
        c = res["correlations"]
        row: dict[str, Any] = {"metric": m, "n": res["n"],
                               "mean_a": float(np.mean(list(va.values()))) if va else None,
                               "mean_b": float(np.mean(list(vb.values()))) if vb else None,
                               "mean_abs_diff": c["mean_abs_diff"], "spearman": c["spearman"]}
        for k in ("agreement", "cohen_kappa"):
            if k in c:
                row[k] = c[k]
        rows.append(row)
    sup = [r.agreement.get("support_agreement") for r in both]
    summary = variant_agreement(RunResult(method=run.method, results=tuple(both)), a, b)
    sentences = {"support_agreement": mean_ci(sup, n_boot=n_boot, seed=seed).as_dict(),
                 "support_kappa": summary["support_kappa"], "relevance_kappa": summary["relevance_kappa"],
                 "utilization_kappa": summary["utilization_kappa"],
                 "sentences_compared": summary["sentences_compared"]}

    def order(r: Any) -> tuple[float, float, str]:
        s = r.agreement.get("support_agreement")
        return (1.0 if s is None else s, -r.agreement.get("adherence_abs_diff", 0.0), r.case.id)

    dis = []
    for r in sorted(both, key=order)[: max(0, top)]:
        s, d = r.agreement.get("support_agreement"), r.agreement.get("adherence_abs_diff", 0.0)
        if (s is None or s >= 1.0) and not d:
            continue  # they agree on this case: not a disagreement
        dis.append({"id": r.case.id, "question": r.case.question, "support_agreement": s,
                    f"adherence_{a}": r.variant_scores[a].adherence,
                    f"adherence_{b}": r.variant_scores[b].adherence, "adherence_abs_diff": d})
    return {"a": a, "b": b, "n": len(both), "cases": len(run.results), "metrics": rows,
            "sentences": sentences, "disagreements": dis}

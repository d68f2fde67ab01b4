"""Gold labels — reviewed cases, and sentence-level human labels read from an upload — and how well
every method agrees with them.

**Gold** is, per case (identified by its texts, :func:`~evaluators.review.labels.fingerprint`):

* a case **marked reviewed** in review mode: the labels the reviewer started from with every
  correction applied (the newest review when the same texts were reviewed in several runs);
* otherwise, sentence-level human labels the uploaded file carried
  (:func:`~evaluators.review.transfer.labels_from_case`: an exported review file uploaded again).

:func:`gold_table` scores every labeling of every run (the final labels and each hybrid variant) on
the gold cases it has: AUROC of ``1 − expected adherence`` against the gold verdict "some sentence
is not fully supported" (hallucinated), Cohen's kappa of the sentence verdicts (response sentences:
fully supported or not; document sentences: relevant, utilized), and the RMSE of each TRACE metric —
each with a 95 % bootstrap interval over cases (sentence-level figures resample whole cases) and
the number of gold cases. Sentence figures compare only cases split the same way as the gold.

:func:`with_gold` puts the gold figures into a run's ``TestCase.labels`` (``reviewed_hallucinated``,
``reviewed_adherence``, ...), so the prediction-powered estimates (:func:`ppi`, from
``evaluators.agreement.ppi_estimates``) and the agreement table use them like any human label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .. import trace_metrics
from ..agreement import ppi_estimates
from ..agreement.stats import auroc_fast
from ..stats import N_BOOT, Interval, bootstrap_stats
from ..types import TRACE_METRICS, CaseResult, RunResult, SentenceLabels, SentenceSpans, TraceScores
from .labels import ReviewedCase, fingerprint
from .transfer import labels_from_case

COLUMNS = ["run", "labeling", "statistic", "value", "ci_low", "ci_high", "n", "note"]
#: Gold figures as human-label names of ``TestCase.labels`` (see :func:`with_gold`), with the TRACE
#: metric each is read from; the names map to the metrics by ``evaluators.agreement.label_target``.
GOLD_LABELS: dict[str, str] = {
    "reviewed_hallucinated": "overall_supported",
    "reviewed_adherence": "adherence",
    "reviewed_relevance": "context_relevance",
    "reviewed_utilization": "context_utilization",
    "reviewed_completeness": "completeness",
}


@dataclass(frozen=True)
class Gold:
    """The gold labels of one case."""

    fingerprint: str
    case_id: str
    labels: SentenceLabels
    spans: SentenceSpans | None
    #: "review" (marked reviewed in the dashboard) or "file" (human labels of an upload).
    source: str
    #: The run a review started from, and the method of the labels it started from.
    run_id: str | None = None
    base_method: str | None = None

    @property
    def scores(self) -> TraceScores:
        return trace_metrics.compute(self.labels)


def from_reviews(reviewed: Mapping[str, ReviewedCase]) -> dict[str, Gold]:
    """fingerprint -> gold of the reviewed cases (``ReviewStore.gold()``)."""
    return {fp: Gold(fp, c.case_id, c.labels, c.spans, "review", c.run_id, c.base.method)
            for fp, c in reviewed.items() if c.reviewed}


def from_files(runs: Sequence[RunResult]) -> dict[str, Gold]:
    """fingerprint -> gold of cases whose upload carried sentence-level human labels."""
    out: dict[str, Gold] = {}
    for run in runs:
        for r in run.results:
            if "sentence_support_information" not in r.case.labels:
                continue
            fp = fingerprint(r.case)
            if fp in out:
                continue
            got = labels_from_case(r.case)
            if got is not None:
                out[fp] = Gold(fp, r.case.id, got[0], got[1], "file")
    return out


def collect(reviewed: Mapping[str, ReviewedCase], runs: Sequence[RunResult] = ()) -> dict[str, Gold]:
    """Every gold case: human labels of uploads, overridden by reviews of the same texts."""
    return {**from_files(runs), **from_reviews(reviewed)}


def matched(run: RunResult, gold: Mapping[str, Gold]) -> list[tuple[CaseResult, Gold]]:
    """(result, gold) of every labeled case of ``run`` that has gold, in run order."""
    if not gold:
        return []
    return [(r, g) for r in run.results if r.labels is not None and r.scores is not None
            and (g := gold.get(fingerprint(r.case))) is not None]


def labelings(run: RunResult) -> list[str]:
    """"final" (the labels the metrics use) and each variant name of the run (hybrid)."""
    names: dict[str, None] = {"final": None}
    for r in run.results:
        names.update(dict.fromkeys(r.variants))
    return list(names)


def _labels(r: CaseResult, which: str) -> tuple[SentenceLabels | None, TraceScores | None]:
    if which == "final":
        return r.labels, r.scores
    return r.variants.get(which), r.variant_scores.get(which)


def _same_split(r: CaseResult, g: Gold, la: SentenceLabels) -> bool:
    if r.spans is not None and g.spans is not None:
        return r.spans == g.spans
    return (tuple(la.document_keys) == tuple(g.labels.document_keys)
            and [s.key for s in la.sentences] == [s.key for s in g.labels.sentences])


def _kappa_point(a: np.ndarray, b: np.ndarray) -> Any:
    from sklearn.metrics import cohen_kappa_score

    if len(a) == 0:
        return "no sentences to compare"
    if len(np.unique(np.r_[a, b])) < 2:
        return "method and gold give one identical verdict throughout: kappa undefined"
    v = float(cohen_kappa_score(a, b))
    return v if v == v else "kappa undefined on this data"


def _kappa_fast(a: np.ndarray, b: np.ndarray) -> float | None:
    """Cohen's kappa of two 0/1 arrays (closed form, for the bootstrap replicates)."""
    if len(a) == 0:
        return None
    pa, pb = float(a.mean()), float(b.mean())
    pe = pa * pb + (1 - pa) * (1 - pb)
    if pe >= 1.0:
        return None
    return (float((a == b).mean()) - pe) / (1 - pe)


def _auroc_point(y: np.ndarray, s: np.ndarray) -> Any:
    from sklearn.metrics import roc_auc_score

    if len(np.unique(y)) < 2:
        return (f"all {len(y)} gold cases are {'hallucinated' if len(y) and y[0] else 'supported'}: "
                "AUROC needs both")
    return float(roc_auc_score(y, s))


def _rmse(y: np.ndarray, s: np.ndarray) -> float | None:
    return float(np.sqrt(np.mean((y - s) ** 2))) if len(y) else None


def _row(run: str, labeling: str, stat: str, iv: Interval, n: int, notes: Sequence[str]) -> dict[str, Any]:
    note = "; ".join(x for x in [*notes, iv.note] if x)
    return {"run": run, "labeling": labeling, "statistic": stat, "value": iv.estimate, "ci_low": iv.low,
            "ci_high": iv.high, "n": n, "note": note}


def _one(fn: Callable[..., Any], *arrays: np.ndarray, groups: Sequence[Any] | None, n_boot: int, seed: int,
         point: Callable[..., Any] | None = None) -> Interval:
    return bootstrap_stats(fn, *arrays, groups=groups, n_boot=n_boot, seed=seed, names=["x"],
                           point_fn=point)[0]


def labeling_rows(run_name: str, run: RunResult, which: str, gold: Mapping[str, Gold], *,
                  run_id: str | None = None, n_boot: int = N_BOOT, seed: int = 0,
                  final: bool | None = None) -> list[dict[str, Any]]:
    """The rows of one labeling (``"final"`` or a variant) of one run against the gold (``final``: the
    labeling is the run's final labels; default: when ``which`` is ``"final"``)."""
    is_final = which == "final" if final is None else final
    pairs = []
    for r, g in matched(run, gold):
        la, sa = _labels(r, which)
        if la is not None and sa is not None:
            pairs.append((r, g, la, sa))
    if not pairs:
        return []
    label = "final labels" if which == "final" else which
    anchored = sum(1 for r, g, _, _ in pairs
                   if is_final and g.source == "review" and run_id is not None and g.run_id == run_id)
    base_note = ([f"{anchored} of the {len(pairs)} reviews started from these labels (agreement flattered)"]
                 if anchored else [])
    n = len(pairs)
    y = np.array([not g.scores.overall_supported for _, g, _, _ in pairs], dtype=int)
    s = np.array([1.0 - sa.expected_adherence for _, _, _, sa in pairs], dtype=float)
    rows = [_row(run_name, label, "AUROC: hallucinated", _one(
        auroc_fast, y, s, groups=None, n_boot=n_boot, seed=seed, point=_auroc_point),
        n, [f"score = 1 − expected adherence; {int(y.sum())} of {n} gold cases hallucinated", *base_note])]
    # sentence verdicts, pooled over the cases split like the gold (whole cases resampled)
    sup: tuple[list[int], list[int], list[int]] = ([], [], [])
    rel: tuple[list[int], list[int], list[int]] = ([], [], [])
    use: tuple[list[int], list[int], list[int]] = ([], [], [])
    skipped = 0
    for i, (r, g, la, _) in enumerate(pairs):
        if not _same_split(r, g, la):
            skipped += 1
            continue
        gs = {x.key: x.fully_supported for x in g.labels.sentences}
        for x in la.sentences:
            if x.key in gs:
                sup[0].append(int(x.fully_supported))
                sup[1].append(int(gs[x.key]))
                sup[2].append(i)
        for keys_m, keys_g, acc in ((la.relevant_keys, g.labels.relevant_keys, rel),
                                    (la.utilized_keys, g.labels.utilized_keys, use)):
            km, kg = set(keys_m), set(keys_g)
            for k in g.labels.document_keys:
                acc[0].append(int(k in km))
                acc[1].append(int(k in kg))
                acc[2].append(i)
    split_note = [f"{skipped} case(s) split differently from the gold left out"] if skipped else []
    for stat, (a, b, grp), what in (("kappa: sentence supported", sup, "response sentences"),
                                    ("kappa: relevant", rel, "document sentences"),
                                    ("kappa: utilized", use, "document sentences")):
        iv = _one(_kappa_fast, np.array(a), np.array(b), groups=grp, n_boot=n_boot, seed=seed,
                  point=_kappa_point)
        rows.append(_row(run_name, label, stat, iv, n - skipped,
                         [f"{len(a)} {what} (fully supported or not)" if stat.endswith("supported")
                          else f"{len(a)} {what}", *split_note, *base_note]))
    for m in TRACE_METRICS:
        ym = np.array([getattr(g.scores, m) for _, g, _, _ in pairs], dtype=float)
        sm = np.array([getattr(sa, m) for _, _, _, sa in pairs], dtype=float)
        rows.append(_row(run_name, label, f"RMSE: {m}", _one(_rmse, ym, sm, groups=None, n_boot=n_boot,
                                                              seed=seed), n, base_note))
    return rows


def gold_table(runs: Mapping[str, RunResult], gold: Mapping[str, Gold], *,
               run_ids: Mapping[str, str] | None = None, n_boot: int = N_BOOT, seed: int = 0):
    """Agreement of every labeling of every run (display name -> run) with the gold, one row per
    figure: run, labeling, statistic, value, ci_low, ci_high, n (gold cases), note. ``run_ids``
    (name -> history id) lets a note say when the reviews started from the labels being scored."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for name, run in runs.items():
        names = labelings(run)
        same = final_variant(run, gold)
        for which in names:
            if which == "final" and same is not None:
                continue  # the final labels are one variant's on every gold case: scored once, as that variant
            got = labeling_rows(name, run, which, gold, run_id=(run_ids or {}).get(name), n_boot=n_boot, seed=seed,
                                 final=which in ("final", same))
            if which == same:
                got = [{**r, "labeling": f"{which} (= final labels)"} for r in got]
            rows.extend(got)
    return pd.DataFrame(rows, columns=COLUMNS)


def final_variant(run: RunResult, gold: Mapping[str, Gold]) -> str | None:
    """The variant whose labels are the final labels on every gold case of ``run`` (hybrid: the LLM's
    when it labeled every case), else None."""
    pairs = matched(run, gold)
    for v in labelings(run)[1:]:
        if pairs and all(r.variants.get(v) == r.labels for r, _ in pairs):
            return v
    return None


def with_gold(run: RunResult, gold: Mapping[str, Gold]) -> RunResult:
    """A copy of ``run`` whose gold cases carry the gold figures as human labels (:data:`GOLD_LABELS`)."""
    if not gold:
        return run
    out = []
    for r in run.results:
        g = gold.get(fingerprint(r.case))
        if g is None:
            out.append(r)
            continue
        sc = g.scores
        extra = {name: (not sc.overall_supported) if metric == "overall_supported" else float(getattr(sc, metric))
                 for name, metric in GOLD_LABELS.items()}
        out.append(r.model_copy(update={"case": r.case.model_copy(update={"labels": {**r.case.labels, **extra}})}))
    return run.model_copy(update={"results": tuple(out)})


def ppi(run: RunResult, gold: Mapping[str, Gold]) -> list[dict[str, Any]]:
    """Prediction-powered estimates of the true means (hallucination rate, adherence, ...) of the
    whole run from its predictions and the gold cases (``evaluators.agreement.ppi_estimates``)."""
    g_run = with_gold(run, gold)
    if g_run is run or not any("reviewed_hallucinated" in r.case.labels for r in g_run.results):
        return []
    return ppi_estimates(g_run, list(GOLD_LABELS))

"""The review queue: which cases to review first, so a few dozen reviews land where they matter.

Two orders (both put cases already marked reviewed last, and leave out cases without labels):

* :func:`by_uncertainty` — the method's own doubt about its labels: ``1 − SentenceLabels.confidence``
  when the labeler gives one (``trace``: its calibrated chance that its adherence is wrong), else
  how close the closest sentence probability sits to the labeler's threshold
  (``1 − |p − threshold| / max(threshold, 1 − threshold)``). When the final labels have neither
  (LLM labeling), a hybrid case's other labeling (``trace``) is asked; cases with no signal at all
  come after the others, in run order.
* :func:`by_disagreement` — two labelings of the same case: the two labelers of a hybrid run
  (``variants``), or the labels of two runs on the same cases (matched by case id and texts).
  Disagreement = the share of response sentences whose support level (full / partial / none)
  differs; ties are broken by the mean absolute difference of the four TRACE metrics.

Ties keep run order (the sort is stable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Sequence

from .. import trace_metrics
from ..types import TRACE_METRICS, CaseResult, RunResult, SentenceLabels
from .labels import fingerprint

ORDERS: tuple[str, ...] = ("uncertainty", "variants", "runs")


@dataclass(frozen=True)
class QueueItem:
    case_id: str
    #: Higher = review sooner; None = the method gives no signal (after every other case).
    priority: float | None
    #: Why, in words (shown beside the case).
    why: str
    reviewed: bool = False


def uncertainty(labels: SentenceLabels) -> tuple[float | None, str]:
    """(uncertainty in [0, 1] or None, why) of one case's labels (see module docstring)."""
    if labels.confidence is not None:
        c = float(labels.confidence)
        return 1.0 - c, f"confidence {c:.2f}"
    probs = [float(s.score) for s in labels.sentences if s.score is not None]
    if not probs:
        return None, "no probabilities to rank by"
    thr = labels.extra.get("threshold")
    thr = float(thr) if isinstance(thr, (int, float)) else 0.5
    p = min(probs, key=lambda x: abs(x - thr))
    span = max(thr, 1.0 - thr)
    return 1.0 - min(1.0, abs(p - thr) / span), f"sentence P(supported) {p:.2f} vs threshold {thr:.2f}"


def disagreement(a: SentenceLabels, b: SentenceLabels) -> tuple[float, float, str]:
    """(share of response sentences with a different support level, mean |difference| of the four
    TRACE metrics, why) of two labelings of one case."""
    la = {s.key: s.level for s in a.sentences}
    lb = {s.key: s.level for s in b.sentences}
    keys = [k for k in la if k in lb]
    differ = [k for k in keys if la[k] != lb[k]]
    share = len(differ) / len(keys) if keys else 0.0
    ta, tb = trace_metrics.compute(a), trace_metrics.compute(b)
    mad = sum(abs(getattr(ta, m) - getattr(tb, m)) for m in TRACE_METRICS) / len(TRACE_METRICS)
    why = (f"{len(differ)} of {len(keys)} sentences differ" + (f" ({', '.join(differ[:6])})" if differ else "")
           + f"; metrics differ by {mad:.2f} on average")
    return share, mad, why


def _ordered(items: list[tuple[tuple, QueueItem]]) -> list[QueueItem]:
    items.sort(key=lambda t: (t[1].reviewed, *t[0]))
    return [it for _, it in items]


def by_uncertainty(run: RunResult, reviewed: Collection[str] = ()) -> list[QueueItem]:
    """Cases with labels, the method's least certain first (reviewed ones last)."""
    items = []
    for r in run.results:
        if r.labels is None:
            continue
        u, why = uncertainty(r.labels)
        if u is None:
            for name, lab in r.variants.items():
                v, w = uncertainty(lab)
                if v is not None:
                    u, why = v, f"{name}: {w}"
                    break
        items.append(((u is None, -(u or 0.0)), QueueItem(r.case.id, u, why, r.case.id in reviewed)))
    return _ordered(items)


def labelings(r: CaseResult) -> list[str]:
    """Names of the labelings of a case that can be compared (hybrid: ``trace``, ``gpt_labeling``)."""
    return list(r.variants)


def by_disagreement(run: RunResult, other: RunResult | None = None, *, a: str | None = None,
                    b: str | None = None, reviewed: Collection[str] = ()) -> list[QueueItem]:
    """Cases where two labelings disagree most first: variants ``a`` and ``b`` of a hybrid run (the
    first two variants by default), or — with ``other`` — this run's labels against ``other``'s on
    the cases both have (same id and same texts). Cases without both labelings are left out."""
    pairs: list[tuple[str, SentenceLabels, SentenceLabels]] = []
    if other is not None:
        theirs = {(r.case.id, fingerprint(r.case)): r.labels for r in other.results if r.labels is not None}
        for r in run.results:
            mine = r.labels
            o = theirs.get((r.case.id, fingerprint(r.case))) if mine is not None else None
            if mine is not None and o is not None:
                pairs.append((r.case.id, mine, o))
    else:
        for r in run.results:
            names = labelings(r)
            x, y = a or (names[0] if names else None), b or (names[1] if len(names) > 1 else None)
            if x in r.variants and y in r.variants and x != y:
                pairs.append((r.case.id, r.variants[x], r.variants[y]))
    items = []
    for cid, la, lb in pairs:
        share, mad, why = disagreement(la, lb)
        items.append(((-share, -mad), QueueItem(cid, share + mad / 100.0, why, cid in reviewed)))
    return _ordered(items)


def order(run: RunResult, how: str, *, other: RunResult | None = None,
          reviewed: Collection[str] = ()) -> list[QueueItem]:
    """The queue by name: ``uncertainty``, ``variants`` (hybrid labelers) or ``runs`` (needs ``other``)."""
    if how == "uncertainty":
        return by_uncertainty(run, reviewed)
    if how == "variants":
        return by_disagreement(run, reviewed=reviewed)
    if how == "runs":
        if other is None:
            raise ValueError("ordering by disagreement of two runs needs the other run")
        return by_disagreement(run, other, reviewed=reviewed)
    raise ValueError(f"unknown order {how!r}; one of: {', '.join(ORDERS)}")


def next_case(queue: Sequence[QueueItem], after: str | None = None) -> str | None:
    """The first case of the queue not reviewed yet, after ``after`` if it is in the queue
    (wrapping round); None when every case is reviewed."""
    ids = [q.case_id for q in queue]
    start = ids.index(after) + 1 if after in ids else 0
    for q in list(queue[start:]) + list(queue[:start]):
        if not q.reviewed and q.case_id != after:
            return q.case_id
    return None

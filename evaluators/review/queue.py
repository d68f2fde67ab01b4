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

from ..signals import disagreement, fingerprint, uncertainty
from ..types import CaseResult, RunResult, SentenceLabels

ORDERS: tuple[str, ...] = ("uncertainty", "variants", "runs")


@dataclass(frozen=True)
class QueueItem:
    case_id: str
    #: Higher = review sooner; None = the method gives no signal (after every other case).
    priority: float | None
    #: Why, in words (shown beside the case).
    why: str
    reviewed: bool = False


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


def order_signals(signals: Sequence[tuple[str, dict]], how: str, reviewed: Collection[str] = ()) -> list[QueueItem]:
    """The ``uncertainty`` or ``variants`` order from the signals kept with each stored case
    ((case id, aux) in run order: ``u`` = [uncertainty, why] for a case with labels, ``v`` =
    [share, mean difference, why] for a case with two labelings; ``evaluators.store.rows``) — the same order as
    :func:`order` on the whole run, without reading a case."""
    if how not in ("uncertainty", "variants"):
        raise ValueError(f"order {how!r} needs the runs' labels; from signals: uncertainty, variants")
    items = []
    for cid, aux in signals:
        if how == "uncertainty" and "u" in aux:
            u, why = aux["u"]
            items.append(((u is None, -(u or 0.0)), QueueItem(cid, u, why, cid in reviewed)))
        elif how == "variants" and "v" in aux:
            share, mad, why = aux["v"]
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

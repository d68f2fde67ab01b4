"""Per-case signals read from a case and its labels, kept with every stored case so that a review
queue or a gold match over a run of any size is a lookup, not a pass over the run:

* :func:`fingerprint` — the identity of a case's texts (question, response, documents): reviews of
  a case apply to every run that evaluated the same texts;
* :func:`uncertainty` — how unsure a labeler is of its labels (the review queue's first order);
* :func:`disagreement` — how far two labelings of the same case are apart (its second order).

Pure functions of the types (used by ``review`` and by the run store's per-case rows).
"""

from __future__ import annotations

import hashlib
import json

from . import trace_metrics
from .types import TRACE_METRICS, SentenceLabels, TestCase


def fingerprint(case: TestCase) -> str:
    """Identity of a case's texts (question, response, documents): reviews of a case apply to every
    run that evaluated the same texts, whatever the run."""
    raw = json.dumps([case.question, case.response, list(case.documents)], ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:24]


def uncertainty(labels: SentenceLabels) -> tuple[float | None, str]:
    """(uncertainty in [0, 1] or None, why) of one case's labels: ``1 − confidence`` when the
    labeler gives one, else how close the closest sentence probability sits to the labeler's
    threshold (``1 − |p − threshold| / max(threshold, 1 − threshold)``); None without either."""
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


__all__ = ["disagreement", "fingerprint", "uncertainty"]

"""Regressions and improvements of a pair: the paired cases where B drops most (rises most), each
with both scores and the response sentences behind the change — for a regression, B's sentences not
fully supported and whether A had the same sentence supported ("lost their support"); for an
improvement, A's sentences not fully supported and what became of them in B. The sentences are
fetched only for the cases listed (``RunTable.fetch``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .matching import Paired, norm_question
from .paired import tie_margin
from .table import RunTable, SentenceDetail


@dataclass(frozen=True)
class Change:
    """One paired case whose score moved."""

    question: str
    a_id: str
    b_id: str
    a: float
    b: float
    row_a: int
    row_b: int
    #: the worse run's response sentences not fully supported: {sentence, level, in_other}
    #: (in_other: "supported" / "not supported" / "absent" in the better run)
    sentences: tuple[dict[str, Any], ...] = field(default=())

    @property
    def diff(self) -> float:
        return self.b - self.a

    def as_dict(self, key: str) -> dict[str, Any]:
        return {"question": self.question, "a_id": self.a_id, "b_id": self.b_id, "a": self.a, "b": self.b,
                "diff": self.diff, key: [dict(s) for s in self.sentences]}


def gains(a: RunTable, b: RunTable, paired: Paired, metric: str, *, higher_better: bool = True) -> np.ndarray:
    """How much B gains on each paired case (B − A, turned so that positive is better; 0 where either
    has no value): below −``tie_margin(metric)`` a regression, above it an improvement (the metric's
    resolution: ``paired.resolution``)."""
    va = a.values[metric][paired.rows_a]
    vb = b.values[metric][paired.rows_b]
    ok = np.isfinite(va) & np.isfinite(vb)
    return np.where(ok, (vb - va) * (1.0 if higher_better else -1.0), 0.0)


def pick(a: RunTable, b: RunTable, paired: Paired, metric: str, *, higher_better: bool = True,
         top: int = 10) -> tuple[list[Change], list[Change]]:
    """(regressions worst first, improvements best first), at most ``top`` of each, without their
    sentences (see :func:`with_sentences`)."""
    va = a.values[metric][paired.rows_a]
    vb = b.values[metric][paired.rows_b]
    gain = gains(a, b, paired, metric, higher_better=higher_better)
    order = np.argsort(gain, kind="stable")

    def change(i: int) -> Change:
        ra, rb = int(paired.rows_a[i]), int(paired.rows_b[i])
        return Change(a.questions[ra], a.ids[ra], b.ids[rb], float(va[i]), float(vb[i]), ra, rb)

    tie = tie_margin(metric)
    worse = [change(int(i)) for i in order[:top] if gain[i] < -tie]
    better = [change(int(i)) for i in order[::-1][:top] if gain[i] > tie]
    return worse, better


def _levels(sentences: Sequence[SentenceDetail]) -> dict[str, str]:
    out: dict[str, str] = {}
    for s in sentences:
        k = norm_question(s.text)  # the same normalisation: case and spacing do not count
        if out.get(k) != "full":
            out[k] = s.level
    return out


def unsupported(worse: Sequence[SentenceDetail], better: Sequence[SentenceDetail]) -> tuple[dict[str, Any], ...]:
    """The sentences of ``worse`` not fully supported, those the other run supported first."""
    other = _levels(better)
    rows = []
    for s in worse:
        if s.level == "full":
            continue
        lvl = other.get(norm_question(s.text))
        status = "absent" if lvl is None else "supported" if lvl == "full" else "not supported"
        rows.append({"sentence": s.text, "level": s.level, "in_other": status})
    rank = {"supported": 0, "not supported": 1, "absent": 2}
    return tuple(sorted(rows, key=lambda r: rank[r["in_other"]]))


def with_sentences(changes: Sequence[Change], worse_is_b: bool,
                   det_a: Mapping[int, tuple[SentenceDetail, ...]],
                   det_b: Mapping[int, tuple[SentenceDetail, ...]]) -> list[Change]:
    out = []
    for c in changes:
        sa, sb = det_a.get(c.row_a, ()), det_b.get(c.row_b, ())
        sents = unsupported(sb, sa) if worse_is_b else unsupported(sa, sb)
        out.append(Change(c.question, c.a_id, c.b_id, c.a, c.b, c.row_a, c.row_b, sents))
    return out

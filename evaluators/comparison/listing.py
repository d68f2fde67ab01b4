"""The regressions (or improvements) of one pair of a comparison, a page at a time.

A comparison lists the first :data:`~.compare.TOP` of each pair (``PairResult.regressions``); a reader
who wants every one pages through :func:`changes_page`: how many there are in all (the cases where B
is worse than A by at least the metric's resolution, the same count as the pair's losses when higher is
better), and ``count`` of them from ``start`` on, worst first, each with the sentences behind it —
fetched for that page only, so a 100,000-case pair pages in bounded memory. Each change also says
whether its question repeats inside the baseline run (a summarisation set asks one instruction of
many documents): a reader then needs the case id, or its source, to tell the cards apart.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .changes import Change, gains, pick, with_sentences
from .compare import Comparison
from .matching import norm_question, pair
from .paired import tie_margin


@dataclass(frozen=True)
class ChangePage:
    """``changes`` (worst first) are numbers ``start + 1`` … ``start + len(changes)`` of ``total``."""

    total: int
    start: int
    changes: tuple[Change, ...]
    #: one per change: its question is asked more than once in the baseline run
    repeated: tuple[bool, ...] = ()

    @property
    def end(self) -> int:
        return self.start + len(self.changes)


def changes_page(c: Comparison, a: str, b: str, metric: str | None = None, *, start: int = 0, count: int = 10,
                 regressions: bool = True) -> ChangePage:
    """Regressions of run ``b`` against run ``a`` on ``metric`` (default: the headline), worst first —
    or, with ``regressions=False``, its improvements, best first — ``count`` from ``start`` on.
    KeyError for a run the comparison does not have."""
    m = metric or c.metric
    if a not in c.names or b not in c.names:
        raise KeyError(f"no run {a if a not in c.names else b!r} in this comparison")
    i, j = c.names.index(a), c.names.index(b)
    ta, tb = c.tables[i], c.tables[j]
    paired = pair(c.matching, i, j)
    hb = c.higher_better.get(m, True)
    gain = gains(ta, tb, paired, m, higher_better=hb)
    tie = tie_margin(m)
    total = int((gain < -tie).sum()) if regressions else int((gain > tie).sum())
    start = max(0, min(start, total))
    count = max(0, min(count, total - start))
    if count == 0:
        return ChangePage(total, start, ())
    worse, better = pick(ta, tb, paired, m, higher_better=hb, top=start + count)
    chosen = (worse if regressions else better)[start:start + count]
    det_a = ta.fetch(sorted({x.row_a for x in chosen}))
    det_b = tb.fetch(sorted({x.row_b for x in chosen}))
    asked = Counter(norm_question(q) for q in ta.questions)
    return ChangePage(total, start, tuple(with_sentences(chosen, regressions, det_a, det_b)),
                      tuple(asked[norm_question(x.question)] > 1 for x in chosen))

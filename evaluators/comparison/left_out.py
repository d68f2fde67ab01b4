"""Values a comparison leaves out because they are not numbers, counted and said.

A case's metric value is compared only when it is a finite number. ``None`` (no value: the case was
not scored, or the metric does not apply to it) is absence, not a fault. Anything else that is not
a finite number — NaN, an infinity, a text such as ``"high"`` or ``"n/a"`` — is a value the results
file holds but a comparison cannot use: :class:`LeftOut` counts them per run and metric, with why
and a few examples, and :func:`lines` / :func:`as_dict` say so in the comparison's words and JSON,
so "16 cases paired" followed by "on 13 paired questions" never goes unexplained.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

#: Example values kept per run and metric.
EXAMPLES = 3


def why_not_a_number(value: Any) -> str | None:
    """Why ``value`` cannot be compared (``"NaN"``, ``"infinite"``, ``"text"``, ``"a <type>"``), or
    None when it can (a finite number) or is simply absent (None)."""
    if value is None:
        return None
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return None  # a yes/no metric: 1 / 0
    try:
        x = float(value)
    except (TypeError, ValueError):
        return f"a {type(value).__name__}"
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "infinite"
    return None


@dataclass
class LeftOut:
    """The values of one metric of one run that are not numbers."""

    count: int = 0
    why: Counter = field(default_factory=Counter)
    #: (case id, the value as text, cut to 40 characters) of the first few.
    examples: list[tuple[str, str]] = field(default_factory=list)

    def add(self, case_id: str, value: Any, reason: str) -> None:
        self.count += 1
        self.why[reason] += 1
        if len(self.examples) < EXAMPLES:
            shown = str(value)
            self.examples.append((case_id, shown if len(shown) <= 40 else shown[:39] + "…"))

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "why": dict(self.why),
                "examples": [{"id": i, "value": v} for i, v in self.examples]}

    def words(self) -> str:
        """e.g. "2 — 1 NaN, 1 text (e.g. “nan” in c3, “high” in c7)"."""
        kinds = ", ".join(f"{n} {w}" for w, n in self.why.most_common())
        eg = ", ".join(f"“{v}” in {i}" for i, v in self.examples)
        return f"{self.count} — {kinds}" + (f" (e.g. {eg})" if eg else "")


def record(table_left_out: dict[str, LeftOut], metric: str, case_id: str, value: Any) -> None:
    """Count ``value`` of ``metric`` when it is not a number (a table builder calls this per value)."""
    reason = why_not_a_number(value)
    if reason is not None:
        table_left_out.setdefault(metric, LeftOut()).add(case_id, value, reason)


def _of(tables: Iterable[Any], metrics: Sequence[str]) -> dict[str, dict[str, LeftOut]]:
    out: dict[str, dict[str, LeftOut]] = {}
    for t in tables:
        got: Mapping[str, LeftOut] = getattr(t, "left_out", None) or {}
        kept = {m: got[m] for m in metrics if m in got and got[m].count}
        if kept:
            out[t.name] = kept
    return out


def as_dict(tables: Iterable[Any], metrics: Sequence[str]) -> dict[str, dict[str, Any]]:
    """{run: {metric: {count, why, examples}}} of the metrics compared (empty: nothing left out)."""
    return {run: {m: lo.as_dict() for m, lo in per.items()} for run, per in _of(tables, metrics).items()}


def lines(tables: Iterable[Any], metrics: Sequence[str]) -> list[str]:
    """The comparison's words on values left out (no line when there are none)."""
    found = _of(tables, metrics)
    if not found:
        return []
    total = sum(lo.count for per in found.values() for lo in per.values())
    what = "1 value that is not a number" if total == 1 else f"{total} values that are not numbers"
    out = [f"Left out of every figure: {what} (their cases are still paired; other metrics of them count):"]
    for run, per in found.items():
        out += [f"  {run}, {m}: {lo.words()}" for m, lo in per.items()]
    return out

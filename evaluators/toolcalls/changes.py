"""Which tools a version stopped (or started) calling, question by question: the regression a
person reads first ("v2 stopped calling lookup_order on 9 questions").

Contract: :func:`dropped_tools` / :func:`added_tools` pair two runs' cases by id and count, per
tool, the questions where A called it and B did not (or the reverse); :func:`sentences` says them.
Cases either run lacks are left out.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from ..types import CaseResult


def _tools(results: Iterable[CaseResult]) -> dict[str, set[str]]:
    return {r.case.id: {c.name for c in r.case.tool_calls} for r in results}


def dropped_tools(a: Sequence[CaseResult], b: Sequence[CaseResult]) -> dict[str, int]:
    """{tool: questions where A called it and B did not}, the most frequent first."""
    ta, tb = _tools(a), _tools(b)
    c: Counter[str] = Counter(t for k in ta.keys() & tb.keys() for t in ta[k] - tb[k])
    return dict(c.most_common())


def added_tools(a: Sequence[CaseResult], b: Sequence[CaseResult]) -> dict[str, int]:
    """{tool: questions where B called it and A did not}, the most frequent first."""
    return dropped_tools(b, a)


def sentences(name_b: str, a: Sequence[CaseResult], b: Sequence[CaseResult]) -> list[str]:
    """"v2 stopped calling lookup_order on 9 questions" / "… started calling …", one per tool."""
    out = [f"{name_b} stopped calling {t} on {n} question{'s' if n != 1 else ''}"
           for t, n in dropped_tools(a, b).items()]
    out += [f"{name_b} started calling {t} on {n} question{'s' if n != 1 else ''}"
            for t, n in added_tools(a, b).items()]
    return out


__all__ = ["added_tools", "dropped_tools", "sentences"]

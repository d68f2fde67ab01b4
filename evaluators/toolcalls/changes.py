"""Which tools a version stopped (or started) calling, question by question: the regression a
person reads first ("v2 stopped calling lookup_order on 9 questions").

Contract: :func:`changes` takes the paired questions of two runs — (question id, the tools A
called, the tools B called) — and gives, per tool, the questions where A called it and B did not
(dropped) and the reverse (added), the most frequent tool first; :func:`words` says them, one
sentence per tool. :func:`dropped_tools` / :func:`added_tools` / :func:`sentences` do the same for
two runs' cases paired by id (cases either run lacks are left out); ``evaluators.comparison``
pairs the runs of a comparison by its own rule and calls :func:`changes`.
"""

from __future__ import annotations

from typing import Collection, Iterable, Sequence

from ..types import CaseResult

#: tool -> the ids of the questions (the baseline's), in pairing order.
Questions = dict[str, list[str]]


def changes(pairs: Iterable[tuple[str, Collection[str], Collection[str]]]) -> tuple[Questions, Questions]:
    """(dropped, added): per tool, the questions where A called it and B did not, and the reverse;
    the tool on the most questions first (then by name)."""
    dropped: Questions = {}
    added: Questions = {}
    for qid, a, b in pairs:
        for t in set(a) - set(b):
            dropped.setdefault(t, []).append(qid)
        for t in set(b) - set(a):
            added.setdefault(t, []).append(qid)

    def order(d: Questions) -> Questions:
        return {t: d[t] for t in sorted(d, key=lambda t: (-len(d[t]), t))}
    return order(dropped), order(added)


def _n(n: int) -> str:
    return f"{n} question{'s' if n != 1 else ''}"


def words(name_b: str, dropped: dict[str, int], added: dict[str, int]) -> list[str]:
    """"v2 stopped calling lookup_order on 9 questions" / "… started calling …", one per tool."""
    return ([f"{name_b} stopped calling {t} on {_n(n)}" for t, n in dropped.items()]
            + [f"{name_b} started calling {t} on {_n(n)}" for t, n in added.items()])


def _by_id(a: Sequence[CaseResult], b: Sequence[CaseResult]) -> tuple[Questions, Questions]:
    tb = {r.case.id: {c.name for c in r.case.tool_calls} for r in b}
    return changes((r.case.id, {c.name for c in r.case.tool_calls}, tb[r.case.id]) for r in a if r.case.id in tb)


def dropped_tools(a: Sequence[CaseResult], b: Sequence[CaseResult]) -> dict[str, int]:
    """{tool: questions where A called it and B did not}, the most frequent first."""
    return {t: len(ids) for t, ids in _by_id(a, b)[0].items()}


def added_tools(a: Sequence[CaseResult], b: Sequence[CaseResult]) -> dict[str, int]:
    """{tool: questions where B called it and A did not}, the most frequent first."""
    return {t: len(ids) for t, ids in _by_id(a, b)[1].items()}


def sentences(name_b: str, a: Sequence[CaseResult], b: Sequence[CaseResult]) -> list[str]:
    """The sentences of :func:`words` for two runs' cases paired by id."""
    dropped, added = _by_id(a, b)
    return words(name_b, {t: len(v) for t, v in dropped.items()}, {t: len(v) for t, v in added.items()})


__all__ = ["added_tools", "changes", "dropped_tools", "sentences", "words"]

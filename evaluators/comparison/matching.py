"""Which cases of two (or more) runs are the same question: one rule for all the runs compared.

* **id** — when every two runs share case ids and the shared ids name the same question (at least
  :data:`ID_AGREEMENT` of them: row numbers used as ids in files of another order do not);
* otherwise **question** — the question text, compared without case and extra spaces;
* where a question repeats inside a run (a summarisation set asks one instruction of many
  documents), that question's cases are paired by **question + documents** (the documents of the
  other questions may differ between the runs: a retriever change).

A key repeated inside a run (the same question and documents twice) pairs its first occurrence with
the other run's first, its second with the second. Cases left without a partner are listed, never
dropped silently.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Hashable, Literal, Sequence

import numpy as np

from .table import RunTable

MatchedOn = Literal["id", "question", "question+documents"]
#: Share of the shared ids whose questions must agree for ids to be trusted.
ID_AGREEMENT = 0.9


class ComparisonError(ValueError):
    """Runs that cannot be compared (one run only, no shared case, a metric no run has); the message
    names what is wrong."""


def norm_question(q: str) -> str:
    return " ".join(q.split()).casefold()


@dataclass(frozen=True)
class Matching:
    """The keys of every run's rows under one rule."""

    matched_on: MatchedOn
    #: per run: the key of each row
    keys: list[list[Hashable]]
    #: questions paired with their documents (the rule's second step), when it applied
    repeated_questions: int = 0

    def words(self) -> str:
        if self.matched_on == "id":
            return "by case id"
        if self.matched_on == "question":
            return "by question text (the runs share no case ids)"
        return ("by question text, and by question + documents where a question repeats inside a run "
                f"({self.repeated_questions} such question{'s' if self.repeated_questions != 1 else ''})")


@dataclass(frozen=True)
class Paired:
    """Rows of run A and run B that are the same case (``rows_a[i]`` with ``rows_b[i]``), and the
    rows of each without a partner."""

    rows_a: np.ndarray
    rows_b: np.ndarray
    unmatched_a: list[int]
    unmatched_b: list[int]

    def __len__(self) -> int:
        return len(self.rows_a)


def _with_occurrence(keys: Sequence[Hashable]) -> list[Hashable]:
    seen: Counter = Counter()
    out: list[Hashable] = []
    for k in keys:
        out.append((k, seen[k]))
        seen[k] += 1
    return out


def _ids_usable(tables: Sequence[RunTable]) -> bool:
    agree = total = 0
    for i, a in enumerate(tables):
        qa = dict(zip(a.ids, a.questions))
        for b in tables[i + 1:]:
            shared = [(qa[k], q) for k, q in zip(b.ids, b.questions) if k in qa]
            if not shared:
                return False
            total += len(shared)
            agree += sum(norm_question(x) == norm_question(y) for x, y in shared)
    return total > 0 and agree >= ID_AGREEMENT * total


def match(tables: Sequence[RunTable]) -> Matching:
    """The rule the runs are paired by (see the module doc) and every row's key under it."""
    if _ids_usable(tables):
        return Matching("id", [_with_occurrence(t.ids) for t in tables])
    questions = [[norm_question(q) for q in t.questions] for t in tables]
    repeated: set[str] = set()
    for qs in questions:
        repeated.update(q for q, n in Counter(qs).items() if n > 1)
    keys = [_with_occurrence([(q, h if q in repeated else "") for q, h in zip(qs, t.doc_hashes)])
            for qs, t in zip(questions, tables)]
    used = {q for qs in questions for q in qs} & repeated
    return Matching("question+documents" if used else "question", keys, len(used))


def pair(matching: Matching, i: int, j: int) -> Paired:
    """The rows of runs ``i`` and ``j`` that are the same case, in run ``i``'s order."""
    where_b = {k: r for r, k in enumerate(matching.keys[j])}
    rows_a, rows_b, lone_a = [], [], []
    for r, k in enumerate(matching.keys[i]):
        rb = where_b.pop(k, None)
        if rb is None:
            lone_a.append(r)
        else:
            rows_a.append(r)
            rows_b.append(rb)
    return Paired(np.array(rows_a, dtype=np.int64), np.array(rows_b, dtype=np.int64), lone_a,
                  sorted(where_b.values()))


def common_rows(matching: Matching) -> list[np.ndarray]:
    """Per run, the rows of the cases every run has (in the first run's order)."""
    shared = set(matching.keys[0])
    for keys in matching.keys[1:]:
        shared &= set(keys)
    where = [{k: r for r, k in enumerate(keys)} for keys in matching.keys]
    order = [k for k in matching.keys[0] if k in shared]
    return [np.array([w[k] for k in order], dtype=np.int64) for w in where]

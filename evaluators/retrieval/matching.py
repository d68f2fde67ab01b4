"""Which retrieved passage is which reference passage: by id, or by text.

Contract: :func:`by_id` and :func:`by_text` turn one case's retrieved passages (in the app's order)
and its references into a :class:`Ranking` — the grade of each rank and the grades of the relevant
set — the input of :func:`.measures.measures`. Neither raises for odd input; a case that cannot be
matched is the caller's to skip (:mod:`.scoring` says why).

**By id.** The relevant set is ``TestCase.relevance_judgments()``: the graded
``reference_context_relevance`` (grade ≥ 1) where given, else every ``reference_context_ids`` at
grade 1. A retrieved passage's grade is its id's grade (0 when the id is not relevant).

**By text** (the app's ids are not the test set's). Each of ``reference_contexts`` is one relevant
passage, of grade 1 — or its grade in ``reference_context_relevance`` when ``reference_context_ids``
gives one id per text. A retrieved passage and a reference *overlap* by the share of the shorter
text's word trigrams found in the longer one (:func:`overlap`): words are the runs of letters and
digits of the text after Unicode NFKC normalisation and case folding, so spacing, line breaks,
punctuation and case do not matter; a text of fewer than three words is one "trigram" of all its
words (it matches only the same short text). They match when the overlap is at least
:data:`TEXT_MATCH_THRESHOLD` (0.5): a reference chunk inside a longer retrieved passage counts (1.0),
and the reverse; two chunks cut at other boundaries match when at least half of the shorter one is
shared. A retrieved passage matching several references counts as the one of highest grade, then
highest overlap, then first listed, among those no higher-ranked passage took.

**Repeats.** A passage whose id (or matched reference) already appeared higher in the ranking keeps
its rank and earns nothing (grade 0): the retriever gets credit once per passage, and the repeat
still takes one of the K slots. (trec_eval rejects a ranking that names a document twice; this is
its result with the repeat renamed to an unjudged document.)
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Mapping, Sequence

#: Least overlap (share of the shorter text's word trigrams in the longer one) for a retrieved
#: passage to count as a reference passage when matching by text.
TEXT_MATCH_THRESHOLD = 0.5
#: Words per shingle.
SHINGLE = 3
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Ranking:
    """One case's ranking as the measures need it."""

    #: The grade of the passage at each rank (rank 1 first; 0 = not relevant or a repeat).
    grades: tuple[int, ...]
    #: The grade of every relevant passage, retrieved or not (by its id, or its reference key).
    relevant: dict[str, int]
    #: The ranks (1-based) that repeated a passage ranked higher.
    repeats: tuple[int, ...] = ()
    #: By text: the reference each rank matched (None: none), for the case's details.
    matched: tuple[str | None, ...] = field(default=())

    def relevant_ranks(self) -> list[int]:
        return [r for r, g in enumerate(self.grades, 1) if g > 0]


def by_id(document_ids: Sequence[str], judgments: Mapping[str, int]) -> Ranking:
    """The ranking of retrieved ids against relevance judgments {id: grade ≥ 1}."""
    seen: set[str] = set()
    grades: list[int] = []
    repeats: list[int] = []
    for r, doc in enumerate(document_ids, 1):
        doc = str(doc)
        if doc in seen:
            repeats.append(r)
            grades.append(0)
            continue
        seen.add(doc)
        grades.append(max(0, int(judgments.get(doc, 0))))
    return Ranking(tuple(grades), {k: int(g) for k, g in judgments.items() if int(g) > 0}, tuple(repeats))


def words(text: str) -> list[str]:
    """The words of ``text`` as matching sees them (NFKC, case-folded, letters and digits)."""
    return _WORD.findall(unicodedata.normalize("NFKC", str(text)).casefold())


@functools.lru_cache(maxsize=512)  # a passage retrieved for many questions is split once (~30 KB each)
def shingles(text: str) -> frozenset[tuple[str, ...]]:
    """The word trigrams of ``text`` (one tuple of all its words when it has fewer than three)."""
    w = words(text)
    if len(w) < SHINGLE:
        return frozenset([tuple(w)]) if w else frozenset()
    return frozenset(zip(w, w[1:], w[2:]))  # SHINGLE = 3 consecutive words


def overlap(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> float:
    """Share of the smaller shingle set found in the other (0 when either is empty)."""
    if not a or not b:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return len(small & large) / len(small)


def text_references(reference_contexts: Sequence[str], reference_ids: Sequence[str],
                    relevance: Mapping[str, int]) -> list[tuple[str, str, int]]:
    """(key, text, grade) of each reference text: its id when ``reference_ids`` gives one per text
    (grade from ``relevance`` when it names the id, else 1), else ``#1``, ``#2``, ... at grade 1."""
    aligned = len(reference_ids) == len(reference_contexts)
    out = []
    for j, text in enumerate(reference_contexts):
        key = str(reference_ids[j]) if aligned else f"#{j + 1}"
        grade = int(relevance.get(key, 1)) if aligned and relevance else 1
        out.append((key, str(text), grade))
    return out


def by_text(documents: Sequence[str], references: Sequence[tuple[str, str, int]],
            threshold: float = TEXT_MATCH_THRESHOLD) -> Ranking:
    """The ranking of retrieved texts against reference texts ``(key, text, grade)`` (see the
    module docstring for the overlap rule and repeats)."""
    refs = [(key, shingles(text), grade) for key, text, grade in references]
    relevant = {key: grade for key, _, grade in refs if grade > 0}
    taken: set[str] = set()
    grades: list[int] = []
    matched: list[str | None] = []
    repeats: list[int] = []
    for r, doc in enumerate(documents, 1):
        sh = shingles(doc)
        hits = [(grade, ov, -j, key) for j, (key, rs, grade) in enumerate(refs)
                if grade > 0 and (ov := overlap(sh, rs)) >= threshold]
        if not hits:
            grades.append(0)
            matched.append(None)
            continue
        free = [h for h in hits if h[3] not in taken]
        if not free:
            repeats.append(r)
            grades.append(0)
            matched.append(max(hits)[3])
            continue
        grade, _, _, key = max(free)
        taken.add(key)
        grades.append(grade)
        matched.append(key)
    return Ranking(tuple(grades), relevant, tuple(repeats), tuple(matched))


__all__ = ["Ranking", "SHINGLE", "TEXT_MATCH_THRESHOLD", "by_id", "by_text", "overlap", "shingles",
           "text_references", "words"]

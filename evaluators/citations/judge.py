"""Each claim's citations judged with ALCE's definitions (Gao et al., 2023, "Enabling Large Language
Models to Generate Text with Citations"), on the sentence labels of any method.

Contract, per response sentence that makes a claim (a sentence whose support is a special key —
a transition, a refusal, a line of markers only — makes none and is left out):

* its citations are the markers inside it, and those right after its end up to the next sentence
  (``… in 2001. [2] It became …``: ``[2]`` cites the first sentence); a marker opening a sentence
  belongs to the one before;
* **the cited documents support it** when the labels call it fully supported and the cited documents
  together carry it: with part-level evidence (``trace`` keeps, for responses with markers, which
  documents carry each part of the sentence: ``SentenceLabels.extra["part_docs"]``) every part that
  some document carries is carried by a cited one, and a cited document holds one of its supporting
  sentences; without it (LLM labels), every document of its supporting keys is cited;
* **citation recall** of the sentence = 1 when the cited documents support it, else 0 (0 when it cites
  nothing); **a citation is irrelevant** when its document alone does not support the sentence and the
  sentence's other citations do without it; when the cited set does not support the sentence, none of
  its citations counts as relevant (ALCE's precision numerator); a citation of a document the case does
  not have supports nothing;
* per case: ``citation_recall`` = mean recall over the claims; ``citation_precision`` = relevant
  citations / all citations of the claims (skipped when they cite nothing); ``uncited_claims`` = share
  of the claims with no citation; ``details`` carry every sentence's verdict, the counts and the labels
  of markers naming documents that do not exist.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..types import SentenceLabels, SentenceSupport, is_special_key
from .markers import Marker, find

_DOC_KEY = re.compile(r"^(\d+)[a-z]+$")


def doc_of(key: str) -> int | None:
    """The document index of a document sentence key ("12c" -> 12), None for other keys."""
    m = _DOC_KEY.match(key)
    return int(m.group(1)) if m else None


@dataclass
class SentenceCitations:
    """The citations of one response sentence and how they were judged."""

    key: str
    markers: list[Marker] = field(default_factory=list)
    #: cited existing documents (0-based), in order, once each
    cited: list[int] = field(default_factory=list)
    #: labels of citations naming no document of the case
    missing: list[str] = field(default_factory=list)
    claim: bool = True
    supported: bool = False
    #: cited documents judged irrelevant (0-based)
    irrelevant: list[int] = field(default_factory=list)
    relevant_count: int = 0

    @property
    def citations(self) -> int:
        return len(self.cited) + len(self.missing)

    def as_dict(self) -> dict[str, Any]:
        return {"cited": [d + 1 for d in self.cited], "missing": self.missing, "claim": self.claim,
                "recall": 1.0 if self.supported else 0.0,
                "irrelevant": [d + 1 for d in self.irrelevant]}


def assign(markers: Sequence[Marker], spans: Sequence[tuple[int, int]], text: str) -> list[list[Marker]]:
    """Markers per response sentence (``spans``: the sentences' (start, end) in ``text``)."""
    out: list[list[Marker]] = [[] for _ in spans]
    if not spans:
        return out
    for mk in markers:
        owner = None
        for i, (a, b) in enumerate(spans):
            nxt = spans[i + 1][0] if i + 1 < len(spans) else len(text)
            if a <= mk.start < b and not (i > 0 and not text[a:mk.start].strip()):
                owner = i
                break
            if b <= mk.start < nxt or (a <= mk.start < b and i > 0 and not text[a:mk.start].strip()):
                owner = i if b <= mk.start else i - 1
                break
        if owner is None and mk.start < spans[0][0]:
            owner = None  # before the first sentence: cites nothing said
        if owner is not None:
            out[owner].append(mk)
    return out


def _supports(docs: set[int], s: SentenceSupport, part_docs: list[list[int]] | None) -> bool:
    if not s.fully_supported or not docs:
        return False
    sup_docs = {d for k in s.supporting_keys if (d := doc_of(k)) is not None}
    if part_docs is not None:
        carried = all(set(pd) & docs for pd in part_docs if pd)
        return carried and bool(sup_docs & docs or not sup_docs)
    return bool(sup_docs) and sup_docs <= docs


def judge(response: str, documents: Sequence[str], labels: SentenceLabels,
          spans: Sequence[tuple[int, int]], ids: Sequence[str] = ()) -> list[SentenceCitations]:
    """Every response sentence's citations, judged (module docstring). ``spans`` are the response
    sentences' (start, end), in the order of ``labels.sentences``."""
    markers = find(response, documents, ids)
    per = assign(markers, spans, response)
    part_docs_all = (labels.extra or {}).get("part_docs") or {}
    out: list[SentenceCitations] = []
    for s, mks in zip(labels.sentences, per):
        sc = SentenceCitations(key=s.key, markers=list(mks))
        for mk in mks:
            for r in mk.refs:
                if r.doc is None:
                    if r.label not in sc.missing:
                        sc.missing.append(r.label)
                elif r.doc not in sc.cited:
                    sc.cited.append(r.doc)
        sc.claim = not (s.supporting_keys and all(is_special_key(k) for k in s.supporting_keys))
        if sc.claim:
            pd = part_docs_all.get(s.key)
            cited = set(sc.cited)
            sc.supported = _supports(cited, s, pd)
            if sc.supported:
                for d in sc.cited:
                    alone = _supports({d}, s, pd)
                    rest = cited - {d}
                    if not alone and rest and _supports(rest, s, pd):
                        sc.irrelevant.append(d)
                sc.relevant_count = len(sc.cited) - len(sc.irrelevant)
        out.append(sc)
    return out


def case_values(sentences: Sequence[SentenceCitations]) -> tuple[dict[str, float | None], dict[str, Any]]:
    """(``citation_recall``, ``citation_precision``, ``uncited_claims``) of a case and its details."""
    claims = [s for s in sentences if s.claim]
    n = len(claims)
    total = sum(s.citations for s in claims)
    relevant = sum(s.relevant_count for s in claims)
    uncited = sum(1 for s in claims if not s.citations)
    values: dict[str, float | None] = {
        "citation_recall": (sum(1 for s in claims if s.supported) / n) if n else None,
        "citation_precision": (relevant / total) if total else None,
        "uncited_claims": (uncited / n) if n else None,
    }
    missing = sorted({m for s in sentences for m in s.missing}, key=lambda x: (len(x), x))
    details = {"claims": n, "uncited": uncited, "citations": total, "relevant_citations": relevant,
               "missing_documents": missing, "sentences": {s.key: s.as_dict() for s in sentences if s.markers
                                                           or s.claim}}
    return values, details

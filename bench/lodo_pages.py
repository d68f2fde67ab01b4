"""Long pages built from RAGBench cases (issue 55): every case rebuilt as ONE document, as a crawled
web page is — the data side of ``bench/support_pages.py`` and of ``bench/support_keys.py --pages``.

Contract. :func:`pages` gives, per case, its own passages in their order, set at seeded random
places among passages of other questions of the same subset (never the same question's, nor a
passage holding a sentence of its own — manuals repeat themselves — so no distractor carries the
annotated evidence again) until the page holds ``size`` sentences; one document, keys ``0a`` …
``0ez``; the annotator's supporting / relevant / utilized keys re-keyed to the page; the same seed
gives the same pages. :func:`featurized_pages` adds the labeler's prepared features. Nothing is
written; the shared data is read by the caller.
"""

from __future__ import annotations

import random
from typing import Any

from bench.lodo_data import LabeledCase
from evaluators.labelers.heuristic import HeuristicMethod
from evaluators.options import EvalOptions
from evaluators.sentencize import letters
from evaluators.types import Sentence, SentencizedCase


def _passages(c: LabeledCase) -> list[list[Sentence]]:
    out: dict[int, list[Sentence]] = {}
    for s in c.item.doc_sentences:
        out.setdefault(int(s.doc or 0), []).append(s)
    return [out[d] for d in sorted(out)]


def one_page(c: LabeledCase, pool: list[tuple[str, list[Sentence]]], size: int, rng: random.Random
             ) -> LabeledCase:
    """``c`` with its passages set among others' into one document of about ``size`` sentences."""
    own = _passages(c)
    said = {" ".join(s.text.lower().split()) for p in own for s in p}
    n = sum(len(p) for p in own)
    others: list[list[Sentence]] = []
    for group, p in rng.sample(pool, len(pool)):
        if n >= size:
            break
        if group != c.group and not any(" ".join(s.text.lower().split()) in said for s in p):
            others.append(p)
            n += len(p)
    blocks: list[tuple[bool, list[Sentence]]] = [(False, p) for p in others]
    at = sorted(rng.randint(0, len(others)) for _ in own)
    for k, (pos, p) in enumerate(zip(at, own)):
        blocks.insert(pos + k, (True, p))
    sents: list[Sentence] = []
    remap: dict[str, str] = {}
    text = ""
    for is_own, p in blocks:
        for s in p:
            key = f"0{letters(len(sents))}"
            if is_own:
                remap[s.key] = key
            start = len(text) + (1 if text else 0)
            text = f"{text} {s.text}" if text else s.text
            sents.append(Sentence(key=key, text=s.text, start=start, end=len(text), doc=0))
    case = c.item.case.model_copy(update={"documents": (text,)})
    item = SentencizedCase(case=case, doc_sentences=tuple(sents), response_sentences=c.item.response_sentences)

    def keys(ks):
        return None if ks is None else tuple(remap[k] for k in ks if k in remap)

    return LabeledCase(domain=c.domain, group=c.group, item=item, hallucinated=c.hallucinated,
                       supported=c.supported, relevant={remap[k] for k in c.relevant or () if k in remap},
                       utilized={remap[k] for k in c.utilized or () if k in remap}, scores=c.scores,
                       support_keys=[keys(ks) for ks in c.support_keys] if c.support_keys else None)


def pages(cases: list[LabeledCase], size: int, seed: int) -> list[LabeledCase]:
    rng = random.Random(seed)
    pool = [(c.group, p) for c in cases for p in _passages(c)]
    return [one_page(c, pool, size, rng) for c in cases]


def featurized_pages(cases: list[LabeledCase], size: int, seed: int = 7) -> tuple[list[LabeledCase], list[Any]]:
    """``cases`` as pages (:func:`pages`) with the labeler's prepared features."""
    paged = pages(cases, size, seed)
    _, prepared = HeuristicMethod().featurize([c.item for c in paged], EvalOptions())
    bad = [(c.item.case.id, p) for c, p in zip(paged, prepared) if isinstance(p, Exception)]
    if bad:
        raise RuntimeError(f"featurize failed for page {bad[0][0]}: {bad[0][1]!r}")
    return paged, prepared

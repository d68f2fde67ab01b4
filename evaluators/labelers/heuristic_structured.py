"""``trace`` on structured documents: field-by-field evidence (``evaluators.structured.claims``)
turned into verdicts.

For a case whose documents hold JSON records or tables, every response sentence is checked against
the record's facts. A sentence that **contradicts** a field ("offers free WiFi" vs ``"WiFi": "no"``,
"4.5 stars" vs ``4.0``, other opening hours) or claims something about a field the record leaves
**empty** (``"Music": null``) is *not supported*, whatever its similarity, its P(supported) capped
at 1 − threshold (as for a contradicting date in prose); its explanation leads with what the record
says ("the record says attributes › WiFi: no (0t), not 'free WiFi'"). The facts a sentence
**confirms** join its supporting sentences. Prose cases are untouched (``findings`` is None).

Big records (more than ``BIG_RECORD`` facts in one document) embed only the facts the case's words
reach (:func:`unread`): a fact is read when it shares a word with the question or the response that
few of the record's facts share (in at most ``COMMON_SHARE`` of them), at most ``BIG_RECORD`` per
document, rarest words first; the others keep a zero vector (similarity 0: never the closest
sentence, never relevant). Embedding is what a record of 1,000 fields costs; the field checks
still read every fact.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Sequence

from ..sentencize import split_spans
from ..structured import Finding, Record, check, parse
from ..types import DETAILS_MARK, SentencizedCase, split_explanation

_VERDICTS = ("contradicts", "unstated")
#: A document with more facts than this embeds only the facts the case's words reach (and at most this many).
BIG_RECORD = 256
#: A word in more than this share of a record's facts ("enabled" in 300 feature flags) reaches none of them.
COMMON_SHARE = 0.05
_WORDS = re.compile(r"[a-z0-9]{3,}")


def unread(items: Sequence[SentencizedCase]) -> set[str]:
    """Fact texts of big records that nothing in their case mentions: left out of the embedding
    (see the module's docstring). Empty for every case without a big structured document."""
    out: set[str] = set()
    for it in items:
        by_doc: dict[int, list[str]] = {}
        for s in it.doc_sentences:
            by_doc.setdefault(s.doc or 0, []).append(s.text)
        big = {d: t for d, t in by_doc.items()
               if len(t) > BIG_RECORD and parse(it.case.documents[d], split_spans) is not None}
        if not big:
            continue
        asked = set(_WORDS.findall((it.case.question + " " + it.case.response).lower()))
        for texts in big.values():
            words = [set(_WORDS.findall(t.lower())) for t in texts]
            df = Counter(w for ws in words for w in ws)
            limit = max(1, int(COMMON_SHARE * len(texts)))
            score = [sum(1.0 / math.log(1 + df[w]) for w in ws & asked if df[w] <= limit) for ws in words]
            keep = sorted((i for i, sc in enumerate(score) if sc > 0), key=lambda i: -score[i])[:BIG_RECORD]
            kept = {texts[i] for i in keep}
            out.update(t for t in texts if t not in kept)
    for it in items:  # a text the case also needs elsewhere is embedded
        out.discard(it.case.question)
        out.difference_update(s.text for s in it.response_sentences)
    return out


def findings(it: SentencizedCase) -> list[list[Finding]] | None:
    """Per response sentence, its findings, with fact indices mapped to the case's document
    sentence indices (-1: a fact with no sentence of its own); None when no document is structured."""
    facts = []
    where: list[int] = []
    index = {(s.doc, s.start, s.end): i for i, s in enumerate(it.doc_sentences)}
    for d, doc in enumerate(it.case.documents):
        st = parse(doc, split_spans)
        if st is None:
            continue
        for f in st.facts:
            facts.append(f)
            where.append(index.get((d, f.start, f.end), -1))
    if not facts:
        return None
    rec = Record.of(facts)
    out: list[list[Finding]] = []
    for s in it.response_sentences:
        found = check(s.text, rec)
        out.append([Finding(f.verdict, tuple(where[i] for i in f.facts), f.claimed, f.said) for f in found])
    return out


def _keys(f: Finding, keys: Sequence[str]) -> str:
    ks = [keys[i] for i in f.facts if 0 <= i < len(keys)]
    return f" ({', '.join(ks[:3])})" if ks else ""


def reason(f: Finding, keys: Sequence[str]) -> str:
    """The words of one finding: "the record says attributes › WiFi: no (0t), not 'free WiFi'"."""
    if f.verdict == "contradicts":
        return f"the record says {f.said}{_keys(f, keys)}, not '{f.claimed}'"
    if f.verdict == "unstated":
        return f"the record leaves it empty: {f.said}{_keys(f, keys)}; nothing supports '{f.claimed}'"
    return f"the record says {f.said}{_keys(f, keys)}"


def revise(found: list[Finding] | None, level: str, prob: float, support: list[int], threshold: float
           ) -> tuple[str, float, list[int], list[Finding]]:
    """(level, P(supported), supporting sentence indices, the findings that decided) of one
    response sentence after its field-by-field findings."""
    if not found:
        return level, prob, support, []
    bad = [f for f in found if f.verdict in _VERDICTS]
    if bad:
        return "none", min(prob, 1.0 - threshold), support, bad
    extra = [i for f in found if f.verdict == "confirms" for i in f.facts if i >= 0 and i not in support]
    return level, prob, extra + support, []


def explanation(text: str, decided: list[Finding], keys: Sequence[str]) -> str:
    """``text`` (an explanation) led by the findings that decided the verdict."""
    if not decided:
        return text
    lead = "; ".join(reason(f, keys) for f in decided[:3])
    _, details = split_explanation(text)
    return lead + (DETAILS_MARK + details if details else "")

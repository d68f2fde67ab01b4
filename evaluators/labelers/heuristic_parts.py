"""Support from several sentences: what a response sentence asserts, part by part, and the small set
of document sentences that carries every part (issue 55).

A sentence that joins facts from several places ("In 2001 the station passed to the students and has
been an extracurricular activity since") is backed by several document sentences, none of which holds
the whole claim. :func:`parts_of` splits the sentence into what it asserts — its numbers and dates,
its names (capitalised runs, "University of Colorado"), and its other content words (predicate and
noun phrases, read word by word, grouped back into phrases for the explanation) — and
:func:`attribute` finds, for each part, a document sentence that carries it, in any document:

1. the anchor is the closest document sentence by the embedded model's cosine (what the sentence as
   a whole says, the single sentence ``trace`` named before);
2. then, greedily, the sentence that carries the most still-uncarried weight (a part's weight is how
   specific it is among the case's document sentences — a word every sentence holds says little — with
   numbers and names counted double), closeness breaking ties, as long as it adds at least a number, a
   name or a specific word and is not far from the claim (its cosine at least ``FAR`` below the
   anchor's only when it carries a number or a name);
3. at most ``MAX_KEYS`` sentences; a part no document sentence carries is *carried nowhere*;
4. the fitted selector (``support_params.json``, :func:`select`) then decides which sentences are
   named: the anchor always, and of the greedy set and the ``CANDIDATES`` closest sentences those it
   gives at least its threshold, most probable first, at most ``MAX_KEYS`` — from what each carries of
   the claim (share of the claim's weight, against the best greedy sentence), how close it is (below
   the anchor, against the case's other sentences), whether the greedy rule chose it, whether it
   follows or precedes a chosen sentence in its document, whether it repeats one, how much of it the
   claim holds, how long it is, how many parts the claim has and how many sentences the documents
   (:func:`candidate_rows`).
   It names another document's copy of a supporting sentence, and drops a greedy carrier that adds
   one common word. Without the file the greedy set is named as it is.

``supporting_keys`` is that set, anchor first; :func:`explain_parts` writes which part came from which
key ("2001: 1c; extracurricular: 1d") and names the parts carried nowhere, marked in Inspect
(:func:`uncarried_spans`) in a sentence that is not fully supported. Matching is lexical on the same
word analysis as the labeler's features (stems, lemmas, numbers as values — a decade or a century
carried by a year of it, "about 40,000" or "more than 100" by a figure near it, "1972–73" read as
1973: ``heuristic_text``): no model call, a few microseconds per part. The greedy rule's settings
below were set before measuring; the selector is fitted leave-one-domain-out on RAGBench's seven dev
subsets, as given and rebuilt as long pages (``bench/support_keys.py --fit --pages 150,300
--train-pages``, which reports every subset's figures from a selector fitted on the other six, beside
the greedy set and the single closest sentence).

The verdict stays the combiner's. The parts carried nowhere may move P(supported) only through fitted
offsets (:func:`uncarried_features`, :func:`with_uncarried`; ``support_params.json``'s ``uncarried``):
none ships — fitted leave-one-domain-out on the combiner's P they came out zero, with P recalibrated
in the fit they lowered adherence AUROC on six dev sets, and the hard rules (an uncarried name, an
uncarried number) on several (``bench/uncarried_verdict.py``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from .heuristic_features import DocIndex, analyze, name_found, number_found, strip_markup
from .heuristic_selector import MAX_KEYS, candidate_rows, load_selector, select
from .heuristic_text import (
    NEGATIONS,
    NUM_WORDS,
    STOPWORDS,
    TOKEN,
    approx_value,
    common_words,
    full_year,
    lemma_forms,
    norm_number,
    stem,
)

#: A further sentence may be this much less close (cosine) than the anchor; beyond it only when it
#: carries a number or a name of the claim.
FAR = 0.30
#: A further sentence must add at least this much weight (a specific word weighs about 1; a number or
#: a name about 2; a word most of the case's sentences hold about 0.3).
MIN_GAIN = 0.9
#: A sentence as close as the anchor (cosine within this margin) that carries at least ``TIE_SHARE`` of
#: what the anchor carries is the same evidence again (another document's copy, a restatement): named too.
TIE = 0.05
TIE_SHARE = 0.6
#: The kinds of part whose absence :func:`uncarried_salient` reports. (Making a sentence the combiner
#: passes partly supported when one of them is carried nowhere lowered AUROC — emanual 0.660 -> 0.630,
#: delucionqa 0.649 -> 0.624, mtrag 0.894 -> 0.884 — so they are named and marked, never a verdict.)
SALIENT_KINDS = ("number", "name")
#: Weight of numbers and names against other content words.
SALIENT = 2.0
#: Words a name may hold between its capitalised words ("University of Colorado", "Otto von Bismarck").
_NAME_JOIN = frozenset({"of", "von", "van", "der", "de", "del", "da", "di", "du", "la", "le", "al", "bin", "y"})
_DASH = re.compile(r"^[\s]*[-–—][\s]*$")


@dataclass(frozen=True)
class Part:
    """One thing a response sentence asserts: ``kind`` "number" | "name" | "word"; ``text`` as written;
    ``start``/``end`` its characters in the judged text; ``keys`` the forms a document sentence must hold
    (a number's value, a name's lower-case words, a word's stems and lemma stems)."""

    kind: str
    text: str
    start: int
    end: int
    keys: frozenset[str]


@dataclass
class Attribution:
    """Which document sentences (indices) carry which parts of one response sentence."""

    parts: tuple[Part, ...]
    #: chosen document sentence indices, anchor first
    chosen: list[int]
    #: per part: the chosen sentence that carries it (None = carried nowhere among the chosen)
    carrier: list[int | None]
    #: per part: is it carried by ANY document sentence of the case
    anywhere: list[bool]
    #: per part: its weight
    weight: list[float] = field(default_factory=list)

    @property
    def uncarried(self) -> list[Part]:
        """The parts no document sentence carries."""
        return [p for p, a in zip(self.parts, self.anywhere) if not a]

    def carried_share(self) -> float:
        """Share of the parts the chosen sentences carry (1.0 for a sentence without parts)."""
        return sum(1 for c in self.carrier if c is not None) / len(self.parts) if self.parts else 1.0

    def coverage(self) -> float:
        """Share of the parts' weight the chosen sentences carry (1.0 for a sentence without parts)."""
        total = sum(self.weight)
        if total <= 0:
            return 1.0
        return sum(w for w, c in zip(self.weight, self.carrier) if c is not None) / total


@lru_cache(maxsize=50_000)
def _word_keys(low: str) -> frozenset[str]:
    return frozenset({stem(low), *(stem(x) for x in lemma_forms(low))})


@lru_cache(maxsize=50_000)
def parts_of(text: str) -> tuple[Part, ...]:
    """The parts a sentence asserts, in order (see the module docstring). List markers and emphasis
    are no part; negations are kept out (the labeler's features read them); stop words are none."""
    body = strip_markup(text)
    off = text.find(body) if body and body in text else 0
    names = {n.lower().replace("’", "'") for n in analyze(text).names}
    toks = [(m.group(0), m.start(), m.end()) for m in TOKEN.finditer(body)]
    out: list[Part] = []
    i = 0
    while i < len(toks):
        t, a, b = toks[i]
        low = t.lower().replace("’", "'").rstrip(",")
        low_bare = low[:-2] if low.endswith("'s") else low
        if t[0].isdigit():
            raw = full_year(body, a, t.rstrip(","))
            v = approx_value([x[0].lower() for x in toks[max(0, i - 2):i]], raw) or norm_number(raw)
            out.append(Part("number", t.rstrip(","), off + a, off + a + len(t.rstrip(",")), frozenset({v})))
            i += 1
            continue
        if low_bare in names:
            j, words, end = i + 1, [low_bare], b
            while j < len(toks):
                tj, aj, bj = toks[j]
                lj = tj.lower().replace("’", "'")
                lj = lj[:-2] if lj.endswith("'s") else lj
                gap = body[end:aj]
                if gap.strip() and not _DASH.match(gap):
                    break
                if lj in names:
                    words.append(lj)
                    end = bj
                    j += 1
                    continue
                if lj in _NAME_JOIN and j + 1 < len(toks):
                    nxt = toks[j + 1][0].lower().replace("’", "'")
                    if nxt in names and not body[bj:toks[j + 1][1]].strip():
                        words.append(lj)
                        end = bj
                        j += 1
                        continue
                break
            surface = body[a:end]
            surface = surface[:-2] if surface.endswith(("'s", "’s")) else surface
            out.append(Part("name", surface, off + a, off + a + len(surface),
                            frozenset(w for w in words if w not in _NAME_JOIN)))
            i = j
            continue
        if low in NUM_WORDS and low not in {"once", "single", "half", "double", "twice"}:
            out.append(Part("number", t, off + a, off + b, frozenset({NUM_WORDS[low]})))
        elif not (low in STOPWORDS or low in NEGATIONS or low.endswith("n't") or len(low) < 2):
            out.append(Part("word", t, off + a, off + b, _word_keys(low_bare)))
        i += 1
    return tuple(out)


def _inverted(doc: DocIndex) -> dict[str, set[int]]:
    """stem / lemma stem / lower-case word -> the document sentences holding it (cached on ``doc``)."""
    inv = doc.__dict__.get("_parts_inverted")
    if inv is None:
        inv = {}
        for i, inf in enumerate(doc.infos):
            for k in inf.content | inf.forms | inf.words:
                inv.setdefault(k, set()).add(i)
            for w in inf.raw_content:
                for k in _word_keys(w.lower().replace("’", "'")):
                    inv.setdefault(k, set()).add(i)
        doc.__dict__["_parts_inverted"] = inv
    return inv


def _rare(word: str) -> bool:
    """Not a whole word of the embedded model's vocabulary (a proxy for a specific name part)."""
    common = common_words()
    return bool(common) and word not in common


def carriers(part: Part, doc: DocIndex) -> set[int]:
    """The document sentences that carry ``part``."""
    if part.kind == "number":
        (v,) = tuple(part.keys)
        return {i for i, inf in enumerate(doc.infos) if number_found(v, inf.numbers)}
    inv = _inverted(doc)
    if part.kind == "name":
        words = sorted(part.keys)
        if not words:
            return set()
        hits: dict[int, int] = {}
        for w in words:
            found = {i for i in range(len(doc.infos)) if name_found(w, doc.infos[i].words)} if "-" in w \
                else inv.get(w, set())
            for i in found:
                hits[i] = hits.get(i, 0) + 1
        need = max(1, math.ceil(len(words) / 2))
        rare = [w for w in words if _rare(w)]  # "Masaryk University" is not carried by "University of X"
        if rare:
            need_rare = max(1, math.ceil(len(rare) / 2))
            return {i for i, h in hits.items() if h >= need
                    and sum(1 for w in rare if w in doc.infos[i].words) >= need_rare}
        return {i for i, h in hits.items() if h >= need}
    out: set[int] = set()
    for k in part.keys:
        out |= inv.get(k, set())
    return out


def greedy(parts: Sequence[Part], car: list[set[int]], weight: list[float], sims: np.ndarray,
            max_keys: int) -> list[int]:
    """Steps 1-3 of the module docstring: the anchor, then the carriers of the most uncarried weight."""
    anchor = int(np.argmax(sims))
    chosen = [anchor]
    covered = {pi for pi, c in enumerate(car) if anchor in c}
    floor = float(sims[anchor]) - FAR
    while len(chosen) < max_keys:
        gains: dict[int, float] = {}
        salient: set[int] = set()
        for pi, c in enumerate(car):
            if pi in covered:
                continue
            for i in c:
                gains[i] = gains.get(i, 0.0) + weight[pi]
                if parts[pi].kind != "word":
                    salient.add(i)
        best, best_score = -1, -1.0
        for i, g in gains.items():
            if g < MIN_GAIN or i in chosen:
                continue
            if float(sims[i]) < floor and i not in salient:
                continue
            score = g + float(sims[i])
            if score > best_score:
                best, best_score = i, score
        if best < 0:
            break
        chosen.append(best)
        covered |= {pi for pi, c in enumerate(car) if best in c}
    if TIE > 0 and len(chosen) < max_keys:  # the anchor's evidence again, as close as the anchor
        base = [pi for pi, c in enumerate(car) if anchor in c]
        base_w = sum(weight[pi] for pi in base)
        top = float(sims[anchor])
        for i in map(int, np.argsort(-sims)[1:max_keys + 1]):
            if float(sims[i]) < top - TIE or len(chosen) >= max_keys:
                break
            if i in chosen:
                continue
            same = sum(weight[pi] for pi in base if i in car[pi])
            if base_w > 0 and same >= TIE_SHARE * base_w:
                chosen.append(i)
    return chosen


def attribute(text: str, sims: np.ndarray, doc: DocIndex, max_keys: int = MAX_KEYS,
              selector: dict[str, Any] | None | str = "shipped") -> Attribution:
    """The small set of document sentences that carries ``text``'s parts (module docstring).
    ``sims``: the sentence's cosine to every document sentence (``doc.infos`` order). ``selector``:
    the fitted selector's params ("shipped": ``support_params.json`` when it ships; None: the greedy
    set as it is)."""
    parts = parts_of(text)
    n = len(doc.infos)
    if n == 0:
        return Attribution(parts, [], [None] * len(parts), [False] * len(parts), [0.0] * len(parts))
    car, weight = carriers_and_weights(parts, doc)
    chosen = greedy(parts, car, weight, sims, max_keys)
    model = load_selector() if selector == "shipped" else selector
    if isinstance(model, dict) and "coef" in model:
        idx, X = candidate_rows(car, weight, sims, doc, chosen, parts)
        chosen = select(idx, X, chosen, model, max_keys)
    carrier: list[int | None] = []
    for c in car:
        carrier.append(next((i for i in chosen if i in c), None))
    return Attribution(parts, chosen, carrier, [bool(c) for c in car], weight)


def carriers_and_weights(parts: Sequence[Part], doc: DocIndex) -> tuple[list[set[int]], list[float]]:
    """Per part: the document sentences that carry it and its weight (module docstring, step 2)."""
    n = len(doc.infos)
    car = [carriers(p, doc) for p in parts]
    weight = []
    for p, c in zip(parts, car):
        idf = math.log((n + 1) / (len(c) + 0.5)) / math.log(n + 1.5) if c else 1.0
        weight.append((SALIENT if p.kind != "word" else 1.0) * max(0.2, min(1.0, idf)) * (1.5 if c else 1.0))
    return car, weight


def _phrases(att: Attribution, keys: Sequence[str]) -> list[tuple[str, str | None]]:
    """(part as written, key | None) with neighbouring words of one key joined into a phrase."""
    out: list[tuple[str, str | None, int]] = []
    for p, c in zip(att.parts, att.carrier):
        k = keys[c] if c is not None else None
        if out and p.kind == "word" and out[-1][1] == k and out[-1][2] >= 0 and p.start - out[-1][2] <= 6:
            text, _, _ = out[-1]
            out[-1] = (f"{text} {p.text}", k, p.end)
        else:
            out.append((p.text, k, p.end if p.kind == "word" else -1))
    return [(t, k) for t, k, _ in out]


def explain_parts(att: Attribution, keys: Sequence[str], limit: int = 8) -> str:
    """"2001: 1c; extracurricular activity: 1d" — the parts carried by a sentence other than the
    anchor first (what the combination adds), then the anchor's; "" when one sentence carries all."""
    if len(att.chosen) < 2:
        return ""
    anchor = keys[att.chosen[0]]
    pairs = [(t, k) for t, k in _phrases(att, keys) if k is not None]
    pairs.sort(key=lambda tk: tk[1] == anchor)
    shown = pairs[:limit]
    more = len(pairs) - len(shown)
    return "; ".join(f"{t}: {k}" for t, k in shown) + (f"; … (+{more})" if more > 0 else "")


def uncarried_text(att: Attribution, limit: int = 4) -> str:
    """The salient parts no document sentence carries ("'1991', 'Masaryk University'"), else ""."""
    miss = [p.text for p in att.uncarried if p.kind != "word"]
    miss = list(dict.fromkeys(miss))[:limit]
    return ", ".join(f"'{m}'" for m in miss)


def uncarried_spans(att: Attribution) -> list[dict[str, Any]]:
    """The parts carried nowhere as {text, start, end, kind} in the judged text (for Inspect)."""
    return [{"text": p.text, "start": p.start, "end": p.end, "kind": p.kind} for p in att.uncarried]


def marks_in(sentence: str, att: Attribution) -> list[list[Any]]:
    """The parts carried nowhere — numbers, names, rare words — located in the sentence as written:
    ``[start, end, text]`` relative
    to the sentence (the judged text may differ from it: a link read by its text, citation markers
    left out), in order, each found after the previous one."""
    out: list[list[Any]] = []
    cur = 0
    for p in att.uncarried:
        if p.kind == "word" and not _rare(p.text.lower()):
            continue  # a common word carried nowhere is mostly a paraphrase: not marked
        i = sentence.find(p.text, cur)
        if i < 0:
            i = sentence.find(p.text)
        if i < 0:
            continue
        out.append([i, i + len(p.text), p.text])
        cur = i + len(p.text)
    return out


def uncarried_salient(att: Attribution, asked: str = "") -> list[Part]:
    """The numbers and names no document sentence carries and ``asked`` (the question, earlier turns)
    does not give either."""
    given = analyze(asked) if asked else None
    out = []
    for p in att.uncarried:
        if p.kind not in SALIENT_KINDS:
            continue
        if given is not None:
            if p.kind == "number" and any(number_found(v, given.numbers) for v in p.keys):
                continue
            if p.kind == "name" and all(w in given.words for w in p.keys):
                continue
        out.append(p)
    return out


#: Which named keys of a fully supported sentence count as utilized: "carriers" (the anchor and the
#: sentences that carry a part no earlier key carries: what the verdict rests on, not another copy of
#: it) or "chosen" (every supporting key). Measured leave-one-domain-out on RAGBench
#: (bench/results/support_keys_fit{,_carriers}.json): utilization RMSE lower on all 7 subsets with
#: "carriers" (macro 0.139 -> 0.128), completeness RMSE higher on all 7 (0.417 -> 0.427).
UTILIZED = "carriers"


def utilized_by(att: Attribution) -> list[int]:
    """The document sentences a fully supported sentence counts as utilized (``UTILIZED``)."""
    if UTILIZED == "carriers" and att.chosen:
        used = {c for c in att.carrier if c is not None}
        return [i for i in att.chosen if i == att.chosen[0] or i in used]
    return list(att.chosen)


#: What the verdict may learn from the parts carried nowhere (:func:`uncarried_features`).
UNCARRIED_FEATURES = ("numbers", "names", "share")


def uncarried_features(att: Attribution, asked: str = "") -> tuple[float, ...]:
    """The evidence of the parts carried nowhere, in ``UNCARRIED_FEATURES`` order: the numbers and the
    names no document sentence carries and ``asked`` does not give (each counted up to 2), and the
    share of the claim's weight carried nowhere."""
    sal = uncarried_salient(att, asked)
    total = sum(att.weight)
    miss = sum(w for w, a in zip(att.weight, att.anywhere) if not a)
    return (float(min(2, sum(1 for p in sal if p.kind == "number"))),
            float(min(2, sum(1 for p in sal if p.kind == "name"))), miss / total if total > 0 else 0.0)


def with_uncarried(prob: float, feats: Sequence[float], coef: Sequence[float]) -> float:
    """P(supported) moved by the parts carried nowhere: logit(P) + coef · feats (the fitted offsets of
    ``support_params.json``'s ``uncarried``; a sentence that carries every part keeps its P)."""
    z = sum(c * f for c, f in zip(coef, feats))
    if z == 0:
        return prob
    p = min(max(float(prob), 1e-6), 1 - 1e-6)
    return 1.0 / (1.0 + math.exp(-(math.log(p / (1 - p)) + z)))


def part_documents(att: Attribution, doc: DocIndex, doc_of: Sequence[int]) -> list[list[int]]:
    """Per part, the documents (indices) some sentence of which carries it — [] for a part carried
    nowhere (what a set of cited documents must cover: ``evaluators.citations.judge``)."""
    out: list[list[int]] = []
    for p in att.parts:
        out.append(sorted({int(doc_of[i]) for i in carriers(p, doc)}))
    return out

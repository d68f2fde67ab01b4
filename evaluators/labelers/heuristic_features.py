"""Features of the offline ``trace`` labeler (shared by the labeler and ``bench/train_detector.py``).

For every response sentence ``r`` of a case, against the document sentences ``D``:

* ``sim_max``     cosine of ``r`` to its best document sentence (MiniLM, normalised vectors)
* ``sim_win``     cosine to the best window of two adjacent sentences of one document (normalised
                  sum of the two vectors: claims often span two sentences)
* ``sim_gap``     ``sim_win - sim_max`` (how much the window adds)
* ``cov_top``     share of ``r``'s content words found in its supporting sentences
* ``cov_all``     share of ``r``'s content words found anywhere in the documents
* ``num_missing`` numbers of ``r`` not found in any document nor the question (count, capped at 3)
* ``num_conflict`` 1 when a number is missing AND the best sentence holds a number ``r`` lacks
* ``ent_missing`` capitalised names of ``r`` not found in the documents nor the question (count,
                  capped at 3); list numbers ("3. ") and capitalised common words that only start a
                  sentence, clause or bold heading are not numbers / names
* ``ent_conflict`` 1 when a name is missing AND the best sentence names something ``r`` lacks
* ``neg_resp_only`` ``r`` is negated, its supporting sentences are not
* ``neg_doc_only``  the supporting sentences are negated, ``r`` is not
* ``novel_bigram`` share of ``r``'s content bigrams absent from the documents
* ``log_len``     log(1 + number of content words)
* ``q_sim``       cosine of ``r`` to the question (restating the question needs little support)
* ``novel_rare``  content words absent from the documents that are rare (not a whole word of the
                  embedded model's 30k WordPiece vocabulary — names, technical terms), capped at 4
* ``novel_common`` content words absent from the documents that are common words, capped at 4
* ``attr_conflict`` structured (JSON) documents: the sentence affirms an attribute whose value is
                  false / "no" / "none" (``"WiFi": "no"`` vs "offers WiFi"), or negates one that is
                  true; capped at 2
* ``attr_null``   the sentence mentions an attribute whose value is null (unknown), capped at 2

Text analyses are cached per text (documents are shared by many cases).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..markdown_lines import EMPHASIS as _EMPHASIS
from .heuristic_text import CAP as _CAP
from .heuristic_text import (
    NEGATIONS,
    STOPWORDS,
    approx_value,
    common_words,
    full_year,
    norm_number,
    number_found,
    number_said,
    periods_held,
)
from .heuristic_text import NOT_NAMES as _NOT_NAMES
from .heuristic_text import NUM_WORDS as _NUM_WORDS
from .heuristic_text import TOKEN as _TOKEN
from .heuristic_text import stem as _stem

FEATURES: tuple[str, ...] = (
    "sim_max", "sim_win", "sim_gap", "cov_top", "cov_all", "num_missing", "num_conflict",
    "ent_missing", "ent_conflict", "neg_resp_only", "neg_doc_only", "novel_bigram", "log_len",
    "q_sim", "novel_rare", "novel_common", "attr_conflict", "attr_null",
)

__all__ = ["FEATURES", "NEGATIONS", "STOPWORDS", "DocIndex", "TextInfo", "analyze", "build_doc_index", "common_words",
           "given_vocabulary", "is_structured", "json_attributes", "name_found", "norm_number", "number_found",
           "sentence_features", "strip_markup"]


@dataclass(frozen=True)
class TextInfo:
    content: frozenset[str]            # stems of content words
    content_list: tuple[str, ...]      # stems in order (for bigrams)
    raw_content: tuple[str, ...]       # the original words of content_list (for explanations)
    words: frozenset[str]              # lowercased raw words (for names)
    numbers: frozenset[str]            # normalised numbers
    names: tuple[str, ...]             # capitalised tokens that look like names (original case)
    negated: bool
    bigrams: frozenset[tuple[str, str]] = field(default=frozenset())
    #: content stems plus the parts / joined form of hyphenated words ("take-out" -> take, out, takeout)
    forms: frozenset[str] = field(default=frozenset())
    #: the numbers written as approximate or as a bound, marked ("~40000", ">100": heuristic_text.APPROX)
    approx: frozenset[str] = field(default=frozenset())



_LIST_MARKER = re.compile(r"^\s*(?:#{1,6}\s+|>\s*)?(?:[-*•+]|\(?\d{1,2}[.)]|\(?[a-z]\))\s+")
_BOLD = re.compile(r"\*\*([^*]{1,80})\*\*")
_WORD = re.compile(r"[\w'’\-]+")
# positions where a capitalised word is only a sentence / clause / heading start
_CLAUSE_START = re.compile(r"(?:^|[:;(\"“‘\n]|\s[-–—]|\*\*)\s*$")
_NEXT_CAP = re.compile(r"\s+[A-Z]")


def strip_markup(text: str) -> str:
    """Text without a leading list marker ("3. ", "- ", "a) ") and markdown emphasis.

    A list number is not a claim ("4. **Report the transfer**" states no number 4)."""
    return _EMPHASIS.sub("", _LIST_MARKER.sub("", text, count=1))


def _only_capitalised(text: str, start: int, word: str, heading: frozenset[str]) -> bool:
    """A common word that is capitalised only because it starts a sentence, a clause or sits in a
    bold title-case heading ("Depending on the value", "**Check Delimiters and Formats**").

    Kept as names outside headings: acronyms, and the first word of a capitalised run ("Gustave
    Eiffel")."""
    common = common_words()
    if not common or word.lower() not in common:
        return False
    if word in heading:
        return True
    if word.isupper() and len(word) > 1:
        return False
    return bool(_CLAUSE_START.search(text[:start])) and not _NEXT_CAP.match(text, start + len(word))


@lru_cache(maxsize=200_000)
def analyze(text: str) -> TextInfo:
    heading = frozenset(w for m in _BOLD.finditer(text) for w in _WORD.findall(m.group(1)))
    text = strip_markup(text)
    toks = [full_year(text, m.start(), m.group(0)) for m in _TOKEN.finditer(text)]
    content: list[str] = []
    raw: list[str] = []
    words: set[str] = set()
    numbers: set[str] = set()
    approx: set[str] = set()
    negated = False
    before: list[str] = []
    for t in toks:
        lw = t.lower().replace("’", "'")
        marked = approx_value(before, t) if t[0].isdigit() else ""
        before = [*before[-1:], lw]
        if t[0].isdigit():
            numbers.add(norm_number(t))
            if marked:
                approx.add(marked)
            content.append(norm_number(t))
            raw.append(t)
            continue
        words.add(lw)
        if lw in NEGATIONS or lw.endswith("n't"):
            negated = True
            continue
        if lw in _NUM_WORDS:
            numbers.add(_NUM_WORDS[lw])
        if lw in STOPWORDS or len(lw) < 2:
            continue
        content.append(_stem(lw))
        raw.append(t)
    names: list[str] = []
    for m in _CAP.finditer(text):
        w = m.group(0)
        if _only_capitalised(text, m.start(), w, heading):
            continue
        lw = w.lower().replace("’", "'")
        if lw.endswith("'s"):
            lw = lw[:-2]
            w = w[:-2]
        if lw in _NOT_NAMES or lw in _NUM_WORDS or len(lw) < 2:
            continue
        names.append(w)
    bigrams = frozenset(zip(content, content[1:]))
    forms = set(content)
    for w in words:
        if "-" in w:
            forms.add(_stem(w.replace("-", "")))
            forms.update(_stem(p) for p in w.split("-") if len(p) > 1)
    return TextInfo(frozenset(content), tuple(content), tuple(raw), frozenset(words), frozenset(numbers),
                    tuple(dict.fromkeys(names)), negated, bigrams, frozenset(forms), frozenset(approx))


def name_found(name: str, doc_words: set[str] | frozenset[str]) -> bool:
    lw = name.lower().replace("’", "'")
    if lw in doc_words:
        return True
    if "-" in lw:  # "Saint-Denis" vs "Saint Denis"
        return all(p in doc_words for p in lw.split("-") if p)
    return False


_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_GENERIC_KEYS = frozenset(
    """restaurants restaurant business good for has have accepts accept by only allowed level type
    attire the of is are hour hours info information attributes attribute categories name address
    city state postal code stars review reviews text date count price range id is_open""".split()
)
_FALSE_VALUES = frozenset({"no", "none", "false", "0", "u'no'", "u'none'", "'no'", "'none'"})
_TRUE_VALUES = frozenset({"yes", "true", "free", "paid", "u'free'", "u'yes'", "'free'", "'yes'",
                          "u'paid'", "'paid'", "full_bar", "u'full_bar'", "beer_and_wine",
                          "u'beer_and_wine'"})


def _key_forms(key: str) -> set[str]:
    parts = [p.lower() for p in _CAMEL.findall(key.replace("_", " "))]
    out = {_stem(p) for p in parts if p not in _GENERIC_KEYS and len(p) >= 4 and not p.isdigit()
           and p not in {"take", "make", "good", "have"}}
    joined = "".join(p for p in parts if p not in _GENERIC_KEYS)
    if len(joined) > 2:
        out.add(_stem(joined))
    return out


@lru_cache(maxsize=2048)
def is_structured(doc: str) -> bool:
    """True for a document that is a JSON object / array (structured data, e.g. a business record)."""
    text = doc.strip()
    if not text.startswith(("{", "[")) or not text.endswith(("}", "]")):
        return False
    try:
        return isinstance(json.loads(text), (dict, list))
    except (ValueError, RecursionError):  # nested deeper than json.loads can read
        return False


@lru_cache(maxsize=512)
def json_attributes(doc: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(false-valued, true-valued, null-valued) attribute word stems of a JSON document."""
    text = doc.strip()
    empty = (frozenset(), frozenset(), frozenset())
    if not text.startswith(("{", "[")):
        return empty
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return empty
    false_w: set[str] = set()
    true_w: set[str] = set()
    null_w: set[str] = set()

    def verdict(v) -> str | None:
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            lv = v.strip().lower()
            if lv in _FALSE_VALUES:
                return "false"
            if lv in _TRUE_VALUES:
                return "true"
        return None

    def walk(o, key: str | None) -> None:
        if isinstance(o, dict):
            kids = []
            for k, v in o.items():
                if isinstance(k, str) and k in {"review_info", "reviews", "review_text", "text"}:
                    continue
                walk(v, k)
                kids.append(verdict(v))
            if key and kids and all(k in {"false", "true", None, "null"} for k in kids):
                if "true" in kids:
                    true_w.update(_key_forms(key))
                elif "false" in kids and "true" not in kids:
                    false_w.update(_key_forms(key))
            return
        if isinstance(o, list):
            for v in o:
                walk(v, key)
            return
        if not key:
            return
        if isinstance(o, str) and o.strip().startswith("{") and "'" in o:
            # Yelp nests dicts as Python-literal strings: "{'garage': False, 'street': True}"
            try:
                import ast

                walk(ast.literal_eval(o.strip()), key)
                return
            except (ValueError, SyntaxError):
                pass
        v = verdict(o)
        if v == "false":
            false_w.update(_key_forms(key))
        elif v == "true":
            true_w.update(_key_forms(key))
        elif v == "null":
            null_w.update(_key_forms(key))

    try:
        walk(obj, None)
    except RecursionError:  # a record nested too deep for this walk: no attribute evidence
        return empty
    return (frozenset(false_w - true_w), frozenset(true_w - false_w),
            frozenset(null_w - true_w - false_w))


@dataclass
class DocIndex:
    """Per-case document side: sentence infos, union vocabularies, adjacency windows."""

    infos: list[TextInfo]
    content: set[str]
    words: set[str]
    numbers: set[str]
    bigrams: set[tuple[str, str]]
    #: index pairs (i, i+1) of adjacent sentences of one document
    windows: list[tuple[int, int]]
    attr_false: frozenset[str] = frozenset()
    attr_true: frozenset[str] = frozenset()
    attr_null: frozenset[str] = frozenset()


@lru_cache(maxsize=512)
def build_doc_index(doc_texts: tuple[str, ...], doc_ids: tuple[int, ...], full_docs: tuple[str, ...]
                    ) -> DocIndex:
    """Cached per set of documents (many responses share one retrieval). Treat as read-only."""
    infos = [analyze(t) for t in doc_texts]
    content: set[str] = set()
    words: set[str] = set()
    numbers: set[str] = set()
    bigrams: set[tuple[str, str]] = set()
    for inf in infos:
        content |= inf.content
        words |= inf.words
        words.update(p for w in inf.words if "-" in w for p in w.split("-") if p)
        numbers |= inf.numbers
        bigrams |= inf.bigrams
    windows = [(i, i + 1) for i in range(len(doc_texts) - 1) if doc_ids[i] == doc_ids[i + 1]]
    # sentence splits cut some bigrams: add the cross-boundary ones
    for i, j in windows:
        a, b = infos[i].content_list, infos[j].content_list
        if a and b:
            bigrams.add((a[-1], b[0]))
    af: set[str] = set()
    at: set[str] = set()
    an: set[str] = set()
    for d in full_docs:
        f, t, n = json_attributes(d)
        af |= f
        at |= t
        an |= n
    return DocIndex(infos, content, words, numbers, bigrams, windows,
                    frozenset(af - at), frozenset(at - af), frozenset(an - af - at))


def given_vocabulary(doc: DocIndex, question: TextInfo) -> tuple[frozenset[str], frozenset[str]]:
    """(words, numbers) a response may state without inventing them: the documents' and question's.

    Names and numbers the question states are given ("I am in Sacramento." -> "courts in
    Sacramento"). Its other words do not raise coverage: an instruction-style question ("Write an
    overview of the business") would otherwise vouch for generic words (measured: worse on RAGTruth)."""
    return frozenset(doc.words | question.words), frozenset(doc.numbers | question.numbers)


def sentence_features(
    info: TextInfo,
    sims: np.ndarray,
    win_sims: np.ndarray,
    q_sim: float,
    doc: DocIndex,
    support_idx: list[int],
    given: tuple[frozenset[str], frozenset[str]] | None = None,
) -> tuple[list[float], dict]:
    """Feature vector (in FEATURES order) and evidence for the explanation.

    ``given``: (words, numbers) that count as stated — the documents' plus the question's names and
    numbers, built once per case by :func:`given_vocabulary`; default the documents' alone."""
    sim_max = float(sims.max()) if sims.size else 0.0
    sim_win = float(win_sims.max()) if win_sims.size else sim_max
    sim_win = max(sim_win, sim_max)
    n_content = len(info.content)
    sup_content: set[str] = set()
    sup_numbers: set[str] = set()
    sup_words: set[str] = set()
    sup_neg = False
    for i in support_idx:
        si = doc.infos[i]
        sup_content |= si.content
        sup_numbers |= si.numbers
        sup_words |= si.words
        sup_neg = sup_neg or si.negated
    known_words, known_numbers = given if given is not None else (doc.words, doc.numbers)
    if n_content:
        cov_top = (len(info.content & sup_content) + periods_held(info.content - sup_content, sup_numbers)) / n_content
        cov_all = (len(info.content & doc.content) + periods_held(info.content - doc.content, doc.numbers)) / n_content
    else:
        cov_top = cov_all = 1.0
    # an approximate number is said loosely only where the sentence rests, not anywhere in the
    # documents ("648 killed" elsewhere does not say "nearly 700 injured")
    missing_nums = [n for n in sorted(info.numbers) if not number_said(n, info.approx, known_numbers, sup_numbers)]
    best_i = int(np.argmax(sims)) if sims.size else -1
    best_nums = doc.infos[best_i].numbers - info.numbers if best_i >= 0 else frozenset()
    num_conflict = 1.0 if missing_nums and best_nums else 0.0
    missing_names = [n for n in info.names if not name_found(n, known_words)]
    best_names = []
    if best_i >= 0 and missing_names:
        rw = {w.lower() for w in info.names}
        best_names = [n for n in doc.infos[best_i].names if n.lower() not in rw
                      and n.lower() not in info.words]
    ent_conflict = 1.0 if missing_names and best_names else 0.0
    if info.bigrams:
        novel_bigram = len(info.bigrams - doc.bigrams) / len(info.bigrams)
    else:
        novel_bigram = 0.0
    common = common_words()
    novel: dict[str, str] = {}
    for st, w in zip(info.content_list, info.raw_content):
        if st not in doc.content and st not in novel and not periods_held({st}, doc.numbers):
            novel[st] = w
    n_rare = sum(1 for w in novel.values()
                 if not w[0].isdigit() and common and w.lower().replace("’", "'") not in common)
    n_common = sum(1 for w in novel.values() if not w[0].isdigit()) - n_rare
    if info.negated:
        attr_conf = sorted(info.forms & doc.attr_true)
    else:
        attr_conf = sorted(info.forms & doc.attr_false)
    attr_null = sorted(info.forms & doc.attr_null)
    feats = [
        sim_max,
        sim_win,
        sim_win - sim_max,
        cov_top,
        cov_all,
        float(min(len(missing_nums), 3)),
        num_conflict,
        float(min(len(missing_names), 3)),
        ent_conflict,
        1.0 if info.negated and not sup_neg else 0.0,
        1.0 if sup_neg and not info.negated else 0.0,
        novel_bigram,
        math.log1p(n_content),
        q_sim,
        float(min(n_rare, 4)),
        float(min(n_common, 4)),
        float(min(len(attr_conf), 2)),
        float(min(len(attr_null), 2)),
    ]
    evidence = {
        "best": best_i,
        "sim_max": sim_max,
        "sim_win": sim_win,
        "cov_top": cov_top,
        "cov_all": cov_all,
        "missing_numbers": missing_nums,
        "best_numbers": sorted(best_nums)[:3],
        "missing_names": missing_names,
        "best_names": best_names[:3],
        "missing_words": list(novel.values())[:5],
        "attr_conflict": attr_conf,
        "attr_negated": info.negated,
        "attr_null": attr_null,
        "neg_resp_only": feats[9] > 0,
        "neg_doc_only": feats[10] > 0,
    }
    return feats, evidence

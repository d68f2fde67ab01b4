"""Offline entity extraction for ``context_entity_recall`` (used when no LLM does it).

An entity is a run of capitalised words (``Qutb-ud-din Aibak``, ``New Delhi``, with lower-case
connectors such as "of" / "de" inside), an acronym (``UNESCO``), or a number with at least two
digits, a decimal point or a percent sign (``1192``, ``3.5``, ``40%``). Sentence-initial function
words (``The``, ``It``, ``However``) are not entities. Entities are compared case-folded, with
thousands separators removed.
"""

from __future__ import annotations

import re

from ..sentencize import split_sentences

_TOKEN = re.compile(r"[^\W\d_][\w'’\-]*|\d[\d,]*(?:\.\d+)?%?", re.UNICODE)
_CONNECTORS = frozenset({"of", "de", "da", "del", "della", "der", "den", "van", "von", "du", "la",
                         "le", "al", "el", "bin", "ibn", "y"})
_STOP = frozenset("""
a an the this that these those it its it's he she they we i you his her their our my your
in on at of for from to by with as and or but if when while where which who whom whose what why
how however also although because since so then there here thus therefore moreover furthermore
yes no not all any each every some many most more much few both either neither other such
is are was were be been being has have had do does did can could would should may might must will
shall after before during about above below between into over under again once only just very
according based yet still even though unless until upon within without per via among
""".split())


def _norm(s: str) -> str:
    s = s.strip(" .,;:!?\"'()[]{}").replace("’", "'")
    if s.endswith("'s"):
        s = s[:-2]
    return re.sub(r"(?<=\d),(?=\d{3})", "", s).casefold()


def _is_number(tok: str) -> bool:
    return tok[0].isdigit()


def extract_entities(text: str) -> list[str]:
    """Normalised entities of ``text`` in first-seen order."""
    out: list[str] = []
    seen: set[str] = set()

    def add(ent: str) -> None:
        n = _norm(ent)
        if n and n not in seen:
            seen.add(n)
            out.append(n)

    for sent in split_sentences(text or ""):
        toks = [(m.group(0), m.start()) for m in _TOKEN.finditer(sent)]
        i = 0
        while i < len(toks):
            tok, _ = toks[i]
            if _is_number(tok):
                digits = re.sub(r"\D", "", tok)
                if len(digits) >= 2 or "." in tok or tok.endswith("%"):
                    add(tok.rstrip(",").rstrip("."))
                i += 1
                continue
            cap = tok[0].isupper()
            if not cap or (i == 0 and tok.casefold() in _STOP) or tok.casefold() in _STOP and not tok.isupper():
                i += 1
                continue
            # grow a run of capitalised words, allowing connectors between them
            j = i + 1
            end = i
            while j < len(toks):
                t = toks[j][0]
                gap = sent[toks[j - 1][1] + len(toks[j - 1][0]) : toks[j][1]]
                if gap.strip():  # punctuation between words ends the entity
                    break
                if not _is_number(t) and t[0].isupper() and t.casefold() not in _STOP:
                    end = j
                    j += 1
                elif t.casefold() in _CONNECTORS and j + 1 < len(toks) and toks[j + 1][0][0].isupper():
                    j += 1
                else:
                    break
            s0 = toks[i][1]
            e0 = toks[end][1] + len(toks[end][0])
            add(sent[s0:e0])
            i = end + 1
    return out


def mentioned(entity: str, text: str) -> bool:
    """Whether a normalised entity occurs in ``text`` (case-folded, word-bounded)."""
    hay = _norm_text(text)
    return re.search(r"(?<!\w)" + re.escape(entity.casefold()) + r"(?!\w)", hay) is not None


def _norm_text(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", (text or "").replace("’", "'")).casefold()

"""Putting a question together from a clause (:mod:`.offline_clause`), for every kind of question the
offline rules make: the question word, the auxiliary moved before the subject (or *do* / *does* /
*did* and the verb's base form), the rest, then a fronted phrase — and the subject as the page names
it ("the pilot" named by the page's own name for it, when :data:`Resolver` finds one).

Contract: :func:`ask` returns the question, or "" when its clause does not read back as a statement
(:func:`~.offline_clause.reads_back`); :func:`finish` tidies a question's spaces and marks and ends it
with "?"; :func:`name_subject` names a subject given only by its kind (setting ``Clause.named``) and
returns the kind's words when it stays unnamed; :func:`usable` says whether a question may be asked
about the clause's subject at all.
"""

from __future__ import annotations

import re
from typing import Callable

from .offline_clause import Clause, front_text, reads_back, subject_ok, subject_text, tag_of, verb_words
from .offline_words import known


def ask(c: Clause, wh: str, remainder: str) -> str:
    """The question: ``wh``, the auxiliary (or *do*), the subject, the verb, ``remainder``, then a fronted
    phrase; "" when it does not read back as a clause (:func:`reads_back`)."""
    subj = subject_text(c)
    if c.imperative:
        core = f"{wh} should you {verb_words(c, False)}"
        decl = f"you should {verb_words(c, False)} {remainder}"
    elif c.aux is not None:
        core = f"{wh} {c.aux.low} {subj} {verb_words(c, False)}"
        decl = f"{subj} {c.aux.low} {verb_words(c, False)} {remainder}"
    else:
        tag = tag_of(c.main[0]) if c.main else None
        do = {"VBD": "did", "VBZ": "does"}.get(tag or "", "do")
        core = f"{wh} {do} {subj} {verb_words(c, True)}"
        decl = f"{subj} will {verb_words(c, True)} {remainder}"
    if not reads_back(decl, subj):
        return ""
    return finish(f"{core} {remainder} {front_text(c)}")


def finish(q: str) -> str:
    q = " ".join(q.replace("®", "").replace("™", "").split()).rstrip(" ,;:")
    q = re.sub(r"\s+([,.;:?!)])", r"\1", q)
    return q[:1].upper() + q[1:] + "?"


#: ``resolve(subject) -> name``: the name a page gives a thing its sentence calls "the pilot" (None: none).
Resolver = Callable[[str], "str | None"]


def vague_subject(c: Clause) -> str | None:
    """The words of a subject that names a thing only by its kind ("the pilot", "this service"), else None."""
    if c.imperative or c.named:
        return None
    s = c.toks[c.subj[0]:c.subj[1]]
    if not 2 <= len(s) <= 3 or s[0].low not in ("the", "this", "these", "that", "those"):
        return None
    if any(t.is_cap or t.is_num or not t.is_word or not known(t.text) for t in s[1:]):
        return None
    return " ".join(t.low for t in s[1:])


def name_subject(c: Clause, resolve: Resolver | None) -> str | None:
    """Name a subject the sentence gives only by its kind (``c.named``); returns the kind's words when it
    stays unnamed ("pilot"), else None."""
    vague = vague_subject(c)
    if vague and resolve is not None:
        named = resolve(vague)
        if named:
            c.named = named
            vague = None
    return vague


def usable(c: Clause, vague: str | None) -> bool:
    return subject_ok(c) and not (vague and len(vague.split()) == 1) and \
        not (vague and c.toks[c.subj[0]].low != "the")

"""Questions about a whole statement rather than a fact inside it: a yes/no question about a property
the page states, and the question whose answer is the subject of a sentence that names "the default
...", "the highest ..."; and two the crawled pages ask for: a number counted in the subject ("A
maximum of two pets are allowed …" -> "How many pets are allowed …?") and a fronted reason ("Because
X, Y." -> "Why Y?").

    IBM Cloud Transit Gateway does not perform encryption; it only provides connectivity.
        -> Does IBM Cloud Transit Gateway perform encryption?   (IBM Cloud Transit Gateway does not perform ...)
    Intent names cannot contain spaces and must not exceed 128 characters.
        -> Can intent names contain spaces?                     (Intent names cannot contain spaces)
    The Speech to Text service automatically detects the endianness of the incoming audio.
        -> Does the Speech to Text service automatically detect the endianness of the incoming audio?
    In MySQL 8.0, caching_sha2_password is the default authentication plugin rather than mysql_native_password.
        -> What is the default authentication plugin in MySQL 8.0?  (caching_sha2_password)

Contract: each function takes a :class:`~.offline_clause.Clause` (read with ``negation=True`` for
:func:`yes_no`) and returns ``(question, (first token, end token), kind)`` or None; the answer is the
span of the clause's tokens — for a yes/no question the statement itself up to the end of its clause
(a reader's "no" or "yes" with its reason, word for word from the page). A yes/no question is made
only of a plain statement about a named subject: not of a hedge ("may", "might", "probably"), not of
a question about "it", "we" or "I", and never one the reader could answer by repeating it (the
question leaves out the negation, or inverts the verb). A negated statement is the better question
(the answer is not the question said back), so it scores higher than an affirmative one; an
affirmative one is a filler the run uses only where a file has nothing better.
"""

from __future__ import annotations

import re

from .offline_asking import Resolver, ask, finish, name_subject, usable
from .offline_clause import (
    BOUNDARY,
    CLAUSE_WORDS,
    Clause,
    front_text,
    is_adverb,
    joins_names,
    paren_end,
    piece,
    read_clause,
    reads_back,
    remainder,
    subject_ok,
    subject_text,
    tag_of,
    verb_words,
)
from .offline_words import AUX_BE, PRONOUNS, can_be, known, verb_tag

#: Words that make a statement a hedge or an opinion, not a property to ask yes or no about.
_HEDGE = re.compile(r"\b(?:may|might|could|would|probably|likely|perhaps|maybe|seems?|think|believe|guess|"
                    r"i|we|my|our|me|us)\b", re.I)
_LEANS = re.compile(r"\b(?:it|its|they|them|their|this|these|that|those|he|she|his|her|here|there|above|below|"
                    r"following|previous|same|such|other)\b", re.I)
#: First words of a predicate that names one thing of a kind ("the default ...", "the highest ...").
_UNIQUE = frozenset("default only main primary first last best worst highest lowest largest smallest most least "
                    "maximum minimum recommended preferred official current latest newest oldest standard".split())


def _end_of_question(c: Clause) -> int:
    """Where the question's part of the predicate ends: at the first boundary or new clause (an adverb
    left before it goes too: "... your intents even when ...")."""
    k = c.verb[1]
    while k < len(c.toks):
        t = c.toks[k]
        if t.text == "(" and (pe := paren_end(c.toks, k)) is not None:
            k = pe
            continue
        as_prep = t.low == "as" and k + 1 < len(c.toks) and c.toks[k + 1].low not in PRONOUNS  # "as virtual machines"
        if t.text in BOUNDARY or t.text == "-" or (t.low in CLAUSE_WORDS and not joins_names(c.toks, k) and
                                                  not as_prep):
            break
        k += 1
    while k - 1 > c.verb[1] and (is_adverb(c.toks[k - 1]) or c.toks[k - 1].low in ("even", "then", "again")) and \
            k < len(c.toks):
        k -= 1
    return k


def _end_of_answer(c: Clause) -> int:
    """Where the statement ends: a semicolon, a colon, a dash, or ", but / so / and <clause>"."""
    k = c.verb[1]
    while k < len(c.toks):
        t = c.toks[k]
        if t.text in (";", ":", "—", "–", "-"):
            break
        if t.low in ("and", "but", "so", "while", "whereas", "although") and k + 1 < len(c.toks) and \
                (c.toks[k + 1].low in ("must", "should", "can", "cannot", "will", "is", "are", "does", "do", "it",
                                       "they", "you", "we") or t.low != "and"):
            break
        k += 1
    return k


def _words_without_parens(c: Clause, a: int, b: int) -> str:
    out: list[str] = []
    k = run = a
    while k < b:
        if c.toks[k].text == "(" and (pe := paren_end(c.toks, k)) is not None and pe <= b:
            out.append(piece(c, run, k))
            k = run = pe
            continue
        k += 1
    out.append(piece(c, run, b))
    return " ".join(x for x in out if x)


def yes_no(c: Clause, sentence: str) -> tuple[str, tuple[int, int], str] | None:
    """"X does not Y." -> "Does X Y?"; "X cannot Y." -> "Can X Y?"; "X Ys Z." -> "Does X Y Z?" (see the
    module docstring)."""
    you = subject_text(c).lower() == "you"
    if c.imperative or not (subject_ok(c) or you and c.aux_word in ("can", "must")) or \
            subject_text(c).lower() in ("users", "people"):
        return None  # "you" only in "Can you ...?" ("You can't add service accounts to access groups")
    if c.toks[c.subj[0]].low in ("a", "an", "some", "any") or _HEDGE.search(c.front) or _LEANS.search(c.front):
        return None  # "From here, you can view ...": from where?
    aux = c.aux_word
    if aux in ("may", "might", "could", "would", "do", "does", "did") and not c.negated:
        return None
    q_end = _end_of_question(c)
    a_end = _end_of_answer(c)
    if not aux and c.main and tag_of(c.main[0]) == "VBD" and q_end < len(c.toks) and \
            c.toks[q_end].text in ("-", "–", "—", ":") and q_end - c.verb[1] <= 2:
        return None  # "NSX-T distributed firewall - Distributed firewall enables …": a list item's label (the
        # '-ed' word an adjective), not "Did NSX-T distribute firewall?"; "X has Y - …" still asks
    if _HEDGE.search(piece(c, c.subj[0], a_end)):
        return None  # "may", "probably", "I think": not a property the page states
    passive = c.aux is not None and c.aux.low in AUX_BE and bool(c.main) and tag_of(c.main[-1]) in ("VBN", "VBD")
    if (q_end - c.verb[1] < 1 and not passive) or a_end < q_end or a_end - c.subj[0] > 40:
        return None  # "Are index funds actively managed?" stands alone; "Is X?" does not
    rest = _words_without_parens(c, c.verb[1], q_end)
    if ". " in piece(c, c.subj[0], a_end):
        return None  # two sentences the splitter did not part
    if rest.split()[:1] and rest.split()[0].lower() in ("several", "many", "some", "other", "certain"):
        return None  # "Does X provide some offerings?": says too little to be asked
    if rest.split()[:1] and rest.split()[0].lower() == c.toks[c.subj[1] - 1].low:
        return None  # "Is remote access access to ...?": a definition, asked as "What is remote access?"
    subj_toks = c.toks[c.subj[0]:c.subj[1]]
    if not subj_toks[0].is_cap and verb_tag(subj_toks[0].text) == "VBP" and not can_be(subj_toks[0].text, "NOUN") or \
            any(a.low == "to" and verb_tag(b.text) == "VBP" for a, b in zip(subj_toks, subj_toks[1:])):
        return None  # "create a policy called ...", "Go to the page to view ...": an instruction, not a subject
    if q_end + 1 < len(c.toks) and c.toks[q_end].text == "," and can_be(c.toks[q_end - 1].text, "ADJ") and \
            not can_be(c.toks[q_end - 1].text, "NOUN") and can_be(c.toks[q_end + 1].text, "ADJ"):
        return None  # "using a gentle, continuous downhill gradient": the comma is inside a noun phrase
    first = c.toks[c.subj[0]]
    if c.subj[1] - c.subj[0] == 1 and verb_tag(first.text) == "VBP" and can_be(first.text, "VERB"):
        return None  # "Review frequently asked questions ...": an instruction read as a subject
    if first.is_cap and verb_tag(first.text) == "VBP" and (not can_be(first.text, "NOUN") or c.subj[1] - c.subj[0] > 1
                                                           and c.toks[c.subj[0] + 1].low in ("sure", "certain")):
        return None  # "Make sure the router is powered on": an instruction, not a subject
    if _LEANS.search(rest) or _LEANS.search(subject_text(c)) or \
            rest and rest.split()[-1].lower() in ("the", "a", "an", "of"):
        return None
    subj = subject_text(c)
    if aux:
        q = f"{aux.capitalize()} {subj} {verb_words(c, False)} {rest}"
    else:
        if not c.main:
            return None
        tag = tag_of(c.main[0])
        if tag not in ("VBZ", "VBD", "VBP"):
            return None
        do = {"VBD": "Did", "VBZ": "Does"}.get(tag, "Do")
        q = f"{do} {subj} {verb_words(c, True)} {rest}"
    modal = aux if aux and aux not in ("do", "does", "did") else "will"  # "X will perform encryption" reads back
    decl = f"{subj} {modal} {verb_words(c, modal == 'will')} {rest}"
    if not reads_back(decl, subj):
        return None
    q = " ".join(f"{q} {front_text(c)}".split()).rstrip(" ,;:") + "?"
    if you and re.search(r"\d", q):
        return None  # "Can you submit 100 requests per minute?": a limit that depends on what the page leaves unsaid
    return q, (c.subj[0], a_end), "negation" if c.negated else "yes/no"


def the_one(c: Clause) -> tuple[str, tuple[int, int], str] | None:
    """"X is the default Y ..." -> "What is the default Y ...?" (answer X): the predicate names one thing,
    the subject is its name."""
    if c.imperative or c.negated or c.aux is None or c.aux.low not in AUX_BE or c.main or c.named:
        return None
    s = c.toks[c.subj[0]:c.subj[1]]
    if not s or len(s) > 6 or s[0].low in ("the", "a", "an", "this", "that", "these", "those", "it", "they") or \
            not any(t.is_cap or t.is_num or "_" in t.text or not known(t.text) for t in s):
        return None  # the subject must be a name ("caching_sha2_password", "Investor class"), not a kind
    v = c.verb[1]
    if v + 2 >= len(c.toks) or c.toks[v].low != "the" or c.toks[v + 1].low not in _UNIQUE and not \
            (c.toks[v + 1].low.endswith("est") and can_be(c.toks[v + 1].text, "ADJ")):
        return None
    end = v + 2
    while end < len(c.toks):
        t = c.toks[end]
        if t.text in BOUNDARY or t.low in CLAUSE_WORDS or t.low in ("rather", "instead", "unlike", "compared"):
            break
        end += 1
    if end - v < 3 or end - v > 14:
        return None
    pred = piece(c, v, end)
    q = " ".join(f"What {c.aux.low} {pred} {front_text(c)}".split()).rstrip(" ,;:") + "?"
    return q, c.subj, "the one"


#: Words that count a number in a subject: "A maximum of two pets …", "Up to 4 guests …".
LIMITS = (("a", "maximum", "of"), ("a", "minimum", "of"), ("up", "to"), ("no", "more", "than"), ("at", "most"),
           ("at", "least"), ("more", "than"), ("fewer", "than"), ("less", "than"), ("only",), ("over",))


def limit_question(c: Clause) -> tuple[str, tuple[int, int], str] | None:
    """A number counted in the subject: "A maximum of two pets are allowed in campsites." -> "How many
    pets are allowed in campsites?" (answer "A maximum of two")."""
    s0, s1 = c.subj
    toks = c.toks
    k = s0
    for lim in LIMITS:
        if tuple(t.low for t in toks[s0:s0 + len(lim)]) == lim:
            k = s0 + len(lim)
            break
    if k >= s1 or not (toks[k].is_num or toks[k].low in ("two", "three", "four", "five", "six", "seven", "eight",
                                                          "nine", "ten", "twelve", "twenty", "one")):
        return None
    if c.aux is None or not c.main and c.aux.low not in ("are", "were"):
        return None
    noun = piece(c, k + 1, s1)
    if not noun or not noun.split()[-1].endswith("s") or any(t.is_num for t in toks[k + 1:s1]):
        return None
    rem = remainder(c, (len(c.toks), len(c.toks)))
    if rem is None:
        return None
    q = finish(f"How many {noun} {c.aux.low} {verb_words(c, False)} {rem} {front_text(c)}")
    return q, (s0, k + 1), "limit"


def fronted_reason(s: str, resolve: "Resolver | None" = None) -> tuple[str, str, str] | None:
    """"Since X, Y." / "Because X, Y." -> "Why <Y as a question>?" (answer X)."""
    body = s.strip().rstrip(".")
    first = body.split(" ", 1)[0].lower()
    if first not in ("because", "since"):
        return None
    depth = 0
    for m in re.finditer(r"[(),]", body):
        depth += (m.group() == "(") - (m.group() == ")")
        if m.group() == "," and depth == 0:
            cause, main = body[len(first):m.start()].strip(), body[m.end():].strip()
            if len(cause.split()) < 3 or re.match(r"\d", cause):
                return None
            c = read_clause(main)
            if c is None or c.front or not usable(c, name_subject(c, resolve)):
                return None
            rem = remainder(c, (len(c.toks), len(c.toks)))
            if rem is None:
                return None
            q = ask(c, "Why", rem)
            return (q, cause, "reason") if q else None
    return None

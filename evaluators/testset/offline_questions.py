"""One sentence -> at most one question whose answer is a fact the sentence states, by rule.

The sentence is read as *subject* + *verb group* + *the rest* (the verb group found by the closed
class of auxiliaries, or by a word the dictionary knows as a finite verb standing after the subject);
an imperative ("Press and hold ...") has the reader as its subject. A fact after the verb
(:mod:`.offline_facts`) is taken out and its question word put in front, with the auxiliary moved
before the subject (or *do* / *does* / *did* and the verb's base form when there is no auxiliary):

    Apollo 11 landed on the Moon on 20 July 1969.      -> When did Apollo 11 land on the Moon?
    The Eiffel Tower is 330 metres tall.               -> How tall is the Eiffel Tower?
    Hold the RESET button for 10 seconds.              -> How long should you hold the RESET button?
    PostgreSQL listens on port 5432 by default.        -> Which port does PostgreSQL listen on by default?
    The lunar module was named Eagle.                  -> What was the lunar module named?
    Neil Armstrong and Buzz Aldrin walked on the ...   -> Who walked on the lunar surface?
    Metformin is a first-line medication for ...       -> What is metformin?

Contract: :func:`question_for` returns a :class:`Made` (question, the answer — an exact piece of
the sentence —, the kind of fact, a score) or None. It returns None rather than a doubtful
question: for a subject that is a pronoun or first / second person ("It", "We", "You"), a negated
verb, a fact inside a subordinate clause, markup or code, a question or a fragment, and whenever the
answer (or any of its numbers) would appear in the question. Everything after the fact's clause
(", while ...", ", which ...") is left out of the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .offline_asking import Resolver, ask, finish, name_subject, usable
from .offline_clause import (
    BOUNDARY,
    CLAUSE_WORDS,
    MARKUP,
    Clause,
    is_adverb,
    piece,
    read_clause,
    remainder,
    subject_ok,
    subject_text,
)
from .offline_facts import Fact, find_facts
from .offline_kinds import fronted_reason, limit_question, the_one, yes_no
from .offline_patterns import patterns
from .offline_words import (
    AUX_BE,
    AUX_HAVE,
    AUXILIARIES,
    DETERMINERS,
    MODALS,
    PREPOSITIONS,
    PRONOUNS,
    can_be,
    known,
    past,
    verb_lemma,
    verb_tag,
)

#: Verbs that introduce what the subject means (a definition): "X refers to Y".
_DEFINING = {"refers": "refer to", "means": "mean", "stands": "stand for", "denotes": "denote"}
#: Verbs whose object is a fact worth asking for: "What does Kubernetes provide?".
_OBJECT_VERBS = frozenset(("support provide offer include contain require use store run replace create generate "
                           "return measure track protect encrypt manage host expose accept produce cause treat "
                           "inhibit block reduce increase lower raise prevent need enable charge cost detect handle "
                           "identify display list define specify describe determine control send receive process "
                           "convert monitor apply add remove delete decrypt cover hold publish emit recognize analyze "
                           "extract compute calculate record log collect trigger invoke route redirect classify secure "
                           "scan index crawl import export upload share replicate restore scale deploy build update "
                           "represent map match connect own fund pay earn lose reflect affect mean limit "
                           "indicate involve possess teach grant highlight").split())
#: Words after "the" that make a subject a thing to ask about ("The first thing you need to decide on is ...").
_RANKED = frozenset("first second third last main best key only primary biggest largest most".split())
#: First words of a complement that says little on its own ("a different entity", "a bit of").
_VAGUE_HEADS = frozenset(("different", "same", "bit", "lot", "good", "bad", "great", "better", "best", "worse",
                          "horrible", "terrible", "nice", "big", "huge", "little", "other", "separate", "simple",
                          "simpler", "appropriate", "way", "thing", "part", "kind", "sort", "type", "number"))
#: How much a kind of fact is worth asking about (a date or a number beats a definition).
_KIND_SCORE = {"negation": 2.3, "yes/no": 1.0, "the one": 2.6,
               "date": 3.0, "count": 3.0, "measure": 3.0, "money": 3.0, "schedule": 2.7, "limit": 3.0,
               "percent": 2.8, "numbered": 2.8, "number": 2.8, "agent": 2.6, "name": 2.5, "condition": 2.2,
               "purpose": 2.2, "means": 2.1, "use": 2.1, "reason": 2.0, "term": 2.0, "who": 2.0, "object": 1.8,
               "definition": 1.6, "function": 1.2}
#: Kinds whose questions may address the reader ("How can you ...?"): instructions are written that way.
_YOU_KINDS = frozenset(("condition", "purpose", "means", "use", "reason", "term"))
_RUN_IN = re.compile(r"^[A-Z][^:.;?!]{1,60}?\s:\s+(?=[A-Z])")
_IT_IS_THAT = re.compile(r"^\s*It(?:'s| is) (?:also |now |well )?(?:a (?:fact|theorem|rule)|true|known|clear|"
                         r"important to note|worth noting) that (?=\S)", re.I)
_READER_KINDS = _YOU_KINDS | {"negation", "yes/no"}
#: Words before a number in a subject that make it a limit ("A maximum of two pets are allowed ...").
_LINK_MD = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MIN_WORDS = {"definition": 3, "number": 6}
_OTHER_PEOPLE = re.compile(r"\b(?:we|our|us|i|my|you|your|yours|it|its|they|them|their|he|she|him|her|his)\b")


@dataclass(frozen=True)
class Made:
    question: str
    answer: str
    kind: str
    score: float


def _agent_question(c: Clause, f: Fact, remainder: str) -> str | None:
    if c.aux is None or c.aux.low not in AUX_BE or len(c.main) != 1 or verb_tag(c.main[0].text) not in ("VBN", "VBD"):
        return None
    lemma = verb_lemma(c.main[0].text)
    if not lemma:
        return None
    verb = past(lemma, c.main[0].text) if c.aux.low in ("was", "were") else \
        (lemma + "es" if lemma.endswith(("s", "sh", "ch", "x")) else lemma + "s")
    return finish(f"Who {verb} {subject_text(c)} {remainder}")


def _fact_questions(c: Clause) -> list[tuple[str, tuple[int, int], str]]:
    out: list[tuple[str, tuple[int, int], str]] = []
    is_be = c.aux is not None and c.aux.low in AUX_BE
    for f in find_facts(c.toks, c.text, c.verb[1], is_be and not c.main):
        rem = remainder(c, f.remove)
        if rem is None:
            continue
        if f.kind == "agent":
            q = _agent_question(c, f, rem)
        elif f.kind == "name":
            if not c.main or c.main[-1].low not in ("named", "called", "known", "titled", "dubbed", "nicknamed"):
                continue
            q = ask(c, f.wh, rem)
        else:
            wh = f.wh
            prep, _, rest = wh.partition(" ")
            if prep.lower() in PREPOSITIONS | {"since", "until", "till"} and \
                    rest.startswith(("how much", "how many", "when")):  # the question word first
                if f.remove[0] == c.verb[1]:
                    wh, rem = rest[:1].upper() + rest[1:], f"{prep.lower()} {rem}"  # "How much can X sue for ...?"
                else:
                    wh, rem = rest[:1].upper() + rest[1:], f"{rem} {prep.lower()}"
            q = ask(c, wh, rem)
        if q:
            out.append((q, f.answer, f.kind))
    return out


def _who_question(c: Clause) -> tuple[str, tuple[int, int], str] | None:
    """A subject made of person names ("Neil Armstrong and Buzz Aldrin") -> "Who <verb> <rest>?"."""
    if c.imperative or not c.main or c.aux is not None and (c.aux.low in AUX_HAVE or c.aux.low in MODALS):
        return None
    s = c.toks[c.subj[0]:c.subj[1]]
    if any(t.low in DETERMINERS for t in s):
        return None
    people = " ".join("N" if t.is_cap and t.is_word and not t.text.isupper() and t.text.isalpha() else t.low
                      for t in s)
    if not re.fullmatch(r"N N(?: (?:and|,) N N)*", people):
        return None
    if any(known(t.text) for t in s[1::3]):
        return None  # a family name is not a dictionary word ("Watson Discovery" is not a person)
    if verb_tag(c.main[0].text) != "VBD" and c.aux is None:
        return None
    stop = next((k for k in range(c.verb[1], len(c.toks)) if c.toks[k].text in BOUNDARY
                 or c.toks[k].low in CLAUSE_WORDS - {"and", "or"}), len(c.toks))
    if stop - c.verb[1] < 1:
        return None
    verb = piece(c, c.verb[0], c.verb[1])
    if c.aux is not None and c.aux.low == "were":
        verb = "was" + verb[4:]
    elif c.aux is not None and c.aux.low == "are":
        verb = "is" + verb[3:]
    return finish(f"Who {verb} {piece(c, c.verb[1], stop)}"), c.subj, "who"


def _definition(c: Clause, section: str) -> tuple[str, tuple[int, int], str] | None:
    """"X is a Y ..." -> "What is X?"; "X refers to Y" -> "What does X refer to?"; a verb phrase about
    the section's own subject ("git rebase moves ...") -> "What does git rebase do?"."""
    if c.imperative:
        return None
    s_len = c.subj[1] - c.subj[0]
    ranked = s_len >= 2 and c.toks[c.subj[0]].low == "the" and c.toks[c.subj[0] + 1].low in _RANKED
    if s_len > (12 if ranked else 6):
        return None
    v_end = c.verb[1]
    while v_end < len(c.toks) - 1 and is_adverb(c.toks[v_end]):  # "is basically the amount ..."
        v_end += 1
    stop = next((k for k in range(v_end + 1, len(c.toks)) if c.toks[k].text in (";", "–", "—", ":")
                 or (c.toks[k].text == "," and _clause_follows(c.toks, k + 1))), len(c.toks))
    if stop - v_end < 3 or stop - v_end > 28:
        return None
    if v_end + 1 < len(c.toks) and c.toks[v_end + 1].low in _VAGUE_HEADS:
        return None  # "VIX is a different entity altogether": true, but says nothing
    subj = subject_text(c)
    proper = any(t.is_cap for t in c.toks[c.subj[0]:c.subj[1]]) and c.toks[c.subj[0]].low not in DETERMINERS
    if c.aux is not None and c.aux.low in ("is", "are") and not c.main and v_end < len(c.toks) and \
            (c.toks[v_end].low in ("a", "an") or c.toks[v_end].low == "the" and (s_len <= 3 or ranked)
             and stop - v_end >= (3 if ranked else 5)
             or proper and c.toks[v_end].text.endswith(("'s", "’s")) and stop - v_end >= 3):
        return finish(f"What {c.aux.low} {subj}"), (v_end, stop), "definition"
    if c.aux is None and len(c.main) == 1 and c.main[0].low in _DEFINING and v_end < len(c.toks):
        phrase = _DEFINING[c.main[0].low]
        skip = v_end + (1 if phrase.endswith((" to", " for")) and c.toks[v_end].low in ("to", "for") else 0)
        if stop - skip < 2:
            return None
        return finish(f"What does {subj} {phrase}"), (skip, stop), "definition"
    if c.aux is None and c.main and verb_tag(c.main[0].text) == "VBZ" and section and \
            subj.lower().strip() == section.lower().strip():
        return finish(f"What does {subj} do"), (c.verb[0], stop), "function"
    return None


def _clause_follows(toks: list, k: int) -> bool:
    """Whether a new clause starts at ``k`` (", and you can pay ...", ", but it ..."): a conjunction and
    then a verb within a few words, or a pronoun."""
    if k >= len(toks) or toks[k].low not in ("and", "but", "so", "or", "which", "while", "although"):
        return False
    if toks[k].low in ("but", "so", "while", "although"):
        return True
    nxt = toks[k + 1:k + 6]
    return any(t.low in AUXILIARIES or t.low in PRONOUNS and t.low not in DETERMINERS or
               verb_tag(t.text) in ("VBZ", "VBD") and not can_be(t.text, "NOUN") for t in nxt)


def _object_question(c: Clause) -> tuple[str, tuple[int, int], str] | None:
    """"Kubernetes provides a container-centric management environment." -> "What does Kubernetes
    provide?": a specific subject, a verb of the list, its object noun phrase as the answer."""
    if c.imperative or c.aux is not None or len(c.main) != 1:
        return None
    lemma = verb_lemma(c.main[0].text)
    if lemma not in _OBJECT_VERBS or verb_tag(c.main[0].text) not in ("VBZ", "VBD", "VBP"):
        return None
    subj = c.toks[c.subj[0]:c.subj[1]]
    nouns = len(subj) == 2 and all(t.is_word and can_be(t.text, "NOUN") for t in subj) and \
        subj[0].low not in DETERMINERS  # "Capacity management", "Entities enrichment"
    if not (c.named or nouns or any(t.is_cap for t in subj[1:]) or subj[0].is_cap and not known(subj[0].text)
            or len(subj) >= 3):
        return None
    a = c.verb[1]
    b = a
    if a < len(c.toks) and c.toks[a].low in ("how", "what", "which", "whether", "where", "when", "why") and \
            lemma in ("indicate", "describe", "determine", "define", "specify", "show", "control", "mean"):
        # "Endianness indicates how bytes of data are organized ...": the wh-clause is the object
        end = next((k for k in range(a + 1, len(c.toks)) if c.toks[k].text in BOUNDARY), len(c.toks))
        if 3 <= end - a <= 20:
            rem = remainder(c, (a, end))
            return (ask(c, "What", rem), (a, end), "object") if rem is not None else None
    while b < len(c.toks):
        t = c.toks[b]
        if t.text in BOUNDARY or t.low in PREPOSITIONS or t.low in CLAUSE_WORDS or t.low in AUXILIARIES \
                or (b > a and verb_tag(t.text) in ("VBD", "VBZ") and not can_be(t.text, "NOUN")):
            break
        b += 1
    nxt = c.toks[b].low if b < len(c.toks) else ""
    figure = False
    if nxt == "of" and b > a:  # "rates of 0.65% or less": the object goes on to its figure
        end = next((k for k in range(b, len(c.toks)) if c.toks[k].text in BOUNDARY), len(c.toks))
        if any(t.is_num for t in c.toks[b:end]) and end - a <= 10:
            b, nxt, figure = end, "", True
    if nxt in ("of", "for") and b > a and not figure:  # "the endianness of the incoming audio", "full support for X"
        end = b + 1
        while end < len(c.toks) and not (c.toks[end].text in BOUNDARY or c.toks[end].low in CLAUSE_WORDS or
                                         c.toks[end].low in AUXILIARIES or c.toks[end].low in PREPOSITIONS
                                         and c.toks[end].low not in ("of",)):
            end += 1
        if end - b >= 2 and end - a <= 12 and (end == len(c.toks) or c.toks[end].text in BOUNDARY or
                                                c.toks[end].low in ("that", "which", "who")) and \
                c.toks[end - 1].is_word and (verb_tag(c.toks[end - 1].text) not in ("VBZ", "VBD", "VBN", "VBG") or
                                             can_be(c.toks[end - 1].text, "NOUN")):
            b, nxt, figure = end, "", True
    if b - a < 1 or b - a > 10 or (b - a == 1 and c.toks[a].low in DETERMINERS):
        return None
    if any(t.low in ("following", "same", "other", "more", "this", "these", "that", "those") for t in c.toks[a:b]):
        return None
    content = [t for t in c.toks[a:b] if t.low not in DETERMINERS]
    if not figure and not any(t.is_cap or t.is_num for t in content) and (
            len(content) < 2 or any(t.low in _VAGUE_HEADS or t.low.endswith("er") and can_be(t.text, "ADJ")
                                    for t in content)):
        return None  # "methods", "the bucket", "a simpler way": too little to be worth asking for
    last = c.toks[b - 1]
    ends_in_noun = last.is_cap or last.is_num or can_be(last.text, "NOUN") or not known(last.text)
    if c.toks[a].is_num or last.low in DETERMINERS or not (ends_in_noun or figure):
        return None  # the object must end in its noun ("a standardized or customizable ..." does not)
    if nxt in ("and", "or") and b + 1 < len(c.toks) and c.toks[b + 1].is_cap and c.toks[a].is_cap and \
            not any(t.low in AUXILIARIES or verb_tag(t.text) in ("VBZ", "VBD") and not can_be(t.text, "NOUN")
                    for t in c.toks[b + 1:]):
        b, nxt = len(c.toks), ""  # a list of names: "includes Cuyamaca Rancho State Park and Anza-Borrego ..."
    if nxt in ("of", "that", "which", "who", "whose", "where", "and", "or"):
        return None  # the object goes on ("a summary of ...", "a character that ..."): its head alone says little
    if nxt == ",":  # a list: "includes sources, filters, topics, destinations, and subscriptions"
        tail = c.toks[b:]
        verb_in_tail = any(t.low in AUXILIARIES or verb_tag(t.text) in ("VBZ", "VBD") and not can_be(t.text, "NOUN")
                           for t in tail)
        if any(t.low in ("and", "or") for t in tail) and not verb_in_tail:
            b = len(c.toks)
        else:
            return None
    if c.toks[a].low in PRONOUNS and c.toks[a].low not in DETERMINERS:
        return None
    rem = remainder(c, (a, b))
    if rem is None:
        return None
    return ask(c, "What", rem), (a, b), "object"


def _vague_term(c: Clause) -> bool:
    """A subject that is one common noun after an article ("a source", "the platform")."""
    s = c.toks[c.subj[0]:c.subj[1]]
    return len(s) == 2 and s[0].low in ("a", "an", "the") and not s[1].is_cap and known(s[1].text)


def _answer_in_question(answer: str, question: str, strict: bool = True) -> bool:
    """Whether ``question`` gives ``answer`` away: holds it whole, or (``strict``: a fact's answer) one of
    its numbers or most of its words."""
    a = " ".join(answer.lower().split()).strip(" .,;:")
    q = question.lower()
    if not a or a in q:
        return True
    if not strict:
        return False
    nums = re.findall(r"\d[\d,.]*\d|\d", a)
    if any(re.search(rf"(?<![\d.,]){re.escape(n)}(?![\d])", q) for n in nums):
        return True
    words = [w for w in re.findall(r"\w+", a) if len(w) > 3 and w not in DETERMINERS]
    return bool(words) and sum(w in q for w in words) >= max(1, int(0.6 * len(words) + 0.5)) and len(words) <= 3


def _unmarked(s: str) -> str:
    """``s`` with Markdown links read as their text, bold marks and backticks as spaces — the same
    length, so every offset still points into ``s``."""
    s = _LINK_MD.sub(lambda m: " " * (m.start(1) - m.start()) + m.group(1) + " " * (m.end() - m.end(1)), s)
    return s.replace("**", "  ").replace("`", " ")


def _chars(c: Clause, span: tuple[int, int]) -> tuple[int, int]:
    a, b = span
    return c.offset + c.toks[a].start, c.offset + c.toks[b - 1].end


def question_for(sentence: str, section: str = "", resolve: Resolver | None = None,
                 why: list[str] | None = None) -> Made | None:
    """The best question the rules make of ``sentence`` (see the module docstring), or None; ``why``
    gets the reason when there is none (a key of :data:`LEFT`). ``resolve`` names a subject the sentence
    gives only by its kind."""
    made = questions_for(sentence, section, resolve, why)
    return made[0] if made else None


def questions_for(sentence: str, section: str = "", resolve: Resolver | None = None,
                  why: list[str] | None = None) -> list[Made]:
    """Every question the rules make of ``sentence``, best first, one per answer (see
    :func:`question_for`)."""
    def no(reason: str) -> list[Made]:
        if why is not None:
            why.append(reason)
        return []

    s = sentence.strip()
    if s.count('"') % 2 and s.startswith('"'):
        s = s[1:]  # a crawled forum post opens with a stray quote mark
    elif s.count('"') % 2 and s.endswith('"'):
        s = s[:-1]  # ... and closes with one
    lead = _RUN_IN.match(s)
    if lead and len(s) - lead.end() >= 20:
        # "Context-based restrictions : You can use ...": a release note's name, then a sentence of its own
        return questions_for(s[lead.end():], section, resolve, why)
    if len(s) < 20 or len(s) > 400:
        return no("not a sentence")
    if "?" in s or "!" in s or not (s.endswith((".", ":")) or s[-1:].isalnum() or s.endswith((")", "%"))):
        return no("not a sentence")
    plain = _unmarked(s)
    if MARKUP.search(plain) or plain.count("(") != plain.count(")") or plain.count('"') % 2:
        return no("markup")
    if s.endswith(":"):
        plain = plain[:-1] + "."
    it_is = _IT_IS_THAT.match(plain)
    if it_is:  # "It's also a theorem that the weighted arithmetic mean is ...": the statement is the clause
        return questions_for(s[it_is.end():], section, resolve, why)
    c = read_clause(plain)
    if c is not None and c.aux is not None and c.aux.low in AUX_BE and not c.main and c.verb[1] + 4 < len(c.toks) \
            and c.toks[c.verb[1]].low == "that":
        # "A key benefit of the platform is that IBM tests the code daily": the facts are the content clause's
        return questions_for(s[c.offset + c.toks[c.verb[1] + 1].start:], section, resolve, why)
    options: list[tuple[str, tuple[int, int] | str, str]] = []
    you = False
    if c is not None and c.text[:1].isalnum():
        vague = name_subject(c, resolve)
        if usable(c, vague):
            options += [(q, _chars(c, span), k) for q, span, k in _fact_questions(c)]
            for extra in (_who_question(c), limit_question(c), the_one(c)):
                if extra:
                    options.append((extra[0], _chars(c, extra[1]), extra[2]))
            d = _definition(c, section) or _object_question(c)
            if d and (not options or d[2] != "definition" or not any(k == "the one" for _, _, k in options)):
                options.append((d[0], _chars(c, d[1]), d[2]))
        elif vague:
            no("subject not named")
        you = subject_text(c) == "you" or c.imperative
        if not subject_ok(c) and not you:
            c = None
    neg = read_clause(plain, negation=True)
    if neg is not None and neg.text[:1].isalnum() and name_subject(neg, resolve) is None and \
            (usable(neg, None) or subject_text(neg) == "you"):
        yn = yes_no(neg, plain)
        if yn:
            options.append((yn[0], _chars(neg, yn[1]), yn[2]))
    options += [(q, a, k) for q, a, k in patterns(plain, c)]
    why_q = fronted_reason(plain, resolve)
    if why_q:
        options.append(why_q)
    if not options:
        return no("no fact the rules ask about" if c is not None else "no clause the rules read")
    made: list[Made] = []
    left = "no fact the rules ask about"
    for q, span, kind in options:
        if not q:
            continue
        if isinstance(span, str):
            a0 = plain.find(span)
            if a0 < 0:
                left = "markup"  # the answer's words stand apart in the page's text (a link, a bold mark)
                continue
            answer = s[a0:a0 + len(span)]
        else:
            answer = s[span[0]:span[1]]
        answer = answer.strip(" ,;:")
        if "](" in answer or "**" in answer or answer.count("[") != answer.count("]"):
            left = "markup"
            continue
        if re.search(r"[a-z]\. [A-Z]", answer) or re.search(r"[a-z]\. [A-Z]", q):
            left = "not a sentence"  # two sentences the splitter did not part ("... State Park. Passes must ...")
            continue
        n_words = len(q.split())
        if not _MIN_WORDS.get(kind, 4) <= n_words <= 28 or len(answer.split()) > 40:
            left = "question too long"
            continue
        subj = subject_text(c).lower() if c is not None else ""
        others = _OTHER_PEOPLE.search(q.lower().replace("should you ", "").replace(subj, "", 1)) \
            if kind not in _READER_KINDS else re.search(r"\b(?:we|our|us|i|my|it|its|they|them|their)\b",
                                                      q.lower().replace(subj, "", 1))
        if kind in ("negation", "yes/no", "the one"):
            gives = " ".join(answer.lower().split()) in q.lower()
        else:
            gives = _answer_in_question(answer, q, strict=kind not in _YOU_KINDS)
        if gives or others:
            left = "answer in the question" if gives else "stands on a word of the page"
            continue  # the answer given away, or a question about "we" / "it" that stands on nothing
        score = _KIND_SCORE[kind] - 0.05 * max(0, n_words - 14)
        if kind == "definition" and c is not None and _vague_term(c):
            if c.toks[c.subj[0]].low == "the":
                continue  # "What is the platform?": which one?
            score -= 1.0
        made.append(Made(q, answer, kind, score))
    made.sort(key=lambda m: -m.score)
    out: list[Made] = []
    for m in made:
        if not any(_overlaps(m.answer, o.answer) or m.question == o.question for o in out):
            out.append(m)
    if not out:
        return no(left)
    return out


def _overlaps(a: str, b: str) -> bool:
    """Two answers that are one (the same words, or one inside the other)."""
    x, y = " ".join(a.lower().split()), " ".join(b.lower().split())
    return x in y or y in x


#: Why a sentence gave no question, in the words of a file's reasons.
LEFT = ("not a sentence", "markup", "no clause the rules read", "subject not named", "no fact the rules ask about",
        "answer in the question", "stands on a word of the page", "question too long")

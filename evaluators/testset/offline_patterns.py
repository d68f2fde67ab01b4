"""Questions from how a sentence is built rather than from a fact in it: a condition and what follows
it, a purpose and the way to reach it, a means, a use, a reason.

    If the traffic does not match any policy rule, the traffic is redirected to a default pool.
        -> What happens if the traffic does not match any policy rule?      (the main clause)
    To enable the skill to handle nuanced questions, define entities ...
        -> How can you enable the skill to handle nuanced questions?        (the instruction)
    You can configure the L7 policy by using the action REDIRECT_HTTPS ...
        -> How can you configure the L7 policy?                             (by using ...)
    A Layer 7 (L7) policy is used to classify traffic by matching ...
        -> What is a Layer 7 (L7) policy used for?                          (to classify traffic ...)
    Index funds have low costs because no analysts are needed.
        -> Why do index funds have low costs?                               (because no analysts ...)

Contract: each function takes the sentence (and, where it needs one, its :class:`~.offline_clause.Clause`)
and returns ``(question, answer, kind)`` or None; the answer is an exact piece of the sentence. These
questions address the reader as "you" where the page does (instructions are written that way); a
condition or a purpose that rests on a word the page defines elsewhere ("it", "this") gives none.
"""

from __future__ import annotations

import re

from .offline_clause import (
    BOUNDARY,
    Clause,
    lemma_of,
    piece,
    read_clause,
    remainder,
    strip_front,
    subject_ok,
    subject_text,
    tag_of,
    verb_words,
)
from .offline_words import DETERMINERS, can_be, lower_first, tokens, verb_tag

_VAGUE = re.compile(r"\b(?:it|its|this|that|these|those|they|them|their|he|she|him|her|his|here|there|above|"
                    r"below|following|previous|same)\b", re.I)
_EXAMPLE = re.compile(r"(?i)\s*(?:[-*•+]\s+)?for (?:example|instance)\b")
_MAIN_LEANS = re.compile(r"\b(?:this|these|those|it|they|them|might|may)\b", re.I)
_COND = {"if": "if", "when": "when", "whenever": "when", "once": "once", "after": "after", "before": "before",
         "unless": "unless"}
_ENABLERS = {"allows": "allow", "allow": "allow", "lets": "let", "let": "let", "enables": "enable",
             "enable": "enable", "helps": "help", "help": "help"}


def _clean(text: str) -> str:
    return " ".join(text.split()).strip(" ,;:")


def _imperative(text: str) -> bool:
    toks = tokens(text)
    return bool(toks) and toks[0].is_word and verb_tag(toks[0].text) == "VBP" and can_be(toks[0].text, "VERB") and \
        not can_be(toks[0].text, "NOUN") or (bool(toks) and toks[0].low in ("go", "click", "select", "enter", "run",
                                                                              "open", "use", "make", "add", "set",
                                                                              "check", "contact", "call", "visit",
                                                                              "fill", "file", "bring", "report"))


_NO_COMMA = re.compile(r"\s(?:then\s|(?=you (?:can|will|should|must|might|may|need|have to)\s))", re.I)


def _split_at_comma(body: str) -> tuple[str, str] | None:
    """(lead, main) at the comma that ends a leading clause of at most 30 words (or, with no comma,
    before "then" / "you can ...")."""
    depth = 0
    for m in re.finditer(r"[(),]", body):
        ch = m.group()
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            lead, main = body[:m.start()], body[m.end():]
            if len(lead.split()) <= 30 and len(main.split()) >= 3:
                return lead, re.sub(r"^\s*then\s+", "", main)
            return None
    m2 = _NO_COMMA.search(body)
    if m2 and 3 <= len(body[:m2.start()].split()) <= 25 and len(body[m2.end():].split()) >= 3:
        return body[:m2.start()], body[m2.end():]
    return None


def _body(sentence: str) -> str:
    """The sentence without a list marker or a linking word in front, and without its full stop."""
    s = sentence.strip()
    return s[strip_front(s):].strip().rstrip(".")


def condition(sentence: str) -> tuple[str, str, str] | None:
    """"If X, Y." -> "What happens if X?" (answer Y); "If X, do Y." -> "What should you do if X?"."""
    s = _body(sentence)
    first = s.split(" ", 1)[0].lower()
    if first not in _COND or "?" in s or _EXAMPLE.match(sentence):
        return None  # "For example, if you are an insurance company, ...": an example, not a rule
    split = _split_at_comma(s[len(first):].strip())
    if split is None:
        return None
    cond, main = _clean(split[0]), _clean(split[1])
    if len(cond.split()) < 3 or _VAGUE.search(cond) or main.lower().startswith(("and ", "or ", "but ")):
        return None
    if main.lower().startswith(("it ", "this ", "they ", "these ", "see ")) or _MAIN_LEANS.search(main):
        return None  # "If X, it ...", "..., see <a link>", "might look like this": the answer leans elsewhere
    word = _COND[first]
    if _imperative(main):
        q = f"What should you do {word} {cond}?"
    elif main.lower().startswith(("you will have to ", "you will need to ")):
        q = f"What do you have to do {word} {cond}?"
    elif main.lower().startswith(("you can ", "you must ", "you should ", "you need ", "you have to ")):
        q = f"What {main.split()[1].lower()} you do {word} {cond}?" if main.split()[1].lower() != "need" else \
            f"What do you need to do {word} {cond}?"
    else:
        q = f"What happens {word} {cond}?"
    return q, main, "condition"


def purpose(sentence: str) -> tuple[str, str, str] | None:
    """"To X, do Y." / "To X, you Y." -> "How can you X?" (answer Y); "To X, an administrator must Y."
    -> "What is needed to X?"."""
    s = _body(sentence)
    if not s.lower().startswith("to ") or "?" in s:
        return None
    split = _split_at_comma(s[3:])
    if split is None:
        return None
    goal, main = _clean(split[0]), _clean(split[1])
    g = tokens(goal)
    if not g or verb_tag(g[0].text) != "VBP" or not can_be(g[0].text, "VERB") or len(g) < 2 or _VAGUE.search(goal):
        return None
    goal = f"{lower_first(goal.split()[0])} {' '.join(goal.split()[1:])}"
    low = main.lower()
    if _imperative(main) or low.startswith(("you can ", "you must ", "you should ", "you need ", "use ",
                                             "you have to ")):
        return f"How can you {goal}?", main, "purpose"
    if low.startswith("you "):
        return f"How do you {goal}?", main, "purpose"
    c = read_clause(main)
    if c is not None and c.aux is not None and c.aux.low in ("must", "should", "needs", "need") and \
            not _VAGUE.search(subject_text(c)):
        return f"What is needed to {goal}?", main, "purpose"
    return None


def term(sentence: str) -> tuple[str, str, str] | None:
    """A glossary line "X: what it is or does" -> "What is X?" / "What does X do?" (answer: the rest)."""
    s = _body(sentence)
    m = re.match(r"^([^:;,.()]{2,48}):\s+(\S.+)$", s)
    if not m:
        return None
    name, desc = m.group(1).strip(" *_`"), m.group(2).strip()
    words = tokens(name)
    if not 1 <= len(words) <= 5 or len(desc.split()) < 4 or re.match(r"(?i)(step|note|tip|important|warning|"
                                                                        r"example|caution|result|output)\b", name):
        return None
    if any(w.low in ("is", "are", "can", "must", "will", "you", "we", "it") for w in words):
        return None  # a sentence with a colon, not a term
    first = tokens(desc)[0]
    if verb_tag(first.text) == "VBZ" and not first.is_cap:
        return f"What does {name} do?", desc, "term"
    if first.low in ("a", "an", "the") or desc.lower().startswith(name.lower()):
        return f"What is {name}?" if first.low in ("a", "an", "the") else f"What does {name} do?", desc, "term"
    return None


def means(c: Clause) -> tuple[str, str, str] | None:
    """"X can Y by Zing ..." -> "How can X Y?" (answer "by Zing ...")."""
    if c.imperative or c.aux is None or c.aux.low not in ("can", "could", "may", "should", "must", "is", "are") or \
            not c.main:
        return None
    for k in range(c.verb[1], len(c.toks) - 1):
        t = c.toks[k]
        if t.text in BOUNDARY:
            return None
        if t.low == "by" and verb_tag(c.toks[k + 1].text) == "VBG":
            end = len(c.toks)
            rem = remainder(c, (k, end))
            if rem is None or not rem:
                return None
            subj = subject_text(c)
            return f"How {c.aux.low} {subj} {verb_words(c, False)} {rem}?", piece(c, k, end), "means"
    return None


def use(c: Clause) -> tuple[str, str, str] | None:
    """"X is used to / for Y", "X is designed to Y", "X allows you to Y" -> "What is X used for?" ... ."""
    if c.imperative or len(c.main) != 1:
        return None
    verb = c.main[0].low
    v_end = c.verb[1]
    if v_end >= len(c.toks):
        return None
    nxt = c.toks[v_end].low
    subj = subject_text(c)
    if c.aux is not None and c.aux.low in ("is", "are", "was", "were") and verb in ("used", "designed", "intended",
                                                                                     "meant") \
            and nxt in ("to", "for"):
        if v_end + 1 >= len(c.toks):
            return None
        answer = piece(c, v_end, len(c.toks))
        ask = "for" if verb == "used" else "to do" if nxt == "to" else "for"
        return f"What {c.aux.low} {subj} {verb} {ask}?", answer, "use"
    if c.aux is not None and c.aux.low in ("can", "could", "may") and verb == "used" and nxt in ("to", "for") and \
            v_end + 1 < len(c.toks):  # "Entities enrichment can be used to recognize people"
        return f"What {c.aux.low} {subj} be used for?", piece(c, v_end, len(c.toks)), "use"
    if c.aux is None and verb in _ENABLERS and nxt in ("you", "users", "customers", "clients", "developers", "teams"):
        k = v_end + 1
        if k < len(c.toks) and c.toks[k].low == "to":
            k += 1
        if k >= len(c.toks) or verb_tag(c.toks[k].text) != "VBP":
            return None
        tag = verb_tag(c.main[0].text)
        do = "does" if tag == "VBZ" else "did" if tag == "VBD" else "do"
        who = c.toks[v_end].text
        to = "" if _ENABLERS[verb] in ("let", "help") else " to"  # "let you do", "allow you to do"
        return f"What {do} {subj} {_ENABLERS[verb]} {who}{to} do?", piece(c, k, len(c.toks)), "use"
    return None


def reason(c: Clause) -> tuple[str, str, str] | None:
    """"X Ys because Z" -> "Why does X Y?" (answer "because Z")."""
    for k in range(c.verb[1], len(c.toks)):
        t = c.toks[k]
        if t.low == "because" or (t.low == "since" and k + 1 < len(c.toks) and not c.toks[k + 1].is_num):
            rem = remainder(c, (k, len(c.toks)))
            if not rem or rem is None:
                return None
            if c.aux is not None:
                q = f"Why {c.aux.low} {subject_text(c)} {verb_words(c, False)} {rem}"
            elif c.main and all(lemma_of(m) for m in c.main):
                tag = tag_of(c.main[0])
                do = {"VBD": "did", "VBZ": "does"}.get(tag or "", "do")
                q = f"Why {do} {subject_text(c)} {verb_words(c, True)} {rem}"
            else:
                return None
            return " ".join(q.split()) + "?", piece(c, k, len(c.toks)), "reason"
        if t.text in (";", ":"):
            return None
    return None


def tool(c: Clause) -> tuple[str, str, str] | None:
    """"You can use X to Y." -> "What can you use to Y?" (answer X)."""
    if c.aux is None or c.aux.low not in ("can", "could", "should", "must") or subject_text(c) != "you" or \
            len(c.main) != 1 or c.main[0].low != "use":
        return None
    v_end = c.verb[1]
    for k in range(v_end + 1, min(len(c.toks) - 2, v_end + 14)):
        t = c.toks[k]
        if t.text in BOUNDARY:
            return None
        if t.low == "to" and verb_tag(c.toks[k + 1].text) == "VBP" and can_be(c.toks[k + 1].text, "VERB"):
            end = next((j for j in range(k + 1, len(c.toks)) if c.toks[j].text in (";", ":", "(")), len(c.toks))
            for j in range(k + 2, end - 2):  # "X to A and Y to B": the first use alone
                if c.toks[j].low == "and" and any(c.toks[x].low == "to" and verb_tag(c.toks[x + 1].text) == "VBP"
                                                   for x in range(j + 1, min(end - 1, j + 9))):
                    end = j
                    break
            goal = piece(c, k, end)
            if len(goal.split()) < 3:
                return None
            return f"What {c.aux.low} you use {goal}?", piece(c, v_end, k), "use"
    return None


#: Base verbs that are nouns too but, after "to", open a purpose ("to build", "to test").
_GOAL_VERBS = frozenset("build create use run test deploy monitor store share access update control manage process "
                        "publish secure protect check track view report".split())


def instruction(c: Clause) -> tuple[str, str, str] | None:
    """An instruction with its purpose: "Use X to Y." -> "What can you use to Y?" (answer X); "Add X to Y."
    -> "How can you Y?" (answer "Add X")."""
    if not c.imperative or len(c.main) != 1:
        return None
    verb = c.main[0].low
    for k in range(c.verb[1] + 1, min(len(c.toks) - 2, c.verb[1] + 14)):
        t = c.toks[k]
        if t.text in BOUNDARY or t.low in ("and", "or", "if", "when", "that", "which"):
            return None
        nxt = c.toks[k + 1]
        obj = k + 2 < len(c.toks) and c.toks[k + 2].low in DETERMINERS | {"your", "you"}
        if t.low == "to" and (verb_tag(nxt.text) == "VBP" and can_be(nxt.text, "VERB") and
                              (not can_be(nxt.text, "NOUN") or obj) or nxt.low in _GOAL_VERBS):
            end = next((j for j in range(k + 1, len(c.toks)) if c.toks[j].text in (";", ":", "(", ",") or
                        c.toks[j].low in ("that", "which", "so", "where", "while", "how") or
                        j > k + 2 and c.toks[j].low == "to" and j + 1 < len(c.toks) and
                        verb_tag(c.toks[j + 1].text) == "VBP"), len(c.toks))
            goal = piece(c, k + 1, end)
            what = piece(c, c.verb[1], k)
            if len(goal.split()) < 3 or len(what.split()) < 1 or _VAGUE.search(goal) or _VAGUE.search(what):
                return None
            if verb == "use":
                return f"What can you use to {goal}?", what, "use"
            return f"How can you {goal}?", piece(c, c.verb[0], k), "purpose"
    return None


def there_is(sentence: str) -> tuple[str, str, str] | None:
    """"There is no X ..." -> "Is there a X ...?" (answer: the statement)."""
    s = _body(sentence)
    m = re.match(r"^There (is|are|was|were) (?:no|not any) ([a-z][\w'’ %.$-]+?)(?:,| and there| but|;|$)", s)
    if not m or len(m.group(2).split()) < 3 or _VAGUE.search(m.group(2)):
        return None
    aux, rest = m.group(1), m.group(2).strip()
    art = ("an" if rest[:1] in "aeiou" else "a") if aux in ("is", "was") else "any"
    return f"{aux.capitalize()} there {art} {rest}?", m.group(0).rstrip(",; ").removesuffix(" and there"), "negation"


def patterns(sentence: str, c: Clause | None) -> list[tuple[str, str, str]]:
    """Every question these patterns make of ``sentence`` (``c``: its clause, when it has one)."""
    out = [x for x in (condition(sentence), purpose(sentence), term(sentence), there_is(sentence)) if x]
    if c is None and not out:
        c = read_clause(sentence)
        if c is not None and not (c.imperative or subject_text(c) == "you" or subject_ok(c)):
            c = None  # "What is this account used for?": which account?
    if c is not None:
        out += [x for x in (means(c), use(c), tool(c), reason(c), instruction(c)) if x]
    return out


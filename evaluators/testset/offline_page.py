"""What the offline generator reads from a whole page rather than one sentence: the questions an FAQ
already asks (with the answer under them), and the names a page gives the things its sentences call
"the pilot" or "the service".

Contract: :func:`faq_questions` returns ``(question, answer, passage)`` for every passage that stands
right under a question heading (an FAQ's "How do I renew?"), the answer an exact piece of the
passage; a question that leans on the page ("How do I renew?": renew what?) is given its object from
the answer ("How do I renew a library card?") or left out. :func:`resolver` returns a function
``(words) -> name | None``: the name the page uses most for a thing of that kind ("pilot" -> "the
California State Park Adventure Pass pilot", "park" -> "Cuyamaca Rancho State Park").
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Callable

from ..documents import Document, Passage
from ..sentencize import split_spans
from .offline_words import DETERMINERS, PREPOSITIONS, can_be, known, lemmas, tokens, verb_lemma

#: Longest reference answer taken from under an FAQ's question (characters); a longer answer is cut
#: after the sentence that passes it.
MAX_FAQ_ANSWER = 400
_NAME_WORD = r"(?:[A-Z]\.(?:[A-Z]\.)+|[A-Z][\w&'’+-]*(?:\.\w[\w&'’+-]*)*)"  # "U.S.", "Node.js"; not "Columbia."
_GLUE = r"(?:of|to|for|and|on|in|the|&|de)"
_QWORDS = frozenset("what when where who whom whose which why how is are was were do does did can could will would "
                    "should shall may might must has have had".split())
_GENERIC = frozenset("i me my we us our you your it its they them their this that there here one ones thing things "
                     "way ways do does did get got make made if".split())


def _answer(p: Passage) -> str:
    """The reference answer under an FAQ's question: the passage, or its first sentences up to
    ``MAX_FAQ_ANSWER`` characters."""
    text = p.text.strip()
    if len(text) <= MAX_FAQ_ANSWER:
        return text
    end = 0
    for _a, b in split_spans(text):
        end = b
        if b >= 120:
            break
    return text[:end].strip()


def _content_nouns(question: str) -> list[str]:
    out = []
    for t in tokens(question):
        low = t.low
        if not t.is_word or low in _QWORDS or low in _GENERIC or low in DETERMINERS or low in PREPOSITIONS:
            continue
        ls = lemmas(low)
        if "NOUN" in ls or "PROPN" in ls or t.is_cap or not ls:
            out.append(low)
    return out


def _object_from(answer: str, verb: str, person: str) -> str | None:
    """The object the answer gives the question's verb ("renew your library card" -> "a library card")."""
    toks = tokens(answer)
    for k, t in enumerate(toks):
        if verb_lemma(t.text) != verb or k + 1 >= len(toks):
            continue
        j = k + 1
        det = toks[j].low
        if det not in ("your", "a", "an", "the", "my", "our"):
            continue
        j += 1
        words: list[str] = []
        while j < len(toks) and toks[j].is_word and toks[j].low not in PREPOSITIONS and toks[j].low not in \
                ("and", "or", "by", "at", "online", "today") and len(words) < 4:
            words.append(toks[j].text)
            j += 1
        if not words or not known(words[-1]) or "NOUN" not in lemmas(words[-1].lower()):
            continue
        lead = "my" if det in ("your", "my") and person == "i" else "your" if det in ("your", "my") else "a" \
            if det in ("a", "an", "the") else det
        if lead == "a" and words[0][:1].lower() in "aeiou":
            lead = "an"
        return f"{lead} {' '.join(words)}"
    return None


def own_question(question: str, answer: str) -> str | None:
    """An FAQ's question as a reader can ask it without the page, or None when it cannot stand alone. A
    heading that asks several questions ("What scalability options do I have? Does it manage itself?")
    gives its first (the others lean on it)."""
    q = " ".join(question.strip(" *_#").split())
    q = re.sub(r"^(?:Q\s*[:.)-]|\d{1,3}[.)])\s*", "", q)
    first = re.match(r"^(.+?\?)\s+\S", q)
    if first:
        q = first.group(1)
    if not q.endswith("?") or len(q.split()) < 3 or re.match(r"(?i)(table|figure|fig\.)\s*\d", q):
        return None
    if _content_nouns(q):
        return q
    toks = tokens(q)
    person = "i" if any(t.low in ("i", "my", "me") for t in toks) else "you"
    verb = next((verb_lemma(t.text) for t in reversed(toks) if t.is_word and verb_lemma(t.text)
                 and t.low not in _QWORDS), None)
    if not verb:
        return None
    obj = _object_from(answer, verb, person)
    if obj is None:
        return None
    return q[:-1].rstrip() + f" {obj}?"


_ASKED = re.compile(r"(?:^|\n)\s*(?:[-*•+]\s+)?([A-Z][^\n?]{10,200}\?)\s*$")


def faq_questions(doc: Document) -> list[tuple[str, str, Passage]]:
    """(question, reference answer, passage) for each passage right under a question heading, and for a
    passage that answers the question the passage before it ends with (a question written as a line
    or a paragraph of its own: "* Why is the Use only IAM mode preferred?" / "The Use only IAM mode
    means ...")."""
    out: list[tuple[str, str, Passage]] = []
    prev_section = None
    prev: Passage | None = None
    for p in doc.passages:
        if _ONLY_A_POINTER.match(p.text):
            pass  # "For more information, see ...": answers nothing itself
        elif p.section.rstrip(" *_").endswith("?") and p.section != prev_section:
            answer = _answer(p)
            q = own_question(p.section, answer)
            if q:
                out.append((q, answer, p))
        elif prev is not None and (m := _ASKED.search(prev.text)) and p.section == prev.section and \
                not p.text.rstrip().endswith("?") and len(p.text) >= 40:
            answer = _answer(p)
            q = own_question(m.group(1), answer)
            if q and not re.match(r"(?i)(?:and|or|but|also)\b", q):
                out.append((q, answer, p))
        prev_section = p.section
        prev = p
    return out


#: Nouns that name a kind of page or section: after an "-ing" word they make a noun phrase, not a task.
_GENRE = frozenset("overview introduction guide basics reference concepts requirements options considerations tips "
                   "notes summary details architecture settings limits limitations faq faqs glossary examples "
                   "tutorial checklist best troubleshooting matrix terms history".split())
_HOW_TO = re.compile(r"^(?:how to|to)\s+(\w+)\s+(.+)$", re.I)


def heading_question(heading: str) -> str | None:
    """A heading that names a task ("Creating intents", "How to rotate credentials", "Getting started
    with IBM Cloud for Financial Services") as the question a reader asks ("How do you create intents?")."""
    h = " ".join(heading.strip(" #*_:").split())
    if not 2 <= len(h.split()) <= 12 or h.endswith(("?", ".")) or re.search(r"[|{}<>=\\`@#\[\]]", h) or h.isupper():
        return None  # "RETAIN CURRENT PASSWORD": a keyword of code, not a task
    m = _HOW_TO.match(h)
    first, rest = (m.group(1), m.group(2)) if m else (h.split()[0], " ".join(h.split()[1:]))
    low = first.lower()
    lemma = verb_lemma(low)
    command = not m and first[:1].isupper() and lemma == low and not can_be(low, "NOUN") and \
        not can_be(low, "ADJ") and len(h.split()) >= 3  # "Accelerate delivery of static files using a CDN"
    if not lemma or (not m and not command and not (low.endswith("ing") and first[:1].isupper())):
        return None
    if lemma in ("be", "have", "do") or not rest:
        return None
    nxt = rest.split()[0]
    if not m and can_be(low, "NOUN") and not (nxt.lower() in DETERMINERS or nxt[:1].isupper()):
        return None  # "Filing fees", "Running costs": a noun phrase, not a task
    if nxt.lower() in _GENRE:
        return None  # "Networking overview for ...", "Troubleshooting tips": the page's kind, not a task
    if nxt.lower() in PREPOSITIONS and lemma not in ("get", "start", "work", "sign", "log", "set", "check") and \
            not (len(rest.split()) > 1 and rest.split()[1][:1].isupper()):
        return None  # "Upgrading in the UI": upgrade what? (the heading leans on the page's title)
    words = rest.split()
    if words[0].lower() in DETERMINERS | {"and", "or", "for"} and words[0].lower() not in ("a", "an", "the", "your"):
        return None
    def cap(i: int) -> bool:
        return 0 <= i < len(words) and words[i][:1].isupper()

    rest = " ".join(w if (cap(i) and (not known(w) or cap(i - 1) or cap(i + 1) or cap(i - 2) and
                                      words[i - 1].lower() in ("for", "of", "to", "and", "on")))
                    or w.isupper() or any(ch.isdigit() for ch in w) else w.lower() for i, w in enumerate(words))
    return f"How do you {lemma} {rest}?"


_ONLY_A_POINTER = re.compile(r"^\W*(?:for more information|for details|see |refer to |learn more)", re.I)


def procedure_questions(doc: Document) -> list[tuple[str, str, Passage]]:
    """(question, reference answer, passage) for a heading that names a task: the passage under it (of its
    first four) that holds most of the heading's words, the first on a tie."""
    out: list[tuple[str, str, Passage]] = []
    prev_section = None
    passages = list(doc.passages)
    for i, p in enumerate(passages):
        if p.section and p.section != prev_section:
            q = heading_question(p.section)
            if q:
                under = [x for x in passages[i:i + 4] if x.section == p.section and not _ONLY_A_POINTER.match(x.text)]
                if under:  # a passage that only points elsewhere ("For more information, see ...") answers nothing
                    best = max(under, key=lambda x: (_overlap(p.section, x.text), -x.index))
                    out.append((q, _answer(best), best))
        prev_section = p.section
    return out


def _overlap(heading: str, text: str) -> int:
    """How many of a heading's content words a passage holds (by their first five letters: "deliver",
    "delivery")."""
    stems = {w.lower()[:5] for w in re.findall(r"[A-Za-z]{4,}", heading)}
    return len(stems & {w.lower()[:5] for w in re.findall(r"[A-Za-z]{4,}", text)})


def resolver(doc: Document) -> Callable[[str], str | None]:
    """``resolve(words)``: the name the page gives most often to a thing of kind ``words`` (None: none)."""
    text = "\n".join([*(p.section for p in doc.passages), *(p.text for p in doc.passages)])
    cache: dict[str, str | None] = {}

    def resolve(words: str) -> str | None:
        if words in cache:
            return cache[words]
        rx = re.compile(rf"((?:{_NAME_WORD}[ \t]+(?:{_GLUE}[ \t]+)?){{1,6}})((?i:{re.escape(words)}))\b")
        seen: Counter[str] = Counter()
        for m in rx.finditer(text):
            if re.search(r"\d\s*$", text[max(0, m.start() - 3):m.start()]):
                continue  # "100 Gbps bandwidth": a unit, not a name
            parts = m.group(1).split()
            while parts and (parts[0].lower() in DETERMINERS or parts[0].lower() in PREPOSITIONS or
                             parts[0].lower() in ("if", "when", "and", "or", "but", "each", "every", "to")):
                parts.pop(0)
            while parts and re.fullmatch(_GLUE, parts[-1]):
                parts.pop()
            if not parts:
                continue
            caps = [w for w in parts if w[:1].isupper()]
            if len(caps) < 2 and all(known(w) for w in caps):
                continue  # "Campsites pilot": a sentence's first word, not a name
            head = m.group(2)
            name = " ".join(parts)
            seen[f"{name} {head}" if head[:1].isupper() else f"the {name} {head}"] += 1
        cache[words] = seen.most_common(1)[0][0] if seen else None
        return cache[words]

    return resolve


_NAME = re.compile(rf"\b{_NAME_WORD}(?:[ \t]+(?:(?:of|for|to|and|&)[ \t]+)?{_NAME_WORD}){{1,4}}")


def names_in(text: str) -> list[str]:
    """The names of two or more capitalised words in ``text`` ("Event Notifications", "Watson Discovery"),
    not at a sentence's start unless the name goes on past its first word."""
    out = []
    for m in _NAME.finditer(text):
        words = m.group().split()
        while words and (words[0].lower() in DETERMINERS or words[0].lower() in PREPOSITIONS or
                         words[0].lower() in ("if", "when", "you", "your", "we", "it", "this")):
            words.pop(0)
        inside = bool(re.search(r"[a-z,]\s+$", text[:m.start()]))  # "an Event Notifications service": mid-sentence
        if len(words) >= 2 and (inside or not all(known(w) and w[1:].islower() for w in words)):
            out.append(" ".join(words))
    return out


def topic(doc: Document) -> str | None:
    """The name a page is about: the name of two or more words it uses most (at least three times); None
    when there is none."""
    seen: Counter[str] = Counter()
    for p in doc.passages:
        for name in names_in(f"{p.section}\n{p.text}"):
            seen[name] += 1
    best = [(n, k) for k, n in seen.items() if n >= 3]
    return max(best)[1] if best else None


_HEADING_LEAD = re.compile(r"^(?:about|introduction to|overview of|what is|what are)\s+", re.I)


def heading_name(heading: str) -> str | None:
    """A heading that is a name ("About Watson Assistant" -> "Watson Assistant", "IBM Cloud Satellite
    Specialty"): two to six words, at least two capitalised, one of them a name or an acronym rather than
    a dictionary word (so "Next Steps" is not one); None otherwise."""
    h = _HEADING_LEAD.sub("", " ".join(heading.strip(" #*_:").split()))
    words = h.split()
    if not 2 <= len(words) <= 6 or re.search(r"[?.!,;:|{}<>=\\`@#\[\]()]", h) or heading_question(h):
        return None
    caps = [w for w in words if w[:1].isupper()]
    if len(caps) < 2 or words[0].lower() in DETERMINERS | PREPOSITIONS or \
            any(w.lower() in _GENRE | {"and", "or", "vs", "versus"} for w in words):
        return None  # "Library Card FAQ", "Mars and Roman aqueducts": a page's kind, two things
    if not any(w.isupper() and len(w) > 1 or not known(w) or any(ch.isupper() for ch in w[1:]) for w in caps):
        return None
    return h


def name_questions(doc: Document) -> list[tuple[str, str, Passage]]:
    """("What is X?", the text under it, passage) for a heading that names a thing, when the first passage
    under it speaks of it (half the name's words in its text)."""
    out: list[tuple[str, str, Passage]] = []
    prev_section = None
    for p in doc.passages:
        if p.section and p.section != prev_section:
            name = heading_name(p.section)
            words = [w.lower() for w in re.findall(r"\w+", name or "")]
            if name and sum(w in p.text.lower() for w in words) * 2 >= len(words) and len(p.text) >= 60:
                out.append((f"What is {name}?", _answer(p), p))
        prev_section = p.section
    return out


_DEF_ITEM = re.compile(r"^\s*(?P<term>[^\n:]{1,60}?)\s*\n\s*:\s+(?P<desc>\S.*)$", re.S)


def glossary_questions(doc: Document) -> list[tuple[str, str, Passage, str]]:
    """(question, answer, passage, kind) for a definition list's items ("--memory, -m" / ": The amount of
    memory that is set for runs of the job. ... The default value is 0."): what the term is or does, and
    its default value when the item states one."""
    out: list[tuple[str, str, Passage, str]] = []
    for p in doc.passages:
        m = _DEF_ITEM.match(p.text)
        if not m:
            continue
        term = m.group("term").split(",")[0].strip(" `*")
        if not term or len(term.split()) > 5:
            continue
        name = f"the {term} option" if term.startswith("-") else term
        desc = m.group("desc")
        spans = split_spans(desc)
        if not spans:
            continue
        first = desc[spans[0][0]:spans[0][1]].strip()
        toks = tokens(first)
        if len(toks) >= 4:
            if toks[0].low in ("the", "a", "an"):
                out.append((f"What is {name}?", first.rstrip("."), p, "term"))
            elif toks[0].is_word and verb_lemma(toks[0].text) and toks[0].low.endswith("s"):
                out.append((f"What does {name} {verb_lemma(toks[0].text)}?", first.rstrip("."), p, "term"))
        dv = re.search(r"\bThe default(?: value)? is ([^\s.]+(?:\.\d+)?)\.", desc)
        if dv:
            out.append((f"What is the default value of {name}?", dv.group(1), p, "default"))
    return out

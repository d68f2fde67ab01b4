"""Which lines of a response are Markdown structure, not claims.

:func:`structure_lines` returns the ``(start, end)`` spans of the lines of a text that only lay it
out. ``evaluators.sentencize`` leaves them out of a response's sentences (no key, never judged);
Inspect shows them greyed as "not judged"; the LLM labeling prompt shows them without a key as the
context of the sentences under them.

Structure
---------
* a code-fence line (```` ``` ````, ```` ```python ````, ``~~~``) — the lines between two fences
  are code and stay claims (a command can be right or wrong), and none of them is a heading;
* a footnote / link-reference definition (``[^1]: …``, ``[2]: https://…``: a source list);
* a horizontal rule (``---``, ``***``, ``___``), a setext underline (``===`` / ``---`` right under a
  text line) and a table separator row (``|---|:---:|``);
* a table's header row (the row right above its separator row: column names);
* a title — an ATX heading (``# …`` to ``###### …``), the text line above a setext underline, a line
  that is wholly bold outside a list (``**Pricing**``), or a label line that ends in a colon and is
  wholly bold or at most ``LABEL_WORDS`` words (``**Key points:**``, ``- Steps:``, ``Reviews:``) —
  **unless it reads as a claim** (:func:`reads_as_claim`).

A title reads as a claim when it ends in ``.`` or ``!``; or holds a finite auxiliary / copula
(``is``, ``are``, ``has``, ``can``, ``will`` …) and does not start with a question word ("What is
RAG" is a title); or, not being in Title Case, holds a verb in ``-s`` / ``-ed`` form (lemminflect's
lexicon) that is neither its first nor its last word ("The Basic plan costs $5", not "Key features"
nor "Supported devices"). A title ending in ``?`` is a question, never a claim. The rule leans to
judging: a noun phrase it takes for a claim ("Pricing plans for teams") is judged, as every line was
before. Longer label lines ("To reset the TV, follow these steps:") stay sentences (the labelers
decide that they need no support).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

#: A label line (ending in ":") that is not wholly bold is structure only up to this many words.
LABEL_WORDS = 4

_LINE = re.compile(r"[^\n\r]+")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_UNDERLINE = re.compile(r"^ {0,3}(?:={3,}|-{3,})[ \t]*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_LIST = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_WHOLLY_EMPHASIZED = re.compile(r"^(\*\*|__)(?=\S)(.+?)(?<=\S)\1\s*(:?)\s*$")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")
#: A footnote or link-reference definition line (``[^1]: Source title``, ``[2]: https://…``): the
#: answer's source list, no claim (``evaluators.citations`` reads it).
_DEFINITION = re.compile(r"^ {0,3}\[\^?[\w.\-]{1,40}\]:\s")
#: Emphasis marks and code ticks (``**``, ``__``, a ``*`` hugging a word, `````); the trace labeler's
#: tokenizer drops them too (``heuristic_features.strip_markup``).
EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])|`")
_WORD = re.compile(r"[^\W_][\w'’\-]*|\$?\d[\d.,]*%?")

_FINITE = frozenset(
    """is are was were am has have had does did can cannot could will would should must isn't aren't
    wasn't weren't hasn't haven't hadn't doesn't didn't can't couldn't won't wouldn't shouldn't""".split())
_QUESTION = frozenset("what how why when where which who whose whom".split())
_SMALL = frozenset("a an the and or of to in on for with by at from vs via as per".split())


def link_text(text: str, documents: Sequence[str] = ()) -> str:
    """``text`` with each Markdown link read as its text (``[the pricing page](https://…)`` -> ``the
    pricing page``) unless one of ``documents`` holds its address: a citation's URL is where the answer
    points, not a statement the documents must hold — but an address copied from a document stays, as
    evidence like any other words of it."""
    if "](" not in text:
        return text
    return _LINK.sub(lambda m: m.group(0) if any(m.group(2).strip() in d for d in documents) else m.group(1), text)


def plain(text: str) -> str:
    """``text`` without emphasis, code ticks and link targets (``[text](url)`` -> ``text``)."""
    return EMPHASIS.sub("", link_text(text))


@lru_cache(maxsize=20_000)
def _verb_form(word: str) -> bool:
    """An ``-s`` / ``-ed`` form of a verb in lemminflect's lexicon ("costs", "launched")."""
    low = word.lower()
    if not (low.endswith("s") or low.endswith("ed")) or len(low) < 4:
        return False
    try:
        import lemminflect
    except ImportError:  # pragma: no cover - a runtime dependency
        return False
    return any(lemma != low for lemma in lemminflect.getAllLemmas(low).get("VERB", ()))


def _title_case(words: list[str]) -> bool:
    alpha = [w for w in words if w[0].isalpha() and w.lower() not in _SMALL]
    return bool(alpha) and all(w[0].isupper() for w in alpha)


def reads_as_claim(title: str) -> bool:
    """True when a heading / label text reads as a sentence that states something (module doc)."""
    t = plain(title).strip().rstrip(":").strip()
    if not t or t.endswith("?"):
        return False
    if t[-1] in ".!":
        return True
    words = _WORD.findall(t)
    if not words:
        return False
    if words[0].lower() in _QUESTION:
        return False
    if any(w.lower().replace("’", "'") in _FINITE for w in words):
        return True
    return not _title_case(words) and any(_verb_form(w) for w in words[1:-1] if w[0].isalpha())


def _title(line: str) -> str | None:
    """The text of a bold or label line that may be a title, else None."""
    body = _LIST.sub("", line, count=1)
    in_list = len(body) != len(line)
    body = body.strip()
    m = _WHOLLY_EMPHASIZED.match(body)
    if m and ("*" not in m.group(2) and "_" not in m.group(2)):
        if m.group(3) or m.group(2).rstrip().endswith(":"):  # "**Key points:**" / "**Key points**:"
            return m.group(2)
        return None if in_list else m.group(2)  # "- **Restart the router**" is a step, not a title
    if body.endswith(":") and len(_WORD.findall(plain(body))) <= LABEL_WORDS:
        return body
    return None


@lru_cache(maxsize=65536)
def structure_lines(text: str) -> tuple[tuple[int, int], ...]:
    """Spans of the lines of ``text`` that are Markdown structure (see the module's docstring)."""
    lines = [(m.start(), m.end(), m.group(0)) for m in _LINE.finditer(text or "") if m.group(0).strip()]
    out: list[tuple[int, int]] = []

    def add(i: int) -> None:
        if not out or out[-1] != lines[i][:2]:
            out.append(lines[i][:2])

    fence: str | None = None
    for i, (s, _e, line) in enumerate(lines):
        # the line right above, when no blank line lies between
        above = lines[i - 1][2] if i and not _blank_between(text, lines[i - 1][1], s) else None
        f = _FENCE.match(line)
        if fence is not None:  # inside a code block: only its closing fence is structure
            if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence) and not line[f.end():].strip():
                fence = None
                add(i)
        elif f:
            fence = f.group(1)
            add(i)
        elif _UNDERLINE.match(line) and above is not None and _paragraph(above):
            if not reads_as_claim(above):  # setext: the line above is a heading
                add(i - 1)
            add(i)
        elif _DEFINITION.match(line):
            add(i)
        elif _RULE.match(line) or _TABLE_SEP.match(line):
            if "|" in line and above is not None and "|" in above:
                add(i - 1)  # the table's header row: column names
            add(i)
        elif (m := _ATX.match(line)) is not None:
            if not reads_as_claim(m.group(1) or ""):
                add(i)
        elif (title := _title(line)) is not None and not reads_as_claim(title):
            add(i)
    return tuple(out)


def _paragraph(line: str) -> bool:
    """A text line that a setext underline turns into a heading (not a list item, table row,
    heading or fence)."""
    return not (_LIST.match(line) or "|" in line or _ATX.match(line) or _FENCE.match(line))


def _blank_between(text: str, end: int, start: int) -> bool:
    """A blank line lies between two lines (whitespace-only lines are not in the list)."""
    gap = text[end:start]
    return gap.count("\n") + gap.count("\r") - gap.count("\r\n") >= 2

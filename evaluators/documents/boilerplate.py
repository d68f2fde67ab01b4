"""The lines of a page that are not its content: menus, link lists, breadcrumbs, "Contact Us", cookie
banners, footers and copyright lines, a site's own lines ("Was this page helpful?", "Share",
"Sign up or log in"), a forum's list of other questions, page numbers, and lines repeated on other
pages of the same site. What a crawler leaves around a page's text, in .txt, .md and .pdf alike
(HTML goes through a main-content extractor first: :func:`.readers.main_content`).

Contract: :func:`classify` reads ``text`` line by line and returns every non-blank line as a
:class:`Line` (an exact slice, ``text[start:end]``, without its surrounding spaces) with ``kind`` —
"" for content (paragraphs, headings, list items), else one of :data:`KINDS` (the reason shown to a
person). Rules, each on what a page's chrome is, none on a site's names:

* a line of links only (Markdown ``[text](url)`` or images, at most a three-word label beside them);
* breadcrumbs: three or more short parts joined by ``>`` ``»`` ``›`` ``/`` (two with an arrow);
* a cookie banner, a copyright line, a page number, a site's own words (skip links, "Was this
  page helpful?", "Last updated", "Share", "Follow us", "By clicking ... you agree to ...");
* a menu: three or more short lines in a row (five words or fewer, no full stop) — unless a line
  ending in ":" introduces them (a list of the content) — and short lines before the first and
  after the last paragraph of the page, but for the headings just above a paragraph;
* three or more questions in a row with no answer between them (a list of links to other pages);
* a line repeated on other pages given with it (``repeated``: see :func:`repeated_lines`), or three
  times or more in this one (running headers and footers), unless it heads a paragraph of its own.

A short line that stands above a paragraph is a heading and stays: it names the section the
paragraph is under. Nothing here rewrites the text; the chunker leaves these lines out of passages.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

#: kind -> what it is, in the words shown to a person ("9 sentences in menus").
KINDS: dict[str, str] = {
    "menu": "menus", "links": "link lists", "breadcrumb": "breadcrumbs", "cookie": "cookie banners",
    "footer": "footers", "site": "the site's own lines (share, feedback, sign-up)",
    "questions": "lists of other pages' questions", "repeated": "lines repeated on other pages",
}

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LIST_MARK = re.compile(r"^\s*(?:[-*•+▪◦]|\d{1,3}[.)])\s+")
_CRUMB_SEP = re.compile(r"\s+(?:>|»|›|→|/)\s+")
_ARROW = re.compile(r"\s(?:>|»|›|→)\s")
_MENU_SEP = re.compile(r"\s+(?:\||·|•)\s+")
_WORD = re.compile(r"\w+", re.UNICODE)
_END = re.compile(r"[.;!?]$")
_PAGE_NO = re.compile(r"^(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?$", re.I)
#: A whole line that is a menu entry wherever it stands (compared by :func:`norm`).
NAV_WORDS = frozenset(p.strip() for p in """home, menu, main menu, search, contact, contact us, about, about us,
privacy, privacy policy, privacy notice, terms, terms of use, terms of service, terms and conditions, conditions of use,
accessibility, sitemap, site map, log in, login, log out, sign in, sign up, register, my account, account, help,
faq, faqs, careers, jobs, employment, press, news, newsletter, subscribe, donate, print, email, share, tweet,
facebook, twitter, instagram, youtube, linkedin, pinterest, tiktok, back to top, top, next, previous, prev, more,
read more, yes, no, feedback, español, english, français, deutsch, cookie policy, cookie settings,
cookie preferences, legal, follow us, related links, quick links, useful links, skip to content,
skip to main content""".replace("\n", " ").split(","))
_NAV = NAV_WORDS
_SITE = re.compile(
    r"^(?:skip (?:directly )?to\b|was this (?:page|topic|article|answer|information|content)\b.*\?$|"
    r"(?:page )?last (?:updated|reviewed|modified)\b|content source:|share (?:this|on)\b|follow (?:us|@)|"
    r"back to top|print (?:this )?page|edit (?:this page|topic|on github)|help us improve|rate this\b|"
    r"sign up or log in|post as a guest|add a comment|improve this (?:answer|question)|"
    r"(?:answered|asked|edited|modified) \w{3}\.? \d{1,2}(?:, \d{4})? at \d|"
    r"not the answer you're looking for|browse other questions|you must be logged in|"
    r"please enable javascript|this site requires javascript|subscribe to (?:our|the) newsletter)", re.I)
_LEGAL = re.compile(r"\b(?:by (?:clicking|continuing|using)\b.*\b(?:agree|accept|consent)|you agree to (?:our|the)\b"
                    r".*\b(?:terms|policy|cookies))", re.I)


@dataclass(frozen=True)
class Line:
    start: int
    end: int
    text: str
    #: "" for content, else a key of :data:`KINDS`.
    kind: str = ""


def lines_of(text: str) -> list[Line]:
    """The non-blank lines of ``text``, each without its surrounding spaces."""
    out: list[Line] = []
    pos = 0
    for raw in text.split("\n"):
        s = len(raw) - len(raw.lstrip())
        e = len(raw.rstrip())
        if e > s:
            out.append(Line(pos + s, pos + e, raw[s:e]))
        pos += len(raw) + 1
    return out


def norm(line: str) -> str:
    """A line as compared across pages: link text kept, markers, marks and case dropped."""
    t = _LINK.sub(lambda m: m.group(1), line)
    t = _LIST_MARK.sub("", t.lstrip("#> ").strip())
    return " ".join(_WORD.findall(t.lower()))


def repeated_lines(texts: Iterable[str], min_docs: int = 2) -> frozenset[str]:
    """The lines (by :func:`norm`) found in at least ``min_docs`` of ``texts``: a site's chrome when
    the texts are pages of one site."""
    seen: Counter[str] = Counter()
    for t in texts:
        seen.update({n for ln in lines_of(t) if (n := norm(ln.text))})
    return frozenset(n for n, c in seen.items() if c >= min_docs)


def _words(s: str) -> int:
    return len(_WORD.findall(s))


def _short(s: str) -> bool:
    body = _LINK.sub(lambda m: m.group(1), _LIST_MARK.sub("", s))
    return (_words(body) <= 5 and len(body) <= 60 and not re.search(r"[.;:!?]$", body.rstrip(" *_"))
            and not s.startswith("#"))


def _is_item(s: str) -> bool:
    return bool(_LIST_MARK.match(s))


def _own_kind(s: str) -> str:
    """The kind of a line by itself (before looking at its neighbours)."""
    low = s.lower()
    links = _LINK.findall(s)
    if links:
        rest = _LINK.sub(" ", _LIST_MARK.sub("", s))
        rest_words = _words(re.sub(r"[|•·>/\-–—:,]", " ", rest))
        if rest_words <= 3 and (len(links) >= 2 or rest_words == 0):
            return "links"
    n = norm(s)
    if not n:
        return "links" if links else ""
    if "cookie" in low and re.search(r"accept|agree|consent|use (?:of )?cookies|uses cookies|preferences|"
                                     r"settings|polic", low):
        return "cookie"
    if (low.lstrip("* ").startswith(("©", "copyright", "(c) ")) or "all rights reserved" in low
            or re.search(r"©\s*\d{4}", s)) and _words(s) <= 30:
        return "footer"
    if _PAGE_NO.match(s.strip()):
        return "footer"
    text = _LINK.sub(lambda m: m.group(1), _LIST_MARK.sub("", s)).strip()
    if _SITE.match(text) or _LEGAL.search(text):
        return "site"
    if n in _NAV:
        return "menu"
    parts = _CRUMB_SEP.split(text)
    if (len(parts) >= 3 or (len(parts) == 2 and _ARROW.search(text))) and \
            all(0 < _words(p) <= 6 and not p.rstrip().endswith(".") for p in parts):
        return "breadcrumb"
    items = _MENU_SEP.split(text)
    if len(items) >= 3 and all(0 < _words(p) <= 4 and not _END.search(p) for p in items):
        return "menu"
    return ""


def _content(ln: Line) -> bool:
    """A line that is a paragraph of the page (not a heading, not chrome)."""
    return not ln.kind and not _short(ln.text) and (_words(ln.text) >= 6 or bool(_END.search(ln.text)))


def classify(text: str, repeated: frozenset[str] | Sequence[str] = frozenset()) -> list[Line]:
    """Every non-blank line of ``text`` with its kind (see the module docstring)."""
    lines = lines_of(text)
    if not lines:
        return []
    rep = frozenset(repeated)
    inside = Counter(norm(ln.text) for ln in lines)
    kinds = [_own_kind(ln.text) for ln in lines]
    n = len(lines)
    # a list of questions with no answer between them
    i = 0
    while i < n:
        j = i
        while j < n and lines[j].text.rstrip(" *_").endswith("?") and not lines[j].text.startswith("#") and \
                _words(lines[j].text) <= 25:
            j += 1
        if j - i >= 3:
            for k in range(i, j):
                kinds[k] = kinds[k] or "questions"
        i = max(j, i + 1)
    # lines repeated on other pages, or running headers / footers of this one
    for k, ln in enumerate(lines):
        nm = norm(ln.text)
        if kinds[k] or not nm:
            continue
        if (nm in rep or inside[nm] >= 3) and _words(ln.text) <= 12:
            kinds[k] = "repeated"
    # menus: runs of short lines (or of lines already found to be chrome) with three short ones or more
    i = 0
    while i < n:
        if not (_short(lines[i].text) or kinds[i]):
            i += 1
            continue
        j = i
        while j < n and (_short(lines[j].text) or kinds[j]):
            j += 1
        shorts = [k for k in range(i, j) if not kinds[k] and _short(lines[k].text)]
        intro = i > 0 and lines[i - 1].text.rstrip(" *_").endswith(":") and not kinds[i - 1]
        items = sum(_is_item(lines[k].text) for k in shorts)
        if len(shorts) + sum(1 for k in range(i, j) if kinds[k]) >= 3 and not intro and \
                not (items == len(shorts) and items >= 3 and not any(kinds[i:j])):
            for k in shorts:
                kinds[k] = "menu"
        i = j
    marked = [Line(ln.start, ln.end, ln.text, k) for ln, k in zip(lines, kinds)]
    # before the first paragraph and after the last, short lines are chrome — but for headings
    paras = [k for k, ln in enumerate(marked) if _content(ln)]
    if paras:
        first, last = paras[0], paras[-1]
        for k in list(range(0, first)) + list(range(last + 1, n)):
            if not kinds[k] and _short(lines[k].text) and not lines[k].text.startswith("#"):
                kinds[k] = "menu"
    # a short line right above a paragraph is its heading, whatever else it looked like
    for k in range(n - 1):
        if kinds[k] in ("menu", "repeated") and _short(lines[k].text) and not _LINK.search(lines[k].text) and \
                norm(lines[k].text) not in _NAV and _content(Line(0, 0, lines[k + 1].text, kinds[k + 1])):
            kinds[k] = ""
    return [Line(ln.start, ln.end, ln.text, k) for ln, k in zip(lines, kinds)]

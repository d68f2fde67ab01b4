"""Split documents and responses into keyed sentences.

Keys
----
* Document sentences: ``<document index><letters>`` — ``0a, 0b, …, 0z``, then ``0aa, 0ab, …, 0az,
  0ba, …`` (bijective base-26, like spreadsheet columns: after ``z`` comes ``aa``; after ``zz`` comes
  ``aaa``). The digits say which document, the letters which sentence, so keys never collide
  (``1` + ``0a`` is impossible: letters never contain digits).
* Response sentences: ``a, b, …, z, aa, ab, …`` with the same scheme.

Keys depend only on the text, so they are stable across runs.

Markdown structure in responses
-------------------------------
A response's lines that only lay it out — headings (``## Pricing``), setext underlines, horizontal
rules, code-fence lines, a table's header and separator rows, label lines ("**Key points:**",
"Steps:") — are not claims: they get no sentence and no key (keys run on over the sentences that
remain), so no labeler judges them and no metric counts them. A heading that reads as a claim
("# The Basic plan costs $5") stays a sentence. The rule is :mod:`evaluators.markdown_lines`; the
text and the spans of the remaining sentences are as written (markup such as ``**bold**`` stays in
``text``; the labelers read past it). Documents keep every line (a heading is harmless evidence).

Splitting
---------
Text is first cut at line breaks (so bullets, numbered lists and table rows become their own
sentences), then each line is split with ``nupunkt`` (an offline Punkt model; NLTK's punkt data
cannot be downloaded here). Inline list markers that nupunkt cuts off ("Steps: 1. Install. 2. Run.")
are re-attached to their item; German ordinal dates ("am 3. Oktober") and titles nupunkt misses
("Lt. Col. Smith") are not cut. In responses, a quotation spanning sentences and a lower-case
continuation ("… at help@ibm.com. to fix it.") stay one sentence (one claim, judged once). Bullet
markers stay in the sentence text; pieces with no letters or digits (a lone "-" or "•") are dropped.
A sentence longer than ``MAX_SENTENCE_CHARS`` is cut at the last ``;``/``,``/space before the limit,
so one run-on "sentence" cannot swallow a whole document. Every sentence keeps its character span
in the original text.

Structured documents
--------------------
A document that reads as JSON (an object, an array of records, JSON Lines) or holds tables
(Markdown, HTML, CSV) is split into its facts instead (``evaluators.structured``): one sentence per
leaf value (``hours › Monday: 08:00–14:00``), per sentence of a long text value, per table row.
Such a sentence's ``text`` is the fact as it reads and its ``start`` / ``end`` the fact's place in
the original text (``"Monday": "8:0-14:0"``), so there ``text`` differs from
``document[start:end]``; for prose they are equal. Keys are the same ``0a, 0b, …``; prose is split
exactly as before.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from . import markdown_lines, structured
from .types import CaseResult, Sentence, SentenceSpans, SentencizedCase, TestCase

MAX_SENTENCE_CHARS = 600

_HAS_WORD = re.compile(r"\w", re.UNICODE)
_LINE = re.compile(r"[^\n\r]+")
# Sentence-ending punctuation of scripts nupunkt's English model does not know (CJK, Devanagari, Arabic).
_FOREIGN_END = re.compile(r"(?<=[。！？｡।؟])\s*")


def letters(i: int) -> str:
    """0 -> 'a', 25 -> 'z', 26 -> 'aa', 27 -> 'ab', 701 -> 'zz', 702 -> 'aaa'."""
    if i < 0:
        raise ValueError("index must be >= 0")
    out = ""
    i += 1
    while i > 0:
        i, r = divmod(i - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def letters_index(s: str) -> int:
    """Inverse of :func:`letters`."""
    n = 0
    for ch in s:
        n = n * 26 + (ord(ch) - ord("a") + 1)
    return n - 1


_DOC_KEY = re.compile(r"^(\d+)([a-z]+)$")


def parse_doc_key(key: str) -> tuple[int, int] | None:
    """'1c' -> (1, 2); None when it is not a document key."""
    m = _DOC_KEY.match(key.strip())
    if not m:
        return None
    return int(m.group(1)), letters_index(m.group(2))


@lru_cache(maxsize=1)
def _spans_fn():
    import nupunkt

    return nupunkt.sent_spans


def _cut_long(text: str, start: int, end: int) -> Iterable[tuple[int, int]]:
    while end - start > MAX_SENTENCE_CHARS:
        window = text[start : start + MAX_SENTENCE_CHARS]
        cut = max(window.rfind("; "), window.rfind(", "))
        if cut < MAX_SENTENCE_CHARS // 3:
            cut = window.rfind(" ")
        if cut <= 0:
            cut = MAX_SENTENCE_CHARS - 1
        piece_end = start + cut + 1
        while piece_end > start and text[piece_end - 1].isspace():  # a cut at a space: trim it
            piece_end -= 1
        yield start, piece_end
        start += cut + 1
        while start < end and text[start].isspace():
            start += 1
    if start < end:
        yield start, end


# A piece that is only a list marker ("2.", "(3)", "b)", "iv.") belongs to the next sentence.
_MARKER_ONLY = re.compile(r"^\s*(?:\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxIVX]{1,4}[.)])\s*$")
# "Steps: 1." — an inline list's first marker stuck to the introducing clause (only when a
# marker-only piece follows, so "Total: 1. Next sentence." is left alone).
_TRAILING_MARKER = re.compile(r"(?<=[:;])\s+(1[.)])\s*$")
# German ordinal dates ("am 3. Oktober") are not sentence ends.
_ORDINAL_END = re.compile(r"(?<!\d)\d{1,2}\.\s*$")
_GERMAN_MONTH = re.compile(
    r"^(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember)\b"
)

# Titles before a name that nupunkt's model sometimes takes for a sentence end ("Lt. Col. Smith").
_TITLE_END = re.compile(
    r"(?:^|(?<=[\s(]))(?:Lt|Cmdr|Col|Gen|Sgt|Capt|Gov|Sen|Rep|Prof|Maj|Adm|Cpl|Pvt|Insp|Supt|Rev|Hon|"
    r"Dr|Mr|Mrs|Ms|Messrs|Mme|Mlle)\.\s*$"
)


def _merge_markers(chunk: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Repair nupunkt's cuts inside inline numbered lists, after titles and in German ordinal dates."""
    out: list[tuple[int, int]] = []
    carry: int | None = None  # start of a marker waiting for its sentence
    for i, (s, e) in enumerate(spans):
        if carry is not None:
            s, carry = carry, None
        last = i == len(spans) - 1
        piece = chunk[s:e]
        if not last and _MARKER_ONLY.match(piece):
            carry = s
            continue
        t = _TITLE_END.search(piece) if not last else None
        if t:
            head = piece[: t.start()].rstrip()
            if head and head[-1] in ".!?\"'”’)":  # "... said so. Cmdr." -> cut before the title
                out.append((s, s + len(head)))
                carry = s + t.start()
            else:  # "He met Lt." -> the whole piece continues
                carry = s
            continue
        if not last and _ORDINAL_END.search(piece) and _GERMAN_MONTH.match(chunk[spans[i + 1][0]:].lstrip()):
            carry = s
            continue
        m = _TRAILING_MARKER.search(piece) if not last else None
        if m and any(_MARKER_ONLY.match(chunk[s2:e2]) for s2, e2 in spans[i + 1:]):
            out.append((s, s + m.start()))
            carry = s + m.start(1)
            continue
        out.append((s, e))
    return out


# A piece that starts in lower case ("to resolve this.") continues the previous one when that one
# ended at a "." nupunkt mistook for a sentence end ("email verify@ibm.com. to resolve"); "iPhone",
# "eBay" (lower then upper case) are names and may start a sentence.
_LOWER_START = re.compile(r"^[a-z](?![A-Z])")


def _quote_open(piece: str) -> bool:
    """True when ``piece`` leaves a double quotation open (odd straight quotes, or more “ than ”)."""
    straight = piece.count('"')
    return straight % 2 == 1 or piece.count("“") > piece.count("”")


def _closes_quote(piece: str) -> bool:
    return '"' in piece or "”" in piece


def _merge_continuations(chunk: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Undo cuts inside a quotation and before a lower-case continuation (one line at a time).

    A quotation is kept whole only when a later piece of the line closes it and the result stays
    under ``MAX_SENTENCE_CHARS`` (a stray quote mark never swallows the rest of the line)."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        s, e = spans[i]
        if out and _LOWER_START.match(chunk[s:e]) and chunk[out[-1][0]:out[-1][1]].rstrip().endswith("."):
            out[-1] = (out[-1][0], e)
            i += 1
            continue
        if _quote_open(chunk[s:e]):
            for j in range(i + 1, min(i + 4, len(spans))):
                if spans[j][1] - s > MAX_SENTENCE_CHARS:
                    break
                if _closes_quote(chunk[spans[j][0]:spans[j][1]]):
                    e = spans[j][1]
                    i = j
                    break
        out.append((s, e))
        i += 1
    return out


@lru_cache(maxsize=65536)
def split_spans(text: str, whole_claims: bool = False) -> tuple[tuple[int, int], ...]:
    """Character spans of the sentences of ``text`` (whitespace trimmed, empty pieces dropped).

    ``whole_claims`` (responses): a quotation that spans several sentences and a lower-case
    continuation stay in one sentence, so one claim is judged once. Documents keep the finer
    split (a quoted speech of five sentences is five pieces of evidence)."""
    spans: list[tuple[int, int]] = []
    sent_spans = _spans_fn()
    for line in _LINE.finditer(text or ""):
        base = line.start()
        chunk = line.group(0)
        if not _HAS_WORD.search(chunk):
            continue
        pieces = _merge_markers(chunk, list(sent_spans(chunk)))
        if whole_claims:
            pieces = _merge_continuations(chunk, pieces)
        for s, e in pieces:
            piece = chunk[s:e]
            # nupunkt does not split on CJK/Devanagari/Arabic terminators: cut there too.
            sub_start = s
            for m in _FOREIGN_END.finditer(piece):
                if m.end() < len(piece):
                    spans.append((base + sub_start, base + s + m.start()))
                    sub_start = s + m.end()
            spans.append((base + sub_start, base + e))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s and _HAS_WORD.search(text[s:e]):
            out.extend(_cut_long(text, s, e))
    return tuple(out)


def split_sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_spans(text)]


@lru_cache(maxsize=2048)
def document_pieces(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, text) of the sentences of a document: its facts when it is structured (see
    the module's docstring), else its prose sentences. Cached per text: a retrieval repeats
    passages (817 QA cases of the shared files hold 2,571 documents, 1,370 distinct), and each is
    parsed once."""
    st = structured.parse(text, split_spans)
    if st is not None:
        return tuple((f.start, f.end, f.text) for f in st.facts)
    return tuple((s, e, text[s:e]) for s, e in split_spans(text or ""))


def sentencize_document(text: str, doc_index: int) -> tuple[Sentence, ...]:
    return tuple(
        Sentence(key=f"{doc_index}{letters(i)}", text=t, start=s, end=e, doc=doc_index)
        for i, (s, e, t) in enumerate(document_pieces(text or ""))
    )


def response_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Spans of a response's sentences: :func:`split_spans` with whole claims, less the pieces of
    lines that are only Markdown structure (``evaluators.markdown_lines``: headings, rules, fences,
    table header / separator rows, label lines such as "**Key points:**")."""
    structure = markdown_lines.structure_lines(text or "")
    spans = split_spans(text or "", whole_claims=True)
    if not structure:
        return spans
    return tuple((s, e) for s, e in spans if not any(a <= s < b for a, b in structure))


def sentencize_response(text: str) -> tuple[Sentence, ...]:
    return tuple(
        Sentence(key=letters(i), text=text[s:e], start=s, end=e)
        for i, (s, e) in enumerate(response_spans(text or ""))
    )


def structure_spans(sc: SentencizedCase) -> tuple[tuple[int, int], ...]:
    """The response's lines of Markdown structure that lie outside all its sentences (shown as
    "not judged"; a split stored by an older version may hold such a line as a sentence)."""
    return tuple((a, b) for a, b in markdown_lines.structure_lines(sc.case.response)
                 if not any(s.start < b and a < s.end for s in sc.response_sentences))


def sentencize_case(case: TestCase) -> SentencizedCase:
    docs: list[Sentence] = []
    for i, d in enumerate(case.documents):
        docs.extend(sentencize_document(d, i))
    return SentencizedCase(
        case=case, doc_sentences=tuple(docs), response_sentences=sentencize_response(case.response)
    )


class DocumentSentencizer:
    """Facade matching the published TRACE/RAGBench description.

    ``sentencize_documents(docs)`` returns ``[(key, sentence), ...]`` over all documents;
    ``sentencize_response(text)`` returns ``[(key, sentence), ...]`` for the response.
    """

    def sentencize_documents(self, documents: list[str]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for i, d in enumerate(documents):
            out.extend((s.key, s.text) for s in sentencize_document(d, i))
        return out

    def sentencize_response(self, response: str) -> list[tuple[str, str]]:
        return [(s.key, s.text) for s in sentencize_response(response)]


def spans_of(sc: SentencizedCase) -> SentenceSpans:
    """The character spans of a split case (stored with its labels)."""
    docs: list[list[tuple[int, int]]] = [[] for _ in sc.case.documents]
    for s in sc.doc_sentences:
        if s.doc is not None:
            docs[s.doc].append((s.start, s.end))
    return SentenceSpans(documents=tuple(tuple(d) for d in docs),
                         response=tuple((s.start, s.end) for s in sc.response_sentences))


def from_spans(case: TestCase, spans: SentenceSpans) -> SentencizedCase:
    """The split case of stored ``spans`` (keys and texts exactly as when it was labeled).
    ValueError when the spans do not fit the case's texts."""
    if len(spans.documents) != len(case.documents):
        raise ValueError(f"case {case.id}: spans for {len(spans.documents)} documents, the case has "
                         f"{len(case.documents)}")

    def build(text: str, pairs: tuple[tuple[int, int], ...], doc: int | None) -> list[Sentence]:
        out = []
        # a structured document's sentences read as its facts (matched by span; spans stored by
        # an earlier splitter match none and read as the text they cover)
        st = structured.parse(text, split_spans) if doc is not None and pairs else None
        facts = {(f.start, f.end): f.text for f in st.facts} if st is not None else {}
        for i, (s, e) in enumerate(pairs):
            if not 0 <= s < e <= len(text):
                where = "response" if doc is None else f"document {doc}"
                raise ValueError(f"case {case.id}: span ({s}, {e}) lies outside the {where}")
            key = letters(i) if doc is None else f"{doc}{letters(i)}"
            out.append(Sentence(key=key, text=facts.get((s, e), text[s:e]), start=s, end=e, doc=doc))
        return out

    docs = [x for d, (text, pairs) in enumerate(zip(case.documents, spans.documents))
            for x in build(text or "", pairs, d)]
    return SentencizedCase(case=case, doc_sentences=tuple(docs),
                           response_sentences=tuple(build(case.response, spans.response, None)))


def sentences_of(result: CaseResult) -> SentencizedCase:
    """A result's sentences as labeled: rebuilt from its stored ``spans``; only a result without
    spans (not split, or stored by an older version) is split again with today's splitter."""
    return sentencize_case(result.case) if result.spans is None else from_spans(result.case, result.spans)

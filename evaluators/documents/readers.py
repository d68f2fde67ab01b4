"""Bytes of one file -> its text, by kind: plain text and Markdown (decoded), HTML (its main content by
readability-lxml, laid out by inscriptis), PDF (pypdfium2: PDFium), Word .docx (python-docx). No
hand-written parser of a file format.

Contract: ``read_text(kind, data, name)`` returns ``(text, notes)`` or raises
:class:`~evaluators.documents.types.UnreadableDocument` whose message is the reason a person can act
on — binary data under a text name (named by its signature), a password-protected or otherwise
encrypted PDF that cannot be opened, a PDF with no text layer (a scan), a file that is not what its
extension says, no text at all. ``notes`` say what was worked around (a page without text, text
that was not UTF-8). The text keeps paragraph breaks as blank lines (what the chunker splits at);
a PDF's wrapped lines are joined back into paragraphs.
"""

from __future__ import annotations

import io
import re
import threading
from statistics import quantiles

from ..datasets.encoding import binary_kind, bom_encoding
from .types import UnreadableDocument

#: C0 control bytes that do not occur in text (tab, newlines, form feed and escape do).
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 27))
_SAMPLE = 65536


def decode(data: bytes, what: str = "text") -> tuple[str, list[str]]:
    """The text of a text file: UTF-8 / UTF-16 / UTF-32 (by BOM), else UTF-8, else Windows-1252
    with a note. Binary data raises UnreadableDocument naming what it looks like."""
    kind = binary_kind(data)
    if kind:
        raise UnreadableDocument(f"this is {kind[0]}, not {what}; give it its own extension")
    enc = bom_encoding(data)
    if enc:
        try:
            return data.decode(enc), []
        except UnicodeDecodeError as exc:
            raise UnreadableDocument(f"starts like {enc.upper()} text but is not valid {enc.upper()} "
                                     f"(byte {exc.start})") from None
    sample = data[:_SAMPLE]
    controls = sum(sample.count(b) for b in _CONTROL)
    if controls > max(2, 0.01 * len(sample)):
        raise UnreadableDocument(f"binary data, not {what} ({controls} control bytes such as \\x00 in its "
                                 f"first {len(sample):,} bytes)")
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace"), ["not UTF-8: read as Windows-1252"]


# --------------------------------------------------------------------------------------------- HTML

_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([\w-]+)""", re.I)


def html_text(data: bytes) -> tuple[str, list[str]]:
    m = _CHARSET.search(data[:4096])
    notes: list[str] = []
    if m and m.group(1).lower() not in (b"utf-8", b"utf8") and not bom_encoding(data):
        try:
            markup = data.decode(m.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            markup, notes = decode(data, "HTML")
    else:
        markup, notes = decode(data, "HTML")
    try:
        text = main_content(markup)
    except Exception as exc:  # noqa: BLE001 - lxml refuses some markup in odd ways
        raise UnreadableDocument(f"not readable as HTML ({type(exc).__name__}: {exc})") from None
    if text is None:
        notes.append("no main content told apart from the page's menus: the whole page read, menus dropped by line")
        try:
            text = _inscriptis(markup)
        except Exception as exc:  # noqa: BLE001
            raise UnreadableDocument(f"not readable as HTML ({type(exc).__name__}: {exc})") from None
    return text, notes


def _inscriptis(markup: str) -> str:
    import inscriptis
    from inscriptis.model.config import ParserConfig

    return inscriptis.get_text(markup, ParserConfig(display_links=False, display_images=False))


#: Below this many characters, the main content readability found is taken for a miss (a page of
#: one short paragraph is read whole: the line rules of :mod:`.boilerplate` still drop its menus).
MIN_MAIN_CHARS = 200


def main_content(markup: str) -> str | None:
    """The page's main content as text — its title, headings, paragraphs, lists and tables; without
    the menus, breadcrumbs, side bars, footers and banners around it — by readability-lxml (Mozilla
    Readability's scoring), then inscriptis for the layout of what it kept. None when it keeps less
    than ``MIN_MAIN_CHARS`` of text (a page that is mostly a list, a tiny page).

    Chosen by measuring (``bench/research/html_extractors.py``, 167 crawled pages in three markups):
    readability kept 97.9 % of the content's sentences and let 2.2 % of the chrome's lines through
    (the site's name in the title, mostly); trafilatura kept 92.3 % (it dropped half of some pages
    written as ``div`` soup) and leaked 0.1 %; inscriptis alone keeps 99 % and leaks 79 %.
    readability-lxml adds ~5 MB to the install, trafilatura ~50 MB."""
    import logging

    from readability import Document

    logging.getLogger("readability.readability").setLevel(logging.ERROR)
    doc = Document(markup)
    body = _inscriptis(doc.summary(html_partial=True))
    if len(body.strip()) < MIN_MAIN_CHARS:
        return None
    title = " ".join(doc.short_title().split())
    first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
    if title and title.lower() != first.lower() and title.lower() not in ("", "[no-title]"):
        body = f"{title}\n\n{body}"
    return body


# ---------------------------------------------------------------------------------------------- PDF

#: PDFium is not thread-safe: one document at a time in this process (two visitors uploading at once).
_PDFIUM = threading.Lock()


def pdf_text(data: bytes) -> tuple[str, list[str]]:
    """The text of a PDF by PDFium (pypdfium2: Chromium's own PDF engine; pure-Python pypdf took
    about a second a page on Chromium-printed PDFs here, PDFium a twentieth of that)."""
    import pypdfium2 as pdfium

    if not data[:1024].lstrip().startswith(b"%PDF"):
        kind = binary_kind(data)
        raise UnreadableDocument(f"not a PDF file ({kind[0] if kind else 'no %PDF header'})")
    texts: list[str] = []
    empty: list[int] = []
    with _PDFIUM:
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise UnreadableDocument("encrypted with a password: save a copy without the password") from None
            raise UnreadableDocument(f"not a readable PDF ({str(exc).replace('Failed to load document ', '')})") \
                from None
        try:
            n_pages = len(pdf)
            for i in range(n_pages):
                try:
                    page = pdf[i]
                    textpage = page.get_textpage()
                    t = textpage.get_text_bounded() or ""
                    textpage.close()
                    page.close()
                except pdfium.PdfiumError:  # one broken page must not lose the others
                    t = ""
                if t.strip():
                    texts.append(unwrap_pdf_lines(t))
                else:
                    empty.append(i + 1)
        finally:
            pdf.close()
    if not texts:
        raise UnreadableDocument(f"no text layer in its {n_pages} page{'s' if n_pages != 1 else ''}: a scanned "
                                 "PDF? Run OCR on it first (e.g. ocrmypdf)")
    notes = [f"no text on page{'s' if len(empty) > 1 else ''} {_ranges(empty)} (images only?)"] if empty else []
    return "\n\n".join(texts), notes


_SENTENCE_END = re.compile(r"[.!?:;)\"”’]$")


def unwrap_pdf_lines(page: str) -> str:
    """A page's lines joined back into paragraphs: a line as long as the page's long lines continues
    into the next one (a space, or nothing after a hyphen); a short line ends its paragraph."""
    lines = [ln.rstrip() for ln in page.replace("\r\n", "\n").replace("\r", "\n").splitlines()]
    lengths = [len(ln) for ln in lines if ln.strip()]
    if len(lengths) < 3:
        return "\n\n".join(ln.strip() for ln in lines if ln.strip())
    full = quantiles(lengths, n=10)[-1] if len(lengths) >= 10 else max(lengths)
    out: list[str] = []
    cur = ""
    for ln in lines:
        s = ln.strip()
        if not s:
            if cur:
                out.append(cur)
                cur = ""
            continue
        if cur:
            if cur.endswith("-") and s[:1].islower() and len(cur) > 1 and cur[-2].isalpha():
                cur = cur[:-1] + s
            else:
                cur = f"{cur} {s}"
        else:
            cur = s
        if len(s) < 0.75 * full or (_SENTENCE_END.search(s) and len(s) < 0.9 * full):
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return "\n\n".join(out)


def _ranges(nums: list[int]) -> str:
    parts: list[str] = []
    start = prev = nums[0]
    for n in [*nums[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)


# --------------------------------------------------------------------------------------------- DOCX

def docx_text(data: bytes) -> tuple[str, list[str]]:
    import zipfile

    if not data.startswith(b"PK"):
        kind = binary_kind(data)
        raise UnreadableDocument(f"not a Word .docx file ({kind[0] if kind else 'not a ZIP package'}"
                                 "; an old .doc? Save it as .docx)")
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        doc = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise UnreadableDocument(f"not a readable Word .docx file ({type(exc).__name__}: {exc})") from None
    blocks: list[str] = []
    body = doc.element.body
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for child in body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            t = Paragraph(child, doc).text.strip()
            if t:
                blocks.append(t)
        elif tag == "tbl":
            rows = []
            for row in Table(child, doc).rows:
                cells: list[str] = []
                for c in row.cells:  # merged cells repeat: keep one
                    t = c.text.strip()
                    if t and (not cells or cells[-1] != t):
                        cells.append(t)
                if cells:
                    rows.append(" | ".join(cells))
            if rows:
                blocks.append("\n".join(rows))
    return "\n\n".join(blocks), []


def read_text(kind: str, data: bytes) -> tuple[str, list[str]]:
    """(text, notes) of a file of ``kind`` ('text', 'markdown', 'html', 'pdf', 'docx')."""
    if kind in ("text", "markdown"):
        text, notes = decode(data, "text")
    elif kind == "html":
        text, notes = html_text(data)
    elif kind == "pdf":
        text, notes = pdf_text(data)
    elif kind == "docx":
        text, notes = docx_text(data)
    else:
        raise UnreadableDocument(f"no reader for {kind!r}")
    text = normalize(text)
    if not text.strip():
        raise UnreadableDocument("no text in it (empty)")
    return text, notes


_TRAILING = re.compile(r"[ \t\r\f\v]+\n")
_BLANKS = re.compile(r"\n{3,}")


def normalize(text: str) -> str:
    """Line ends as ``\\n``, no trailing spaces, at most one blank line in a row, no NUL."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").replace("\ufeff", "")
    text = _TRAILING.sub("\n", text)
    return _BLANKS.sub("\n\n", text).strip("\n")

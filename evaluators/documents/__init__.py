"""Your documents as passages: folders or files of .txt .md .html .pdf .docx read and cut into
passages with stable ids, the files that could not be read named with the reason.

    from evaluators.documents import read_documents
    corpus = read_documents(["manuals/", "faq.md"])      # DocumentsError only if nothing is readable
    for p in corpus.passages:
        print(p.id, p.section, p.text[:60])              # "manuals/setup.pdf#3", ...
    for s in corpus.skipped:
        print(s.name, s.reason)                          # "scan.pdf: no text layer ... OCR it first"

Readers are kept libraries: pypdfium2 (PDF: PDFium), python-docx (Word), inscriptis (HTML); plain
text and Markdown are decoded (UTF-8, UTF-16/32 by BOM, else Windows-1252 with a note). Limits: a file over
``MAX_FILE_BYTES`` (50 MB) is refused by its size before reading; binary data under a text name,
encrypted PDFs and PDFs without a text layer are named as such.

Modules (private; the surface is below): ``types`` (Document, Passage, Skipped, Corpus, errors),
``readers`` (bytes -> text per kind), ``chunk`` (text -> passages: the rule), ``language`` (a guess
of the text's language), ``load`` (folders, files and uploads -> a Corpus).
"""

from __future__ import annotations

from .chunk import MAX_CHARS, chunk
from .language import LANGUAGE_NAMES, guess_language, language_name
from .load import MAX_FILE_BYTES, document_from_bytes, kind_of, read_documents, read_uploaded
from .types import KINDS, Corpus, Document, DocumentsError, Dropped, Passage, Skipped, UnreadableDocument

__all__ = [
    "Corpus", "Document", "DocumentsError", "Dropped", "KINDS", "LANGUAGE_NAMES", "MAX_CHARS", "MAX_FILE_BYTES",
    "Passage",
    "Skipped", "UnreadableDocument", "chunk", "document_from_bytes", "guess_language", "kind_of", "language_name",
    "read_documents", "read_uploaded",
]

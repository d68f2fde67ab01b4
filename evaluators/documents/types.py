"""What reading documents gives: documents, their passages, and the files that could not be read.

Contract: a :class:`Passage`'s ``text`` is always ``document.text[start:end]`` — an exact piece of its
document's text, never rewritten — and its ``id`` is ``"<document name>#<n>"`` (n from 1, in reading
order), stable as long as the file's text and the chunking settings are. A :class:`Skipped` names a
file and says why it was not used; nothing is dropped without one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The kinds of file read, by extension.
KINDS: dict[str, str] = {".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown",
                         ".html": "html", ".htm": "html", ".pdf": "pdf", ".docx": "docx"}


class UnreadableDocument(Exception):
    """A file that cannot be read; ``str(exc)`` is the reason (shown beside the file's name)."""


class DocumentsError(ValueError):
    """Nothing usable at all (no files, or no file could be read): the message says what was looked at."""


@dataclass(frozen=True)
class Passage:
    id: str
    #: The document's name (its path below the folder given, or the file's name).
    source: str
    #: 1-based position in its document.
    index: int
    text: str
    start: int
    end: int
    #: The heading the passage falls under ("" when none).
    section: str = ""


@dataclass(frozen=True)
class Dropped:
    """A line of a document left out of its passages as a page's chrome (``text[start:end]``);
    ``kind`` is a key of ``boilerplate.KINDS`` ("menu", "breadcrumb", "footer", ...)."""

    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class Document:
    name: str
    kind: str
    text: str
    passages: tuple[Passage, ...]
    size_bytes: int = 0
    #: A guess of the text's language (ISO 639-1, e.g. "en"), "" when unsure.
    language: str = ""
    #: What the reader noticed and worked around (pages without text, a fallback encoding...).
    notes: tuple[str, ...] = ()
    #: Lines left out of the passages as the page's chrome (menus, footers...), in reading order.
    dropped: tuple[Dropped, ...] = ()

    @property
    def chars(self) -> int:
        return sum(len(p.text) for p in self.passages)


@dataclass(frozen=True)
class Skipped:
    name: str
    reason: str

    def __str__(self) -> str:
        return f"{self.name}: {self.reason}"


@dataclass(frozen=True)
class Corpus:
    documents: tuple[Document, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    #: Where the documents came from (folders / files given), for messages.
    origin: tuple[str, ...] = field(default=(), compare=False)

    @property
    def passages(self) -> list[Passage]:
        return [p for d in self.documents for p in d.passages]

    def document(self, name: str) -> Document:
        for d in self.documents:
            if d.name == name:
                return d
        raise KeyError(name)

    def passage(self, passage_id: str) -> Passage:
        name, _, n = passage_id.rpartition("#")
        return self.document(name).passages[int(n) - 1]

    def summary(self) -> str:
        """One line: how many documents and passages were read, how many files were skipped."""
        n_p = sum(len(d.passages) for d in self.documents)
        text = (f"{len(self.documents)} document{'s' if len(self.documents) != 1 else ''}, "
                f"{n_p} passage{'s' if n_p != 1 else ''}")
        if self.skipped:
            text += f"; {len(self.skipped)} file{'s' if len(self.skipped) != 1 else ''} skipped"
        return text

"""Folders and files (or uploaded bytes) -> a :class:`~evaluators.documents.types.Corpus`.

Contract: every file looked at ends either as a ``Document`` or as a ``Skipped`` with its reason;
one bad file never stops the others. A file larger than ``max_bytes`` is refused by its size before
a byte is read. Folders are walked recursively in sorted order (hidden files and folders, and Office
lock files ``~$…``, are passed over silently); a file whose extension is not read is skipped with a
reason. Names are the path below the folder given (``guides/setup.pdf``) or the file's own name;
two files of one name get their folders in front until the names differ. ``DocumentsError`` only
when nothing at all could be used, listing what was looked at and why each file was not read.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

from .boilerplate import KINDS as KINDS_OF_LINES
from .boilerplate import repeated_lines
from .chunk import MAX_CHARS, cut
from .language import guess_language
from .readers import read_text
from .types import KINDS, Corpus, Document, DocumentsError, Dropped, Skipped, UnreadableDocument

#: Largest file read (bytes); bigger ones are refused before reading. The dashboard's upload limit.
MAX_FILE_BYTES = 50 * 1024 * 1024
#: A text whose one line is longer than this (characters) is not a document of paragraphs.
MAX_LINE_CHARS = 200_000
#: Most files read from the folders given (the rest are skipped, named).
MAX_FILES = 2000

#: ``progress(done, total, name)`` after each file.
Progress = Callable[[int, int, str], None]


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:,.0f} MB" if n >= 1024 * 1024 else f"{n / 1024:,.0f} kB"


def _walk(folder: Path) -> Iterable[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if not f.startswith(".") and not f.startswith("~$"):
                yield Path(root) / f


def _with_folders(p: Path, depth: int) -> str:
    folders = "/".join(p.parent.parts[-depth:]).lstrip("/")
    return f"{folders}/{p.name}" if folders and folders != "." else p.name


def _unique_names(entries: list[tuple[Path, str]]) -> list[str]:
    """Display names, each unique: a repeated name gets its folders in front."""
    names = [n for _, n in entries]
    for depth in range(1, 8):
        seen: dict[str, int] = {}
        for n in names:
            seen[n] = seen.get(n, 0) + 1
        dup = {n for n, c in seen.items() if c > 1}
        if not dup:
            return names
        names = [(_with_folders(p, depth) if n in dup else n) for (p, _), n in zip(entries, names)]
    out: list[str] = []
    count: dict[str, int] = {}  # still equal (the same path twice): number them
    for n in names:
        count[n] = count.get(n, 0) + 1
        out.append(n if count[n] == 1 else f"{n}~{count[n]}")
    return out


def _gather(paths: Sequence[str | Path]) -> tuple[list[tuple[Path, str]], list[Skipped]]:
    found: list[tuple[Path, str]] = []
    skipped: list[Skipped] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            files = list(_walk(p))
            if not files:
                skipped.append(Skipped(str(raw), "an empty folder"))
            for f in files:
                found.append((f, f.relative_to(p).as_posix()))
        elif p.is_file():
            found.append((p, p.name))
        elif p.exists():
            skipped.append(Skipped(str(raw), "not a regular file or folder"))
        else:
            skipped.append(Skipped(str(raw), "no such file or folder"))
    seen: set[Path] = set()
    unique = []
    for f, n in found:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append((f, n))
    return unique, skipped


def kind_of(name: str) -> str | None:
    return KINDS.get(Path(name).suffix.lower())


def document_from_bytes(name: str, data: bytes, max_chars: int = MAX_CHARS,
                        max_bytes: int = MAX_FILE_BYTES) -> Document:
    """One document from its bytes (an upload); raises UnreadableDocument with the reason."""
    kind = kind_of(name)
    if kind is None:
        raise UnreadableDocument(f"{Path(name).suffix or 'no extension'}: not a kind read here "
                                 f"(reads {' '.join(sorted(set(KINDS)))})")
    if len(data) > max_bytes:
        raise UnreadableDocument(f"{_mb(len(data))}: larger than the {_mb(max_bytes)} read per file")
    text, notes = read_text(kind, data)
    longest = max((len(line) for line in text.split("\n")), default=0)
    if longest > MAX_LINE_CHARS and longest > 0.9 * len(text):
        raise UnreadableDocument(f"one line of {longest:,} characters ({_mb(len(data))}): not a document of "
                                 "paragraphs (minified data, a log or a dump?); break it into paragraphs")
    passages, dropped = cut(text, name, max_chars)
    if not passages:
        raise UnreadableDocument(_no_passage(dropped))
    return Document(name=name, kind=kind, text=text, passages=passages, size_bytes=len(data),
                    language=guess_language(text), notes=tuple(notes), dropped=dropped)


def _no_passage(dropped: Sequence[Dropped]) -> str:
    if not dropped:
        return "no paragraph of text in it (headings only?)"
    kinds = Counter(d.kind for d in dropped)
    what = ", ".join(f"{KINDS_OF_LINES[k]}: {n} line{'s' if n != 1 else ''}" for k, n in kinds.most_common())
    return f"no paragraph of text in it, only a page's chrome ({what})"


def with_site_lines(docs: list[Document], skipped: list[Skipped], max_chars: int = MAX_CHARS) -> list[Document]:
    """The documents cut again without the lines they share with other documents given with them (a
    site's menus and footers in every page of a crawl); a document left with nothing is moved to
    ``skipped`` with the reason."""
    if len(docs) < 2:
        return docs
    rep = repeated_lines(d.text for d in docs)
    if not rep:
        return docs
    out: list[Document] = []
    for d in docs:
        passages, dropped = cut(d.text, d.name, max_chars, rep)
        if (passages, dropped) == (d.passages, d.dropped):
            out.append(d)
        elif passages:
            out.append(replace(d, passages=passages, dropped=dropped))
        else:
            skipped.append(Skipped(d.name, _no_passage(dropped)))
    return out


def read_documents(paths: Sequence[str | Path], *, max_bytes: int = MAX_FILE_BYTES, max_chars: int = MAX_CHARS,
                   max_files: int = MAX_FILES, progress: Progress | None = None) -> Corpus:
    """Read every file of ``paths`` (files and folders) by the contract of the module docstring."""
    if not paths:
        raise DocumentsError("no documents given: name files or folders of .txt .md .html .pdf .docx")
    found, skipped = _gather(paths)
    if len(found) > max_files:
        skipped.append(Skipped(f"{len(found) - max_files} more files", f"only the first {max_files} files are read"))
        found = found[:max_files]
    names = _unique_names(found)
    docs: list[Document] = []
    for i, ((path, _), name) in enumerate(zip(found, names), 1):
        try:
            if kind_of(name) is None:
                raise UnreadableDocument(f"{path.suffix or 'no extension'}: not a kind read here (reads "
                                         ".txt .md .html .pdf .docx)")
            size = path.stat().st_size
            if size > max_bytes:
                raise UnreadableDocument(f"{_mb(size)}: larger than the {_mb(max_bytes)} read per file "
                                         "(refused without reading it)")
            data = path.read_bytes()
            docs.append(document_from_bytes(name, data, max_chars, max_bytes))
        except UnreadableDocument as exc:
            skipped.append(Skipped(name, str(exc)))
        except OSError as exc:
            skipped.append(Skipped(name, f"cannot be read: {exc.strerror or exc}"))
        if progress is not None:
            progress(i, len(found), name)
    docs = with_site_lines(docs, skipped, max_chars)
    corpus = Corpus(tuple(docs), tuple(skipped), tuple(str(p) for p in paths))
    if not docs:
        raise DocumentsError(no_documents_message(corpus))
    return corpus


def read_uploaded(files: Sequence[tuple[str, bytes]], *, max_bytes: int = MAX_FILE_BYTES,
                  max_chars: int = MAX_CHARS) -> Corpus:
    """The documents of uploaded files ``(name, bytes)``; like :func:`read_documents`."""
    docs: list[Document] = []
    skipped: list[Skipped] = []
    names = _unique_names([(Path(n), Path(n).name) for n, _ in files])
    for (_, data), name in zip(files, names):
        try:
            docs.append(document_from_bytes(name, data, max_chars, max_bytes))
        except UnreadableDocument as exc:
            skipped.append(Skipped(name, str(exc)))
    docs = with_site_lines(docs, skipped, max_chars)
    corpus = Corpus(tuple(docs), tuple(skipped), tuple(names))
    if not docs:
        raise DocumentsError(no_documents_message(corpus))
    return corpus


def no_documents_message(corpus: Corpus) -> str:
    where = ", ".join(corpus.origin) or "the files given"
    if not corpus.skipped:
        return f"no documents in {where} (looked for .txt .md .html .pdf .docx)"
    lines = "; ".join(str(s) for s in corpus.skipped[:10])
    more = f" (and {len(corpus.skipped) - 10} more)" if len(corpus.skipped) > 10 else ""
    return f"no readable document in {where}: {lines}{more}"

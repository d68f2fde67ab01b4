"""Documents written as real files of every kind the readers take, for tests and benchmarks of the
test-set generator: ``.txt``, ``.md``, ``.html``, ``.docx`` (python-docx) and ``.pdf`` (Chromium's
print-to-PDF, the real thing: ``/usr/bin/chromium --headless --print-to-pdf``); and the bad inputs
a user brings (an encrypted PDF, a scan with no text layer, a 200 MB file, binary data named .txt).

    from evaluators.testing.document_files import write_documents
    paths = write_documents({"guide": ["First paragraph.", "Second."]}, tmp_path, kinds=("pdf",))

Each document is a title and paragraphs; a file holds them as its kind does (Markdown ``#`` title and
blank lines, HTML ``<h1>`` / ``<p>``, Word heading + paragraphs, a PDF printed from that HTML).
"""

from __future__ import annotations

import base64
import html
import os
import struct
import subprocess
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Mapping, Sequence

from .app_server import CHROMIUM, CHROMIUM_ARGS

KINDS = ("txt", "md", "html", "pdf", "docx")


def _blocks(paragraphs: Sequence[str]) -> list[str]:
    """Paragraphs as the blocks a writer would make: a blank line inside a text starts another."""
    return [b.strip() for p in paragraphs for b in p.split("\n\n") if b.strip()]


def html_page(title: str, paragraphs: Sequence[str], body_extra: str = "") -> str:
    body = "".join("<p>" + "<br>\n".join(html.escape(line) for line in b.splitlines()) + "</p>\n"
                   for b in _blocks(paragraphs))
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            "<style>body{font-family:sans-serif;font-size:11pt;margin:2cm}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>\n{body}{body_extra}</body></html>")


def print_pdf(html_path: Path, pdf_path: Path, timeout: float = 120.0) -> Path:
    """``html_path`` printed to ``pdf_path`` by headless Chromium (RuntimeError when it fails)."""
    with tempfile.TemporaryDirectory(prefix="chromium-pdf-") as profile:
        cmd = [CHROMIUM, "--headless", *CHROMIUM_ARGS, f"--user-data-dir={profile}", "--no-pdf-header-footer",
               f"--print-to-pdf={pdf_path}", html_path.resolve().as_uri()]
        proc = subprocess.run(cmd, capture_output=True, timeout=timeout, check=False)
    if not pdf_path.is_file() or pdf_path.stat().st_size == 0:
        raise RuntimeError(f"Chromium did not print {html_path.name}: exit {proc.returncode}: "
                           f"{proc.stderr.decode(errors='replace')[-500:]}")
    return pdf_path


def write_docx(path: Path, title: str, paragraphs: Sequence[str]) -> Path:
    import docx

    d = docx.Document()
    if title:
        d.add_heading(title, level=1)
    for p in _blocks(paragraphs):
        d.add_paragraph(p)  # a line break inside stays a line break
    d.save(str(path))
    return path


def write_documents(docs: Mapping[str, Sequence[str]], folder: str | Path,
                    kinds: Sequence[str] = KINDS, titles: Mapping[str, str] | None = None) -> list[Path]:
    """Write each document (name -> paragraphs) as a file of the next kind in ``kinds`` (round-robin);
    PDFs are printed two at a time. Returns the paths, in the order of ``docs``."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    to_print: list[tuple[Path, Path]] = []
    for i, (name, paragraphs) in enumerate(docs.items()):
        kind = kinds[i % len(kinds)]
        title = (titles or {}).get(name, name.replace("-", " ").replace("_", " ").title())
        path = out / f"{name}.{kind}"
        if kind == "txt":
            path.write_text(f"{title}\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
        elif kind == "md":
            path.write_text(f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
        elif kind == "html":
            path.write_text(html_page(title, paragraphs), encoding="utf-8")
        elif kind == "docx":
            write_docx(path, title, paragraphs)
        elif kind == "pdf":
            src = out / f".{name}.print.html"
            src.write_text(html_page(title, paragraphs), encoding="utf-8")
            to_print.append((src, path))
        else:
            raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
        paths.append(path)
    print_all(to_print)
    return paths


def print_all(to_print: Sequence[tuple[Path, Path]]) -> None:
    """Print each (source page, PDF path) pair, two Chromiums at a time, then remove the source pages."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda sp: print_pdf(*sp), to_print))
    for src, _ in to_print:
        src.unlink(missing_ok=True)


# ------------------------------------------------------------------------------------------ bad inputs

def png_bytes(width: int = 240, height: int = 120) -> bytes:
    """A grey PNG with a dark band (looks like a scanned line; holds no text)."""
    rows = b"".join(b"\x00" + bytes(40 if height // 3 < y < height // 2 else 200 for _ in range(width))
                    for y in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def write_scanned_pdf(path: str | Path) -> Path:
    """A PDF whose page is an image only (no text layer), printed by Chromium."""
    p = Path(path)
    src = p.with_name(f".{p.stem}.print.html")
    img = base64.b64encode(png_bytes()).decode()
    src.write_text(f"<!doctype html><html><body><img src=\"data:image/png;base64,{img}\" width=\"480\">"
                   "</body></html>", encoding="utf-8")
    try:
        return print_pdf(src, p)
    finally:
        src.unlink(missing_ok=True)


def write_encrypted_pdf(source_pdf: str | Path, path: str | Path, password: str = "secret") -> Path:
    """A copy of ``source_pdf`` that opens only with ``password`` (pypdf, AES-128)."""
    from pypdf import PdfReader, PdfWriter

    w = PdfWriter()
    for page in PdfReader(str(source_pdf)).pages:
        w.add_page(page)
    w.encrypt(user_password=password, owner_password=password + "-owner", algorithm="AES-128")
    with open(path, "wb") as fh:
        w.write(fh)
    return Path(path)


def write_huge_file(path: str | Path, size: int = 200 * 1024 * 1024) -> Path:
    """A sparse file of ``size`` bytes (no disk used): the reader must refuse it by its size."""
    p = Path(path)
    with open(p, "wb") as fh:
        fh.write(b"%PDF-1.7\n")
    os.truncate(p, size)
    return p


def write_binary_txt(path: str | Path) -> Path:
    """Binary data (a PNG) under a ``.txt`` name."""
    p = Path(path)
    p.write_bytes(png_bytes())
    return p


def passages_as_documents(rows: Sequence[Mapping[str, str]], n_docs: int = 12) -> dict[str, list[str]]:
    """Passages (``{"id", "collection", "text"}`` rows, e.g. MTRAG's corpus) grouped into ``n_docs``
    documents: per collection, passages of one source page (the id before the first ``-``) stay
    together, pages dealt round-robin; each passage a paragraph."""
    by_coll: dict[str, dict[str, list[str]]] = {}
    for r in rows:
        coll = str(r.get("collection") or "docs")
        page = str(r.get("id", "")).split("-")[0] if coll != "fiqa" else str(len(by_coll.get(coll, {})))
        by_coll.setdefault(coll, {}).setdefault(page, []).append(str(r["text"]).strip())
    colls = sorted(by_coll)
    per = {c: max(1, round(n_docs * len(by_coll[c]) / max(1, len(rows)))) for c in colls}
    while sum(per.values()) > n_docs:
        per[max(per, key=lambda c: per[c])] -= 1
    while sum(per.values()) < n_docs:
        per[max(colls, key=lambda c: len(by_coll[c]) / per[c])] += 1
    docs: dict[str, list[str]] = {}
    for c in colls:
        pages = list(by_coll[c].values())
        for k in range(per[c]):
            docs[f"{c}-{k + 1:02d}"] = [p for page in pages[k::per[c]] for p in page]
    return docs

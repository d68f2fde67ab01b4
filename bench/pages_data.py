"""(helper) MTRAG-UN's crawled passages as the web pages of the test-set benches: 12 passages of
1,500–4,000 characters drawn by a seed, each a page with a title and its site's chrome
(``evaluators.testing.crawled_pages``), written as 3 .txt, 3 .md, 2 .html, 2 .pdf, 2 .docx.

    from bench.pages_data import corpus_rows, pick, write_seed
    folder, pages = write_seed(seed=0, out=Path("bench/out/pages"))
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

from bench.shared_data import SHARED_DIR

CORPUS = SHARED_DIR / "retrieval" / "mtrag_retrieval_dev_corpus.jsonl"
#: The kinds of the 12 files, in order (the passages are shuffled by the seed first).
KINDS = ("txt", "txt", "txt", "md", "md", "md", "html", "html", "pdf", "pdf", "docx", "docx")


def corpus_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def pick(rows: list[dict[str, Any]], seed: int, n: int = 12, lo: int = 1500, hi: int = 4000) -> list[dict[str, Any]]:
    """``n`` passages of ``lo``–``hi`` characters, drawn by ``seed``."""
    fit = [r for r in rows if lo <= len(r["text"]) <= hi]
    return random.Random(seed).sample(fit, n)


def as_page(row: dict[str, Any], name: str):
    """A passage as a page: its first line is the title when it reads as one (short, no full stop);
    a forum answer has none of its own."""
    from evaluators.testing.crawled_pages import Page

    text = row["text"].strip()
    first, _, rest = text.partition("\n")
    if len(first.strip()) <= 90 and not re.search(r"[.:;!?]$", first.strip()) and rest.strip():
        title, body = first.strip(), rest.strip()
    else:
        title, body = "", text
    site = "forum" if row.get("collection") == "fiqa" else "docs"
    return Page(name, title, body, site=site)


def write_seed(seed: int, out: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The 12 files of ``seed`` in ``out/seed<seed>`` (made anew); returns the folder and the passages
    in file order, each with its file name under ``"file"``."""
    from evaluators.testing.crawled_pages import write_pages

    rows = pick(corpus_rows(), seed)
    folder = out / f"seed{seed}"
    shutil.rmtree(folder, ignore_errors=True)
    pages = [as_page(r, f"{r['collection']}-{i + 1:02d}") for i, r in enumerate(rows)]
    paths = write_pages(pages, folder, KINDS, seed=seed)
    return folder, [{**r, "file": p.name} for r, p in zip(rows, paths)]

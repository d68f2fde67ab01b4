"""The passages a sample app retrieves from.

Contract: :func:`load_corpus` reads a folder of Markdown files — every paragraph (text between blank
lines) a passage, the ``# title`` line apart, ids ``<file stem>#<n>`` from 1 in file order, the text
exactly as in the file — or a JSON Lines file of ``{"id", "text"}`` objects (an optional ``title``;
the shared MTRAG corpus has this shape). An empty corpus, a line that is not such an object, or a
repeated id is a ``ValueError`` naming the file (and line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

#: The sample's documents (the corpus of the sample app by default).
SAMPLE_DOCS = Path(__file__).resolve().parents[2] / "data" / "sample_docs"


@dataclass(frozen=True)
class Passage:
    id: str
    text: str
    title: str = ""


def _markdown(folder: Path) -> list[Passage]:
    out: list[Passage] = []
    for f in sorted(folder.glob("*.md")):
        title = ""
        n = 0
        for block in f.read_text(encoding="utf-8").split("\n\n"):
            block = block.strip("\n")
            if not block.strip():
                continue
            if block.startswith("# ") and "\n" not in block:
                title = block[2:].strip()
                continue
            n += 1
            out.append(Passage(f"{f.stem}#{n}", block, title))
    return out


def _jsonl(path: Path) -> list[Passage]:
    out: list[Passage] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                raise ValueError(f"{path}: line {lineno} is not JSON") from None
            if not isinstance(rec, dict) or not isinstance(rec.get("text"), str) or rec.get("id") is None:
                raise ValueError(f"{path}: line {lineno} is not an object with an id and a text")
            out.append(Passage(str(rec["id"]), rec["text"], str(rec.get("title") or "")))
    return out


def load_corpus(path: str | Path | None = None) -> list[Passage]:
    """The passages of a Markdown folder or a JSON Lines file (default: the sample's documents)."""
    p = Path(path) if path is not None else SAMPLE_DOCS
    if p.is_dir():
        passages = _markdown(p)
    elif p.is_file():
        passages = _jsonl(p)
    else:
        raise ValueError(f"{p}: no such folder or file")
    if not passages:
        raise ValueError(f"{p}: no passages (Markdown paragraphs, or JSON Lines of {{id, text}})")
    seen: set[str] = set()
    for x in passages:
        if x.id in seen:
            raise ValueError(f"{p}: passage id {x.id!r} is there twice")
        seen.add(x.id)
    return passages

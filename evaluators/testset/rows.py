"""Candidates -> the rows of a question file, and the file itself.

One JSON object per line (what ``run --target`` and Upload read):

    {"id": "q001", "question": "When did Apollo 11 land on the Moon?", "ground_truth": "20 July 1969",
     "reference_contexts": ["Apollo 11 landed on the Moon on 20 July 1969. ..."],
     "reference_context_ids": ["apollo-11.md#1"],
     "history": [{"role": "user", "content": ...}, {"role": "assistant", "content": ...}],   # conversational only
     "metadata": {"source": "apollo-11.md", "question_type": "single_hop", "generator": "offline",
                  "model": null, ...}}

Contract: ``reference_contexts[i]`` is the exact text of passage ``reference_context_ids[i]``;
``history`` is present only on conversational rows; ids are ``q001``, ``q002``, … in the order of
the rows (documents in name order, then passages in reading order). Unanswerable rows have no
reference contexts (nothing in the documents answers them) and a refusal as ``ground_truth``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Sequence

from .types import Candidate


def to_row(c: Candidate, row_id: str, generator: str, model: str | None) -> dict[str, Any]:
    passages = () if c.question_type == "unanswerable" else c.passages
    row: dict[str, Any] = {
        "id": row_id,
        "question": c.question,
        "ground_truth": c.ground_truth,
        "reference_contexts": [p.text for p in passages],
        "reference_context_ids": [p.id for p in passages],
    }
    if c.history:
        row["history"] = [dict(t) for t in c.history]
    meta: dict[str, Any] = {"source": c.source, "question_type": c.question_type, "generator": generator,
                            "model": model}
    sources = sorted({p.source for p in c.passages} - {c.source})
    if sources:
        meta["also_from"] = sources
    meta.update(c.extra)
    row["metadata"] = meta
    return row


def order_key(c: Candidate) -> tuple:
    first = c.passages[0] if c.passages else None
    return (c.source, first.index if first else 0, c.question)


def make_rows(candidates: Sequence[Candidate], generator: str, model: str | None) -> list[dict[str, Any]]:
    ordered = sorted(candidates, key=order_key)
    width = max(3, len(str(len(ordered))))
    return [to_row(c, f"q{i:0{width}d}", generator, model) for i, c in enumerate(ordered, 1)]


def to_jsonl(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def write_jsonl(rows: Iterable[dict[str, Any]], path: str | Path) -> Path:
    """Write the rows (to a temporary file first, then moved into place)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp{os.getpid()}")
    try:
        tmp.write_text(to_jsonl(rows), encoding="utf-8")
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)
    return p

"""Load the shared human-labeled dev sets (../shared/data/*.jsonl) as ``TestCase``s.

    from bench.shared_data import load_shared, shared_files
    for path in shared_files():
        cases = load_shared(path)          # or load_shared("ragtruth_summary")

Schema (see ../shared/data/README.md): id, question, documents (list or one string), response,
ground_truth, labels (dict: hallucinated, hallucination_spans, faithfulness, ...), meta (dict),
history (MTRAG). ``labels`` go to ``TestCase.labels`` unchanged; ``meta`` (plus ``source``,
``task``, ``split``, ``history``) goes to ``TestCase.metadata`` with ``source_id``: a group key for
grouped resampling / cross-validation (several responses per source document).

The data is never copied into the repository: when ../shared/data is absent, ``shared_files()``
returns [] and ``load_shared`` of a name returns [] (benchmarks then skip).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

from evaluators.types import TestCase  # noqa: E402


def _find_shared_dir() -> Path:
    """``../shared/data`` next to the checkout; from a git worktree nested deeper (``wt/<name>``) the
    nearest ancestor that has ``shared/data``; ``RAG_EVAL_SHARED_DATA`` overrides."""
    env = os.environ.get("RAG_EVAL_SHARED_DATA")
    if env:
        return Path(env)
    for parent in ROOT.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return ROOT.parent / "shared" / "data"


SHARED_DIR = _find_shared_dir()


def shared_files() -> list[Path]:
    """Existing shared JSONL files of RAG cases, sorted by name ([] when the folder is absent).
    The NLI pair file (premise-claim pairs for pre-training a verifier, not RAG cases) is left out."""
    if not SHARED_DIR.is_dir():
        return []
    return sorted(p for p in SHARED_DIR.glob("*.jsonl") if not p.name.startswith("nli_"))


def resolve(name_or_path: str | Path) -> Path | None:
    """A path as given, or a shared file by name: 'ragtruth_summary', 'ragtruth_summary_dev',
    'ragtruth_summary_dev.jsonl'. None when it does not exist."""
    p = Path(name_or_path)
    if p.suffix == ".jsonl" and p.exists():
        return p
    name = p.name
    for cand in (name, f"{name}.jsonl", f"{name}_dev.jsonl"):
        q = SHARED_DIR / cand
        if q.is_file():
            return q
    return None


def _source_id(rec: dict[str, Any], docs: list[str]) -> str:
    meta = rec.get("meta") or {}
    for k in ("source_id", "task_id", "conversation_id"):
        if meta.get(k) not in (None, ""):
            return f"{rec.get('source', '')}:{meta[k]}"
    digest = hashlib.sha1("\n\n".join(docs).encode("utf-8")).hexdigest()[:16]
    return f"docs:{digest}"


def record_to_case(rec: dict[str, Any], where: str = "") -> TestCase:
    for field in ("id", "question", "response"):
        if field not in rec:
            raise ValueError(f"{where}: missing field {field!r}")
    docs = rec.get("documents") or []
    if isinstance(docs, str):
        docs = [docs]
    docs = [str(d) for d in docs if d is not None]
    meta = dict(rec.get("meta") or {})
    for k in ("source", "task", "split", "history"):
        if k in rec:
            meta[k] = rec[k]
    meta["source_id"] = _source_id(rec, docs)
    return TestCase(
        id=str(rec["id"]),
        question=str(rec["question"]),
        response=str(rec["response"]),
        documents=tuple(docs),
        ground_truth=None if rec.get("ground_truth") is None else str(rec["ground_truth"]),
        labels=dict(rec.get("labels") or {}),
        metadata=meta,
    )


def load_shared(name_or_path: str | Path) -> list[TestCase]:
    """The cases of one shared file ([] when it does not exist)."""
    path = resolve(name_or_path)
    if path is None:
        return []
    out: list[TestCase] = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path.name}, line {n}: invalid JSON ({exc})") from None
            out.append(record_to_case(rec, f"{path.name}, line {n}"))
    return out


def file_label(path: str | Path) -> str:
    """'ragtruth_summary_dev.jsonl' -> 'ragtruth_summary'."""
    return Path(path).name.removesuffix(".jsonl").removesuffix("_dev")


if __name__ == "__main__":
    for f in shared_files():
        cases = load_shared(f)
        pos = sum(1 for c in cases if c.labels.get("hallucinated"))
        groups = len({c.metadata["source_id"] for c in cases})
        print(f"{f.name}: {len(cases)} cases, {pos} hallucinated, {groups} source groups")

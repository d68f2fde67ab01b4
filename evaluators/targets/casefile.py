"""The cases file a run writes: one JSON line per question as it finishes — a test-case file that
``evaluate`` reads as it is.

Contract of a line (:func:`case_line`): ``id`` (the question's id; ``<id>#r<k>`` for repetition
``k`` of ``--repeat N``), ``question``, ``response`` (the app's answer; empty when it gave none),
``documents`` (the passages' texts, in the app's order), ``document_ids`` (when the app gave ids),
the row's ``ground_truth`` / ``reference_context_ids`` / ``reference_context_relevance`` /
``reference_contexts`` / ``history`` / ``conversation_id`` when it has them, its other columns (not
human labels: they judged another answer), and ``metadata``: ``target``, ``latency_s``,
``elapsed_s``, ``attempts``, ``status``, ``usage``, ``error`` (null when answered), ``repeat`` and
``question_id`` with ``--repeat``, ``retrieval_match`` when the target says ``match``,
``document_scores`` when the app scored its passages (one per document, as the app gave them). A
question the app did not answer is written with its ``error`` and an empty response: ``evaluate``
keeps it as a case flagged with that error (the others still score).

Each line is written whole and flushed as the question finishes (fsync'ed at most every 2 s), so a
``kill -9`` leaves every finished question readable and at most a last line cut short;
:func:`scan` reads a file back for ``--resume`` (which ids it holds, which failed, where a cut line
starts) and :class:`CasesWriter` continues it — the cut line removed first, failed lines too when
they are to be asked again — so every question ends in the file once.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Mapping

from ..datasets import QuestionRow
from .call import Outcome

#: Columns of a question row a line writes under its own name (the rest are the row's other columns).
_REFERENCE_FIELDS = ("ground_truth", "reference_context_ids", "reference_context_relevance", "reference_contexts")
#: Names a row's other column may not take in a line (they are the run's own).
RESERVED = frozenset({"id", "question", "response", "documents", "document_ids", "metadata", "history",
                      "conversation_id", *_REFERENCE_FIELDS})
FSYNC_EVERY_S = 2.0


class CasesFileError(ValueError):
    """A cases file that cannot be continued (names the file, the line and why)."""


def repeat_id(question_id: str, k: int, n: int) -> str:
    return question_id if n <= 1 else f"{question_id}#r{k}"


def case_line(q: QuestionRow, target: str, outcome: Outcome, k: int = 1, n: int = 1,
              match: str | None = None) -> dict[str, Any]:
    """The line of one finished question (see the module doc)."""
    case = q.case
    a = outcome.answer
    line: dict[str, Any] = {
        "id": repeat_id(case.id, k, n),
        "question": case.question,
        "response": a.text if a is not None else "",
        "documents": list(a.contexts) if a is not None else [],
    }
    if a is not None and a.context_ids:
        line["document_ids"] = list(a.context_ids)
    if a is not None and a.tool_calls:
        line["tool_calls"] = [c.model_dump(mode="json", exclude_defaults=True) for c in a.tool_calls]
    if case.reference_tool_calls is not None:
        line["reference_tool_calls"] = [c.model_dump(mode="json", exclude_defaults=True)
                                        for c in case.reference_tool_calls]
    if case.ground_truth is not None:
        line["ground_truth"] = case.ground_truth
    if case.reference_context_ids:
        line["reference_context_ids"] = list(case.reference_context_ids)
    if case.reference_context_relevance:
        line["reference_context_relevance"] = dict(case.reference_context_relevance)
    if case.reference_contexts:
        line["reference_contexts"] = list(case.reference_contexts)
    if case.history:
        line["history"] = [t.model_dump() for t in case.history]
    if case.conversation_id is not None:
        line["conversation_id"] = case.conversation_id
    for key, value in case.metadata.items():
        if key not in RESERVED and key not in line:
            line[key] = value
    meta: dict[str, Any] = {
        "target": target,
        "latency_s": None if outcome.latency_s is None else round(outcome.latency_s, 4),
        "elapsed_s": round(outcome.elapsed_s, 4),
        "attempts": outcome.attempts,
        "status": outcome.status,
        "usage": a.usage if a is not None else None,
        "error": outcome.error,
    }
    if a is not None and a.notes:
        meta["notes"] = list(a.notes)
    if a is not None and a.context_scores:
        meta["document_scores"] = list(a.context_scores)
    if n > 1:
        meta["repeat"] = k
        meta["question_id"] = case.id
    if match:
        meta["retrieval_match"] = match
    line["metadata"] = meta
    return line


@dataclass
class Scan:
    """What an existing cases file holds."""

    path: Path
    #: id -> the line's error (None: answered).
    done: dict[str, str | None] = field(default_factory=dict)
    #: Targets named by its lines.
    targets: set[str] = field(default_factory=set)
    #: Byte offset after the last whole line.
    good_bytes: int = 0
    #: Bytes of a last line cut short (0: the file ends cleanly).
    torn_bytes: int = 0

    @property
    def failed(self) -> list[str]:
        return [i for i, e in self.done.items() if e is not None]


def scan(path: str | Path) -> Scan:
    """Read a cases file line by line. A last line without its newline (cut by a kill) is not
    counted; any other line that is not a JSON object with an ``id`` is a :class:`CasesFileError`
    naming the line."""
    p = Path(path)
    out = Scan(p)
    if not p.exists():
        return out
    with p.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                out.torn_bytes = len(raw)
                break
            text = raw.strip()
            if text:
                try:
                    rec = json.loads(text)
                except ValueError:
                    raise CasesFileError(f"{p}: line {lineno} is not JSON: not a cases file written by "
                                         "`run`? (choose another --out)") from None
                if not isinstance(rec, dict) or not isinstance(rec.get("id"), str):
                    raise CasesFileError(f"{p}: line {lineno} is not a case with an id: not a cases file "
                                         "written by `run`? (choose another --out)")
                meta: dict[str, Any] = rec["metadata"] if isinstance(rec.get("metadata"), dict) else {}
                if rec["id"] in out.done:
                    raise CasesFileError(f"{p}: line {lineno}: id {rec['id']!r} is in the file twice")
                err = meta.get("error")
                out.done[rec["id"]] = err if isinstance(err, str) and err else None
                if isinstance(meta.get("target"), str):
                    out.targets.add(meta["target"])
            out.good_bytes += len(raw)
    return out


class CasesWriter:
    """Appends lines to a cases file: each written whole, then flushed."""

    def __init__(self, fh: IO[str], path: Path) -> None:
        self.fh = fh
        self.path = path
        self._last_sync = time.monotonic()

    @classmethod
    def create(cls, path: str | Path) -> CasesWriter:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        return cls(p.open("w", encoding="utf-8"), p)

    @classmethod
    def resume(cls, found: Scan, drop: Iterable[str] = ()) -> CasesWriter:
        """Continue ``found``'s file: a line cut short is cut off; the lines of ids in ``drop``
        (failed questions asked again) are removed first (the file rewritten beside and moved into
        place, so a kill during it loses nothing)."""
        p = found.path
        dropped = set(drop)
        if dropped:
            tmp = p.with_name(f".{p.name}.tmp{os.getpid()}")
            with p.open("rb") as src, tmp.open("wb") as dst:
                left = found.good_bytes
                for raw in src:
                    if left <= 0:
                        break
                    left -= len(raw)
                    text = raw.strip()
                    if text and json.loads(text).get("id") in dropped:
                        continue
                    dst.write(raw)
                dst.flush()
                os.fsync(dst.fileno())
            os.replace(tmp, p)
        elif found.torn_bytes:
            with p.open("r+b") as fh:
                fh.truncate(found.good_bytes)
        p.parent.mkdir(parents=True, exist_ok=True)
        return cls(p.open("a", encoding="utf-8"), p)

    def write(self, line: Mapping[str, Any]) -> None:
        self.fh.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
        self.fh.flush()
        now = time.monotonic()
        if now - self._last_sync >= FSYNC_EVERY_S:
            self._sync()
            self._last_sync = now

    def _sync(self) -> None:
        try:
            os.fsync(self.fh.fileno())
        except OSError:
            pass

    def close(self) -> None:
        if not self.fh.closed:
            self.fh.flush()
            self._sync()
            self.fh.close()

"""The JSON Lines results file, written as the run goes: one finished case per line.

Every line is one JSON object:

* a **case** — exactly one element of the JSON document's ``detailed_results`` (``export.case_dict``:
  ``id``, the texts, ``metrics``, ``labels`` …), written as soon as the case is finished;
* ``{"record": "run", …}`` — the run's settings, first in the file, and again each time
  ``--resume`` continues it (``"resumed": true``);
* ``{"record": "progress", "done": …, "elapsed_s": …}`` — after each chunk: how many cases the
  file holds and how long this session has run (so a run killed at any point still reports its
  time);
* ``{"record": "summary", …}`` — last, when the run ended: the JSON document's top level (means,
  intervals, counts, errors) without ``detailed_results``.

Each chunk's lines are flushed (and fsync'ed) before the next chunk starts, so ``kill -9`` at any
point leaves every finished case readable; a line cut short by the kill is ignored by the reader and
cut off by :meth:`Journal.resume`, which then appends. Nothing is ever rewritten in place.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Mapping

#: The key that marks a line that is not a case, and its values.
RECORD = "record"
RUN, PROGRESS, SUMMARY = "run", "progress", "summary"
#: fsync a chunk's lines at most this often (seconds): cheap insurance against a power cut.
FSYNC_EVERY_S = 2.0


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


class JournalError(ValueError):
    """A results file that cannot be continued (names the file and why)."""


@dataclass
class Scan:
    """What an existing JSON Lines results file holds (read line by line)."""

    path: Path
    #: ``run`` records in order (the first is the run's settings; later ones are resumptions).
    runs: list[dict[str, Any]] = field(default_factory=list)
    #: Finished case ids, in file order.
    ids: list[str] = field(default_factory=list)
    #: Seconds each session ran (its last ``progress`` record).
    session_seconds: list[float] = field(default_factory=list)
    #: Labeling / metric seconds of each session (last ``progress`` record).
    session_timings: list[dict[str, float]] = field(default_factory=list)
    summary: dict[str, Any] | None = None
    #: Byte offset after the last complete line (a line cut short by a kill starts here).
    good_bytes: int = 0
    #: Bytes of a last line cut short (0: the file ends cleanly).
    torn_bytes: int = 0

    @property
    def header(self) -> dict[str, Any]:
        return self.runs[0] if self.runs else {}

    @property
    def finished(self) -> bool:
        return self.summary is not None


def scan(path: str | Path, on_case: Callable[[dict[str, Any]], None] | None = None) -> Scan:
    """Read a JSON Lines results file once, line by line (``on_case`` gets each case dict).
    A last line without its newline (cut by a kill) is not counted; any other line that is not
    JSON is a :class:`JournalError` naming the file and the line."""
    p = Path(path)
    out = Scan(p)
    session = -1
    with p.open("rb") as fh:
        offset = 0
        for lineno, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                out.torn_bytes = len(raw)
                break
            offset += len(raw)
            text = raw.strip()
            if not text:
                out.good_bytes = offset
                continue
            try:
                rec = json.loads(text)
            except (ValueError, RecursionError) as exc:  # RecursionError: nested past the parser's depth
                raise JournalError(f"{p}: line {lineno} is not JSON ({type(exc).__name__}: {exc}); not a results file "
                                   "written by `evaluate --out FILE.jsonl`?") from None
            if not isinstance(rec, dict):
                raise JournalError(f"{p}: line {lineno} is not a JSON object")
            kind = rec.get(RECORD)
            if kind == RUN:
                out.runs.append(rec)
                out.session_seconds.append(0.0)
                out.session_timings.append({})
                session += 1
                out.summary = None  # a resumption continues past an earlier summary
            elif kind == PROGRESS and session >= 0:
                out.session_seconds[session] = float(rec.get("elapsed_s") or 0.0)
                out.session_timings[session] = {k: float(v) for k, v in (rec.get("timings") or {}).items()}
            elif kind == SUMMARY:
                out.summary = rec
            elif kind is None and "id" in rec:
                out.ids.append(str(rec["id"]))
                if on_case is not None:
                    on_case(rec)
            out.good_bytes = offset
    return out


class JsonlWriter:
    """Appends to a JSON Lines results file: cases as they finish, progress, the summary."""

    def __init__(self, fh: IO[str], path: Path) -> None:
        self.fh = fh
        self.path = path
        self._last_sync = 0.0

    @classmethod
    def create(cls, path: str | Path, header: Mapping[str, Any]) -> JsonlWriter:
        """A new file (an existing one is replaced) starting with the ``run`` record."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        w = cls(p.open("w", encoding="utf-8"), p)
        w._line({RECORD: RUN, **header})
        w.flush(sync=True)
        return w

    @classmethod
    def resume(cls, found: Scan, header: Mapping[str, Any]) -> JsonlWriter:
        """Continue the file ``found`` describes: a line cut short by a kill and an earlier summary
        line are cut off first, then a ``run`` record marks the resumption."""
        p = found.path
        keep = found.good_bytes
        if found.summary is not None:  # the summary is the last line: drop it, a new one follows
            keep = _offset_before_last_line(p, found.good_bytes)
        with p.open("r+b") as fh:
            fh.truncate(keep)
        w = cls(p.open("a", encoding="utf-8"), p)
        w._line({RECORD: RUN, "resumed": True, **header})
        w.flush(sync=True)
        return w

    def _line(self, obj: Mapping[str, Any]) -> None:
        self.fh.write(dumps(obj) + "\n")

    def case(self, d: Mapping[str, Any]) -> None:
        self._line(d)

    def progress(self, done: int, elapsed_s: float, timings: Mapping[str, float] | None = None) -> None:
        """After a chunk: cases in the file, this session's seconds; then flush (and fsync every
        :data:`FSYNC_EVERY_S`)."""
        self._line({RECORD: PROGRESS, "done": done, "elapsed_s": round(elapsed_s, 3),
                    **({"timings": {k: round(float(v), 3) for k, v in timings.items()}} if timings else {})})
        self.flush()

    def summary(self, top: Mapping[str, Any]) -> None:
        self._line({RECORD: SUMMARY, **top})
        self.flush(sync=True)

    def flush(self, sync: bool = False) -> None:
        import time

        self.fh.flush()
        now = time.monotonic()
        if sync or now - self._last_sync >= FSYNC_EVERY_S:
            try:
                os.fsync(self.fh.fileno())
            except OSError:
                pass
            self._last_sync = now

    def close(self) -> None:
        if not self.fh.closed:
            self.flush(sync=True)
            self.fh.close()


def _offset_before_last_line(p: Path, end: int) -> int:
    """Byte offset where the last complete line before ``end`` starts."""
    with p.open("rb") as fh:
        pos = max(0, end - 1)
        step = 65536
        while pos > 0:
            start = max(0, pos - step)
            fh.seek(start)
            block = fh.read(pos - start)
            i = block.rfind(b"\n")
            if i >= 0:
                return start + i + 1
            pos = start
    return 0


def case_lines(path: str | Path) -> Iterator[str]:
    """The case lines of a JSON Lines results file as text (not parsed), in order: what the JSON
    document's ``detailed_results`` is assembled from."""
    with Path(path).open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                return
            text = raw.decode("utf-8").strip()
            if text and not text.startswith('{"' + RECORD + '"'):
                yield text

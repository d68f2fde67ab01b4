"""Which traces to score: a time range, a span name, a session, a tag, then a seeded sample of N —
so a production export of 100,000 traces is evaluated on a slice. Filters apply to whole traces,
before any test case is built (a trace left out by a filter is not "skipped")."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timezone

from .model import Trace


def parse_time(text: str) -> float:
    """Seconds since the epoch from ``2026-05-01``, ``2026-05-01T12:00``, ``…Z`` or ``…+02:00``
    (a time without a zone is UTC). ValueError with the expected forms otherwise."""
    s = text.strip()
    try:
        dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is not a date or time; use 2026-05-01 or 2026-05-01T12:00:00Z") from None
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp()


@dataclass(frozen=True)
class TraceFilter:
    """Keep traces that started in [since, until), that have a span named ``span_name``, that
    belong to ``session``, that carry ``tag``; then at most ``sample`` of them, drawn with
    ``seed`` (the same seed gives the same slice; the slice keeps the file's order)."""

    since: float | None = None
    until: float | None = None
    span_name: str | None = None
    session: str | None = None
    tag: str | None = None
    sample: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.sample is not None and self.sample < 1:
            raise ValueError("sample must be at least 1")
        if self.since is not None and self.until is not None and self.until <= self.since:
            raise ValueError("the end of the time range must be after its start")

    def __bool__(self) -> bool:
        return any(v is not None for v in (self.since, self.until, self.span_name, self.session, self.tag,
                                           self.sample))

    def keeps(self, t: Trace) -> bool:
        if self.since is not None or self.until is not None:
            start = t.start_time()
            if start is None:
                return False
            if self.since is not None and start < self.since:
                return False
            if self.until is not None and start >= self.until:
                return False
        if self.span_name and self.span_name not in t.span_names():
            return False
        if self.session and self.session not in t.sessions():
            return False
        return not (self.tag and self.tag not in t.all_tags())

    def apply(self, traces: list[Trace]) -> list[Trace]:
        kept = [t for t in traces if self.keeps(t)]
        if self.sample is not None and len(kept) > self.sample:
            picked = sorted(random.Random(self.seed).sample(range(len(kept)), self.sample))
            kept = [kept[i] for i in picked]
        return kept

    def describe(self) -> str:
        parts = []
        if self.since is not None or self.until is not None:
            a = datetime.fromtimestamp(self.since, tz=timezone.utc).isoformat() if self.since is not None else "…"
            b = datetime.fromtimestamp(self.until, tz=timezone.utc).isoformat() if self.until is not None else "…"
            parts.append(f"started in [{a}, {b})")
        if self.span_name:
            parts.append(f"with a span named {self.span_name!r}")
        if self.session:
            parts.append(f"in session {self.session!r}")
        if self.tag:
            parts.append(f"tagged {self.tag!r}")
        if self.sample is not None:
            parts.append(f"a sample of {self.sample} (seed {self.seed})")
        return ", ".join(parts) or "all traces"

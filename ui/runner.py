"""Run an evaluation in chunks across Streamlit reruns.

Each script run evaluates one slice (``Job.chunk_size`` cases) with ``evaluate_batch`` and keeps
the slice's RunResult in the job (session state) *before* touching any widget, so a rerun caused
by Cancel (or by anything else) never loses finished work and never recomputes it. ``merge_runs``
joins the slices into the one RunResult the rest of the dashboard uses.
"""

from __future__ import annotations

import ctypes
import time
from typing import Any, Sequence

from evaluators.types import RunResult, Usage

from .state import Job


def merge_runs(parts: Sequence[RunResult], *, method: str, settings: dict[str, Any] | None = None,
               cancelled: bool = False) -> RunResult:
    """One RunResult from consecutive chunk runs (results in order, timings and usage summed)."""
    results = tuple(r for p in parts for r in p.results)
    timings: dict[str, float] = {}
    for p in parts:
        for k, v in p.timings.items():
            timings[k] = timings.get(k, 0.0) + float(v)
    return RunResult(
        method=method,
        results=results,
        settings=dict(settings if settings is not None else (parts[0].settings if parts else {})),
        timings=timings,
        usage=sum((p.usage for p in parts), Usage()),
        started_at=parts[0].started_at if parts else "",
        cancelled=cancelled or any(p.cancelled for p in parts),
    )


def fmt_seconds(s: float) -> str:
    s = max(0, int(round(s)))
    return f"{s // 60}m {s % 60:02d}s" if s >= 60 else f"{s}s"


def progress_text(done: int, total: int, elapsed: float) -> str:
    """'12 / 50 cases · 3s elapsed · ETA 10s' (ETA once something finished)."""
    text = f"{done} / {total} cases · {fmt_seconds(elapsed)} elapsed"
    if 0 < done < total:
        text += f" · ETA {fmt_seconds(elapsed / done * (total - done))}"
    elif done >= total and total:
        text += " · done"
    else:
        text += " · ETA: measuring…"
    return text


def _release_memory() -> None:
    """Hand freed heap pages back to the OS between chunks (glibc only; a no-op elsewhere), so the
    server's resident memory tracks the live data instead of the high-water mark of every chunk."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def run_next_chunk(job: Job) -> RunResult | None:
    """Evaluate the next slice of the job and record it in the job. None when nothing is left."""
    from evaluators.pipeline import evaluate_batch

    batch = job.next_slice()
    if not batch:
        return None
    part = evaluate_batch(list(batch), job.method, options=job.options, chunk_size=job.chunk_size)
    job.partial_runs.append(part)
    _release_memory()
    return part


def finish(job: Job, *, cancelled: bool = False) -> RunResult:
    settings = {"method": job.method, **job.options.public_dict()}
    run = merge_runs(job.partial_runs, method=job.method, settings=settings,
                     cancelled=cancelled and job.done < job.total)
    return run.model_copy(update={"timings": {**run.timings, "wall_s": time.time() - job.started}})

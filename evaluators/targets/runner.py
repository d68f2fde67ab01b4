"""A run: every question of a question file put to one target, each finished question written at once.

Contract of :func:`run_target` (and its coroutine :func:`arun_target`):

* Before any call it checks what would fail every question and raises :class:`~.errors.TargetError`
  (exit 2 in the CLI): a ``${VAR}`` not set, a ``{column}`` that is not a column of the question
  file, a Python function that cannot be imported, an address the policy refuses, a cases file that
  is not one (or was written for another target, or holds ids of other questions), an existing file
  without ``resume`` / ``overwrite``.
* Questions are called ``concurrency`` at a time (asyncio workers, each with its own HTTP
  connection; a sync Python function on a thread per call); each finished one is written as a line
  of :mod:`.casefile` and reported to ``progress(done, total)`` and ``on_record(line)``. With
  ``repeat`` N each question is asked N times, every answer kept.
* No question is lost: every call asked ends as a line — answered, or with its error (whatever the
  app sent, a fault of the runner's own included; a reply that cannot be written as JSON is written
  as that error) — or is counted in :attr:`RunReport.not_called` when the run stopped first; an
  exception of a callback is raised, never swallowed.
* A question that fails after its retries is written with its error and listed in
  :attr:`RunReport.failed`. A fatal failure (the app unreachable, credentials refused, no such
  endpoint, the cases file cannot be written) stops the run: questions in flight and not yet asked
  are not written, the report says why (``stopped``, ``fatal``), and ``resume=True`` asks exactly
  those later.
* Fail fast: when the first :data:`FAIL_FAST_CALLS` calls to finish all failed with the same cause
  (``Outcome.cause``: the same status, the same unreadable reply, the same exception type) and none
  was answered, a mistake breaks every call (a 422 on every request, a Python target returning what
  cannot be read): the run stops as for a fatal failure, those calls written with their error, and
  the report's ``stopped`` says the cause.
* ``should_stop()`` (polled every 50 ms) cancels the run the same way (``stopped="cancelled"``).
* ``resume=True`` asks only the questions the file does not hold (a line cut short by a kill is
  removed first); ``retry_failed=True`` also asks again those written with an error, replacing
  their lines. Every question ends in the file once.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..datasets import QuestionRow, QuestionSet
from .call import Caller, Outcome
from .casefile import CasesFileError, CasesWriter, case_line, repeat_id, scan
from .errors import TargetError
from .function import load_function
from .guard import guarded_transport
from .model import Target
from .template import BUILT_IN, Secrets, check_environment, columns_used, row_values

Progress = Callable[[int, int], None]
#: The run stops when its first this-many calls all failed with the same cause and none was answered.
FAIL_FAST_CALLS = 5


@dataclass
class RunReport:
    """What a run did. ``failed``: (id, error) of the questions written with an error this time."""

    target: str
    out: Path | None
    #: Calls this run had to make (questions × repeat, less those already in the file).
    total: int = 0
    answered: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    #: Lines already in the file (``resume``).
    already: int = 0
    #: Calls not made (the run stopped early): the same run with ``resume`` makes them.
    not_called: int = 0
    #: Why the run stopped early (None: it asked every question).
    stopped: str | None = None
    #: The run stopped because the app cannot be called at all.
    fatal: bool = False
    seconds: float = 0.0
    #: Latency of every answered call (seconds).
    latencies: list[float] = field(default_factory=list)
    #: Every line, when the run wrote no file (``out=None``).
    records: list[dict[str, Any]] = field(default_factory=list)
    #: Failed lines already in the file and not asked again (``resume`` without ``retry_failed``).
    kept_failed: int = 0

    @property
    def complete(self) -> bool:
        return self.stopped is None and self.not_called == 0

    def latency_summary(self) -> dict[str, float | None]:
        xs = sorted(self.latencies)
        if not xs:
            return {"p50_s": None, "p95_s": None}
        p95 = xs[min(len(xs) - 1, max(0, round(0.95 * len(xs)) - 1))]
        return {"p50_s": round(statistics.median(xs), 4), "p95_s": round(p95, 4)}


def _rows(questions: QuestionSet | Sequence[QuestionRow]) -> tuple[list[QuestionRow], list[str] | None, str]:
    if isinstance(questions, QuestionSet):
        return questions.rows, questions.columns, questions.name
    return list(questions), None, "the questions"


def _check(target: Target, rows: list[QuestionRow], columns: list[str] | None, qname: str,
           environ: Mapping[str, str]) -> None:
    http = target.spec.http
    if http is None:
        return
    if target.policy.expand_env:
        check_environment(http, target.source, environ)
    known = set(columns) if columns is not None else {k for r in rows for k in r.row}
    known |= set(BUILT_IN)
    for col, where in columns_used(http):
        if col not in known:
            raise TargetError(target.source, f"{where} uses {{{col}}}, which is not a column of {qname} "
                                             f"(columns: {', '.join(sorted(known))})", field=where)
    target.policy.check_url(http.url, target.source)


async def arun_target(target: Target, questions: QuestionSet | Sequence[QuestionRow], out: str | Path | None = None,
                      *, repeat: int = 1, resume: bool = False, retry_failed: bool = False, overwrite: bool = False,
                      concurrency: int | None = None, progress: Progress | None = None,
                      on_record: Callable[[dict[str, Any]], None] | None = None,
                      should_stop: Callable[[], bool] | None = None,
                      environ: Mapping[str, str] | None = None) -> RunReport:
    """The coroutine of :func:`run_target` (see the module doc)."""
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    rows, columns, qname = _rows(questions)
    env: Mapping[str, str] = os.environ if environ is None else environ
    _check(target, rows, columns, qname, env)
    function = load_function(target) if target.spec.python else None
    report = RunReport(target.name, Path(out) if out is not None else None)
    jobs = [(q, k) for q in rows for k in range(1, repeat + 1)]
    writer: CasesWriter | None = None
    if out is not None:
        jobs, writer = _open(target, Path(out), jobs, repeat, resume, retry_failed, overwrite, report)
    report.total = len(jobs)
    conc = max(1, concurrency or target.spec.concurrency)
    t0 = time.perf_counter()
    try:
        if jobs:
            await _work(target, function, jobs, conc, repeat, env, writer, report, progress, on_record, should_stop)
    finally:
        if writer is not None:
            writer.close()
        report.seconds = time.perf_counter() - t0
    return report


def _open(target: Target, path: Path, jobs: list[tuple[QuestionRow, int]], repeat: int, resume: bool,
          retry_failed: bool, overwrite: bool, report: RunReport) -> tuple[list[tuple[QuestionRow, int]], CasesWriter]:
    try:
        found = scan(path)
    except CasesFileError as exc:
        raise TargetError(str(path), str(exc).split(": ", 1)[-1]) from None
    if not resume:
        if found.done and not overwrite:
            raise TargetError(str(path), f"already holds {len(found.done)} answered questions: continue it with "
                                         "resume (--resume), or choose another output file")
        return jobs, CasesWriter.create(path)
    others = found.targets - {target.name}
    if others:
        raise TargetError(str(path), f"was written by target {sorted(others)[0]!r}, not {target.name!r}: "
                                     "choose another output file")
    expected = {repeat_id(q.id, k, repeat) for q, k in jobs}
    strangers = [i for i in found.done if i not in expected]
    if strangers:
        raise TargetError(str(path), f"holds id {strangers[0]!r}, which is not a question of this file"
                                     + (f" with repeat {repeat}" if repeat > 1 else "") + ": another question file?")
    again = set(found.failed) if retry_failed else set()
    report.already = len(found.done) - len(again)
    report.kept_failed = 0 if retry_failed else len(found.failed)
    todo = [(q, k) for q, k in jobs if repeat_id(q.id, k, repeat) not in found.done
            or repeat_id(q.id, k, repeat) in again]
    return todo, CasesWriter.resume(found, drop=again)


async def _work(target: Target, function: Callable[..., Any] | None, jobs: list[tuple[QuestionRow, int]],
                conc: int, repeat: int, env: Mapping[str, str], writer: CasesWriter | None, report: RunReport,
                progress: Progress | None, on_record: Callable[[dict[str, Any]], None] | None,
                should_stop: Callable[[], bool] | None) -> None:
    import httpx

    secrets = Secrets()
    limiter = None
    if target.spec.rpm:
        from aiolimiter import AsyncLimiter

        limiter = AsyncLimiter(1, 60.0 / target.spec.rpm)  # evenly spaced: never a burst over the rate
    http = target.spec.http
    caller = Caller(target, env, secrets, function=function, limiter=limiter, concurrency=conc)

    tls = httpx.create_ssl_context() if http is not None else None  # built once: it costs ~50 ms of CPU

    def client() -> httpx.AsyncClient | None:
        # one client (one connection) per worker: a shared pool scans all its connections on every request.
        # Redirects are never followed by the client: call.Caller follows those the target allows.
        if http is None:
            return None
        verify = tls if tls is not None else True
        if target.policy.typed_url:  # a visitor's address: every connection checked as it is made
            return httpx.AsyncClient(timeout=http.timeout_s, follow_redirects=False, trust_env=False,
                                     transport=guarded_transport(allow_private=target.policy.allow_private,
                                                                 allow_loopback=target.policy.allow_loopback,
                                                                 verify=verify))
        return httpx.AsyncClient(timeout=http.timeout_s, follow_redirects=False,
                                 limits=httpx.Limits(max_connections=1, max_keepalive_connections=1), trust_env=False,
                                 verify=verify)
    queue = list(reversed(jobs))
    done = 0
    stop = asyncio.Event()
    #: causes of the calls finished while none was answered (fail-fast)
    causes: list[str | None] = []

    def stop_run(why: str) -> None:
        if not stop.is_set():
            report.stopped, report.fatal = why, True
            stop.set()

    def write(line: dict[str, Any]) -> None:
        if writer is not None:
            writer.write(line)
        else:
            report.records.append(line)

    def finish(q: QuestionRow, k: int, outcome: Outcome) -> None:
        nonlocal done
        line = case_line(q, target.name, outcome, k, repeat, target.spec.match)
        try:
            write(line)
        except (TypeError, ValueError, RecursionError) as exc:  # a value that is not JSON: the question stays
            outcome = Outcome(None, f"the app's reply could not be written as JSON ({type(exc).__name__})",
                              outcome.attempts, outcome.latency_s, outcome.elapsed_s, outcome.status,
                              cause="unwritable")
            line = case_line(q, target.name, outcome, k, repeat, target.spec.match)
            write(line)
        if outcome.error is None:
            report.answered += 1
            if outcome.latency_s is not None:
                report.latencies.append(outcome.latency_s)
        else:
            report.failed.append((line["id"], outcome.error))
            if report.answered == 0 and len(jobs) > FAIL_FAST_CALLS:
                causes.append(outcome.cause)
                if len(causes) == FAIL_FAST_CALLS and len(set(causes)) == 1:
                    stop_run(f"the first {FAIL_FAST_CALLS} calls failed with the same cause and none was answered: "
                             f"{outcome.error}")
        done += 1
        if progress is not None:
            progress(done, len(jobs))
        if on_record is not None:
            on_record(line)

    async def ask(q: QuestionRow, own: httpx.AsyncClient | None) -> Outcome:
        try:
            return await caller.call(row_values(q), own)
        except Exception as exc:  # noqa: BLE001 - a fault of the runner's own: the question still gets its line
            why = secrets.excerpt(f"the call failed in the runner ({type(exc).__name__}: {exc})", 300)
            return Outcome(None, why, 1, None, 0.0, cause=f"runner {type(exc).__name__}")

    async def worker() -> None:
        own = client()
        try:
            while queue and not stop.is_set():
                q, k = queue.pop()
                outcome = await ask(q, own)
                if outcome.fatal:
                    stop_run(outcome.error or "the app cannot be called")
                    return
                if stop.is_set() and report.fatal:
                    return  # stopped while this call was in flight: asked again by --resume
                try:
                    finish(q, k, outcome)
                except OSError as exc:
                    stop_run(f"cannot write the cases file ({type(exc).__name__}: {exc})")
                    return
        except Exception as exc:
            stop_run(f"the run stopped on an error of its own ({type(exc).__name__}: {secrets.excerpt(str(exc), 200)})")
            raise
        finally:
            if own is not None:
                await asyncio.shield(own.aclose())

    async def watch() -> None:
        while not stop.is_set():
            if should_stop is not None and should_stop():
                report.stopped = report.stopped or "cancelled"
                stop.set()
                return
            await asyncio.sleep(0.05)

    try:
        tasks = [asyncio.create_task(worker()) for _ in range(min(conc, len(jobs)))]
        watcher = asyncio.create_task(watch())
        finished = asyncio.create_task(asyncio.wait(tasks))
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait([finished, stopped], return_when=asyncio.FIRST_COMPLETED)
        stop.set()
        for t in tasks:
            t.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(watcher, finished, stopped, return_exceptions=True)
        failures = [r for r in results if isinstance(r, Exception)]
        if failures:  # a callback (progress, on_record) or the runner itself failed: said, not swallowed
            raise failures[0]
    finally:
        report.not_called = len(jobs) - done


def run_target(target: Target, questions: QuestionSet | Sequence[QuestionRow], out: str | Path | None = None,
               **kw: Any) -> RunReport:
    """Run ``target`` on ``questions``, writing the cases file ``out`` (see the module doc); the
    keywords are :func:`arun_target`'s. Runs its own event loop: call it from a thread that has
    none (the CLI, a background thread of the dashboard)."""
    return asyncio.run(arun_target(target, questions, out, **kw))

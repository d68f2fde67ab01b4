"""Evaluate a data file into a results file, chunk by chunk, in bounded memory (``evaluate``).

:func:`evaluate_file` reads the input in chunks (``datasets.stream``), evaluates each chunk with one
:class:`~evaluators.pipeline.Evaluation` (the method built once), writes every finished case at
once to a JSON Lines journal (:mod:`.jsonl`) and keeps only the per-case metric values
(:class:`~evaluators.tally.RunTally`) for the summary, the intervals and the CI gates. Before the
first chunk, the run's retrieval matching (by id or by text) and whether it is judged for citations
are decided over the whole input (:func:`plan_run`), so every chunk — and every ``--resume`` session —
scores alike. At the end:

* ``out`` = ``*.jsonl``: the journal *is* the results file; the summary is appended as its last line;
* ``out`` = ``*.json``: the journal is ``<out>.partial.jsonl`` beside it; the JSON document is
  assembled from it (top level first, then one case per line) and the journal removed;
* ``csv``: one row per case, streamed from the journal (two passes: the columns, then the rows).

A run killed at any point leaves every finished case in the journal; ``resume=True`` reads it back
(the tally from its lines, the finished ids), evaluates only the cases not in it, in input order,
and reports the whole run: every case once, the time of every session.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from ..citations import CiteScan
from ..citations import with_plan as with_citation_plan
from ..datasets.stream import CHUNK_ROWS, CaseStream, LoadedStream, open_cases
from ..export import case_dict, row_of, write_csv
from ..options import EvalOptions, RetrievalRun
from ..pipeline import Evaluation
from ..retrieval import MatchScan, with_plan
from ..tally import RunTally
from ..types import SCHEMA_VERSION, CaseResult, TestCase
from .jsondoc import write_doc
from .jsonl import JournalError, JsonlWriter, Scan, case_lines, scan
from .read import iter_case_dicts

Progress = Callable[[int, int | None], None]


def journal_path(out: str | Path) -> Path:
    """Where the cases of a run writing ``out`` go as they finish: ``out`` itself for JSON Lines,
    else ``<out>.partial.jsonl`` beside it."""
    p = Path(out)
    return p if p.suffix.lower() in (".jsonl", ".ndjson") else p.with_name(p.name + ".partial.jsonl")


@dataclass
class FileRun:
    """What :func:`evaluate_file` did."""

    top: dict[str, Any]
    tally: RunTally
    stream: CaseStream | LoadedStream
    #: Cases found in the results file before this session (``resume``), evaluated in this session.
    resumed: int = 0
    evaluated: int = 0
    cancelled: bool = False
    written: list[Path] = field(default_factory=list)


def _open_journal(jp: Path, resume: bool, method: str, tally: RunTally, done: set[str]) -> Scan | None:
    """The journal to continue (``resume``: its cases go into ``tally`` and ``done``), or None to
    start afresh; refuses to overwrite an unfinished run unless told to resume it."""
    if not jp.exists():
        return None
    if not resume:
        found = scan(jp)
        if not found.finished and found.ids:
            raise JournalError(f"{jp} holds an unfinished run ({len(found.ids):,} cases finished): add --resume to "
                               "continue it, or delete the file to start again")
        return None

    def add(d: dict[str, Any]) -> None:
        tally.add_dict(d)
        done.add(str(d["id"]))

    found = scan(jp, on_case=add)
    if found.header.get("method") not in (None, method):
        raise JournalError(f"{jp} is a run of method {found.header.get('method')!r}, not {method!r}: resume it "
                           "with the same method, or write to another file")
    return found


def evaluate_file(
    source: str | Path,
    method: str = "trace",
    *,
    options: EvalOptions | None = None,
    out: str | Path | None = None,
    csv: str | Path | None = None,
    resume: bool = False,
    mapping: Any = None,
    overrides: Mapping[str, str] | None = None,
    chunk_rows: int = CHUNK_ROWS,
    engine: str = "local",
    ray_address: str | None = None,
    group_column: str | None = None,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    decorate: Callable[[dict[str, Any], RunTally], None] | None = None,
    stream: CaseStream | LoadedStream | None = None,
    on_case: Callable[[CaseResult], None] | None = None,
) -> FileRun:
    """Evaluate the cases of ``source`` into ``out`` / ``csv`` (see the module docstring).

    ``progress(done, total)`` as cases finish (``total`` None when the input's size is unknown);
    ``should_stop()`` between chunks ends the run early (the results are written, ``cancelled``);
    ``decorate(top, tally)`` may add to the top level before it is written (the CLI's gate reports,
    encoder); ``on_case(result)`` sees every case as it finishes. Raises ``DatasetError`` for an
    unreadable input, :class:`JournalError` for a results file that cannot be continued."""
    ev = Evaluation(method, options, engine=engine, ray_address=ray_address)
    if method == "hybrid":
        from ..labelers.hybrid import is_selective

        if is_selective(ev.options):  # picks the least certain cases of the whole run: one chunk
            chunk_rows = 10**9
            if stream is not None:
                stream.chunk_rows = chunk_rows
    stream = stream or open_cases(source, mapping=mapping, overrides=overrides, chunk_rows=chunk_rows)
    ev.options = plan_run(ev.options, stream)  # by id or by text, citations or not: decided for the whole run
    spool: tempfile.TemporaryDirectory | None = None
    jp: Path | None = None
    if out is not None:
        jp = journal_path(out)
    else:  # no results file asked for: a temporary journal only when a CSV is
        spool = tempfile.TemporaryDirectory(prefix="rag-eval-") if csv is not None else None
        jp = Path(spool.name) / "results.jsonl" if spool is not None else None
    tally = RunTally(group_column)
    done: set[str] = set()
    if resume and out is not None and jp is not None and jp != Path(out) and Path(out).exists() and not jp.exists():
        raise JournalError(f"{out} holds a finished run: nothing to resume (without --resume the cases are "
                           "evaluated again)")
    found = _open_journal(jp, resume, method, tally, done) if jp is not None else None
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    header = {"schema_version": SCHEMA_VERSION, "method": method, "settings": ev.settings, "started_at": started,
              "input_file": str(source), "input_mapping": _mapping(stream), "engine": engine}
    writer: JsonlWriter | None = None
    if found is not None:
        writer = JsonlWriter.resume(found, header)
        started = found.header.get("started_at") or started
    elif jp is not None:
        writer = JsonlWriter.create(jp, header)
    before_s: list[float] = found.session_seconds if found is not None else []
    before_t: list[dict[str, float]] = found.session_timings if found is not None else []
    t0 = time.perf_counter()
    timings = {"labeling_s": 0.0, "metrics_s": 0.0}
    total = stream.total_hint
    n_before = tally.num_cases
    cancelled = False
    warnings: list[str] = []  # the run's (each chunk's, once): unknown tools, goal accuracy not available …

    def tick(k: int, base: int) -> None:
        if progress is not None:
            progress(base + k, total)

    if progress is not None:
        progress(tally.num_cases, total)
    try:
        for got in _evaluated(ev, stream, done, tick, lambda: tally.num_cases, should_stop, warnings):
            if got is None:
                cancelled = True
                break
            results, part_timings = got
            for r in results:
                if writer is not None:
                    writer.case(case_dict(r))
                tally.add(r)
                if on_case is not None:
                    on_case(r)
            for k in timings:
                timings[k] += float(part_timings.get(k, 0.0))
            if writer is not None:
                writer.progress(tally.num_cases, time.perf_counter() - t0, timings)
            tick(0, tally.num_cases)
    except BaseException:
        if writer is not None:
            writer.close()  # every finished chunk is in the journal: resume continues it
        raise
    session_s = time.perf_counter() - t0
    timings_all = {"wall_s": round(sum(before_s) + session_s, 3)}
    for k in ("labeling_s", "metrics_s"):
        timings_all[k] = round(sum(t.get(k, 0.0) for t in before_t) + timings[k], 3)
    timings_all["total_s"] = timings_all["wall_s"]
    top = tally.top_level(method=method, settings=ev.settings, timings=timings_all, started_at=started,
                          cancelled=cancelled, warnings=warnings)
    top.update({"input_file": str(source), "input_mapping": _mapping(stream),
                "input_errors": [e.to_dict() for e in stream.errors],
                "input_warnings": [w.to_dict() for w in stream.warnings]})
    if found is not None:
        top["sessions"] = len(found.runs) + 1
    if decorate is not None:
        decorate(top, tally)
    res = FileRun(top, tally, stream, resumed=n_before, evaluated=tally.num_cases - n_before, cancelled=cancelled)
    try:
        if writer is not None:
            writer.summary(top)
            writer.close()
        if out is not None and jp is not None and jp != Path(out):
            res.written.append(write_doc(out, top, {"detailed_results": case_lines(jp)}))
            jp.unlink()
        elif out is not None:
            res.written.append(Path(out))
        if csv is not None and jp is not None:
            res.written.append(write_csv_file(out if out is not None and Path(out).exists() else jp, csv, method))
    finally:
        if spool is not None:
            spool.cleanup()
    return res


def plan_run(options: EvalOptions, stream: CaseStream | LoadedStream) -> EvalOptions:
    """``options`` with the run's decisions made over the whole input before it is cut into chunks:
    how retrieval matches passages (``retrieval.plan``) and whether the run is judged for citations
    (``citations.plan``). A file is pre-scanned once by a second reader (validated rows, one chunk in
    memory) that stops as soon as neither decision can change — the first retrieved id that is a
    reference id (a file whose columns hold no reference needs none) and the first response with a
    citation marker; the whole file is read again only when no response cites."""
    if isinstance(stream, LoadedStream):
        return with_citation_plan(with_plan(options, stream.loaded.cases), stream.loaded.cases)
    m = stream.mapping
    if options.retrieval_run is None and not (m.reference_context_ids or m.reference_context_relevance
                                              or m.reference_contexts):
        options = options.model_copy(update={"retrieval_run": RetrievalRun(
            match="none", reason="the input has no reference column (reference_context_ids, "
                                 "reference_context_relevance or reference_contexts)")})
    rscan = MatchScan() if options.retrieval_run is None else None
    cscan = CiteScan() if options.citation_run is None else None
    setting = options.retrieval_match

    def open_r() -> bool:
        if rscan is None:
            return False
        return not (rscan.settled if setting == "auto" else rscan.with_references)

    if rscan is not None or cscan is not None:
        for chunk in open_cases(stream.path, mapping=m, chunk_rows=stream.chunk_rows):
            for case in chunk.cases:
                if open_r():
                    rscan.add(case)  # type: ignore[union-attr]
                if cscan is not None and not cscan.settled:
                    cscan.add(case)
            if not open_r() and (cscan is None or cscan.settled):
                break
    update: dict[str, Any] = {}
    if rscan is not None:
        update["retrieval_run"] = rscan.decide(setting)
    if cscan is not None:
        update["citation_run"] = cscan.decide()
    return options.model_copy(update=update) if update else options


def _mapping(stream: Any) -> dict[str, Any] | None:
    """The column mapping of the input (None for a trace export: one case per trace)."""
    return stream.mapping.model_dump() if stream.mapping is not None else None


def _evaluated(ev: Evaluation, stream: CaseStream | LoadedStream, done: set[str], tick: Callable[[int, int], None],
               done_now: Callable[[], int], should_stop: Callable[[], bool] | None, warnings: list[str] | None = None
               ) -> Iterator[tuple[list[CaseResult], dict[str, float]] | None]:
    """(finished cases, their labeling / metric seconds) of each chunk of the input, the cases not in
    ``done`` only, in input order; None when stopped. The chunks' run warnings go to ``warnings``
    (each once)."""
    if ev.engine == "ray":
        from ..engines.ray_engine import stream_file

        yield from stream_file(ev, stream, done, tick, done_now, should_stop)
        return
    for chunk in stream:
        if should_stop is not None and should_stop():
            yield None
            return
        todo: list[TestCase] = [c for c in chunk.cases if c.id not in done]
        if not todo:
            continue
        base = done_now()

        def within(k: int, _n: int, b: int = base) -> None:
            tick(k, b)

        part = ev.run(todo, progress=within, should_stop=should_stop)
        if warnings is not None:
            warnings.extend(w for w in dict.fromkeys(part.warnings) if w not in warnings)
        yield list(part.results), part.timings
        if part.cancelled:
            yield None
            return


def csv_columns(path: str | Path, method: str) -> list[str]:
    """The CSV header of a results file: every row's keys, in the order first seen (one pass)."""
    cols: dict[str, None] = {}
    for d in iter_case_dicts(path):
        cols.update(dict.fromkeys(row_of(d, method)))
    last = [c for c in ("error",) if c in cols]
    return [c for c in cols if c not in last] + last


def write_csv_file(results: str | Path, dest: str | Path, method: str | None = None) -> Path:
    """One CSV row per case of a results file (JSON or JSON Lines), streamed: the columns in a first
    pass, the rows in a second; memory holds one case. Text cells are neutralised as in every CSV
    the product writes (``export.csv_cell``)."""
    from .read import read_top

    if method is None:
        method = str(read_top(results).get("method") or "")
    cols = csv_columns(results, method)
    p = Path(dest)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", encoding="utf-8", newline="") as fh:
        write_csv((row_of(d, method) for d in iter_case_dicts(results)), cols, fh)
    return p

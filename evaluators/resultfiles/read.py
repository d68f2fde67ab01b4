"""Reading results files case by case: the JSON document (``evaluate --out FILE.json``, the
dashboard's download) and JSON Lines (``--out FILE.jsonl``), whatever their size.

* :func:`iter_case_dicts` — each case's dict (``export.case_dict``), one at a time;
* :func:`iter_cases` — each case as a light :class:`CaseRecord` (id, scores, error, question,
  human labels, a fingerprint of its texts: what tables, comparisons and gates need), or with
  ``full=True`` as a ``CaseResult`` (labels, spans, texts: what Inspect needs);
* :func:`read_top` — the run-level part (method, settings, means, intervals, timings …);
* :func:`read_run` — a whole (small) file as a ``RunResult``.

Either may be gzip-compressed. What a path must be before it is parsed (and every way it can fail
to be a results file) is :mod:`.source`'s. A JSON document written by this project keeps each case
on a line of its own, so it is read line by line too; another layout (e.g. re-indented by a tool) is
parsed whole. A JSON Lines file cut short by a kill reads as the cases it holds (the top level then
comes from its ``run`` and ``progress`` records). Every error is a
:class:`~evaluators.export.ResultsFileError` naming the file (and the case).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..export import ResultsFileError, case_from_dict
from ..types import CASE_METRICS, CaseResult, RunResult, Usage
from .jsonl import PROGRESS, RECORD, RUN, SUMMARY
from .source import Source, open_source

#: The line that opens the cases of a JSON document written by ``cli.common.dump_json``.
_DOC_CASES = '  "detailed_results": ['


@dataclass(frozen=True)
class CaseRecord:
    """One case of a results file without its labels and documents: a few hundred bytes."""

    id: str
    #: The per-case ``metrics`` object (TRACE metrics, sentence counts, family metrics; None when
    #: the case was not scored).
    metrics: dict[str, Any]
    error: str | None = None
    question: str = ""
    labeled_by: str | None = None
    #: Human labels the input carried (``TestCase.labels``).
    human_labels: dict[str, Any] = field(default_factory=dict)
    #: A hash of the case's question, response and documents: the same case in two runs has the
    #: same fingerprint (pair runs by id *and* fingerprint).
    fingerprint: str = ""
    #: Position in the file (0-based).
    index: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None and self.metrics.get("adherence") is not None

    def value(self, name: str) -> float | None:
        """The case's value of a metric (None when absent), ``average`` = mean of the four ratios."""
        if name == "average":
            four = [self.metrics.get(m) for m in ("context_relevance", "context_utilization",
                                                  "completeness", "adherence")]
            nums = [float(v) for v in four if v is not None]
            return sum(nums) / 4.0 if len(nums) == 4 else None
        v = self.metrics.get(name)
        return None if v is None else float(v)


def fingerprint_of(d: Mapping[str, Any]) -> str:
    """The fingerprint of a case dict's texts (question, response, documents)."""
    h = hashlib.sha1()
    for part in (d.get("question") or "", d.get("llm_response") or "", *(d.get("retrieved_documents") or ())):
        h.update(str(part).encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:16]


def record_of(d: Mapping[str, Any], index: int = 0) -> CaseRecord:
    metrics = dict(d.get("metrics") or {})
    for k in CASE_METRICS:
        metrics.setdefault(k, None)
    return CaseRecord(id=str(d.get("id")), metrics=metrics, error=d.get("error"),
                      question=str(d.get("question") or ""), labeled_by=d.get("labeled_by"),
                      human_labels=dict(d.get("human_labels") or {}), fingerprint=fingerprint_of(d),
                      index=index)


def _kind(src: Source) -> str:
    """'jsonl' or 'json', by the extension (under a ``.gz``), else by the first character that is
    not blank."""
    if src.suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if src.suffix == ".json":
        return "json"
    head = src.head.lstrip()
    return "json" if head.startswith(b"{\n") or head.startswith(b"{\r\n") else "jsonl"


def _jsonl_dicts(src: Source) -> Iterator[dict[str, Any]]:
    """Every object of a JSON Lines file (a last line cut short is skipped)."""
    p = src.path
    for lineno, raw in src.lines():
        text = raw.strip()
        if not text:
            continue
        try:
            rec = src.loads(src.decode(text, lineno), f"line {lineno}")
        except ResultsFileError:
            if not raw.endswith(b"\n"):
                return  # the last line, cut short by a kill: the case was not finished
            raise
        if not isinstance(rec, dict):
            raise ResultsFileError(f"{p}: line {lineno} is not a JSON object")
        yield rec


def _doc_stream(src: Source) -> tuple[dict[str, Any], Iterator[dict[str, Any]]] | None:
    """(top level, cases) of a JSON document in this project's layout, read line by line; None
    when the file has another layout. The top level is read first (one pass over the lines, the
    cases skipped), the cases by a second pass as they are iterated."""
    head: list[str] = []
    state = "top"
    seen = False
    for lineno, raw in src.lines():
        s = src.decode(raw, lineno).rstrip("\r\n")
        if lineno == 1:
            if s != "{":
                return None
            head.append("{")
            continue
        if state == "top":
            if s == _DOC_CASES:
                state, seen = "cases", True
                head.append('  "detailed_results": []')
                continue
            seen = seen or s in ('  "detailed_results": [],', '  "detailed_results": []')
            head.append(s)
        elif state == "cases":
            if s.startswith("  ]"):
                head[-1] += s[3:]  # "]," -> the comma after the list
                state = "top"
            elif not s.startswith("    {"):
                return None
    if not seen:
        return None
    try:
        top = json.loads("\n".join(head))
    except (ValueError, RecursionError):
        return None
    if not isinstance(top, dict) or not isinstance(top.get("detailed_results"), list):
        return None

    def cases() -> Iterator[dict[str, Any]]:
        inside = False
        for lineno, raw in src.lines():
            s = src.decode(raw, lineno).rstrip("\r\n")
            if not inside:
                inside = s == _DOC_CASES
                continue
            if s.startswith("  ]"):
                return
            yield src.loads(s[4:].rstrip(","), f"line {lineno} (a case)")

    return top, cases()


def _whole_doc(src: Source) -> dict[str, Any]:
    data = src.loads(src.read_text())
    if not isinstance(data, dict) or not isinstance(data.get("detailed_results"), list):
        raise src.error("not a results file (a JSON object with 'detailed_results', as written by "
                        "`evaluate --out`)")
    return data


def _migrated_top(top: dict[str, Any], p: Path) -> dict[str, Any]:
    from ..schema import SchemaError, migrate_export

    try:
        return migrate_export({**top, "detailed_results": []})
    except SchemaError as exc:
        raise ResultsFileError(f"{p}: {exc}") from None
    except (RecursionError, TypeError, ValueError) as exc:  # a foreign top level
        raise ResultsFileError(f"{p}: not a results file: its top level cannot be read "
                               f"({type(exc).__name__}: {exc})") from None


def _jsonl_top(src: Source) -> dict[str, Any]:
    """The top level of a JSON Lines results file: its summary line, or (a run cut short) its first
    ``run`` record with the time of its ``progress`` records and the count of its cases."""
    runs: list[dict[str, Any]] = []
    seconds: list[float] = []
    summary: dict[str, Any] | None = None
    n = 0
    p = src.path
    for rec in _jsonl_dicts(src):
        kind = rec.get(RECORD)
        if kind == RUN:
            runs.append(rec)
            seconds.append(0.0)
            summary = None
        elif kind == PROGRESS and seconds:
            elapsed = rec.get("elapsed_s")
            seconds[-1] = float(elapsed) if isinstance(elapsed, (int, float)) else 0.0
        elif kind == SUMMARY:
            summary = rec
        elif kind is None:
            n += 1
    if summary is not None:
        top = {k: v for k, v in summary.items() if k != RECORD}
        top.setdefault("status", "finished")
    elif runs:
        first = runs[0]
        top = {k: v for k, v in first.items() if k not in (RECORD, "resumed")}
        top.update({"num_samples": n, "timings": {"wall_s": round(sum(seconds), 3)}, "status": "unfinished",
                    "cancelled": False})
    elif n:
        raise ResultsFileError(f"{p}: not a results file: it has no run record (is it a file of test cases? "
                               "evaluate it first: python -m evaluators evaluate FILE --out RESULTS.jsonl)")
    else:
        raise ResultsFileError(f"{p}: not a results file (no case and no run record)")
    return _migrated_top(top, p)


def read_top(path: str | Path) -> dict[str, Any]:
    """The run-level part of a results file (everything but ``detailed_results``), migrated to
    the current version. A JSON Lines file cut short has ``"status": "unfinished"``."""
    src = open_source(path)
    if _kind(src) == "jsonl":
        return _jsonl_top(src)
    doc = _doc_stream(src)
    top = doc[0] if doc is not None else _whole_doc(src)
    out = _migrated_top({k: v for k, v in top.items() if k != "detailed_results"}, src.path)
    out.pop("detailed_results", None)
    return out


def iter_case_dicts(path: str | Path) -> Iterator[dict[str, Any]]:
    """Each case of a results file as its dict (``export.case_dict``), in file order, one at a time."""
    src = open_source(path)
    if _kind(src) == "jsonl":
        for rec in _jsonl_dicts(src):
            if rec.get(RECORD) is None:
                if "id" not in rec:
                    raise src.error(f"a line has no 'id' and no '{RECORD}': not a results file")
                yield rec
        return
    doc = _doc_stream(src)
    if doc is not None:
        yield from doc[1]
        return
    yield from _whole_doc(src)["detailed_results"]


def iter_cases(path: str | Path, *, full: bool = False, method: str | None = None) -> Iterator[Any]:
    """Each case of a results file, in file order, one at a time: a :class:`CaseRecord` (light), or
    with ``full=True`` a ``CaseResult`` (of ``method``: the file's, read from its top level when not
    given). :class:`ResultsFileError` names the file and the case."""
    from pydantic import ValidationError

    if full and method is None:
        method = str(read_top(path).get("method") or "")
    for i, d in enumerate(iter_case_dicts(path)):
        if not isinstance(d, dict) or "id" not in d:
            raise ResultsFileError(f"{path}: case {i + 1} is not an object with an 'id'")
        if not full:
            yield record_of(d, i)
            continue
        try:
            yield case_from_dict({"method": method, **d})
        except (KeyError, TypeError, ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ResultsFileError(f"{path}: case {i + 1} (id {d.get('id')!r}) cannot be read: {first}") from None


def read_run(path: str | Path) -> RunResult:
    """A whole results file (JSON or JSON Lines) as a ``RunResult`` — for files that fit in memory;
    :func:`iter_cases` reads any size."""
    top = read_top(path)
    cases: list[CaseResult] = list(iter_cases(path, full=True))
    return RunResult(method=top.get("method") or "", results=tuple(cases), settings=top.get("settings") or {},
                     timings=top.get("timings") or {}, usage=Usage.model_validate(top.get("usage") or {}),
                     started_at=top.get("started_at") or "", cancelled=bool(top.get("cancelled")),
                     warnings=tuple(top.get("warnings") or ()))

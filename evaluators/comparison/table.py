"""The compact per-run table a comparison works on: one row per case with its id, question, a hash
of its documents and the value of every comparable metric (NaN where a case has none), the
app's own latency, tokens and failure where the case records its call (``RunTable.app``), and the
names of the tools an agent called (``RunTable.tools``). Nothing else of a case is kept: the
sentence-level detail of the few cases a comparison lists (its regressions) is fetched on demand
through ``RunTable.details``.

Three ways in, one builder (:class:`TableBuilder`):

* :func:`table_from_records` — case records in the results-file format (``export.case_dict``: a
  ``detailed_results`` item), from any iterable (a streaming reader of a results file fits here);
* :func:`table_from_run` — a ``RunResult`` in memory, or a run of the history read case by case
  (anything with ``iter_results()`` and ``cases(ids)``, e.g. ``evaluators.store.StoredRun``);
* :func:`table_from_file` — a results file (``evaluate --out``, JSON or JSON Lines) read one case at
  a time (``resultfiles.iter_case_dicts``), and re-read only for the cases a comparison lists: two
  100,000-case runs compare in bounded memory.
"""

from __future__ import annotations

import hashlib
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ..appcost import app_call
from ..conversations.grouping import place_of, resolve_places
from ..export import ResultsFileError, case_from_dict
from ..sentencize import letters, sentences_of
from ..types import (
    AVERAGE,
    EXPECTED_ADHERENCE,
    OVERALL_SUPPORTED,
    SENTENCE_COUNTS,
    TRACE_METRICS,
    CaseResult,
    RunResult,
)
from .app import APP_COLUMNS, app_columns
from .left_out import LeftOut
from .left_out import record as record_left_out

#: Per-case metrics that are counts, not scores: never compared.
NOT_COMPARED = frozenset(SENTENCE_COUNTS)
#: The TRACE metrics a comparison can use, in report order.
COMPARED_TRACE = (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED, AVERAGE)


@dataclass(frozen=True)
class SentenceDetail:
    """One response sentence of a case as labeled: its text and support level
    (``full`` / ``partial`` / ``none``, or ``unlabeled``)."""

    text: str
    level: str


#: Row numbers -> the response sentences of those rows (rows without labels may be left out).
DetailFetcher = Callable[[Sequence[int]], Mapping[int, tuple[SentenceDetail, ...]]]


@dataclass
class RunTable:
    """One run as a comparison sees it (rows in the run's order)."""

    name: str
    method: str
    ids: list[str]
    questions: list[str]
    #: A short hash of each case's documents (equal documents, equal hash).
    doc_hashes: list[str]
    #: metric -> float array of len(ids), NaN where the case has no value.
    values: dict[str, np.ndarray]
    #: When the run started (ISO time, may be empty).
    started_at: str = ""
    details: DetailFetcher | None = field(default=None, repr=False)
    #: A hash of every case's id, question, documents and response: two runs of the same file (say,
    #: two methods) share it; two versions of a system's answers do not.
    fingerprint: str = ""
    #: metric -> the values that are not numbers (NaN, text …), left out of every figure (:mod:`.left_out`).
    left_out: dict[str, LeftOut] = field(default_factory=dict)
    #: The results file is of a run that did not finish (a JSON Lines file without its summary).
    unfinished: bool = False
    #: The app's own numbers per case (``app.APP_COLUMNS``: latency, tokens, failed; NaN where a case
    #: records none); empty when no case records an app call.
    app: dict[str, np.ndarray] = field(default_factory=dict)
    #: The conversation of each row and its turn (``conversations.grouping``); None when no case of
    #: the run is a turn of a conversation.
    conversations: list[str | None] | None = None
    turns: list[int] | None = None
    #: The tools each row's agent called (their names; ``TestCase.tool_calls``); None when no case of
    #: the run records a tool call (:mod:`.tools`).
    tools: list[frozenset[str]] | None = None
    #: The app target every case that records an app call names (the runner's ``target``), when
    #: they name one: what a run of an app's answers is called by (``compare`` labels it so).
    target: str | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def metrics(self) -> list[str]:
        """Metrics with a value on at least one case, in table order."""
        return [m for m, v in self.values.items() if np.isfinite(v).any()]

    def fetch(self, rows: Sequence[int]) -> Mapping[int, tuple[SentenceDetail, ...]]:
        return self.details(rows) if self.details is not None and rows else {}


def doc_hash(documents: Sequence[str]) -> str:
    h = hashlib.sha1()
    for d in documents:
        h.update(str(d).encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()[:16]


def _number(v: Any) -> float:
    if v is None or isinstance(v, str):
        return float("nan")
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


class TableBuilder:
    """Accumulates rows (``add``) into a :class:`RunTable` (``build``); memory: the ids, questions,
    a 16-character hash and 8 bytes per metric per case."""

    def __init__(self, name: str, method: str = "", started_at: str = "") -> None:
        self.name, self.method, self.started_at = name, method, started_at
        self.ids: list[str] = []
        self.questions: list[str] = []
        self.hashes: list[str] = []
        self.cols: dict[str, array] = {}
        self.left_out: dict[str, LeftOut] = {}
        self.app: dict[str, array] = {}
        self._content = hashlib.sha1()
        self._places: list[tuple[str | None, int, str | None]] = []
        self._tools: list[frozenset[str]] = []
        self._any_tools = False
        self.targets: set[str] = set()

    def add(self, case_id: Any, question: Any, documents: Sequence[str], values: Mapping[str, Any],
            response: str | None = None, metadata: Mapping[str, Any] | None = None, history: Any = (),
            conversation_id: str | None = None, tools: Any = None) -> None:
        """One case; ``history`` (turns or their dicts) and ``conversation_id`` place a turn of a chat;
        ``tools``: its tool calls (``ToolCall`` s or their dicts) or their names."""
        n = len(self.ids)
        names = tool_names(tools)
        self._tools.append(names)
        self._any_tools = self._any_tools or bool(names)
        app = app_columns(metadata)
        call = app_call(metadata) if app is not None else None
        if call is not None and call.target:
            self.targets.add(call.target)
        if app is not None and not self.app:
            self.app = {k: array("d", [float("nan")] * n) for k in APP_COLUMNS}
        for k, app_col in self.app.items():
            app_col.append(float("nan") if app is None else app[k])
        self.ids.append(str(case_id))
        self.questions.append("" if question is None else str(question))
        self.hashes.append(doc_hash(documents or ()))
        for part in (self.ids[-1], self.questions[-1], self.hashes[-1], response or ""):
            self._content.update(part.encode("utf-8", "surrogatepass") + b"\x1e")
        for m, v in values.items():
            if m in NOT_COMPARED or isinstance(v, (dict, list)):
                continue
            col = self.cols.get(m)
            if col is None:
                col = self.cols[m] = array("d", [float("nan")] * n)
            col.append(_number(v))
            record_left_out(self.left_out, m, self.ids[-1], v)
        for col in self.cols.values():
            if len(col) == n:
                col.append(float("nan"))
        self._places.append(place_of(self.questions[-1], history, conversation_id))

    def build(self, details: DetailFetcher | None = None) -> RunTable:
        values = {m: np.frombuffer(col, dtype=float).copy() for m, col in self.cols.items()}
        if AVERAGE not in values and all(m in values for m in TRACE_METRICS):
            values[AVERAGE] = np.mean([values[m] for m in TRACE_METRICS], axis=0)
        convs, turns = resolve_places(self._places)
        return RunTable(self.name, self.method, self.ids, self.questions, self.hashes, values,
                        self.started_at, details, self._content.hexdigest()[:16], self.left_out,
                        app={k: np.frombuffer(col, dtype=float).copy() for k, col in self.app.items()},
                        conversations=convs, turns=turns, tools=self._tools if self._any_tools else None,
                        target=next(iter(self.targets)) if len(self.targets) == 1 else None)


def tool_names(calls: Any) -> frozenset[str]:
    """The names of a case's tool calls: ``ToolCall`` s, their dicts (a results file's ``tool_calls``)
    or names; nothing for anything else."""
    if not isinstance(calls, (list, tuple)):
        return frozenset()
    out = set()
    for c in calls:
        name = c if isinstance(c, str) else c.get("name") if isinstance(c, Mapping) else getattr(c, "name", None)
        if isinstance(name, str) and name:
            out.add(name)
    return frozenset(out)


def table_from_records(name: str, records: Iterable[Mapping[str, Any]], *, method: str = "",
                       started_at: str = "", details: DetailFetcher | None = None) -> RunTable:
    """A table from case records in the results-file format (``id``, ``question``,
    ``retrieved_documents`` (or ``documents``), ``metrics``: {name: value}); a record whose case
    was not scored has no values (its ``metrics`` are null)."""
    b = TableBuilder(name, method, started_at)
    for i, rec in enumerate(records):
        if not isinstance(rec, Mapping) or "id" not in rec:
            raise ResultsFileError(f"{name}: case {i + 1} is not a case record (a JSON object with an 'id')")
        docs = rec.get("retrieved_documents", rec.get("documents")) or ()
        if not isinstance(rec.get("metrics") or {}, Mapping) or not isinstance(docs, (str, list, tuple)):
            bad = "metrics" if not isinstance(rec.get("metrics") or {}, Mapping) else "retrieved_documents"
            raise ResultsFileError(f"{name}: case {i + 1} (id {rec['id']!r}): '{bad}' is a "
                                   f"{type(rec.get(bad)).__name__}, not what a results file holds")
        b.add(rec["id"], rec.get("question"), [docs] if isinstance(docs, str) else list(docs),
              rec.get("metrics") or {}, rec.get("llm_response", rec.get("response")), rec.get("metadata"),
              rec.get("history") or (), rec.get("conversation_id"), rec.get("tool_calls"))
    return b.build(details)


def case_values(r: CaseResult) -> dict[str, float | None]:
    """Every comparable metric of one case (TRACE metrics, then family metrics)."""
    out: dict[str, float | None] = {m: r.value(m) for m in COMPARED_TRACE}
    out.update({m: r.value(m) for m in r.metrics})
    return out


def sentence_details(r: CaseResult) -> tuple[SentenceDetail, ...]:
    """The response sentences of a case with their support levels (empty when it has no labels)."""
    if r.labels is None:
        return ()
    levels = {s.key: s.level for s in r.labels.sentences}
    text = r.case.response
    if r.spans is not None and all(0 <= a < b <= len(text) for a, b in r.spans.response):
        # the response's split as labeled (the documents' sentences are not needed here)
        return tuple(SentenceDetail(text[a:b], levels.get(letters(i), "unlabeled"))
                     for i, (a, b) in enumerate(r.spans.response))
    try:
        sc = sentences_of(r)
    except ValueError:
        return ()
    return tuple(SentenceDetail(s.text, levels.get(s.key, "unlabeled")) for s in sc.response_sentences)


def run_details(run: RunResult) -> DetailFetcher:
    """Detail of rows of ``run`` (kept in memory)."""
    return lambda rows: {i: sentence_details(run.results[i]) for i in rows}


def table_from_run(run: Any, name: str, *, keep_details: bool = True) -> RunTable:
    """A table of a run: a ``RunResult`` in memory, or a stored run read one case at a time
    (``iter_results()``; its sentences fetched again by id, ``cases(ids)``). ``keep_details``: the
    table can list the sentences of the cases a comparison shows."""
    b = TableBuilder(name, run.method, run.started_at)
    stored = hasattr(run, "iter_results") and hasattr(run, "cases")
    for r in (run.iter_results() if stored else run.results):
        b.add(r.case.id, r.case.question, r.case.documents, case_values(r), r.case.response, r.case.metadata,
              r.case.history, r.case.conversation_id, r.case.tool_calls)
    if not keep_details:
        return b.build(None)
    if not stored:
        return b.build(run_details(run))
    ids = b.ids

    def fetch(rows: Sequence[int]) -> Mapping[int, tuple[SentenceDetail, ...]]:
        wanted = {ids[i]: i for i in rows if 0 <= i < len(ids)}
        return {wanted[r.case.id]: sentence_details(r) for r in run.cases(list(wanted)) if r.case.id in wanted}

    return b.build(fetch)


def file_details(path: str | Path) -> DetailFetcher:
    """Detail of rows of a results file, read again when asked, one case at a time (only the rows
    asked are turned into ``CaseResult``s)."""

    def fetch(rows: Sequence[int]) -> Mapping[int, tuple[SentenceDetail, ...]]:
        from ..resultfiles import iter_case_dicts

        wanted = set(rows)
        out: dict[int, tuple[SentenceDetail, ...]] = {}
        for i, d in enumerate(iter_case_dicts(path)):
            if i in wanted:
                try:
                    out[i] = sentence_details(case_from_dict({"method": "", **d}))
                except (KeyError, TypeError, ValueError, AttributeError) as exc:  # pydantic's errors are ValueErrors
                    first = (str(exc).splitlines() or [type(exc).__name__])[0]
                    raise ResultsFileError(f"{path}: case {i + 1} (id {d.get('id')!r}) cannot be read: "
                                           f"{first}") from None
                if len(out) == len(wanted):
                    break
        return out

    return fetch


def table_from_file(path: str | Path, name: str | None = None) -> RunTable:
    """A table of a results file (``evaluate --out``: JSON or JSON Lines), read one case at a time;
    :class:`~evaluators.export.ResultsFileError` names the file when it cannot be read."""
    from ..resultfiles import iter_case_dicts, read_top

    p = Path(path)
    top = read_top(p)
    try:
        t = table_from_records(name or p.stem, iter_case_dicts(p), method=str(top.get("method") or ""),
                               started_at=str(top.get("started_at") or ""), details=file_details(p))
    except ResultsFileError as exc:  # name the file, not only the run
        raise ResultsFileError(str(exc) if str(exc).startswith(str(p)) else f"{p}: {exc}") from None
    t.unfinished = top.get("status") == "unfinished"
    return t

"""A "Run your app" run in a background thread of the server, one per visitor (keyed by their history
token: a page switch or a closed tab loses nothing), in three phases:

1. **calls** — each target in turn is called on every question (``evaluators.targets.run_target``),
   its cases file written in the run's folder as each question finishes. One target after the other,
   never side by side, and before any evaluation: each version's latency is measured alone, not while
   another version or an evaluation shares the CPU. A file already there is continued
   (``resume=True``, failed questions asked again): a run stopped by Cancel, by an unreachable app or
   by a restart goes on where it stopped.
2. **evaluation** — each target whose every question was asked has its cases queued on the
   server's evaluation job queue (``evaluators.jobs``), named after the target; a run of the
   history left ``interrupted`` by a restart is resumed there instead.
3. **waiting** for those evaluations; then the run is finished and its manifest says so.

Cancel stops the calls (what was answered is kept) and cancels the evaluations already queued (a
target answered but not yet queued is left unevaluated); Resume asks what was not answered and
evaluates what was not evaluated (an evaluation Cancel stopped part way is evaluated again whole). A
target the policy refuses, or that cannot be called at all (unreachable, 401), stops alone: the other
targets still run. Nothing here imports Streamlit: the page gives the queue, the environments and
the call counter, and reads the run's fields to draw its progress.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from evaluators.datasets import DatasetError, QuestionSet, load_cases
from evaluators.jobs import JobQueue, QueueFull, options_from_settings
from evaluators.options import EvalOptions
from evaluators.retrieval import IdCheck
from evaluators.store import app_run_name
from evaluators.targets import Target, TargetError, run_target, scan
from evaluators.types import TestCase

from .. import vocab
from ..owner_runs import OwnerRuns
from . import folder as run_folder

#: Runs going on at once in the process (each mostly waits on its app; the evaluations share the queue).
MAX_RUNNING = 4
#: Seconds between two tries to queue an evaluation when the visitor already has the most runs going.
QUEUE_RETRY_S = 1.0

CALL_DONE = frozenset({"answered", "stopped", "cancelled", "refused", "skipped"})


@dataclass
class TargetRun:
    """One target of a run: its calls, then its evaluation."""

    name: str
    #: "owner" (the deployment's targets file), "sample" (the sample app), "typed" (by the visitor).
    kind: str
    cases: Path
    #: In memory only (it may hold header values a visitor typed); None: it could not be rebuilt.
    target: Target | None = None
    #: waiting / calling / answered / stopped / cancelled / refused / skipped
    status: str = "waiting"
    done: int = 0
    total: int = 0
    #: Questions answered before this session of the run (a continued cases file).
    already: int = 0
    answered: int = 0
    #: (question id, error) of every question of the cases file written with an error.
    failures: list[tuple[str, str]] = field(default_factory=list)
    #: Why the calls stopped early, or why the target could not be called (in words, secrets masked).
    stopped: str | None = None
    latency: dict[str, Any] = field(default_factory=dict)
    calls_s: float = 0.0
    #: The evaluation: its run id in the history (= its job id) and how it ended.
    run_id: str | None = None
    eval_status: str | None = None
    eval_note: str | None = None
    #: A typed target's header names (their values are never kept on disk).
    header_names: tuple[str, ...] = ()
    #: Said when the app's passage ids match no reference id (``evaluators.retrieval.IdCheck``).
    id_note: str | None = None

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "cases": self.cases.name, "status": self.status,
                               "run_id": self.run_id, "eval_status": self.eval_status, "stopped": self.stopped}
        if self.kind == "typed" and self.target is not None:
            spec = self.target.spec.model_dump(exclude_none=True)
            http = spec.get("http") or {}
            out["has_headers"] = bool(http.pop("headers", None))
            out["spec"] = spec  # without header values: a resumed run asks for them again
        return out


@dataclass
class AppRun:
    owner: str
    folder: Path
    questions_name: str
    n_questions: int
    method: str
    targets: list[TargetRun]
    started: float = field(default_factory=time.monotonic)
    cancel: threading.Event = field(default_factory=threading.Event)
    #: calling / evaluating / done
    phase: str = "calling"
    finished: bool = False
    error: str | None = None
    ended: float | None = None

    @property
    def id(self) -> str:
        return self.folder.name

    @property
    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def run_name(self, t: TargetRun) -> str:
        """The name of ``t``'s evaluation in the history: its target and the questions ("v1 on the
        sample's questions"), so runs of one app on two question sets are told apart everywhere."""
        return app_run_name(t.name, self.questions_name)

    @property
    def calls(self) -> int:
        return self.n_questions * len(self.targets)

    def manifest(self) -> dict[str, Any]:
        return {"id": self.id, "questions": self.questions_name, "n_questions": self.n_questions,
                "method": self.method, "phase": self.phase, "complete": self.complete,
                "targets": [t.manifest() for t in self.targets]}

    @property
    def complete(self) -> bool:
        """Every target answered every question and its evaluation finished."""
        return self.finished and all(t.status == "answered" and t.eval_status == "finished" for t in self.targets)

    def save(self) -> None:
        try:
            run_folder.write_manifest(self.folder, self.manifest())
        except OSError:  # a full or read-only disk: the run goes on, a restart cannot resume it
            pass


_runs: OwnerRuns[AppRun] = OwnerRuns()
get, forget, running = _runs.get, _runs.forget, _runs.running


@dataclass
class Plan:
    """What the page hands the thread: where the evaluations go and how the calls are made."""

    queue: JobQueue
    options: EvalOptions
    #: ``queue.submit`` keywords (the owner's LLM call limit, whether a typed key is needed).
    submit: dict[str, Any] = field(default_factory=dict)
    #: kind -> the environment its ``${VAR}`` are read from.
    environs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: ``charge(kind, calls)``: count the calls made to the apps (the owner's count against limits).
    charge: Callable[[str, int], None] | None = None


def start(run: AppRun, questions: QuestionSet, plan: Plan) -> AppRun | str:
    """Start ``run`` for its owner; returns it, or why it was not started."""
    got = _runs.claim(run.owner, lambda: run, busy="Your app is already being run; wait for it or cancel it.",
                      full=f"{MAX_RUNNING} app runs are going on on this server now; try again in a minute.",
                      limit=MAX_RUNNING)
    if isinstance(got, str):
        return got
    run.save()
    threading.Thread(target=_work, args=(run, questions, plan), name=f"app-run-{run.owner[:8]}",
                     daemon=True).start()
    return run


def _work(run: AppRun, questions: QuestionSet, plan: Plan) -> None:
    try:
        for t in run.targets:
            if run.cancel.is_set():
                break
            if t.run_id is None and t.target is not None and t.status not in CALL_DONE:
                _call(run, t, questions, plan)
                run.save()
        run.phase = "evaluating"
        for t in run.targets:
            if run.cancel.is_set():
                break
            if t.run_id is not None:
                _resume_evaluation(run, t, plan)
            elif t.status == "answered":
                _evaluate(run, t, plan, [q.id for q in questions.rows])
            run.save()
        for t in run.targets:
            if t.run_id is not None and t.eval_status in ("queued", "running"):
                _wait(run, t, plan.queue)
    except Exception as exc:  # noqa: BLE001 - shown to the visitor, the server goes on
        run.error = f"{type(exc).__name__}: {exc}"
    finally:
        for t in run.targets:
            if t.status in ("waiting", "calling"):
                t.status = "cancelled" if run.cancel.is_set() else "skipped"
                t.total = t.total or run.n_questions  # "0 of 16 questions asked", not "0 of 0"
        run.phase = "done"
        run.ended = time.monotonic()
        run.finished = True
        run.save()


def _call(run: AppRun, t: TargetRun, questions: QuestionSet, plan: Plan) -> None:
    assert t.target is not None
    t.status, t.stopped = "calling", None
    try:
        found = scan(t.cases)
        t.already = len(found.done) - len(found.failed)
    except ValueError:
        t.already = 0
    t.done, t.total = t.already, len(questions.rows)

    def progress(done: int, total: int) -> None:
        t.done, t.total = t.already + done, t.already + total

    try:
        report = run_target(t.target, questions, t.cases, resume=t.cases.exists(), retry_failed=True,
                            progress=progress, should_stop=run.cancel.is_set, environ=plan.environs.get(t.kind))
    except TargetError as exc:
        t.status, t.stopped = "refused", str(exc)
        return
    t.answered, t.calls_s, t.latency = report.answered, report.seconds, report.latency_summary()
    if plan.charge is not None and report.answered:
        plan.charge(t.kind, report.answered)
    try:
        found = scan(t.cases)
        t.failures = [(i, str(e)) for i, e in found.done.items() if e is not None]
    except ValueError:
        t.failures = list(report.failed)
    if report.stopped == "cancelled" or (run.cancel.is_set() and not report.complete):
        t.status, t.stopped = "cancelled", "cancelled"
    elif report.stopped:
        t.status, t.stopped = "stopped", report.stopped
    else:
        t.status = "answered"


def in_question_order(cases: Sequence[TestCase], ids: Sequence[str]) -> list[TestCase]:
    """The app's answers in the order of the question file: the cases file holds them as the calls
    finished (concurrent), so Results' "(file order)" and Inspect's "run order" read q002, q004, q005, q006,
    q001 … A case whose question is not in ``ids`` keeps its place after them (a stable sort)."""
    at = {qid: i for i, qid in enumerate(ids)}
    return sorted(cases, key=lambda c: at.get(c.id, len(at)))


def _evaluate(run: AppRun, t: TargetRun, plan: Plan, order: Sequence[str] = ()) -> None:
    try:
        loaded = load_cases(t.cases)
    except DatasetError as exc:
        t.eval_status, t.eval_note = "not started", f"the app's answers could not be read: {exc}"
        return
    if not loaded.cases:
        t.eval_status, t.eval_note = "not started", "no answer to evaluate"
        return
    ids = IdCheck()
    for case in loaded.cases:
        ids.add(case)
    t.id_note = ids.message()
    if loaded.errors:
        unread = vocab.count(len(loaded.errors), "answer")
        t.eval_note = f"{unread} could not be read, left out (first: {loaded.errors[0]})"
    while True:
        try:
            view = plan.queue.submit(run.owner, in_question_order(loaded.cases, order), run.method, plan.options,
                                     name=run.run_name(t),
                                     app_run={"target": t.name, "questions": run.questions_name}, **plan.submit)
            break
        except QueueFull:
            if run.cancel.wait(QUEUE_RETRY_S):
                return
    t.run_id, t.eval_status = view.id, view.status


def _resume_evaluation(run: AppRun, t: TargetRun, plan: Plan) -> None:
    """A run of the history from an earlier session of this app run: resumed when a restart left it
    interrupted, else followed (or its end read)."""
    assert t.run_id is not None
    view = plan.queue.get(t.run_id, run.owner)
    if view is not None and view.status != "cancelled":  # going on, or ended (a cancelled one: below)
        t.eval_status = view.status
        return
    try:
        summary = plan.queue.store.get(t.run_id, owner=run.owner)
    except KeyError:
        t.run_id, t.eval_status = None, None  # deleted meanwhile: evaluate again
        if t.status == "answered":
            _evaluate(run, t, plan)
        return
    if summary.status == "cancelled" and t.status == "answered" and summary.num_done < max(summary.num_cases, t.total):
        # Cancel stopped it part way (a cancelled run keeps no pending cases): evaluated again whole,
        # the partial run replaced by the whole one
        plan.queue.store.delete(t.run_id, owner=run.owner)
        t.run_id, t.eval_status, t.eval_note = None, None, None
        _evaluate(run, t, plan)
        return
    if summary.status != "interrupted":
        t.eval_status = summary.status
        return
    key = plan.options.llm.api_key if plan.options.llm is not None else None
    options = options_from_settings(summary.settings, api_key=key.get_secret_value() if key is not None else None)
    try:
        view = plan.queue.resume(t.run_id, run.owner, options, max_calls=plan.submit.get("max_calls"))
    except (QueueFull, ValueError) as exc:
        t.eval_status, t.eval_note = "interrupted", f"not resumed: {exc} (resume it on Evaluate)"
        return
    t.eval_status = view.status


def cancel(run: AppRun, queue: JobQueue) -> None:
    """Cancel ``run`` now (the page's Cancel): no other question is asked, no other evaluation queued,
    and every evaluation already queued or going on is cancelled at once — not one after the other
    as each is waited for: an evaluation queued behind another could finish meanwhile."""
    run.cancel.set()
    _cancel_evaluations(run, queue)


def _cancel_evaluations(run: AppRun, queue: JobQueue) -> None:
    for t in run.targets:
        if t.run_id is not None:
            queue.cancel(t.run_id, run.owner)  # (False for one that already ended: nothing to do)


def _wait(run: AppRun, t: TargetRun, queue: JobQueue) -> None:
    assert t.run_id is not None
    asked = False
    while True:
        if run.cancel.is_set() and not asked:  # (an evaluation queued as Cancel was pressed, too)
            _cancel_evaluations(run, queue)
            asked = True
        status = queue.wait(t.run_id, timeout=0.25)
        view = queue.get(t.run_id, run.owner)
        t.eval_status = view.status if view is not None else status
        if view is None or not view.active:
            if view is not None and view.error:
                t.eval_note = view.error
            return

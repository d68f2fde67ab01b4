"""Background evaluation runs: one server-wide queue, one worker thread, jobs of every visitor
interleaved fairly.

A :class:`JobQueue` owns a run store and (while there is work) ONE worker thread. It takes the
owners with work in turn (round robin) and evaluates one chunk of the chosen owner's oldest job at a
time, on the process's one loaded model — never a model or a thread per visitor. A job's cases wait
in the store (``run_inputs``), not in memory; its method is built once
(:class:`evaluators.pipeline.Evaluation`), not once per chunk; a chunk is sized by time (about
:data:`CHUNK_SECONDS` of work at the job's measured pace; the first one :data:`FIRST_CHUNK` cases),
so the fixed cost of a chunk is paid a few times a minute while visitors still take turns every few
seconds and the progress bar moves within a chunk. Each finished chunk goes to the store at once
(:meth:`RunStore.add_chunk`), so a closed tab, a page refresh or a crash loses nothing. A job ends
``finished``, ``cancelled`` (Cancel, or the owner's LLM call limit), or ``interrupted`` (an error;
also every run a dead worker left ``running`` when a new queue opens the store) — an interrupted run
is resumed with :meth:`JobQueue.resume`, which evaluates only the missing cases.

Where a chunk is evaluated (:mod:`evaluators.jobs_worker`): ``backend="thread"`` (the library
default) in the worker thread itself; ``backend="process"`` (``RAG_EVAL_WORKER=process``, the
dashboard as served) in one long-lived child process that builds the method, evaluates and stores
each chunk and reports progress back, so the pages served by this process never wait on the
evaluation's GIL. The worker thread keeps the scheduling either way.

The job's options (with an API key typed by the visitor) live in memory only (this process's, and
the evaluation child's, reached through a pipe); the store gets the public settings and whether
resuming needs a typed key again.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal, Sequence, cast

from .citations import with_plan as with_citation_plan
from .jobs_worker import Backend, ChunkDone, WorkerDied, WorkerProcess, backend_from_env, release_memory, run_chunk
from .limits import CallLedger
from .llm.settings import LLMSettings
from .options import EvalOptions
from .retrieval import with_plan
from .store import RunStatus, RunStore
from .types import TestCase, Usage

JobStatus = Literal["queued", "running", "finished", "cancelled", "interrupted"]
ACTIVE: frozenset[str] = frozenset({"queued", "running"})
#: Most unfinished jobs one owner may have queued at once.
MAX_ACTIVE_PER_OWNER = 3
#: GIL switch interval of a process that serves pages and runs jobs (see ``JobQueue.__init__``).
SWITCH_INTERVAL_S = 0.001
#: Ended jobs remembered (so sessions can pick up their outcome), oldest dropped first.
KEEP_ENDED = 500
#: Seconds of work a chunk is sized to (at the job's measured pace), when no chunk size is given:
#: long enough that a chunk's fixed cost (storing it, the labeler's batch) is small, short enough
#: that visitors take turns every few seconds and Cancel acts soon.
CHUNK_SECONDS = 2.0
#: Cases of a job's first chunk (before its pace is known), and the bounds of any later one.
FIRST_CHUNK = 8
MAX_CHUNK = 1000


class QueueFull(RuntimeError):
    """An owner already has :data:`MAX_ACTIVE_PER_OWNER` unfinished runs."""


@dataclass
class _Job:
    id: str  # = the run's id in the store
    owner: str
    name: str
    method: str
    options: EvalOptions  # in memory only (may hold a key typed by the visitor)
    #: Cases still to evaluate (they wait in the store); the input index of the last one taken.
    left: int
    total: int
    done: int
    #: Cases per chunk; None: sized by time (``CHUNK_SECONDS``).
    chunk_size: int | None
    #: The owner's LLM call limit applies (None = not limited).
    max_calls: int | None = None
    status: JobStatus = "queued"
    error: str | None = None
    created: float = field(default_factory=time.time)
    started: float | None = None
    ended: float | None = None
    done_here: int = 0
    #: Cases of the chunk going on that the method finished (not stored yet).
    in_chunk: int = 0
    cancel: bool = False
    usage: Usage = field(default_factory=Usage)
    #: Set (under the lock) by the one thread that ends the job.
    closing: bool = False
    cursor: int = -1
    #: Cases per second of this job's chunks so far (None until one finished).
    pace: float | None = None
    #: The run's method and options, built once (by the worker, at the job's first chunk).
    evaluation: Any = None

    def next_size(self) -> int:
        if self.chunk_size is not None:
            return self.chunk_size
        if self.pace is None:
            return FIRST_CHUNK
        return max(1, min(MAX_CHUNK, round(self.pace * CHUNK_SECONDS)))


@dataclass(frozen=True)
class JobView:
    """A snapshot of a job for display."""

    id: str
    name: str
    method: str
    status: JobStatus
    total: int
    #: Cases stored (they survive a restart).
    done: int
    error: str | None
    elapsed_s: float
    #: Seconds left at the current pace (None until a case of this job finished here).
    eta_s: float | None
    #: Earlier unfinished jobs of the same owner (this one starts after them).
    waiting_for: int
    #: Owners whose jobs share the worker right now.
    sharing: int
    usage: Usage
    cancel_requested: bool
    #: Cases finished: ``done`` plus those of the chunk going on (the count a progress bar shows).
    labeled: int = 0

    @property
    def active(self) -> bool:
        return self.status in ACTIVE


def options_from_settings(settings: dict[str, Any], api_key: str | None = None) -> EvalOptions:
    """EvalOptions back from a stored run's public settings (to resume it); ``api_key`` (typed by
    the visitor again) is given to its LLM settings — stored settings never hold one."""
    d = {k: v for k, v in settings.items() if k in EvalOptions.model_fields}

    def llm(x: dict[str, Any] | None) -> LLMSettings | None:
        return None if not x else LLMSettings(**{**x, "api_key": api_key or None})

    d["llm"] = llm(d.get("llm"))
    d["jury"] = tuple(llm(j) for j in d.get("jury") or ())
    return EvalOptions(**d)


class JobQueue:
    """See the module docstring. Thread-safe; one per store per process."""

    def __init__(self, store: RunStore, ledger: CallLedger | None = None, *,
                 backend: Backend | None = None) -> None:
        """``backend``: where chunks are evaluated, ``thread`` or ``process`` (None:
        ``$RAG_EVAL_WORKER``, else ``thread``; see :mod:`evaluators.jobs_worker`)."""
        self.store = store
        self.ledger = ledger or CallLedger()
        self.backend: Backend = backend or backend_from_env()
        self.worker: WorkerProcess | None = None
        if self.backend == "process":
            self.worker = WorkerProcess(store.path)
        else:
            # A queue serves pages from the same cores: the encoder's idle threads must not spin.
            from .encoder.onnx_graph import set_spinning

            set_spinning(False)
            # The worker hands the GIL back at every ONNX Runtime call (hundreds per chunk) and must
            # win it back from the page scripts each time: by default a CPU-bound script keeps it for
            # up to 5 ms per request (a convoy). 1 ms keeps the encoder fed while pages render
            # (bench/concurrency.py, five visitors: 78 s in two runs with it, 82-84 s without).
            sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
        # A new queue means no worker is writing this store's running runs any more.
        store.mark_interrupted("the server restarted while this run was going on")
        self._cv = threading.Condition()
        self._jobs: dict[str, _Job] = {}
        self._served: dict[str, int] = {}  # owner -> turn it was last served (round robin)
        self._turn = 0
        self._ended: deque[str] = deque()
        self._thread: threading.Thread | None = None
        self.chunks_run = 0
        self.warmed: set[str] = set()  # methods whose warm_up() ran in this process

    # ------------------------------------------------------------------ public API
    def submit(self, owner: str, cases: Sequence[TestCase], method: str, options: EvalOptions, *,
               name: str = "", chunk_size: int | None = None, max_calls: int | None = None,
               needs_key: bool = False, app_run: dict[str, str] | None = None) -> JobView:
        """Queue a run (registered at once in the store as ``running``, its cases with it).
        ``chunk_size``: cases per chunk (None: sized by time). ``app_run``: for the answers of an app
        ("Run your app"), which target gave them on which questions (``{"target", "questions"}``),
        kept in the run's settings (what tells apart runs of one app on two question sets)."""
        self._check_room(owner)
        options = with_plan(options, cases)  # retrieval matched by id or text: decided over the whole run
        options = with_citation_plan(options, cases)  # citation metrics on every case or on none
        settings = {"method": method, **options.public_dict(), **({"app_run": dict(app_run)} if app_run else {})}
        run_id = self.store.start(method, cases, name=name or None, settings=settings,
                                  owner=owner, needs_key=needs_key)
        job = _Job(run_id, owner, name or method, method, options, len(cases), len(cases), 0,
                   _size(chunk_size), max_calls)
        return self._enqueue(job)

    def resume(self, run_id: str, owner: str, options: EvalOptions, *, chunk_size: int | None = None,
               max_calls: int | None = None) -> JobView:
        """Queue the missing cases of an interrupted run (KeyError: no such run of this owner)."""
        summary = self.store.get(run_id, owner=owner)
        if summary.status != "interrupted":
            raise ValueError(f"run {summary.name!r} is {summary.status}, not interrupted")
        self._check_room(owner)
        left = self.store.count_pending(run_id, owner=owner)
        self.store.finish(run_id, "running")  # a new session of the run: its time adds to the earlier ones
        job = _Job(run_id, owner, summary.name, summary.method, options, left, summary.num_cases,
                   summary.num_cases - left, _size(chunk_size), max_calls)
        return self._enqueue(job)

    def cancel(self, job_id: str, owner: str) -> bool:
        """Ask a job of ``owner`` to stop (it ends after its current chunk; finished cases stay)."""
        with self._cv:
            job = self._jobs.get(job_id)
            if job is None or job.owner != owner or job.status not in ACTIVE or job.closing:
                return False
            job.cancel = True
            now = job.status == "queued" and job.started is None
            if now:
                job.closing = True
            self._cv.notify_all()
        if now:
            self._close(job, "cancelled", None)
        return True

    def jobs(self, owner: str) -> list[JobView]:
        """This owner's jobs known to this process (unfinished and recently ended), oldest first."""
        with self._cv:
            return [self._view(j) for j in self._jobs.values() if j.owner == owner]

    def get(self, job_id: str, owner: str) -> JobView | None:
        with self._cv:
            j = self._jobs.get(job_id)
            return self._view(j) if j is not None and j.owner == owner else None

    def active(self) -> int:
        with self._cv:
            return sum(1 for j in self._jobs.values() if j.status in ACTIVE)

    def wait(self, job_id: str, timeout: float | None = None) -> JobStatus:
        """Block until the job ended (or ``timeout``); its status."""
        end = None if timeout is None else time.monotonic() + timeout
        with self._cv:
            while (j := self._jobs.get(job_id)) is not None and j.status in ACTIVE:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._cv.wait(left)
            return j.status if j is not None else "finished"

    def wait_idle(self, timeout: float | None = None) -> bool:
        end = None if timeout is None else time.monotonic() + timeout
        with self._cv:
            while any(j.status in ACTIVE for j in self._jobs.values()):
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cv.wait(left)
        return True

    def close(self) -> None:
        """Stop the evaluation child process, if any (a chunk going on ends its job
        ``interrupted``, resumable). The thread back end has nothing to stop."""
        if self.worker is not None:
            self.worker.close()

    # ------------------------------------------------------------------ internals
    def _check_room(self, owner: str) -> None:
        with self._cv:
            n = sum(1 for j in self._jobs.values() if j.owner == owner and j.status in ACTIVE)
        if n >= MAX_ACTIVE_PER_OWNER:
            raise QueueFull(f"you already have {n} runs going; wait for one to finish or cancel one")

    def _enqueue(self, job: _Job) -> JobView:
        with self._cv:
            self._jobs[job.id] = job
            job.closing = not job.left  # nothing to evaluate (e.g. resuming a complete run)
            if job.left and self._thread is None:
                self._thread = threading.Thread(target=self._work, name="rag-eval-jobs", daemon=True)
                self._thread.start()
            self._cv.notify_all()
        if job.closing:
            self._close(job, "finished", None)
        with self._cv:
            return self._view(job)

    def _view(self, j: _Job) -> JobView:
        now = time.time()
        elapsed = (j.ended or now) - (j.started or now)
        eta = None
        finished_here = j.done_here + j.in_chunk
        if j.status in ACTIVE and finished_here and elapsed > 0:
            eta = (j.total - j.done - j.in_chunk) * elapsed / finished_here
        earlier = sum(1 for o in self._jobs.values() if o.owner == j.owner and o.status in ACTIVE
                      and o.created < j.created)
        sharing = len({o.owner for o in self._jobs.values() if o.status in ACTIVE})
        return JobView(j.id, j.name, j.method, j.status, j.total, j.done, j.error, elapsed, eta,
                       earlier if j.status in ACTIVE else 0, sharing, j.usage, j.cancel,
                       labeled=j.done + j.in_chunk)

    def _next(self) -> _Job | None:
        """The oldest unfinished job of the owner with work served least recently (a newcomer
        first): round robin by owner (caller holds the lock)."""
        active = [j for j in self._jobs.values() if j.status in ACTIVE and not j.closing]
        if not active:
            return None
        owner = min({j.owner for j in active}, key=lambda o: self._served.get(o, -1))
        self._turn += 1
        self._served[owner] = self._turn
        return min((j for j in active if j.owner == owner), key=lambda j: j.created)

    def _close(self, job: _Job, status: JobStatus, error: str | None) -> None:
        """End a job: close its run in the store, then in memory. Called without the lock, by the
        one thread that set ``job.closing``."""
        ended = time.time()
        try:
            if status == "interrupted":
                self.store.finish(job.id, "interrupted", error=error)
            elif status == "cancelled" and job.done == 0:
                self.store.delete(job.id, owner=None)  # nothing finished: nothing to keep
            else:  # (the store keeps the run's whole time, over every session of it)
                self.store.finish(job.id, cast(RunStatus, status), error=error)
        except Exception as exc:  # noqa: BLE001 - the chunks are stored; say why it did not close
            error = f"{error + '; ' if error else ''}could not close the run: {exc}"
        with self._cv:
            job.status, job.error, job.ended = status, error, ended
            job.options = EvalOptions()  # the key goes with the job's settings (and its evaluation)
            job.evaluation = None
            if self.worker is not None:
                self.worker.forget(job.id)  # ... in the evaluation child too
            self._ended.append(job.id)
            while len(self._ended) > KEEP_ENDED:
                self._jobs.pop(self._ended.popleft(), None)
            self._cv.notify_all()

    def _take(self) -> tuple[_Job, int, str | None] | None:
        """The next (job, chunk size, None) to evaluate, or (job, 0, reason) for a job that must stop
        now (reason "" = cancelled by its owner); None when there is no work (caller holds the lock)."""
        job = self._next()
        if job is None:
            return None
        if job.cancel:
            job.closing = True
            return job, 0, ""
        if job.max_calls is not None and self.ledger.used(job.owner) >= job.max_calls:
            job.closing = True
            return job, 0, f"LLM call limit reached ({job.max_calls:,} billed calls)"
        job.status = "running"
        job.started = job.started or time.time()
        return job, job.next_size(), None

    def _progress_of(self, job: _Job):
        """``progress(done, total)`` of the chunk going on: the cases the method finished in it."""
        def progress(done: int, total: int) -> None:
            with self._cv:
                job.in_chunk = max(job.in_chunk, min(done, total))
        return progress

    def _run_chunk(self, job: _Job, size: int, options: EvalOptions) -> ChunkDone:
        """Evaluate and store the next ``size`` cases of ``job`` here, in this thread."""
        def evaluation() -> Any:
            if job.evaluation is None:
                from .pipeline import Evaluation  # lazy: loads labelers only when there is work

                job.evaluation = Evaluation(job.method, options)
            return job.evaluation

        done = run_chunk(self.store, job.id, job.method, job.cursor, size, evaluation, self._progress_of(job),
                         self.warmed)
        assert done is not None  # (stored whenever it may)
        return done

    def _work(self) -> None:
        while True:
            with self._cv:
                picked = self._take()
                if picked is None:
                    self._thread = None
                    self._cv.notify_all()
                    if self.worker is not None:
                        self.worker.flush()
                    return
                job, size, stop = picked
                options = job.options
            if stop is not None:
                self._close(job, "cancelled", stop or None)
                continue
            try:
                if self.worker is not None:
                    done = self.worker.run_chunk(job.id, job.method, options, job.cursor, size,
                                                 self._progress_of(job))
                else:
                    done = self._run_chunk(job, size, options)
            except Exception as exc:  # noqa: BLE001 - keep what finished; the run can resume
                with self._cv:
                    job.closing = True
                    job.in_chunk = 0
                self._close(job, "interrupted", str(exc) if isinstance(exc, WorkerDied)
                            else f"{type(exc).__name__}: {exc}")
                continue
            finally:
                if self.worker is None:
                    release_memory()
            if not done.n:  # nothing left in the store (e.g. the run was closed meanwhile)
                with self._cv:
                    job.left, job.closing = 0, True
                self._close(job, "finished", None)
                continue
            with self._cv:
                self.chunks_run += 1
                job.in_chunk = 0
                job.cursor = done.last
                job.left -= done.n
                job.done += done.n
                job.done_here += done.n
                pace = done.n / max(done.seconds, 1e-3)
                job.pace = pace if job.pace is None else 0.5 * job.pace + 0.5 * pace
                job.usage = job.usage + done.usage
                if job.max_calls is not None:
                    self.ledger.add(job.owner, done.usage.calls)
                job.closing = finished = job.left <= 0
                self._cv.notify_all()
            if finished:
                self._close(job, "finished", None)


def _size(chunk_size: int | None) -> int | None:
    return None if chunk_size is None else max(1, int(chunk_size))


__all__ = ["ACTIVE", "JobQueue", "JobView", "MAX_ACTIVE_PER_OWNER", "QueueFull", "options_from_settings"]

"""The job queue's evaluation back ends: where a chunk of a job is evaluated.

``RAG_EVAL_WORKER=thread`` (the library default): in the queue's worker thread, in the process that
owns the queue. ``RAG_EVAL_WORKER=process`` (the dashboard as served, ``serve.py``): in ONE
long-lived child process (:class:`WorkerProcess`: ``python -m evaluators.jobs_worker``, a fresh
interpreter — never a fork of the threaded server, and not multiprocessing's "spawn", which would
run Streamlit's ``__main__`` — the page script — again in the child), talking over a socket pair
with multiprocessing's ``Connection``, so page scripts never wait on the evaluation's GIL and the
server process never loads a model.

The queue's scheduling thread stays in the server (fairness, chunk sizes, Cancel, the LLM call
ledger) and hands the child one chunk at a time through a pipe: the job id, its method and options
(with a key typed by the visitor: through the pipe only — never a file, the environment, argv or a
log), the input index it is past and the chunk's size. The child builds the job's method once
(:class:`evaluators.pipeline.Evaluation`), warms each method up once, reads the chunk's cases from
the store, evaluates them, writes the chunk to the store itself (:meth:`RunStore.add_chunk`; the
store is SQLite in WAL mode, one connection per call, shared between processes) and reports
per-case progress, then the chunk's size, usage and time back through the pipe.

The child exits when the pipe closes or its parent is gone (it checks every second: no orphans,
even after ``kill -9`` of the server), on ``close()``, and after :data:`IDLE_S` seconds without work
(giving back the model's memory; the next chunk starts a new one, paying the start once). It uses
:func:`worker_threads` cores for the encoder (ONNX Runtime intra-op threads: all cores but one),
so a core stays free for the pages, and runs :func:`worker_nice` steps below the server's CPU
priority, so a page script that needs a busy core gets it first. When it dies (out of memory,
``kill -9``) the chunk going on raises :class:`WorkerDied`: the queue marks the job
``interrupted`` (resumable, its stored cases kept) and the next chunk starts a new child.
"""

from __future__ import annotations

import ctypes
import gc
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from .options import EvalOptions
from .types import TestCase, Usage

_ROOT = str(Path(__file__).resolve().parents[1])  # the folder that holds ``evaluators``

Backend = Literal["thread", "process"]
#: Environment variable choosing the back end (``thread`` | ``process``).
WORKER_ENV = "RAG_EVAL_WORKER"
#: Seconds without work after which the child exits (``RAG_EVAL_WORKER_IDLE_S``).
IDLE_S = float(os.environ.get("RAG_EVAL_WORKER_IDLE_S", "600") or 600)
#: How much lower the child's CPU priority is than the server's (``RAG_EVAL_WORKER_NICE``, 0-19;
#: POSIX ``nice``). The pages are what people wait for: when both want a core, a page script gets it
#: first and the evaluation takes what is left, so a page switch does not queue behind scoring.
NICE_DEFAULT = 10
#: Seconds the child may take to start (imports) before it counts as dead.
START_TIMEOUT_S = 120.0


class WorkerDied(RuntimeError):
    """The evaluation child process ended while a chunk was going on."""


def backend_from_env(default: Backend = "thread") -> Backend:
    """``$RAG_EVAL_WORKER`` (``thread`` / ``process``), else ``default``; anything else is an error."""
    got = os.environ.get(WORKER_ENV, "").strip().lower() or default
    if got not in ("thread", "process"):
        raise ValueError(f"{WORKER_ENV} must be 'thread' or 'process', got {got!r}")
    return got  # type: ignore[return-value]


def worker_nice() -> int:
    """``$RAG_EVAL_WORKER_NICE`` (an integer 0-19), else :data:`NICE_DEFAULT`; anything else is an
    error naming the variable."""
    env = os.environ.get("RAG_EVAL_WORKER_NICE", "").strip()
    if not env:
        return NICE_DEFAULT
    if not env.isdigit() or int(env) > 19:
        raise ValueError(f"RAG_EVAL_WORKER_NICE must be an integer from 0 to 19, got {env!r}")
    return int(env)


def worker_threads() -> int:
    """Cores the child's encoder uses: ``$RAG_EVAL_WORKER_THREADS``, else all this process may run
    on but one (at least one): on 2 cores the evaluation takes one and the pages keep the other."""
    env = os.environ.get("RAG_EVAL_WORKER_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, n - 1)


def release_memory() -> None:
    """Hand freed heap pages back to the OS between chunks (glibc only; a no-op elsewhere)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def next_chunk(store: Any, job_id: str, after: int, size: int) -> list[tuple[int, TestCase]]:
    """The next ``size`` pending cases of run ``job_id`` past input index ``after``, contiguous input
    indices only (a chunk is stored as one block)."""
    got = store.next_pending(job_id, owner=None, limit=size, after=after)
    chunk = got[:1]
    for item in got[1:]:
        if item[0] != chunk[-1][0] + 1:
            break
        chunk.append(item)
    return chunk


@dataclass(frozen=True)
class ChunkDone:
    """A chunk evaluated and stored: how many cases, the input index of the last one, its LLM usage
    and evaluation time (``n == 0``: nothing was left to evaluate)."""

    n: int
    last: int
    usage: Usage
    seconds: float
    #: Seconds the method's warm-up took before this chunk (0 when it had run already).
    warm_up_s: float = 0.0


def warm_up_once(method: str, warmed: set[str]) -> float:
    """The method's ``warm_up()`` (through the method registry), once per method per process:
    whatever it loads (models) is loaded before its first chunk. Seconds it took (0: done before)."""
    if method in warmed:
        return 0.0
    from .methods import get_method

    t = time.perf_counter()
    get_method(method).build().warm_up()
    warmed.add(method)
    # What warm-up loaded (models, tokenizers) lives as long as the process: out of the cyclic GC's
    # way, so a full collection (any thread's) does not walk it again each time.
    gc.collect()
    gc.freeze()
    return time.perf_counter() - t


def run_chunk(store: Any, job_id: str, method: str, after: int, size: int, evaluation: Callable[[], Any],
              progress: Callable[[int, int], None], warmed: set[str],
              may_store: Callable[[], bool] = lambda: True) -> ChunkDone | None:
    """Warm up, evaluate and store the next ``size`` cases of ``job_id`` past input index ``after``
    (the same steps in the server's thread and in the child). ``evaluation()`` gives the job's
    ``pipeline.Evaluation`` (built once per job by the caller); None when ``may_store()`` said no
    before the chunk was stored."""
    warm = warm_up_once(method, warmed)
    chunk = next_chunk(store, job_id, after, size)
    if not chunk:
        return ChunkDone(0, after, Usage(), 0.0, warm)
    t0 = time.perf_counter()
    part = evaluation().run([c for _, c in chunk], chunk_size=len(chunk), progress=progress)
    dt = time.perf_counter() - t0
    if not may_store():
        return None
    store.add_chunk(job_id, chunk[0][0], part)
    return ChunkDone(len(chunk), chunk[-1][0], part.usage, dt, warm)


# ---------------------------------------------------------------------------------------- the child
def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent_pid:
            os._exit(0)  # the server is gone (even kill -9): no orphan evaluating for nobody


def _child_main(conn: Any, store_path: str, idle_s: float, threads: int, parent_pid: int,
                nice: int = 0) -> None:
    """The child's loop: one message at a time from the parent (see the module docstring)."""
    os.environ["OMP_NUM_THREADS"] = str(threads)  # read by the encoder when it builds its sessions
    try:
        os.nice(nice)  # below the pages (see NICE_DEFAULT); every thread started from here inherits it
    except (AttributeError, OSError):
        pass  # not POSIX, or not permitted: the same priority as the server
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal reaches the whole group
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True, name="watch-parent").start()
    from .encoder.onnx_graph import set_spinning
    from .pipeline import Evaluation
    from .store import RunStore

    set_spinning(False)  # idle intra-op threads must not burn the pages' core
    store = RunStore(store_path)
    evaluations: dict[str, Evaluation] = {}
    warmed: set[str] = set()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            if not conn.poll(idle_s):
                return  # idle: give the model's memory back
            msg = conn.recv()
        except (EOFError, OSError):
            return  # the parent closed the pipe (or is gone)
        if msg[0] == "exit":
            return
        if msg[0] == "forget":
            for job_id in msg[1]:
                evaluations.pop(job_id, None)
            continue
        _, job_id, method, options, after, size = msg
        try:
            def evaluation(job_id: str = job_id, method: str = method, options: Any = options) -> Evaluation:
                if job_id not in evaluations:
                    evaluations[job_id] = Evaluation(method, options)
                return evaluations[job_id]

            done = run_chunk(store, job_id, method, after, size, evaluation,
                             lambda n, total: conn.send(("progress", n, total)), warmed,
                             # the server died during the chunk: a new one may have marked the run interrupted
                             may_store=lambda: os.getppid() == parent_pid)
            if done is None:
                return
            conn.send(("done", done))
        except (BrokenPipeError, EOFError):
            return
        except Exception as exc:  # noqa: BLE001 - the parent interrupts the job with this reason
            try:
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
            except OSError:
                return
        finally:
            release_memory()


# --------------------------------------------------------------------------------------- the parent
class WorkerProcess:
    """The parent's handle on the evaluation child: started on the first chunk (and again after it
    exited or died), one chunk at a time (:meth:`run_chunk`, from the queue's one worker thread)."""

    def __init__(self, store_path: str | Path, *, idle_s: float | None = None, threads: int | None = None,
                 nice: int | None = None) -> None:
        self.store_path = str(store_path)
        self.idle_s = IDLE_S if idle_s is None else float(idle_s)
        self.threads = threads or worker_threads()
        self.nice = worker_nice() if nice is None else int(nice)
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Any = None
        self._closed = False
        self._forget: list[str] = []
        #: Children started so far, the seconds each took until it was ready (imports), and the
        #: seconds of each method's warm-up (model load) in the latest child.
        self.starts = 0
        self.start_seconds: list[float] = []
        self.warm_up_seconds: dict[str, float] = {}

    @property
    def pid(self) -> int | None:
        p = self._proc
        return p.pid if p is not None and p.poll() is None else None

    def _start(self) -> None:
        from multiprocessing.connection import Connection

        ours, theirs = socket.socketpair()
        t = time.perf_counter()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH", "")) if p)
        # argv holds no secret (the options come through the socket): fd, store, idle, threads,
        # parent, nice
        cmd = [sys.executable, "-m", "evaluators.jobs_worker", str(theirs.fileno()), self.store_path,
               str(self.idle_s), str(self.threads), str(os.getpid()), str(self.nice)]
        try:
            proc = subprocess.Popen(cmd, env=env, cwd=_ROOT, pass_fds=(theirs.fileno(),),
                                    stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        parent = Connection(ours.detach())
        try:
            if not parent.poll(START_TIMEOUT_S):
                proc.kill()
                raise EOFError(f"no answer within {START_TIMEOUT_S:.0f} s")
            parent.recv()  # ("ready", pid)
        except (EOFError, OSError) as exc:
            parent.close()
            _join(proc, 5)
            raise WorkerDied(f"the evaluation worker process could not start ({_how(proc)}: {exc})") from exc
        self._proc, self._conn = proc, parent
        self.starts += 1
        self.start_seconds.append(round(time.perf_counter() - t, 3))

    def _drop(self) -> None:
        conn, proc = self._conn, self._proc
        self._conn = self._proc = None
        if conn is not None:
            conn.close()
        if proc is not None and not _join(proc, 2):
            proc.kill()
            _join(proc, 5)

    def run_chunk(self, job_id: str, method: str, options: EvalOptions, after: int, size: int,
                  progress: Callable[[int, int], None]) -> ChunkDone:
        """Evaluate and store the next ``size`` cases of ``job_id`` past input index ``after`` in the
        child. RuntimeError with the method's error; :class:`WorkerDied` when the child ended."""
        with self._lock:
            if self._closed:
                raise WorkerDied("the job queue was closed")
            for attempt in (0, 1):
                if self._proc is None or self._proc.poll() is not None:
                    self._drop()
                    self._start()
                proc, conn = self._proc, self._conn
                got_any = False
                try:
                    ids, self._forget = tuple(self._forget), []
                    if ids:
                        conn.send(("forget", ids))
                    conn.send(("chunk", job_id, method, options, after, size))
                    while True:
                        msg = conn.recv()
                        got_any = True
                        if msg[0] == "progress":
                            progress(msg[1], msg[2])
                        elif msg[0] == "done":
                            if msg[1].warm_up_s:
                                self.warm_up_seconds[method] = round(msg[1].warm_up_s, 3)
                            return msg[1]
                        else:
                            raise RuntimeError(msg[1])
                except (EOFError, OSError) as exc:
                    _join(proc, 5)
                    code = proc.returncode
                    self._drop()
                    if attempt == 0 and code == 0 and not got_any and not self._closed:
                        continue  # it had just left for being idle: a new one takes the chunk
                    raise WorkerDied(f"the evaluation worker process stopped ({_how(proc)})") from exc
            raise WorkerDied("the evaluation worker process stopped twice")  # pragma: no cover

    def forget(self, job_id: str) -> None:
        """The job ended: the child drops its built method (and the options with any key) with the
        next message it gets (never blocks: a page thread may call it while a chunk goes on)."""
        self._forget.append(job_id)

    def flush(self) -> None:
        """Send the child the jobs to forget now (the queue's worker thread, when it runs out of work)."""
        with self._lock:
            if self._conn is not None and self._forget:
                ids, self._forget = tuple(self._forget), []
                try:
                    self._conn.send(("forget", ids))
                except OSError:
                    pass

    def close(self) -> None:
        """Stop the child (the chunk going on, if any, ends as :class:`WorkerDied`)."""
        self._closed = True
        proc, conn = self._proc, self._conn
        if proc is None:
            return
        if self._lock.acquire(timeout=0.1):  # idle: ask it to leave (else a chunk is going on: kill)
            try:
                conn.send(("exit",))
            except OSError:
                pass
            finally:
                self._lock.release()
        if not _join(proc, 2):
            proc.kill()
        with self._lock:
            self._drop()


def _join(proc: subprocess.Popen, timeout: float) -> bool:
    """Wait up to ``timeout`` s for ``proc`` to end; whether it did."""
    try:
        proc.wait(timeout)
        return True
    except subprocess.TimeoutExpired:
        return False


def _how(proc: subprocess.Popen) -> str:
    code = proc.returncode
    if code is None:
        return "still running, not answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        hint = " — out of memory, or stopped by someone" if -code == signal.SIGKILL else ""
        return f"killed by {name}{hint}"
    return f"exit code {code}"


def main(argv: list[str]) -> None:
    """``python -m evaluators.jobs_worker FD STORE IDLE_S THREADS PARENT_PID NICE`` (started by
    :class:`WorkerProcess`, not by hand)."""
    from multiprocessing.connection import Connection

    fd, store_path, idle_s, threads, parent_pid, nice = argv
    _child_main(Connection(int(fd)), store_path, float(idle_s), int(threads), int(parent_pid), int(nice))


__all__ = ["Backend", "ChunkDone", "WORKER_ENV", "WorkerDied", "WorkerProcess", "backend_from_env",
           "next_chunk", "release_memory", "worker_nice", "worker_threads"]


if __name__ == "__main__":
    # run the module's own copy (not this ``__main__`` one), so what it pickles names
    # ``evaluators.jobs_worker`` classes the parent knows
    from evaluators.jobs_worker import main as _main

    _main(sys.argv[1:])

"""The job queue's process back end (``RAG_EVAL_WORKER=process``, evaluators/jobs_worker.py): a real
child process (``python -m evaluators.jobs_worker``) evaluates and stores every chunk. Same scores as
the thread back end, progress within a chunk, Cancel, owners interleaved, ``kill -9`` of the child
-> interrupted, resumable, every case stored once; a typed key reaches the LLM through the socket
only (not the child's argv or environment, not the store); no child outlives its queue or its
parent. LLM jobs run against the loopback server (``gpt_labeling``), so the child loads no model."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluators.datasets import load_cases
from evaluators.jobs import JobQueue
from evaluators.jobs_worker import NICE_DEFAULT, backend_from_env, worker_nice
from evaluators.options import EvalOptions
from evaluators.store import RunStore
from evaluators.types import TestCase
from tests.app_server import gone
from tests.llm_server import keyed_labels_responder

pytestmark = pytest.mark.slow  # a worker process started by each test: ~35 s in all

ROOT = Path(__file__).resolve().parents[1]
SECRET = "sk-typed-PROCESS-4242"


def cases(prefix: str, n: int) -> list[TestCase]:
    return [TestCase(id=f"{prefix}{i}", question=f"What colour is item {i}?", response=f"Item {i} is blue.",
                     documents=(f"Item {i} is blue and small. It was made in {1900 + i}.",)) for i in range(n)]


@pytest.fixture
def pq(tmp_path):
    q = JobQueue(RunStore(tmp_path / "runs.sqlite3"), backend="process")
    yield q
    q.wait_idle(30)
    q.close()


@pytest.fixture
def llm_opts(llm_server, loopback_settings):
    """gpt_labeling options against the loopback server, a typed key, no cache (every case calls),
    0.1 s per reply: a chunk of a few cases takes a moment."""
    llm_server.respond(keyed_labels_responder)
    llm_server.latency = 0.1
    return EvalOptions(llm=loopback_settings(api_key=SECRET, cache_path="", concurrency=1))


def wait_for(pred, timeout: float = 20.0) -> None:
    end = time.time() + timeout
    while not pred():
        assert time.time() < end, "timed out"
        time.sleep(0.02)


def stored_ids(store: RunStore, run_id: str) -> list[str]:
    with sqlite3.connect(store.path) as con:
        return [r[0] for r in con.execute("SELECT case_id FROM run_cases WHERE run_id = ? ORDER BY idx", (run_id,))]


def test_the_backend_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("RAG_EVAL_WORKER", raising=False)
    assert backend_from_env() == "thread"
    monkeypatch.setenv("RAG_EVAL_WORKER", "process")
    assert backend_from_env() == "process"
    monkeypatch.setenv("RAG_EVAL_WORKER", "fork")
    with pytest.raises(ValueError, match="RAG_EVAL_WORKER"):
        backend_from_env()
    monkeypatch.delenv("RAG_EVAL_WORKER_NICE", raising=False)
    assert worker_nice() == NICE_DEFAULT == 10
    monkeypatch.setenv("RAG_EVAL_WORKER_NICE", "0")
    assert worker_nice() == 0
    for bad in ("-5", "20", "low"):
        monkeypatch.setenv("RAG_EVAL_WORKER_NICE", bad)
        with pytest.raises(ValueError, match=f"RAG_EVAL_WORKER_NICE must be an integer from 0 to 19, got '{bad}'"):
            worker_nice()


def test_the_process_backend_scores_the_sample_set_as_the_thread_backend(tmp_path, pq):
    sample = load_cases(ROOT / "data" / "sample_rag.jsonl")
    sample = list(getattr(sample, "cases", sample))
    tq = JobQueue(RunStore(tmp_path / "thread.sqlite3"), backend="thread")
    a = tq.submit("o", sample, "trace", EvalOptions(), chunk_size=5)
    b = pq.submit("o", sample, "trace", EvalOptions(), chunk_size=5)
    assert tq.wait(a.id, 120) == "finished" and pq.wait(b.id, 120) == "finished"
    assert pq.worker is not None and pq.worker.pid not in (None, os.getpid())
    # the evaluation runs below the pages' priority: a page script gets a busy core first
    assert os.getpriority(os.PRIO_PROCESS, pq.worker.pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10)
    ra, rb = tq.store.load(a.id, owner="o"), pq.store.load(b.id, owner="o")
    assert len(rb.results) == len(sample) == len(ra.results)
    assert [r.case.id for r in rb.results] == [r.case.id for r in ra.results]
    assert [(r.scores, r.labels, r.error) for r in rb.results] == [(r.scores, r.labels, r.error) for r in ra.results]
    assert all(r.scores is not None for r in rb.results)
    assert rb.means() == ra.means()


def test_progress_moves_within_a_chunk_and_the_typed_key_stays_in_memory(pq, llm_opts, llm_server):
    job = pq.submit("o", cases("c", 6), "gpt_labeling", llm_opts, chunk_size=6, needs_key=True)
    seen: set[int] = set()

    def moving() -> bool:
        v = pq.get(job.id, "o")
        seen.add(v.labeled)
        return v.done == 0 and 0 < v.labeled < 6

    wait_for(moving)
    pid = pq.worker.pid
    assert pid is not None
    for what in ("cmdline", "environ"):  # never in the child's argv or environment
        assert SECRET.encode() not in Path(f"/proc/{pid}/{what}").read_bytes()
    assert pq.wait(job.id, 30) == "finished"
    view = pq.get(job.id, "o")
    assert view.labeled == view.done == 6 and view.usage.calls == 6
    # the key did reach the LLM (through the socket, from memory) ...
    assert {r.headers.get("authorization") for r in llm_server.requests} == {f"Bearer {SECRET}"}
    # ... and never the store
    pq.wait_idle(5)
    for f in Path(pq.store.path).parent.glob("runs.sqlite3*"):
        assert SECRET.encode() not in f.read_bytes()


def test_cancel_and_two_owners_take_turns(pq, llm_opts):
    a = pq.submit("alice", cases("a", 8), "gpt_labeling", llm_opts, chunk_size=2)
    b = pq.submit("bob", cases("b", 8), "gpt_labeling", llm_opts, chunk_size=2)
    c = pq.submit("carol", cases("c", 12), "gpt_labeling", llm_opts, chunk_size=2)
    wait_for(lambda: pq.get(c.id, "carol").done >= 2)
    assert pq.cancel(c.id, "carol")
    assert pq.wait(a.id, 30) == "finished"
    # round robin by owner: when alice's 4 chunks are done, bob's run has had its turns too
    assert pq.get(b.id, "bob").done >= 4
    assert pq.wait(b.id, 30) == "finished" and pq.wait(c.id, 30) == "cancelled"
    kept = stored_ids(pq.store, c.id)
    assert 2 <= len(kept) < 12 and len(kept) % 2 == 0 and pq.store.get(c.id, owner="carol").cancelled


def test_a_killed_worker_interrupts_the_run_and_resume_stores_every_case_once(pq, llm_opts):
    job = pq.submit("o", cases("k", 12), "gpt_labeling", llm_opts, chunk_size=3, needs_key=True)
    wait_for(lambda: pq.get(job.id, "o").done >= 3)
    pid = pq.worker.pid
    os.kill(pid, signal.SIGKILL)
    assert pq.wait(job.id, 30) == "interrupted"
    view = pq.get(job.id, "o")
    assert "killed by SIGKILL" in (view.error or "")
    summary = pq.store.get(job.id, owner="o")
    assert summary.status == "interrupted" and summary.resumable and 3 <= summary.num_done < 12
    assert "SIGKILL" in (summary.error or "")
    resumed = pq.resume(job.id, "o", llm_opts, chunk_size=3)
    assert pq.wait(resumed.id, 30) == "finished"
    assert pq.worker.pid not in (None, pid)  # a new child took over
    ids = stored_ids(pq.store, job.id)
    assert sorted(ids) == sorted(f"k{i}" for i in range(12))  # every case, once
    assert pq.store.get(job.id, owner="o").num_done == 12


def test_an_idle_worker_leaves_and_the_next_run_starts_a_new_one(pq, llm_opts):
    assert pq.worker is not None
    pq.worker.idle_s = 0.5
    first = pq.submit("o", cases("i", 1), "gpt_labeling", llm_opts)
    assert pq.wait(first.id, 30) == "finished"
    old = pq.worker._proc.pid
    assert gone(old, 10)  # left after 0.5 s without work
    second = pq.submit("o", cases("j", 1), "gpt_labeling", llm_opts)
    assert pq.wait(second.id, 30) == "finished"
    assert pq.worker.starts == 2


def test_no_worker_outlives_its_queue_or_its_parent(tmp_path, pq, llm_opts):
    job = pq.submit("o", cases("z", 1), "gpt_labeling", llm_opts)
    assert pq.wait(job.id, 30) == "finished"
    pid = pq.worker.pid
    pq.close()
    assert pid is not None and gone(pid, 10)
    # the server process killed with SIGKILL (no goodbye): its worker leaves by itself
    script = ("import sys, time\n"
              "from evaluators.jobs import JobQueue\nfrom evaluators.store import RunStore\n"
              "from evaluators.types import TestCase\n"
              "q = JobQueue(RunStore(sys.argv[1]), backend='process')\n"
              "from evaluators.options import EvalOptions\n"
              "j = q.submit('o', [TestCase(id='x', question='q?', response='r.', documents=('d.',))], 'trace', "
              "EvalOptions())\n"
              "q.wait(j.id, 120)\nprint(q.worker.pid, flush=True)\ntime.sleep(120)\n")
    parent = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "orphan.sqlite3")], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        assert not gone(child, 0.2)
        parent.kill()
        parent.wait(10)
        assert gone(child, 10), "the worker outlived its killed parent"
    finally:
        parent.kill()
        parent.wait(10)

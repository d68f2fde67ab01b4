"""The server-wide job queue (evaluators/jobs.py): one worker, owners interleaved fairly by chunks,
every chunk stored as it finishes, cancel keeps what finished, an error or a dead worker leaves a
resumable run, the owner's LLM call limit stops a run, and a typed key stays in memory only."""

from __future__ import annotations

import sys
import threading
import time
from typing import Sequence

import pytest

from evaluators.jobs import JobQueue, QueueFull, options_from_settings
from evaluators.limits import CallLedger
from evaluators.llm.settings import LLMSettings
from evaluators.methods import BaseMethod
from evaluators.options import EvalOptions
from evaluators.store import RunStore
from evaluators.types import LabelOutcome, SentencizedCase, TestCase, Usage
from tests.ui_fixtures import FakeMethod

OPTS = EvalOptions()


class Recorder(BaseMethod):
    """ui_fake's labels, plus: records which cases each chunk had, can block (gate), reports
    one billed LLM call per case, and counts warm-ups."""

    def __init__(self) -> None:
        self.warm_ups = 0
        self.chunks: list[list[str]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.started = threading.Event()
        #: Chunks let through before ``gate`` is waited for (None: always wait for it).
        self.free_chunks: int | None = None

    def warm_up(self) -> None:
        self.warm_ups += 1

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick) -> list[LabelOutcome]:
        self.started.set()
        if self.free_chunks is None or len(self.chunks) >= self.free_chunks:
            assert self.gate.wait(30)
        ids = [it.case.id for it in items]
        self.chunks.append(ids)
        outs = FakeMethod().label(items, options, tick)
        return [o.model_copy(update={"usage": Usage(calls=1)}) for o in outs]


def cases(prefix: str, n: int) -> list[TestCase]:
    return [TestCase(id=f"{prefix}{i}", question=f"What is item {i}?", response=f"Item {i} is blue.",
                     documents=(f"Item {i} is blue and small.",)) for i in range(n)]


@pytest.fixture
def rec(register_method):
    r = Recorder()
    register_method("rec", r)
    return r


@pytest.fixture
def queue(tmp_path):
    q = JobQueue(RunStore(tmp_path / "runs.sqlite3"))
    yield q
    q.wait_idle(30)


def test_owners_are_interleaved_by_chunks_and_every_chunk_is_stored(queue, rec):
    rec.gate.clear()  # hold the worker until every run is queued
    a = queue.submit("alice", cases("a", 6), "rec", OPTS, name="A", chunk_size=2)
    # the worker holds alice's first chunk before the others arrive (under load its thread may start
    # after all three submissions, and then either owner may rightly go first)
    assert rec.started.wait(10)
    a2 = queue.submit("alice", cases("x", 2), "rec", OPTS, name="A2", chunk_size=2)
    b = queue.submit("bob", cases("b", 4), "rec", OPTS, name="B", chunk_size=2)
    assert queue.store.get(a.id, owner="alice").status == "running"
    rec.gate.set()
    assert queue.wait_idle(30)
    firsts = [c[0][0] for c in rec.chunks]
    # round robin by owner: alice's first run, then bob, alice, bob …; alice's 2nd run after her 1st
    assert firsts == ["a", "b", "a", "b", "a", "x"], rec.chunks
    for job, owner, n in ((a, "alice", 6), (a2, "alice", 2), (b, "bob", 4)):
        s = queue.store.get(job.id, owner=owner)
        assert (s.status, s.num_done, s.num_scored) == ("finished", n, n)
        view = queue.get(job.id, owner)
        assert view.status == "finished" and view.done == n and view.eta_s is None
    assert [v.id for v in queue.jobs("bob")] == [b.id]
    assert queue.get(b.id, "alice") is None  # another owner's job is not visible


def test_results_are_readable_while_the_run_goes_on(queue, rec):
    rec.gate.clear()
    rec.free_chunks = 1  # the 2nd chunk waits for the gate
    job = queue.submit("o", cases("c", 6), "rec", OPTS, chunk_size=2)
    deadline = time.time() + 10
    while queue.store.get(job.id, owner="o").num_done < 2 and time.time() < deadline:
        time.sleep(0.02)
    partial = queue.store.load(job.id, owner="o")
    assert [r.case.id for r in partial.results] == ["c0", "c1"]
    view = queue.get(job.id, "o")
    assert view.active and view.done == 2 and view.eta_s is not None
    rec.gate.set()
    assert queue.wait(job.id, 30) == "finished"
    assert len(queue.store.load(job.id, owner="o").results) == 6


class Ticker(BaseMethod):
    """Labels case by case, ticking after each; blocks after ``hold_after`` cases until ``gate``."""

    def __init__(self, hold_after: int) -> None:
        self.hold_after = hold_after
        self.gate = threading.Event()

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick) -> list[LabelOutcome]:
        outs = []
        for i, it in enumerate(items):
            if i == self.hold_after:
                assert self.gate.wait(30)
            outs.extend(FakeMethod().label([it], options, lambda n: None))
            tick(1)
        return outs


def test_progress_moves_within_a_chunk(queue, register_method):
    """Issue 30 item 3: a 16-case run in one chunk showed 0/16 until it was done; the count now
    follows the cases the method finishes inside the chunk (stored cases stay ``done``)."""
    t = Ticker(hold_after=5)
    register_method("ticker", t)
    job = queue.submit("o", cases("c", 16), "ticker", OPTS, chunk_size=25)
    deadline = time.time() + 10
    while queue.get(job.id, "o").labeled < 5 and time.time() < deadline:
        time.sleep(0.02)
    view = queue.get(job.id, "o")
    assert (view.labeled, view.done, view.total) == (5, 0, 16)
    assert view.eta_s is not None  # the pace is known once a case finished
    t.gate.set()
    assert queue.wait(job.id, 30) == "finished"
    view = queue.get(job.id, "o")
    assert view.labeled == view.done == 16


def test_cancel_keeps_finished_chunks(queue, rec):
    rec.gate.clear()
    job = queue.submit("o", cases("c", 6), "rec", OPTS, chunk_size=2)
    queued = queue.submit("o", cases("q", 2), "rec", OPTS, chunk_size=2)
    assert rec.started.wait(10)
    assert queue.cancel(queued.id, "o") and queue.get(queued.id, "o").status == "cancelled"
    assert not queue.cancel(job.id, "someone else")
    assert queue.cancel(job.id, "o")
    rec.gate.set()
    assert queue.wait(job.id, 30) == "cancelled"
    run = queue.store.load(job.id, owner="o")
    assert run.cancelled and [r.case.id for r in run.results] == ["c0", "c1"]
    with pytest.raises(KeyError):  # cancelled before any case finished: nothing kept
        queue.store.get(queued.id, owner="o")
    assert ["q0", "q1"] not in rec.chunks


def failing_chunks(monkeypatch, fail_on: set[str], message: str, delay: float = 0.0) -> None:
    """Chunks holding one of ``fail_on`` fail as a whole (after ``delay`` s), as when something around
    the labeler breaks (out of memory, a full disk, …); clear the set to let them through."""
    from evaluators import pipeline

    real = pipeline.Evaluation.run

    def flaky(self, cs, *a, **kw):
        time.sleep(delay)
        if fail_on & {c.id for c in cs}:
            raise MemoryError(message)
        return real(self, cs, *a, **kw)

    monkeypatch.setattr(pipeline.Evaluation, "run", flaky)


def test_a_failing_chunk_interrupts_and_resume_evaluates_only_the_missing_cases(queue, rec, monkeypatch):
    # a labeler error only flags its cases (the pipeline keeps going); a chunk fails as a whole when
    # something around the labeler breaks
    fail_on = {"c3"}
    failing_chunks(monkeypatch, fail_on, "boom")
    job = queue.submit("o", cases("c", 6), "rec", OPTS, chunk_size=2)
    assert queue.wait(job.id, 30) == "interrupted"
    s = queue.store.get(job.id, owner="o")
    assert s.status == "interrupted" and s.num_done == 2 and s.resumable and "boom" in s.error
    assert "boom" in queue.get(job.id, "o").error
    fail_on.clear()
    rec.chunks.clear()
    with pytest.raises(KeyError):
        queue.resume(job.id, "intruder", OPTS)
    queue.resume(job.id, "o", OPTS, chunk_size=2)
    assert queue.wait(job.id, 30) == "finished"
    assert rec.chunks == [["c2", "c3"], ["c4", "c5"]]
    run = queue.store.load(job.id, owner="o")
    assert [r.case.id for r in run.results] == [f"c{i}" for i in range(6)] and not run.cancelled


def test_a_new_queue_marks_runs_of_a_dead_worker_interrupted(tmp_path, rec):
    store = RunStore(tmp_path / "runs.sqlite3")
    rid = store.start("rec", cases("c", 4), owner="o")  # a worker that died after starting
    q = JobQueue(store)
    s = store.get(rid, owner="o")
    assert s.status == "interrupted" and "restarted" in s.error
    q.resume(rid, "o", OPTS, chunk_size=3)
    assert q.wait(rid, 30) == "finished" and store.get(rid, owner="o").num_done == 4


def test_llm_call_limit_stops_a_run_between_chunks(tmp_path, rec):
    ledger = CallLedger()
    q = JobQueue(RunStore(tmp_path / "runs.sqlite3"), ledger)
    job = q.submit("o", cases("c", 10), "rec", OPTS, chunk_size=3, max_calls=5)
    assert q.wait(job.id, 30) == "cancelled"
    view = q.get(job.id, "o")
    assert "limit" in view.error and view.done == 6  # stopped after the chunk that crossed it
    assert ledger.used("o") == 6 and view.usage.calls == 6
    unlimited = q.submit("p", cases("d", 4), "rec", OPTS, chunk_size=3)
    assert q.wait(unlimited.id, 30) == "finished" and ledger.used("p") == 0


def test_too_many_runs_per_owner_are_refused(queue, rec):
    rec.gate.clear()
    for _ in range(3):
        queue.submit("o", cases("c", 2), "rec", OPTS)
    with pytest.raises(QueueFull, match="3 runs"):
        queue.submit("o", cases("c", 2), "rec", OPTS)
    queue.submit("other", cases("c", 2), "rec", OPTS)
    rec.gate.set()


def test_a_typed_key_stays_in_memory_and_resume_gets_it_again(queue, rec, tmp_path):
    secret = "sk-typed-SECRET-777"
    llm = LLMSettings(provider="openai_compatible", model="m", base_url="http://127.0.0.1:9/v1",
                      api_key=secret)
    job = queue.submit("o", cases("c", 2), "rec", EvalOptions(llm=llm), needs_key=True)
    assert queue.wait(job.id, 30) == "finished"
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite3*"))
    assert secret.encode() not in raw
    summary = queue.store.get(job.id, owner="o")
    assert summary.needs_key
    back = options_from_settings(summary.settings, api_key="sk-new")
    assert back.llm.base_url == llm.base_url and back.llm.api_key.get_secret_value() == "sk-new"
    assert options_from_settings(summary.settings).llm.api_key is None


def test_the_method_warms_up_once_per_process_through_the_registry(queue, rec):
    a = queue.submit("alice", cases("a", 4), "rec", OPTS, chunk_size=2)
    assert queue.wait(a.id, 30) == "finished"
    b = queue.submit("bob", cases("b", 2), "rec", OPTS, chunk_size=2)
    assert queue.wait(b.id, 30) == "finished"
    assert rec.warm_ups == 1 and "rec" in queue.warmed


def test_server_settings_keep_page_runs_from_starving_the_worker(tmp_path):
    """Streamlit's default full gc.collect(2) after every script/fragment run held the GIL so long
    that five visitors' progress fragments starved the worker (40x slower, bench/concurrency.py);
    a job queue also stops the encoder's idle threads from spinning on the shared cores and shortens
    the GIL switch interval (bench/concurrency.py --switch-every 5: five visitors' runs took 78 s
    in two runs with it, 82-84 s without)."""
    from pathlib import Path

    import tomllib

    from evaluators.encoder import onnx_graph

    cfg = tomllib.loads((Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml").read_text())
    assert cfg["runner"]["postScriptGC"] is False
    onnx_graph.set_spinning(True)
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)  # Python's default
        JobQueue(RunStore(tmp_path / "runs.sqlite3"))
        assert onnx_graph.spinning() is False
        # the worker wins the GIL back within 1 ms of each encoder call, not after 5 ms of page work
        assert sys.getswitchinterval() <= 0.001 + 1e-9
    finally:
        sys.setswitchinterval(before)
        onnx_graph.set_spinning(True)


def test_chunks_are_sized_by_time_and_the_method_is_built_once_per_run(tmp_path, register_method, monkeypatch):
    from evaluators import jobs

    class Slow(Recorder):
        def label(self, items, options, tick):
            time.sleep(0.01 * len(items))  # 100 cases a second
            return super().label(items, options, tick)

    built = []
    spec = register_method("slow", Slow())
    real_build = spec.build
    monkeypatch.setattr(type(spec), "build", lambda self: built.append(1) or real_build())
    monkeypatch.setattr(jobs, "CHUNK_SECONDS", 0.2)
    q = JobQueue(RunStore(tmp_path / "runs.sqlite3"))
    job = q.submit("o", cases("c", 120), "slow", OPTS)
    assert q.wait(job.id, 60) == "finished"
    sizes = [len(c) for c in spec.impl.chunks]
    assert sizes[0] == jobs.FIRST_CHUNK and max(sizes) >= 12 and sum(sizes) == 120  # ~0.2 s of work each
    assert len(built) <= 2  # once for the run (and once for warm-up), not once per chunk
    assert [r.case.id for r in q.store.load(job.id, owner="o").results] == [f"c{i}" for i in range(120)]


def test_a_resumed_run_reports_its_whole_time_and_count(queue, rec, monkeypatch):
    fail_on = {"c4"}
    failing_chunks(monkeypatch, fail_on, "the server went away", delay=0.2)
    job = queue.submit("o", cases("c", 6), "rec", OPTS, chunk_size=2)
    assert queue.wait(job.id, 30) == "interrupted"
    first = queue.store.get(job.id, owner="o")
    assert first.num_done == 4 and first.timings["wall_s"] >= 0.4
    fail_on.clear()
    queue.resume(job.id, "o", OPTS, chunk_size=2)
    assert queue.wait(job.id, 30) == "finished"
    s = queue.store.get(job.id, owner="o")
    assert (s.num_done, s.num_cases, s.num_scored) == (6, 6, 6)
    assert s.timings["wall_s"] >= first.timings["wall_s"] + 0.2  # both sessions, not the resumed part only

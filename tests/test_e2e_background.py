"""Background runs and private histories in real headless Chromium against the served app (`streamlit run serve.py`):

(a) start a run, go straight to Results: it completes there;
(b) reload mid-run: the finished cases are kept and the run goes on; stop the server mid-run: after
    a restart the run is "interrupted", keeps its finished cases and resumes only the missing ones;
    the orphaned evaluation worker leaves by itself and stores nothing more;
(c) two browser contexts (two visitors): neither sees the other's runs or uploaded rows, even with
    the other's Inspect link; a new tab of the same browser keeps its history (cookie).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

import pytest

from bench.soak import children
from evaluators.store import RunStore
from tests.app_server import CHROMIUM, app_env, free_port, gone, start_app, stop, wait_healthy

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium"),
]

BASE = [
    ("What is the capital of France?", "The capital of France is Paris.",
     "Paris is the capital and largest city of France."),
    ("When did the Berlin Wall fall?", "The Berlin Wall fell in 1989.",
     "The Berlin Wall fell on 9 November 1989, after weeks of protests."),
    ("What do plants release?", "Plants release oxygen during photosynthesis.",
     "During photosynthesis plants turn water and carbon dioxide into glucose and oxygen."),
]


def write_cases(path: Path, n: int, tag: str) -> Path:
    """n unique cases (a run that must still be going on when the test acts on it is paused: Worker)."""
    rows = []
    for i in range(n):
        q, r, d = BASE[i % 3]
        docs = [d, f"Archive record {tag} {i}: {i * 13 % 89} entries."]
        rows.append({"id": f"{tag}-{i}", "question": f"{q} ({tag} {i})",
                     "response": f"{r} Record {tag} {i} lists {i * 7 % 97} visitors.", "documents": docs})
    path.write_text("\n".join(json.dumps(x) for x in rows), encoding="utf-8")
    return path


def upload(page, path: Path, n: int) -> None:
    from playwright.sync_api import expect

    page.get_by_role("link", name="Upload").first.click()
    with page.expect_file_chooser() as fc:
        page.get_by_test_id("stFileUploaderDropzone").click()
    fc.value.set_files(str(path))
    expect(page.get_by_test_id("stMetric").filter(has_text="Cases ready")).to_contain_text(str(n), timeout=60_000)
    # the sidebar, drawn after the page, already knows of the upload (it used to say "none loaded")
    expect(page.get_by_text(f"Dataset: {path.name} · {n} cases")).to_be_visible()


def start_trace(page, chunk: int | None = None) -> None:
    """Evaluate -> Run TRACE; ``chunk``: save every N cases (None: "about every 2 seconds", by time)."""
    from playwright.sync_api import expect

    page.get_by_role("link", name="Evaluate").first.click()
    expect(page.get_by_role("button", name="Run TRACE")).to_be_enabled(timeout=30_000)
    if chunk is not None:
        page.get_by_text("How often the run saves its progress").click()
        page.get_by_text(f"every {chunk} cases", exact=True).click()
        expect(page.get_by_role("radio", name=f"every {chunk} cases")).to_be_checked()
    page.get_by_role("button", name="Run TRACE").click()


def done_count(page, total: int) -> int:
    text = page.get_by_test_id("stProgress").first.inner_text(timeout=30_000)
    m = re.search(rf"(\d+) / {total} cases", text)
    assert m, text
    return int(m.group(1))


def wait_done_at_least(page, total: int, n: int, timeout: float = 300) -> int:
    end = time.time() + timeout
    while time.time() < end:
        try:
            k = done_count(page, total)
        except Exception:  # noqa: BLE001 - the bar redraws every second
            k = -1
        if k >= n:
            return k
        time.sleep(0.3)
    raise TimeoutError(f"fewer than {n} of {total} cases done after {timeout} s")


def stored_count(db: Path, name: str) -> int:
    """Cases the run store holds of the run(s) called ``name`` (a chunk is stored in one transaction)."""
    try:
        with closing(sqlite3.connect(db)) as con:
            return int(con.execute("SELECT COUNT(*) FROM run_cases c JOIN runs r ON r.id = c.run_id "
                                   "WHERE r.name = ?", (name,)).fetchone()[0])
    except sqlite3.OperationalError:  # no table yet
        return 0


def the_run(db: Path, name: str):
    """The summary of the one run called ``name`` (the module's server keeps the runs of every test)."""
    (s,) = [s for s in RunStore(db).list(owner=None) if s.name == name]
    return s


class Worker:
    """The served app's evaluation worker process (``python -m evaluators.jobs_worker``, a child of
    the server), paused and let go on with SIGSTOP / SIGCONT: while paused, the run stays where it is
    — ``running``, partly stored — however fast the machine."""

    def __init__(self, server: subprocess.Popen) -> None:
        self.server = server
        self.pid: int | None = None

    def find(self) -> int:
        for pid in children(self.server.pid):
            try:
                if b"evaluators.jobs_worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid
            except OSError:
                continue
        raise LookupError("the server has no evaluation worker process")

    def pause_at(self, db: Path, name: str, stored: int, timeout: float = 120) -> int:
        """Pause the worker as soon as the store holds at least ``stored`` cases of run ``name``; returns
        how many it holds then (polled every 20 ms: a chunk of 5 of these cases takes 0.3 s here)."""
        end = time.time() + timeout
        while (k := stored_count(db, name)) < stored:
            assert time.time() < end, f"fewer than {stored} cases stored after {timeout} s"
            time.sleep(0.02)
        self.pid = self.pid or self.find()
        os.kill(self.pid, signal.SIGSTOP)
        while Path(f"/proc/{self.pid}/stat").read_text().split(") ")[1][0] != "T":  # stopped
            time.sleep(0.01)
        return max(k, stored_count(db, name))

    def go_on(self) -> None:
        if self.pid is not None:
            os.kill(self.pid, signal.SIGCONT)


@pytest.fixture
def browser(chromium):  # listed after ``server`` by the tests: closed before the server stops
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = chromium(p)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One served app for the tests that need no restart: each test's visitors are browser contexts of
    their own, so they also meet the other tests' runs in its history (never shown to them)."""
    tmp_path = tmp_path_factory.mktemp("server")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(tmp_path), tmp_path / "streamlit.log")
    wait_healthy(url, proc)
    yield url, tmp_path / "runs.sqlite3", proc
    stop(proc)


def test_a_run_started_then_left_for_results_completes_there(server, browser, tmp_path):
    from playwright.sync_api import expect

    url, db, proc = server
    n = 20
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(url)
    upload(page, write_cases(tmp_path / "a.jsonl", n, "a"), n)
    start_trace(page, chunk=5)
    expect(page.get_by_test_id("stProgress")).to_be_visible(timeout=30_000)
    worker = Worker(proc)
    # the run must still be going on when Results opens: its worker waits meanwhile (without the
    # pause 120 cases ended in 4 s, before Results opened)
    try:
        assert worker.pause_at(db, "a", 5) < n
        page.get_by_role("link", name="Results").first.click()  # straight to Results, mid-run
        expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=30_000)
        expect(page.get_by_test_id("stProgress")).to_be_visible()  # the run is still going on …
        assert done_count(page, n) < n
    finally:
        worker.go_on()
    expect(page.get_by_test_id("stProgress")).to_have_count(0, timeout=300_000)  # … and completes
    expect(page.get_by_text("Finished “")).to_be_visible(timeout=30_000)  # … on Results
    expect(page.get_by_test_id("stDataFrame")).to_be_visible(timeout=60_000)  # the cases first
    expect(page.get_by_role("heading", name="Results")).to_be_visible()
    s = the_run(db, "a")
    assert (s.status, s.num_done, s.num_scored) == ("finished", n, n)


def log_chunk_writes(db: Path) -> None:
    """From now on, record every case the server writes to the run store (its input index)."""
    with closing(sqlite3.connect(db)) as con, con:
        con.execute("CREATE TABLE case_log (idx INTEGER)")
        con.execute("CREATE TRIGGER log_case AFTER INSERT ON run_cases "
                    "BEGIN INSERT INTO case_log VALUES (NEW.idx); END")


def stored_chunks(db: Path) -> set[int]:
    """Input indexes of the cases stored so far."""
    with closing(sqlite3.connect(db)) as con:
        return {int(i) for (i,) in con.execute("SELECT idx FROM run_cases")}


def test_reload_mid_run_keeps_cases_and_a_server_restart_resumes(browser, tmp_path):
    from playwright.sync_api import expect

    n = 40  # mid-run whenever the test acts: the worker is paused meanwhile (Worker)
    data = write_cases(tmp_path / "b.jsonl", n, "b")
    db = tmp_path / "runs.sqlite3"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(tmp_path), tmp_path / "streamlit-1.log")
    worker = Worker(proc)
    try:
        wait_healthy(url, proc)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(url)
        upload(page, data, n)
        start_trace(page, chunk=5)
        first = worker.pause_at(db, "b", 5)
        before = wait_done_at_least(page, n, 5)
        assert before < n
        page.reload()  # a refresh mid-run: same visitor (token in the URL), the run goes on
        expect(page.get_by_test_id("stProgress")).to_be_visible(timeout=30_000)
        worker.go_on()
        # two more chunks stored: the page's count (cases labeled, refreshed every 2 s) passes before + 5
        worker.pause_at(db, "b", first + 10)
        after = wait_done_at_least(page, n, before + 5)
        assert before < after < n, (before, after)
        (s,) = RunStore(db).list(owner=None)
        assert s.status == "running" and s.num_done >= after - 5  # stored as it goes
        stop(proc)  # the server dies mid-run (its worker paused in the middle of a chunk)
    finally:
        stop(proc)
        worker.go_on()
    # the orphaned worker notices its server is gone and leaves, storing nothing more
    assert worker.pid and gone(worker.pid, 15), "the evaluation worker outlived its server"
    (s,) = RunStore(db).list(owner=None)
    kept = s.num_done
    assert 0 < kept < n and s.status == "running"  # the server died mid-run
    kept_cases = stored_chunks(db)
    assert len(kept_cases) == kept
    log_chunk_writes(db)
    proc = start_app(port, app_env(tmp_path), tmp_path / "streamlit-2.log")
    worker = Worker(proc)
    try:
        wait_healthy(url, proc)
        with browser.expecting_problems():  # the page lost its server meanwhile (failed reconnects)
            page.goto(page.url)  # the same visitor comes back on /evaluate (same URL / cookie) …
        assert "/evaluate" in page.url
        # … as the fresh server's first visitor: still the whole app (shared sidebar), not the
        # bare page Streamlit's legacy pages/-folder mode would run
        expect(page.get_by_text("LLM (for GPT labeling / hybrid)")).to_be_visible(timeout=60_000)
        expect(page.get_by_role("link", name="app", exact=True)).to_have_count(0)
        expect(page.get_by_text(f"stopped at {kept} of {n} cases")).to_be_visible(timeout=60_000)
        assert RunStore(db).list(owner=None)[0].status == "interrupted"
        page.get_by_role("button", name="Resume").click()
        worker.pause_at(db, "b", kept + 5)  # the resumed run, held while the page is read
        expect(page.get_by_test_id("stProgress")).to_be_visible(timeout=30_000)
        assert kept <= done_count(page, n) < n  # starts from what was kept
        worker.go_on()
        expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=300_000)
        expect(page.get_by_text("Finished “")).to_be_visible(timeout=30_000)
        page.close()  # before its server stops: the page's reconnect attempts would be console errors
    finally:
        worker.go_on()
        stop(proc)
    (s,) = RunStore(db).list(owner=None)
    assert (s.status, s.num_done, s.num_scored) == ("finished", n, n)
    run = RunStore(db).load(s.id, owner=None)
    assert [r.case.id for r in run.results] == [f"b-{i}" for i in range(n)]
    # the resumed run evaluated exactly the missing cases, each once
    with closing(sqlite3.connect(db)) as con:
        written = [int(i) for (i,) in con.execute("SELECT idx FROM case_log")]
    assert sorted(written) == sorted(set(range(n)) - kept_cases)
    assert s.timings["wall_s"] > 0  # the whole time, both servers' parts (tests/test_jobs.py checks the sum)


def test_two_visitors_never_see_each_others_runs_or_rows(server, browser, tmp_path):
    from playwright.sync_api import expect

    url, db, _ = server
    alice_ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    alice = alice_ctx.new_page()
    alice.goto(url)
    upload(alice, write_cases(tmp_path / "alice.jsonl", 6, "alicesecret"), 6)
    start_trace(alice, chunk=25)
    expect(alice.get_by_role("heading", name="Results")).to_be_visible(timeout=300_000)
    s = the_run(db, "alice")

    bob = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    bob.goto(url)
    expect(bob.get_by_role("heading", name="RAG evaluation dashboard")).to_be_visible(timeout=30_000)  # Start
    expect(bob.get_by_text("Dataset: none loaded")).to_be_visible()
    for name, empty in (("Results", "No finished run yet"), ("Compare", "No runs yet"),
                        ("Evaluate", "No cases loaded yet")):
        bob.get_by_role("link", name=name).first.click()
        expect(bob.get_by_text(empty)).to_be_visible(timeout=30_000)
    bob.goto(f"{url}/inspect?run={s.id}&case=alicesecret-0")  # Alice's link, opened by Bob
    expect(bob.get_by_text("belong to another visitor")).to_be_visible(timeout=30_000)
    assert "alicesecret" not in bob.locator("section.main, [data-testid=stMain]").first.inner_text()
    assert "alicesecret" not in bob.content().replace("case=alicesecret-0", "")

    # Alice's own new tab (no token in the URL) keeps her history through the cookie
    tab = alice_ctx.new_page()
    tab.goto(f"{url}/inspect?run={s.id}&case=alicesecret-0")
    expect(tab.locator(".rag-response")).to_contain_text("Record alicesecret 0", timeout=60_000)

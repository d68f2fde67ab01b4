"""The bench's browser-less visitor (``bench/st_client.py``: Streamlit's websocket protocol, used by
``bench/concurrency_protocol.py``) drives the real app like a browser: upload through the upload
endpoint, click Run, the run finishes in the background, page switches and the progress fragment's
auto-rerun work, and two such visitors keep private histories."""

from __future__ import annotations

import sqlite3
import time

import pytest

from bench.st_client import Visitor
from evaluators.store import RunStore
from tests.app_server import app_env, free_port, start_app, stop, wait_healthy
from tests.test_e2e_background import write_cases

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(tmp_path), tmp_path / "streamlit.log")
    try:
        wait_healthy(url, proc, timeout=120)
        yield url, RunStore(tmp_path / "runs.sqlite3")
    finally:
        stop(proc)


def test_visitor_uploads_runs_and_switches_pages_without_a_browser(server, tmp_path):
    url, store = server
    v = Visitor(url)
    first = v.rerun()
    assert "RAG evaluation dashboard" in first.headings  # the Start page, served at "/"
    assert set(v.pages) >= {"upload", "evaluate", "results", "inspect", "glossary"}
    assert "Upload test cases" in v.goto("upload").headings
    shown = v.upload("Drop a CSV", "cases.jsonl", write_cases(tmp_path / "a.jsonl", 4, "a").read_bytes())
    assert shown.metrics.get("Cases ready") == "4"
    ev = v.goto("evaluate")
    assert "Evaluate" in ev.headings
    v.click("Run TRACE")
    soon = time.monotonic() + 30  # the click's run starts the job and reruns: the page after it
    while not v.fragments and time.monotonic() < soon:  # shows the progress
        time.sleep(0.1)
    assert v.fragments  # the progress fragment asked to be re-run on a timer
    end = time.monotonic() + 120
    while not [s for s in store.list(owner=None) if s.status == "finished"]:
        assert time.monotonic() < end, "the run did not finish"
        v.tick_fragments(timeout=10)
        time.sleep(0.5)
    res = v.goto("results")
    assert "Results" in res.headings and res.metrics.get("Adherence") not in (None, "n/a")
    assert "Upload test cases" in v.goto("upload").headings
    # another visitor: its own (empty) history, although the first one's run is on the server
    other = Visitor(url)
    other.rerun()
    assert "Results" in other.goto("results").headings
    assert not other.last.metrics  # nothing to show: no run of its own
    # the first visitor again, in a new session, by the history cookie a browser keeps
    with sqlite3.connect(store.path) as con:
        ((owner,),) = con.execute("SELECT DISTINCT owner FROM runs").fetchall()
    again = Visitor(url, cookies={"rag_eval_u": owner})
    again.rerun()
    assert again.goto("results").metrics.get("Adherence") not in (None, "n/a")
    v.close()
    other.close()
    again.close()

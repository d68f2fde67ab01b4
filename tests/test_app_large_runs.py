"""The dashboard reads runs from the store as pages need them (AppTest): a session keeps run ids, not
runs; Results shows a page of the per-case table with the texts of the rows shown; Inspect lists a
window of the cases and jumps to any id; a results file made with the CLI opens as a run of the
history (uploaded plain or gzip-compressed); a run of the first store layout still opens."""

from __future__ import annotations

import gzip
import json
import pickle
import sqlite3

import pytest
from streamlit.testing.v1 import AppTest

from evaluators.resultfiles import evaluate_file
from evaluators.store import RunStore
from evaluators.types import RunResult, TestCase
from tests import ui_fixtures as fx
from ui import history, state
from ui.inspect import inspect_view
from ui.results import results_view

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")
TOKEN = "large-run-visitor-token-01"
N = 650  # more than a page of the Results table and than the Inspect picker's window


def _cases(n: int) -> list[TestCase]:
    return [TestCase(id=f"k{i}", question=f"Where is item {i} kept? " + "x" * 400,
                     response=f"Item {i} is kept in room {i % 7}. It is blue.",
                     documents=(f"Item {i} is kept in room {i % 7}.", "Rooms are numbered."),
                     labels={"hallucinated": i % 3 == 0}) for i in range(n)]


@pytest.fixture
def big_run() -> str:
    return RunStore().save(fx.fake_run(_cases(N)), "big run", owner=TOKEN)


def app(**query) -> AppTest:
    at = AppTest.from_file(fx.APP, default_timeout=90)
    at.session_state[state._OWNER] = TOKEN
    at.query_params.update(query)
    return at


def _session_holds_no_run(at: AppTest) -> None:
    """Nothing in the session is a run or a case: only ids and small values."""
    for k in list(at.session_state.keys()):
        blob = pickle.dumps(at.session_state[k]) if k != "state.memo" else b""
        assert b"CaseResult" not in blob and b"RunResult" not in blob, k
    memo = at.session_state["state.memo"] if "state.memo" in at.session_state else {}
    assert len(pickle.dumps({k: v for k, v in memo.items() if not callable(v)})) < 2_000_000


def test_results_shows_a_page_of_a_large_run_with_the_texts_of_the_rows_shown(big_run):
    at = app()
    at.session_state[state._RUNS] = {"big run": big_run}
    at.session_state[state._CURRENT] = "big run"
    at.run()
    at.switch_page("pages/3_results.py").run()
    fx.open_tab(at, "results.tab", "Cases")
    assert not at.exception, at.exception
    table = at.dataframe[-1].value
    assert len(table) == results_view.PAGE_ROWS and list(table["id"][:2]) == ["k0", "k1"]
    assert table["response"].iloc[1] == "Item 1 is kept in room 1. It is blue."
    assert table["question"].iloc[0].endswith("x" * 400)  # the whole question of a row shown
    at.number_input(key="results.page").set_value(4).run()
    assert list(at.dataframe[-1].value["id"])[:1] == ["k600"] and len(at.dataframe[-1].value) == N - 600
    assert any("650 of 650 cases" in c.value for c in at.caption)
    _session_holds_no_run(at)


def test_inspect_lists_a_window_of_a_large_run_and_goes_to_any_case(big_run):
    at = app(run=big_run, case="k5")
    at.run()
    at.switch_page("pages/4_inspect.py").run()
    assert not at.exception, at.exception
    picker = at.selectbox(key="inspect.case")
    assert picker.value == "k5" and len(picker.options) == inspect_view.PICKER_MAX
    at.text_input(key=inspect_view.GOTO).set_value("k640").run()
    assert at.selectbox(key="inspect.case").value == "k640"
    assert "k640" in at.selectbox(key="inspect.case").options[-1] or \
        "k649" in at.selectbox(key="inspect.case").options[-1]
    assert any("Where is item 640 kept" in h.value for h in at.get("html"))
    _session_holds_no_run(at)


@pytest.mark.parametrize("packed", ["jsonl", "gz"])
def test_a_results_file_of_the_cli_opens_as_a_run_of_the_history(tmp_path, packed):
    rows = [{"id": c.id, "question": c.question, "response": c.response, "documents": list(c.documents)}
            for c in _cases(30)]
    src = tmp_path / "cases.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "results.jsonl"
    fr = evaluate_file(src, "ui_fake", out=out, chunk_rows=7)
    data = out.read_bytes()
    name = "results.jsonl"
    if packed == "gz":
        data, name = gzip.compress(data), "results.jsonl.gz"
    at = app()
    at.run()
    at.switch_page("pages/3_results.py").run()
    at.file_uploader(key="open.file").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, at.exception
    (s,) = RunStore().list(owner=TOKEN)
    assert (s.num_done, s.method, s.status) == (30, "ui_fake", "finished")
    assert s.means["adherence"] == pytest.approx(fr.top["adherence"])
    assert s.timings["wall_s"] == pytest.approx(fr.top["timings"]["wall_s"])
    assert at.session_state[state._RUNS] == {"results (opened)": s.id}
    assert len(fx.open_tab(at, "results.tab", "Cases").dataframe[-1].value) == 30


def test_a_run_of_the_first_store_layout_opens_and_moves_to_rows_once(tmp_store):
    run = fx.fake_run(_cases(12))
    store = RunStore()
    rid = store.save(run, "old", owner=TOKEN)
    with sqlite3.connect(store.path) as con:  # as the first layout kept it: one payload for the run
        con.execute("UPDATE runs SET payload = ?, layout = NULL WHERE id = ?",
                    (run.model_dump_json(exclude_computed_fields=True), rid))
        con.execute("DELETE FROM run_cases WHERE run_id = ?", (rid,))
    at = app(run=rid, case="k3")
    at.run()
    at.switch_page("pages/4_inspect.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="inspect.case").value == "k3"
    with sqlite3.connect(store.path) as con:
        assert con.execute("SELECT COUNT(*) FROM run_cases WHERE run_id = ?", (rid,)).fetchone()[0] == 12
        assert con.execute("SELECT payload FROM runs WHERE id = ?", (rid,)).fetchone()[0] == ""
    assert isinstance(history.whole(store.load(rid, owner=None)), RunResult)


def test_an_ended_run_keeps_its_per_case_table_as_parquet_equal_to_its_rows(big_run):
    import pandas as pd

    store = RunStore()
    with sqlite3.connect(store.path) as con:
        assert con.execute("SELECT num_done FROM run_tables WHERE run_id = ?", (big_run,)).fetchone()[0] == N
    kept = store.table(big_run, owner=TOKEN)
    rebuilt = pd.DataFrame.from_records(store.rows(big_run, owner=TOKEN))
    pd.testing.assert_frame_equal(kept, rebuilt, check_dtype=False)
    with pytest.raises(KeyError):
        store.table(big_run, owner="someone-else-entirely")


def test_a_compressed_upload_that_unpacks_past_the_limit_is_refused(monkeypatch):
    """A small .gz can unpack to gigabytes (a gzip bomb): past the limit it is refused, nothing is
    written to the history and no temporary file is left."""
    from ui.results import open_results

    monkeypatch.setattr(open_results, "MAX_UNPACKED_MB", 1)
    bomb = gzip.compress(b" " * (3 << 20))  # 3 MB of blanks in a few kilobytes
    assert len(bomb) < 10_000
    at = app()
    at.run()
    at.switch_page("pages/3_results.py").run()
    at.file_uploader(key="open.file").set_value(("big.jsonl.gz", bomb, "application/gzip")).run()
    assert any("unpacks to more than 1 MB" in e.value for e in at.error), [e.value for e in at.error]
    assert RunStore().list(owner=TOKEN) == []

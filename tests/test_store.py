"""Run history (evaluators/store.py): round trips, owners, runs written chunk by chunk (running ->
finished / interrupted -> resumable), retention, typed summaries, and no key ever stored."""

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from evaluators.llm.settings import LLMSettings
from evaluators.options import EvalOptions
from evaluators.paths import store_path
from evaluators.store import RunStore, RunSummary
from evaluators.types import RunResult
from tests.ui_fixtures import fake_run, sample_cases

pytestmark = pytest.mark.usefixtures("fake_method")


def test_save_load_round_trip(tmp_path):
    store = RunStore(tmp_path / "h.sqlite3")
    run = fake_run()
    rid = store.save(run, "first")
    back = store.load(rid, owner=None)
    assert isinstance(back, RunResult)
    assert back == run
    assert back.means() == run.means()


def test_list_newest_first_with_typed_summary_and_delete(tmp_path):
    store = RunStore(tmp_path / "h.sqlite3")
    a = store.save(fake_run(), "a")
    b = store.save(fake_run(), None)
    listed = store.list(owner=None)
    assert all(isinstance(s, RunSummary) for s in listed)
    assert [r.id for r in listed] == [b, a]
    assert listed[1].name == "a" and listed[0].name.startswith("ui_fake ")
    first = listed[0]
    assert first.num_cases == 4 and first.num_done == 4 and first.num_scored == 3
    assert first.status == "finished" and not first.resumable and first.num_errors == 1
    assert first.means["adherence"] == pytest.approx(fake_run().means()["adherence"])
    with pytest.raises(ValidationError, match="frozen"):
        first.name = "x"  # type: ignore[misc]
    assert store.delete(a, owner=None) is True
    assert store.delete(a, owner=None) is False
    assert [r.id for r in store.list(owner=None)] == [b]
    with pytest.raises(KeyError, match=a):
        store.load(a, owner=None)
    assert len(store) == 1


def test_owners_see_only_their_runs(tmp_path):
    store = RunStore(tmp_path / "h.sqlite3")
    mine = store.save(fake_run(), "mine", owner="alice-token")
    theirs = store.save(fake_run(), "theirs", owner="bob-token")
    legacy = store.save(fake_run(), "no owner")
    assert [s.id for s in store.list(owner="alice-token")] == [mine]
    assert [s.id for s in store.list(owner="bob-token")] == [theirs]
    assert {s.id for s in store.list(owner=None)} == {mine, theirs, legacy}  # shared history
    for fn in (lambda: store.load(theirs, owner="alice-token"),
               lambda: store.get(theirs, owner="alice-token"),
               lambda: store.pending(theirs, owner="alice-token")):
        with pytest.raises(KeyError) as err:
            fn()
        assert "bob" not in str(err.value)
    assert store.rename(theirs, "hacked", owner="alice-token") is False
    assert store.delete(theirs, owner="alice-token") is False
    assert store.get(theirs, owner="bob-token").name == "theirs"
    assert store.rename(mine, "renamed", owner="alice-token") is True
    assert store.get(mine, owner=None).name == "renamed"
    # a visitor's runs are found through the owner index, not by reading every run (the history of
    # a public Space holds thousands of runs, listed on every page)
    with sqlite3.connect(store.path) as con:
        plan = con.execute("EXPLAIN QUERY PLAN SELECT id FROM runs WHERE owner = ? ORDER BY created_at DESC",
                           ("alice-token",)).fetchall()
    assert any("USING INDEX runs_owner" in str(row) for row in plan), plan


def test_a_run_written_chunk_by_chunk_can_be_read_while_it_goes_and_resumed(tmp_path):
    store = RunStore(tmp_path / "h.sqlite3")
    cases = sample_cases()
    rid = store.start("ui_fake", cases, name="live", settings={"method": "ui_fake"}, owner="o")
    s = store.get(rid, owner="o")
    assert (s.status, s.num_cases, s.num_done) == ("running", 4, 0)
    assert store.load(rid, owner="o").results == ()
    part1 = fake_run(cases[:2])
    store.add_chunk(rid, 0, part1)
    s = store.get(rid, owner="o")
    assert s.num_done == 2 and s.num_scored == 2 and s.usage == part1.usage
    assert [r.case.id for r in store.load(rid, owner="o").results] == ["c1", "c2"]
    # the worker dies: a new process marks the run interrupted; the missing cases are known
    assert RunStore(tmp_path / "h.sqlite3").mark_interrupted("crash") == [rid]
    s = store.get(rid, owner="o")
    assert s.status == "interrupted" and s.resumable and s.error == "crash"
    assert [(i, c.id) for i, c in store.pending(rid, owner="o")] == [(2, "c3"), (3, "c4")]
    part2 = fake_run(cases[2:])
    store.add_chunk(rid, 2, part2)
    assert store.pending(rid, owner="o") == []
    summary = store.finish(rid, "finished", timings={"wall_s": 1.5})
    assert summary == store.get(rid, owner="o")
    run = store.load(rid, owner="o")
    want = RunResult.merge([part1, part2], method="ui_fake", settings={"method": "ui_fake"})
    assert run.results == want.results and run.usage == want.usage and run.timings["wall_s"] == 1.5
    s = store.get(rid, owner="o")
    assert s.status == "finished" and s.num_done == 4 and s.means == RunStore.summary(run)["means"]
    assert s.intervals["adherence"]["n"] == s.num_scored == 3  # the 95 % intervals are kept with the run once it ends
    with sqlite3.connect(tmp_path / "h.sqlite3") as con:  # one row per case, no inputs left
        assert con.execute("SELECT COUNT(*) FROM run_cases WHERE run_id = ?", (rid,)).fetchone()[0] == 4
        assert con.execute("SELECT COUNT(*) FROM run_inputs WHERE run_id = ?", (rid,)).fetchone()[0] == 0


def test_cancelled_run_keeps_finished_cases(tmp_path):
    store = RunStore(tmp_path / "h.sqlite3")
    cases = sample_cases()
    rid = store.start("ui_fake", cases, owner="o")
    store.add_chunk(rid, 0, fake_run(cases[:2]))
    store.finish(rid, "cancelled")
    run = store.load(rid, owner="o")
    assert run.cancelled and len(run.results) == 2
    s = store.get(rid, owner="o")
    assert s.status == "cancelled" and s.cancelled and (s.num_done, s.num_cases) == (2, 4)


def test_old_database_is_migrated(tmp_path):
    path = tmp_path / "old.sqlite3"
    run = fake_run()
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE runs (id TEXT PRIMARY KEY, name TEXT, method TEXT NOT NULL, created_at "
                    "TEXT NOT NULL, num_cases INTEGER NOT NULL, num_scored INTEGER NOT NULL, cancelled "
                    "INTEGER NOT NULL, summary TEXT NOT NULL, payload TEXT NOT NULL)")
        con.execute("INSERT INTO runs VALUES ('old1','old','ui_fake','2024-01-01T00:00:00+00:00',4,3,0,?,?)",
                    ('{"means": {"adherence": 0.5}, "usage": {"calls": 2}}',
                     run.model_dump_json(exclude_computed_fields=True)))
    store = RunStore(path)
    (s,) = store.list(owner=None)
    assert (s.id, s.status, s.num_done, s.usage.calls) == ("old1", "finished", 4, 2)
    assert store.list(owner="someone") == []  # ownerless runs are not anyone's private history
    with sqlite3.connect(path) as con:  # the owner index is made after the owner column is added
        assert con.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'runs_owner'").fetchone()
    assert store.load("old1", owner=None) == run


def test_purge_deletes_old_runs_but_never_running_ones(tmp_path):
    store = RunStore(tmp_path / "h.sqlite3")
    old = store.save(fake_run(), "old", owner="o")
    old_running = store.start("ui_fake", sample_cases(), owner="o")
    new = store.save(fake_run(), "new", owner="o")
    long_ago = (datetime.now(timezone.utc) - timedelta(days=40)).isoformat(timespec="seconds")
    with sqlite3.connect(tmp_path / "h.sqlite3") as con:
        con.execute("UPDATE runs SET updated_at = ?, created_at = ? WHERE id IN (?, ?)",
                    (long_ago, long_ago, old, old_running))
    assert store.purge(None) == 0 and store.purge(0) == 0
    assert store.purge(30) == 1
    assert {s.id for s in store.list(owner="o")} == {old_running, new}


def test_purge_if_due_applies_retention_at_most_once_an_interval(tmp_path, monkeypatch):
    store = RunStore(tmp_path / "h.sqlite3")
    long_ago = (datetime.now(timezone.utc) - timedelta(days=40)).isoformat(timespec="seconds")

    def age(run_id):
        with sqlite3.connect(tmp_path / "h.sqlite3") as con:
            con.execute("UPDATE runs SET updated_at = ?, created_at = ? WHERE id = ?", (long_ago, long_ago, run_id))

    clock = [1000.0]
    monkeypatch.setattr("evaluators.store.runs.time.monotonic", lambda: clock[0])
    age(store.save(fake_run(), "a", owner="o"))
    assert store.purge_if_due(30, every_s=3600) == 1  # the first call purges
    age(store.save(fake_run(), "b", owner="o"))
    clock[0] += 3599
    assert store.purge_if_due(30, every_s=3600) == 0 and len(store.list(owner="o")) == 1  # not yet
    clock[0] += 2
    assert store.purge_if_due(30, every_s=3600) == 1 and store.list(owner="o") == []  # an hour on


def test_path_from_env(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "x" / "env.sqlite3"))
    assert store_path() == tmp_path / "x" / "env.sqlite3"
    store = RunStore()
    store.save(fake_run())
    assert (tmp_path / "x" / "env.sqlite3").is_file()


def test_api_key_is_never_stored(tmp_path):
    secret = "sk-test-SECRET-0123456789"
    opts = EvalOptions(llm=LLMSettings(provider="openai", model="m", api_key=secret))
    run = fake_run(options=opts)
    assert run.settings["llm"]["model"] == "m"  # the settings are kept ...
    path = tmp_path / "h.sqlite3"
    store = RunStore(path)
    rid = store.save(run, "with llm")
    live = store.start("ui_fake", sample_cases(), settings=run.settings, owner="o", needs_key=True)
    store.add_chunk(live, 0, run)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("h.sqlite3*"))
    assert secret.encode() not in raw  # ... the key is not
    with sqlite3.connect(path) as con:
        dump = "\n".join(str(row) for t in ("runs", "run_chunks") for row in con.execute(f"SELECT * FROM {t}"))
    assert secret not in dump and "api_key" not in dump
    assert secret not in store.load(rid, owner=None).model_dump_json()
    assert store.get(live, owner="o").needs_key


def test_refuses_a_payload_carrying_a_secret(tmp_path):
    run = fake_run().model_copy(update={"settings": {"llm": {"api_key": "sk-leak"}}})
    store = RunStore(tmp_path / "h.sqlite3")
    with pytest.raises(ValueError, match="secret"):
        store.save(run)
    with pytest.raises(ValueError, match="secret"):
        store.start("ui_fake", [], settings={"llm": {"api_key": "sk-leak"}})
    assert len(store) == 0

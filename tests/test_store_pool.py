"""The run store's pool of SQLite connections (evaluators/store/pool.py): a connection is reused, a
transaction left open never travels with it, a replaced file is never read through an old
connection, and many threads share the pool."""

from __future__ import annotations

import threading

import pytest

from evaluators.store import RunStore
from evaluators.store.pool import ConnectionPool
from tests.ui_fixtures import fake_run

pytestmark = pytest.mark.usefixtures("fake_method")


def test_a_connection_is_lent_again_after_its_block(tmp_path):
    pool = ConnectionPool(tmp_path / "p.sqlite3")
    with pool.connection() as con:
        con.execute("CREATE TABLE t (x)")
    with pool.connection() as a:
        with pool.connection() as b:  # a second borrower while the first holds one: another connection
            assert a is not b
    with pool.connection() as c:
        assert c in (a, b)
    pool.close()


def test_a_transaction_left_open_is_rolled_back_when_handed_back(tmp_path):
    pool = ConnectionPool(tmp_path / "p.sqlite3")
    with pool.connection() as con, con:
        con.execute("CREATE TABLE t (x)")
    with pool.connection() as con:
        con.execute("INSERT INTO t VALUES (1)")  # never committed
        assert con.in_transaction
    with pool.connection() as con:
        assert not con.in_transaction
        assert con.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0
    with pytest.raises(RuntimeError):  # an error inside the block: the write is dropped, the lock freed
        with pool.connection() as con:
            con.execute("INSERT INTO t VALUES (2)")
            raise RuntimeError("boom")
    other = ConnectionPool(tmp_path / "p.sqlite3")
    with other.connection() as con, con:  # another writer is not locked out
        con.execute("INSERT INTO t VALUES (3)")
    with pool.connection() as con:
        assert [r[0] for r in con.execute("SELECT x FROM t")] == [3]


def test_a_replaced_database_file_is_read_through_new_connections(tmp_path):
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    store.save(fake_run(), "first", owner="t")
    assert [s.name for s in store.list(owner="t")] == ["first"]
    for f in tmp_path.iterdir():  # the history is wiped (a Space's disk after a restart)
        f.unlink()
    fresh = RunStore(path)
    fresh.save(fake_run(), "second", owner="t")
    assert [s.name for s in store.list(owner="t")] == ["second"]  # not the old file's runs


def test_many_threads_share_one_store(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    rid = store.save(fake_run(), "r", owner="t")
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(30):
                assert store.get(rid, owner="t").num_done == 4
                assert len(store.rows(rid, owner="t")) == 4
                store.rename(rid, "r", owner="t")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(store._pool._idle) <= store._pool.keep


def test_the_texts_of_a_page_of_cases_without_rebuilding_them(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    run = fake_run()
    rid = store.save(run, "r", owner="t")
    got = store.texts_of(rid, ["c3", "c1", "nope"], owner="t")
    want = {r.case.id: (r.case.question, r.case.response) for r in run.results if r.case.id in ("c1", "c3")}
    assert got == want
    with pytest.raises(KeyError):
        store.texts_of(rid, ["c1"], owner="someone else")

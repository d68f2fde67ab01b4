"""What a run is called (issue 47, item 4): the file's stem by default, editable, kept in the history
(older histories' default names moved once), and labels that tell two runs of one name apart."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import pytest

from evaluators.store import RunStore, default_name, labels
from evaluators.store.names import migrated
from tests.ui_fixtures import fake_run

pytestmark = pytest.mark.usefixtures("fake_method")


@pytest.mark.parametrize("filename, name", [
    ("sample_rag_version2.jsonl", "sample_rag_version2"),
    ("data/traces/spans.parquet", "spans"),
    ("C:\\work\\v2.csv", "v2"),
    ("results.jsonl.gz", "results"),
    ("my.eval.v3.json", "my.eval.v3"),
    ("notes", "notes"),
    ("", "trace"),
    (None, "trace"),
    (".jsonl", ".jsonl"),
])
def test_a_run_is_named_after_its_file(filename, name):
    assert default_name(filename, "trace") == name


@pytest.mark.parametrize("old, method, new", [
    ("trace on sample_rag_version2.jsonl", "trace", "sample_rag_version2"),
    ("hybrid on cases.csv", "hybrid", "cases"),
    ("trace on spans.parquet.gz", "trace", "spans"),
    ("trace on Monday", "trace", None),              # typed by a person: not a file
    ("hybrid on cases.csv", "trace", None),          # another method's words
    ("baseline on the new index.jsonl", "trace", None),
    ("sample_rag", "trace", None),
])
def test_only_the_old_default_name_is_moved(old, method, new):
    assert migrated(old, method) == new


def test_an_older_history_is_renamed_once(tmp_path):
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    ids = {n: store.save(fake_run(), n, owner="o") for n in ("trace on v1.jsonl", "trace on Monday")}
    with sqlite3.connect(path) as con:  # as an older version left it: no record of the move
        con.execute("UPDATE runs SET method = 'trace'")
        con.execute("DROP TABLE store_meta")
    store = RunStore(path)
    names = {s.id: s.name for s in store.list(owner="o")}
    assert names[ids["trace on v1.jsonl"]] == "v1" and names[ids["trace on Monday"]] == "trace on Monday"
    # done once: a name given later that looks like the old default stays as it was given
    later = store.save(fake_run(), "trace on v9.jsonl", owner="o")
    with sqlite3.connect(path) as con:
        con.execute("UPDATE runs SET method = 'trace'")
    assert RunStore(path).get(later, owner="o").name == "trace on v9.jsonl"


def test_a_name_is_editable_and_kept(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    rid = store.save(fake_run(), "sample_rag", owner="o")
    assert store.rename(rid, "v1 (old prompt)", owner="o")
    assert not store.rename(rid, "stolen", owner="someone else")
    assert RunStore(tmp_path / "runs.sqlite3").get(rid, owner="o").name == "v1 (old prompt)"


@dataclass
class S:
    id: str
    name: str
    method: str
    created_at: str = "2026-11-27T05:32:10+00:00"


def test_labels_tell_runs_of_one_name_apart():
    runs = [S("a", "sample_rag", "trace"), S("b", "sample_rag", "hybrid"), S("c", "sample_rag_version2", "trace"),
            S("d", "v3", "trace", "2026-11-27T05:32:10"), S("e", "v3", "trace", "2026-11-28T09:00:00"),
            S("f", "v4", "trace"), S("g", "v4", "trace")]
    got = labels(runs)
    assert got["a"] == "sample_rag · trace" and got["b"] == "sample_rag · hybrid"
    assert got["c"] == "sample_rag_version2"
    assert got["d"] == "v3 · trace · 2026-11-27 05:32" and got["e"] == "v3 · trace · 2026-11-28 09:00"
    assert got["f"] != got["g"] and len(set(got.values())) == len(runs)

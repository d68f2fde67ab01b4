"""The on-disk embedding cache: re-runs encode only new sentences; keyed by model + precision +
text hash (no text stored); LRU size cap; clear (API and CLI). Always a temp file."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from evaluators.encoder import disk_cache as C
from evaluators.encoder import embeddings as E


def test_put_get_and_no_text_stored(tmp_path):
    c = C.EmbeddingCache(tmp_path / "emb.sqlite3")
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    c.put("m|int8", ["secret sentence one", "two"], v)
    got = c.get("m|int8", ["two", "secret sentence one", "absent"])
    assert set(got) == {"two", "secret sentence one"} and np.array_equal(got["two"], v[1])
    assert c.get("m|fp32", ["two"]) == {}  # other precision: other key
    raw = (tmp_path / "emb.sqlite3").read_bytes()
    for f in tmp_path.glob("emb.sqlite3*"):
        raw += f.read_bytes()
    assert b"secret sentence" not in raw
    assert c.stats()["vectors"] == 2
    assert c.clear() == 2 and c.stats()["vectors"] == 0


def test_size_cap_evicts_least_recently_used(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "TOUCH_S", 0.0)  # every read marks its row (the product: to the hour)
    row = 3 * 4 + C._ROW_OVERHEAD
    c = C.EmbeddingCache(tmp_path / "cap.sqlite3", max_mb=10 * row / 1024 / 1024)
    for i in range(10):
        c.put("m", [f"t{i}"], np.full((1, 3), i, np.float32))
    c.get("m", ["t0"])  # t0 recently used
    c.put("m", ["t10", "t11"], np.zeros((2, 3), np.float32))
    left = set(c.get("m", [f"t{i}" for i in range(12)]))
    assert len(left) <= 10 and "t0" in left and "t11" in left and "t1" not in left


def test_a_row_read_again_within_the_hour_is_not_written_again(tmp_path):
    import sqlite3

    c = C.EmbeddingCache(tmp_path / "touch.sqlite3")
    c.put("m", ["old", "new"], np.zeros((2, 3), np.float32))
    with sqlite3.connect(tmp_path / "touch.sqlite3") as con:
        con.execute("UPDATE vectors SET used = used - 7200 WHERE h = ?", (C.text_key("old"),))
        before = dict(con.execute("SELECT h, used FROM vectors").fetchall())
    assert set(c.get("m", ["old", "new"])) == {"old", "new"}
    with sqlite3.connect(tmp_path / "touch.sqlite3") as con:
        after = dict(con.execute("SELECT h, used FROM vectors").fetchall())
    assert after[C.text_key("new")] == before[C.text_key("new")]  # read within the hour: untouched
    assert after[C.text_key("old")] > before[C.text_key("old")] + 7000  # two hours old: marked used


def test_rerun_encodes_only_new_sentences(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_EVAL_EMBED_CACHE", str(tmp_path / "run.sqlite3"))
    E.reset_disk_cache()
    try:
        texts = [f"disk cache sentence {i} about rivers" for i in range(6)]
        first = E.encode(texts)
        E.clear_cache()  # a new process: memory cache empty
        before = dict(E.stats)
        again = E.encode(texts + ["a brand new edited sentence"])
        assert E.stats["texts_encoded"] - before["texts_encoded"] == 1
        assert E.stats["disk_hits"] - before["disk_hits"] == 6
        assert np.array_equal(again[:6], first)
        with sqlite3.connect(tmp_path / "run.sqlite3") as con:
            tags = [t for (t,) in con.execute("SELECT tag FROM tags")]
        assert tags == [E.cache_tag()] and E.backend() in tags[0]
    finally:
        E.clear_cache()
        monkeypatch.delenv("RAG_EVAL_EMBED_CACHE")
        E.reset_disk_cache()


def test_disabled_and_default_location(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_EVAL_EMBED_CACHE", "off")
    assert C.from_env() is None
    monkeypatch.delenv("RAG_EVAL_EMBED_CACHE")
    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "store" / "runs.sqlite3"))
    assert C.from_env().path == tmp_path / "store" / "embeddings.sqlite3"


def test_cli_cache_info_and_clear(tmp_path, capsys):
    from evaluators.cli import main

    path = tmp_path / "cli.sqlite3"
    C.EmbeddingCache(path).put("m", ["x", "y"], np.ones((2, 4), np.float32))
    assert main(["cache", "info", "--path", str(path)]) == 0
    assert '"vectors": 2' in capsys.readouterr().out
    assert main(["cache", "clear", "--path", str(path)]) == 0
    assert "removed 2 vectors" in capsys.readouterr().out
    assert C.EmbeddingCache(path).stats()["vectors"] == 0


@pytest.mark.parametrize("bad", ["nope"])
def test_cli_cache_bad_action(bad, capsys):
    from evaluators.cli import main

    assert main(["cache", bad]) == 2

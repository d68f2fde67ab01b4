"""ui/resources: the process's one run history, review store and job queue per run-history path, made once
(also when many sessions ask at the same moment) and found again by a plain lookup."""

from __future__ import annotations

import threading

from ui import resources


def test_one_store_and_one_queue_per_path_even_when_sessions_start_together(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "a" / "runs.sqlite3"))
    got: list[tuple[object, object]] = []
    start = threading.Barrier(8)

    def session() -> None:
        start.wait()
        got.append((resources.queue(), resources.store(), resources.review_store()))

    threads = [threading.Thread(target=session) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(got) == 8 and all(len({id(x[k]) for x in got}) == 1 for k in range(3))
    q, s, r = got[0]
    assert q.store is s and s.path == tmp_path / "a" / "runs.sqlite3"  # the queue writes where pages read
    assert r.runs is s  # the reviews live beside the runs they correct

    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "b" / "runs.sqlite3"))  # another history
    assert resources.store() is not s and resources.store().path == tmp_path / "b" / "runs.sqlite3"
    assert resources.queue() is not q and resources.queue().store is resources.store()
    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "a" / "runs.sqlite3"))
    assert resources.store() is s and resources.queue() is q and resources.review_store() is r

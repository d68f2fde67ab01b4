"""The parts of "Run your app" below the page: the background run (every call before any evaluation,
a refused target stopping alone, the manifest without header values), the run's folder on disk,
the owner's targets setting (``evaluators.targets.owner``), the owner-limit words, and Compare's
retrieval grid."""

from __future__ import annotations

import json
import os
import time

import pytest

from evaluators.comparison import compare_tables, table_from_records
from evaluators.datasets import load_questions
from evaluators.jobs import JobQueue
from evaluators.limits import Limits
from evaluators.options import EvalOptions
from evaluators.store import RunStore
from evaluators.targets import (
    OWNER_TARGETS_ENV,
    TargetError,
    TargetPolicy,
    load_owner_targets,
    owner_environ,
    owner_targets_file,
    target_from_dict,
)
from tests.llm_server import Reply
from ui.compare.app_view import retrieval_grid
from ui.run_app import folder, runner
from ui.run_app.view import owner_calls_refusal

pytestmark = pytest.mark.usefixtures("fake_method")


def _questions(tmp_path, n=5):
    p = tmp_path / "qs.jsonl"
    p.write_text("".join(json.dumps({"id": f"q{i}", "question": f"Question {i}?", "reference_context_ids": ["d1"]})
                         + "\n" for i in range(n)), encoding="utf-8")
    return load_questions(p)


def _http(name, url, **http):
    return target_from_dict({"name": name, "http": {"url": url, "body": {"question": "{question}"}, **http},
                             "answer": "answer", "contexts": "sources[*].text", "context_ids": "sources[*].id",
                             "retries": 0}, f"{name}.yaml")


class RecordingQueue(JobQueue):
    """The real queue, noting when each evaluation was queued."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.submitted: list[float] = []

    def submit(self, *a, **kw):
        self.submitted.append(time.monotonic())
        return super().submit(*a, **kw)


def _run(tmp_path, targets, queue, environs=None):
    where = folder.new_run("owner-token-1234567890", [{"id": "x", "question": "?"}], root=tmp_path / "runs")
    run = runner.AppRun("owner-token-1234567890", where, "qs.jsonl", 5, "ui_fake",
                        [runner.TargetRun(t.name, kind, where / f"{i}.jsonl", t)
                         for i, (kind, t) in enumerate(targets, 1)])
    runner.forget(run.owner)
    got = runner.start(run, _questions(tmp_path), runner.Plan(queue, EvalOptions(), environs=environs or {}))
    assert got is run
    end = time.monotonic() + 60
    while not run.finished:
        assert time.monotonic() < end
        time.sleep(0.05)
    runner.forget(run.owner)
    return run


def test_every_call_is_made_before_any_evaluation_and_each_run_is_named(tmp_path, llm_server):
    llm_server.respond(lambda body: Reply(body={"answer": "A " + body["question"],
                                                "sources": [{"id": "d1", "text": "P"}]}, delay=0.02))
    store = RunStore(str(tmp_path / "runs.sqlite3"))
    queue = RecordingQueue(store, backend="thread")
    url = llm_server.base_url + "/chat/completions"
    run = _run(tmp_path, [("owner", _http("a", url)), ("typed", _http("b", url))], queue)
    assert [(t.status, t.eval_status) for t in run.targets] == [("answered", "finished")] * 2
    assert len(queue.submitted) == 2 and min(queue.submitted) > max(r.t_received for r in llm_server.requests)
    # named by target and question set (issue 57 item 4), the pair in the settings
    assert sorted(s.name for s in store.list(owner=run.owner)) == ["a on qs.jsonl", "b on qs.jsonl"]
    assert sorted(s.settings["app_run"]["target"] for s in store.list(owner=run.owner)) == ["a", "b"]
    assert run.complete and folder.read_manifest(run.folder)["complete"] is True


def test_a_target_refused_before_its_calls_stops_alone(tmp_path, llm_server, monkeypatch):
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    llm_server.respond(lambda body: Reply(body={"answer": "A", "sources": []}))
    url = llm_server.base_url + "/chat/completions"
    bad = _http("bad", url, headers={"Authorization": "Bearer ${NOT_SET_ANYWHERE}"})
    queue = JobQueue(RunStore(str(tmp_path / "runs.sqlite3")), backend="thread")
    run = _run(tmp_path, [("owner", bad), ("owner", _http("good", url))], queue, {"owner": {}})
    refused, good = run.targets
    assert refused.status == "refused" and "NOT_SET_ANYWHERE" in (refused.stopped or "") and refused.run_id is None
    assert (good.status, good.eval_status) == ("answered", "finished")
    assert not run.complete  # Resume would try the refused one again


def test_the_manifest_keeps_no_header_value(tmp_path):
    typed = target_from_dict({"name": "mine", "http": {"url": "https://example.com/ask",
                                                       "headers": {"Authorization": "Bearer typed-secret-9"}},
                              "answer": "answer"}, "typed", TargetPolicy.visitor(environ={}))
    t = runner.TargetRun("mine", "typed", tmp_path / "1.jsonl", typed)
    m = t.manifest()
    assert m["has_headers"] is True and "typed-secret-9" not in json.dumps(m)
    assert target_from_dict(m["spec"], "again", TargetPolicy.visitor(environ={})).spec.http.url == "https://example.com/ask"
    owner = runner.TargetRun("prod", "owner", tmp_path / "2.jsonl", typed)
    assert "spec" not in owner.manifest()  # the owner's and the sample's are found again by name


def test_a_visitors_folder_holds_one_run_and_old_ones_are_purged(tmp_path):
    root = tmp_path / "app_runs"
    first = folder.new_run("visitor-a-token-123456", [{"id": "1", "question": "q?"}], root)
    other = folder.new_run("visitor-b-token-123456", [{"id": "1", "question": "q?"}], root)
    folder.write_manifest(first, {"targets": [], "complete": False})
    assert folder.latest("visitor-a-token-123456", root) == (first, {"targets": [], "complete": False})
    assert "visitor-a" not in str(first)  # the token is never a file name
    second = folder.new_run("visitor-a-token-123456", [{"id": "1", "question": "q?"}], root)
    assert not first.exists() and second.exists() and other.exists()
    assert folder.latest("visitor-a-token-123456", root) is None  # no manifest yet
    old = time.time() - 40 * 86400
    for p in [other, *other.iterdir()]:
        os.utime(p, (old, old))
    assert folder.purge(30, root) == 1 and not other.exists() and second.exists()
    assert folder.purge(None, root) == 0


def test_the_owners_targets_setting(tmp_path):
    f = tmp_path / "t.yaml"
    f.write_text("targets:\n  - {name: a, python: 'json:dumps'}\n  - {name: b, http: {url: 'http://127.0.0.1:1/'}, "
                 "answer: answer}\n", encoding="utf-8")
    assert owner_targets_file({}, None) is None and load_owner_targets({}, None) == []
    assert owner_targets_file({OWNER_TARGETS_ENV: "env.yaml"}, {OWNER_TARGETS_ENV: str(f)}) == str(f)  # secrets first
    assert [t.name for t in load_owner_targets({OWNER_TARGETS_ENV: str(f)})] == ["a", "b"]
    f.write_text("name: c\nhttp: {url: 'http://x/'}\n", encoding="utf-8")
    with pytest.raises(TargetError, match=r"RAG_EVAL_TARGETS \(.*t\.yaml\): field 'answer' is missing"):
        load_owner_targets({OWNER_TARGETS_ENV: str(f)})
    env = owner_environ({"APP_TOKEN": "from-secrets", "PORT": 8080, "FLAG": True, "nested": {"a": 1}},
                        {"APP_TOKEN": "from-env", "HOME": "/h"})
    assert env == {"APP_TOKEN": "from-secrets", "PORT": "8080", "HOME": "/h"}


def test_calls_to_the_owners_app_are_held_to_the_llm_limits_in_words():
    lim = Limits(max_llm_cases=10, max_llm_calls=100)
    assert owner_calls_refusal(lim, 10, 20, used=0) is None
    assert "at most 10 per run (owner setting RAG_EVAL_MAX_LLM_CASES)" in owner_calls_refusal(lim, 11, 11, 0)
    assert "20 calls to this deployment's own app" in owner_calls_refusal(lim, 10, 20, used=90)
    assert "10 are left" in owner_calls_refusal(lim, 10, 20, used=90)
    assert owner_calls_refusal(Limits(max_llm_cases=None, max_llm_calls=None), 10**6, 10**7, 10**6) is None


def test_the_retrieval_grid_of_two_versions():
    def recs(hit1, ndcg5):
        return [{"id": f"q{i}", "question": f"Q{i}?", "documents": ["d"],
                 "metrics": {"adherence": 0.5, "hit@1": hit1[i], "ndcg@5": ndcg5[i], "mrr": hit1[i]}}
                for i in range(12)]
    a = table_from_records("v1", recs([1.0] * 12, [0.9 + 0.01 * (i % 3) for i in range(12)]))
    b = table_from_records("v2", recs([1.0] * 12, [0.2 + 0.01 * (i % 3) for i in range(12)]))
    c = compare_tables([a, b])
    grid, mrr = retrieval_grid(c, "v1", "v2")
    assert list(grid.index) == ["Hit rate", "nDCG"] and list(grid.columns) == ["K = 1", "K = 5"]
    assert grid.loc["nDCG", "K = 5"] == "0.91 → 0.21 ▼" and grid.loc["Hit rate", "K = 1"] == "1.00 → 1.00 ·"
    assert mrr.startswith("MRR: 1.00 → 1.00 ·")
    grid2, _ = retrieval_grid(compare_tables([b, a]), "v2", "v1")
    assert grid2.loc["nDCG", "K = 5"].endswith("▲")

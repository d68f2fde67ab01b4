"""A run whose app's passage ids match no reference id — while their texts do — is said plainly where
a run is read: Results (from the run's retrieval reason) and Run your app (the background run's note
on each target), besides ``run``'s output (tests/test_targets_llamaindex.py)."""

from __future__ import annotations

import json
import time

import pytest

from evaluators.datasets import load_questions
from evaluators.jobs import JobQueue
from evaluators.options import EvalOptions
from evaluators.retrieval import IdCheck
from evaluators.store import RunStore
from evaluators.targets import target_from_dict
from evaluators.types import TestCase
from tests import ui_fixtures as fx
from tests.llm_server import Reply
from ui import state
from ui.run_app import folder, runner

pytestmark = pytest.mark.usefixtures("fake_method")
GRASS = "Grass is green because chlorophyll absorbs red and blue light and reflects the green."
UUIDS = ("8cb36405-7609-4395-946f-e755b75e6761", "3a201bfa-385b-4034-a6e7-6234ecdd3009")


def _cases(ids=UUIDS) -> list[TestCase]:
    return [TestCase(id=f"c{i}", question="Why is grass green?", response="Chlorophyll reflects green.",
                     documents=(GRASS, "Other text about the sea."), document_ids=ids,
                     reference_context_ids=("grass#1",), reference_contexts=(GRASS,)) for i in range(3)]


def test_idcheck_words_and_silence():
    check = IdCheck()
    for c in _cases():
        check.add(c)
    said = check.message() or ""
    assert said.startswith("none of the app's passage ids is a reference id (3 questions with both; the app's look "
                           f"like '{UUIDS[0]}', the test set's like 'grass#1'), but their texts match the reference "
                           "passages of 3 of 3")
    ok = IdCheck()
    for c in _cases(ids=("grass#1", "x")):
        ok.add(c)
    assert ok.message() is None
    no_texts = IdCheck()
    no_texts.add_record({"document_ids": ["a"], "documents": [{"text": "t"}], "reference_context_ids": ["b"]})
    assert "gives no reference_contexts to match texts instead: every retrieval metric will be 0" in (
        no_texts.message() or "")
    # nothing matches, ids nor texts (the sample app asked about pages it does not have): the other
    # documents are named as the first cause, not only the ids
    elsewhere = IdCheck()
    elsewhere.add_record({"document_ids": ["ibuprofen#1"], "documents": ["Ibuprofen was discovered in 1961."],
                          "reference_context_ids": ["about.html#1"],
                          "reference_contexts": ["Harbor Bistro was founded in 1998 by chef Maria Delgado."]})
    said = elsewhere.message() or ""
    assert "no passage's text matches a reference passage either: retrieval scores 0. Either the app searches " \
           "other documents than the ones the test set was made from" in said
    assert "or its passages are cut and named its own way — then check that the app's ids" in said


def _results_warnings(run, about: str = "Retrieval:") -> list[str]:
    at = fx.open_page("pages/3_results.py", "test-visitor-token-0001", **{state._RUNS: {"run0": run},
                                                                          state._CURRENT: "run0"})
    assert not at.exception
    return [w.value for w in at.warning if about in w.value]


def test_results_says_the_ids_match_nothing_but_the_texts_do():
    run = fx.fake_run(_cases())
    assert "none of the app's passage ids" in run.settings["retrieval_run"]["reason"]
    said = _results_warnings(run)
    assert len(said) == 1 and "but their texts match the reference passages of 3 of 3" in said[0]
    assert _results_warnings(fx.fake_run(_cases(ids=("grass#1", "x")))) == []


def test_results_says_once_why_every_retrieval_figure_is_zero():
    sea = "Other text about the sea."
    cases = [c.model_copy(update={"documents": (sea,), "document_ids": (UUIDS[1],)}) for c in _cases()]
    run = fx.fake_run(cases)
    assert "none of the app's passage ids" in run.settings["retrieval_run"]["reason"]
    said = _results_warnings(run, about="reference passage")
    assert len(said) == 1 and said[0].startswith("0 of 3 questions got a reference passage back, so every")
    assert "None of the app's passage ids is a reference id" in said[0]  # the run's own cause, not a guess
    assert said[0].endswith(".")  # a sentence of its own, begun and ended as one
    assert _results_warnings(run) == []  # not a second time under the table


def test_run_your_app_notes_it_on_the_target(tmp_path, llm_server):
    llm_server.respond(lambda body: Reply(body={"answer": "Chlorophyll reflects green.",
                                                "sources": [{"id": UUIDS[0], "text": GRASS}]}))
    p = tmp_path / "qs.jsonl"
    p.write_text("".join(json.dumps({"id": f"q{i}", "question": "Why is grass green?", "reference_context_ids":
                                     ["grass#1"], "reference_contexts": [GRASS]}) + "\n" for i in range(3)),
                 encoding="utf-8")
    t = target_from_dict({"name": "uuids", "http": {"url": llm_server.base_url + "/chat/completions",
                                                    "body": {"question": "{question}"}},
                          "answer": "answer", "contexts": "sources", "retries": 0}, "t.yaml")
    where = folder.new_run("owner-token-1234567890", [{"id": "x", "question": "?"}], root=tmp_path / "runs")
    run = runner.AppRun("owner-token-1234567890", where, "qs.jsonl", 3, "ui_fake",
                        [runner.TargetRun("uuids", "owner", where / "1.jsonl", t)])
    runner.forget(run.owner)
    queue = JobQueue(RunStore(str(tmp_path / "runs.sqlite3")), backend="thread")
    assert runner.start(run, load_questions(p), runner.Plan(queue, EvalOptions())) is run
    end = time.monotonic() + 60
    while not run.finished:
        assert time.monotonic() < end
        time.sleep(0.05)
    runner.forget(run.owner)
    note = run.targets[0].id_note or ""
    assert note.startswith("none of the app's passage ids is a reference id (3 questions with both")
    assert "scored by text" in note


def test_run_your_app_says_why_the_sample_apps_passages_match_nothing(tmp_path):
    from ui.run_app import sample, view

    elsewhere = IdCheck()
    elsewhere.add_record({"document_ids": ["ibuprofen#1"], "documents": ["Ibuprofen was discovered in 1961."],
                          "reference_context_ids": ["menu.html#2"], "reference_contexts": ["The chowder costs $9."]})
    note = elsewhere.message()
    mine = runner.TargetRun("mine", "typed", tmp_path / "1.jsonl", None, id_note=note)
    theirs = runner.TargetRun("v2", "sample", tmp_path / "2.jsonl", None, id_note=note)
    assert view.id_words(mine) == note  # an app of one's own: how to map its ids is the advice
    # the sample app cannot be pointed at other ids: the cause instead of "point the target's context_ids …"
    assert view.id_words(theirs) == sample.SAMPLE_ID_NOTE and "context_ids" not in view.id_words(theirs)

"""Sentence spans stored with the labels (Inspect never re-splits) and the versioned run format
(schema_version in results and exports; older stored runs and files migrated on load)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest

from evaluators import schema, sentencize
from evaluators.export import to_json_dict
from evaluators.pipeline import evaluate_batch
from evaluators.store import RunStore
from evaluators.types import SCHEMA_VERSION, RunResult, SentenceSpans, TestCase
from tests.ui_fixtures import fake_run, sample_cases

pytestmark = pytest.mark.usefixtures("fake_method")

CASE = TestCase(id="c1", question="Where is the Eiffel Tower?",
                documents=("The Eiffel Tower is in Paris. It opened in 1889.", "Bananas are yellow."),
                response="The tower is in Paris. It opened in 1889.")


def test_spans_are_stored_and_rebuild_the_labeled_split(monkeypatch):
    run = evaluate_batch([CASE], "ui_fake")
    r = run.results[0]
    sc = sentencize.sentencize_case(CASE)
    assert r.spans == sentencize.spans_of(sc)
    assert r.spans.documents == (((0, 29), (30, 48)), ((0, 19),))
    assert sentencize.sentences_of(r) == sc
    # a later splitter (here: one sentence per text) cannot move the keys of a stored result
    monkeypatch.setattr(sentencize, "split_spans", lambda text, whole_claims=False: [(0, len(text))])
    assert sentencize.sentencize_case(CASE) != sc
    assert sentencize.sentences_of(r) == sc
    assert [s.key for s in sentencize.sentences_of(r).doc_sentences] == ["0a", "0b", "1a"]


def test_spans_that_do_not_fit_the_texts_are_an_error():
    with pytest.raises(ValueError, match="outside the document 0"):
        sentencize.from_spans(CASE, SentenceSpans(documents=(((0, 500),), ()), response=()))
    with pytest.raises(ValueError, match="spans for 1 documents"):
        sentencize.from_spans(CASE, SentenceSpans(documents=((),), response=()))


def test_exports_and_the_store_carry_version_and_spans(tmp_path):
    run = fake_run()
    d = to_json_dict(run)
    assert d["schema_version"] == SCHEMA_VERSION == run.schema_version
    scored = [c for c in d["detailed_results"] if c["error"] is None]
    assert scored and all(c["spans"]["response"] for c in scored)
    store = RunStore(tmp_path / "runs.sqlite3")
    back = store.load(store.save(run), owner=None)
    assert back == run and back.results[0].spans is not None


def _v1_dump(run: RunResult) -> dict:
    """What the store held before issue 16: no schema_version, spans, warnings or retries; the
    computed ``level`` of every verdict dumped."""
    d = json.loads(run.model_dump_json())  # computed fields included, as the old store did
    for k in ("schema_version", "warnings"):
        d.pop(k)
    d["usage"].pop("retries")
    for r in d["results"]:
        r.pop("spans")
        r["usage"].pop("retries")
    return d


def test_a_version_1_stored_run_is_migrated_on_load(tmp_path):
    run = evaluate_batch(sample_cases()[:3], "ui_fake")
    old = _v1_dump(run)
    assert any("level" in s for r in old["results"] if r["labels"] for s in r["labels"]["sentences"])
    store = RunStore(tmp_path / "runs.sqlite3")
    rid = store.save(run)
    with closing(sqlite3.connect(store.path)) as con, con:
        # as the first layout stored it: one payload for the run (moved to one row per case when read)
        con.execute("UPDATE runs SET payload = ?, layout = NULL WHERE id = ?", (json.dumps(old), rid))
        con.execute("DELETE FROM run_cases WHERE run_id = ?", (rid,))
    back = store.load(rid, owner=None)
    assert back.schema_version == SCHEMA_VERSION
    assert all(r.spans is None for r in back.results)  # unknown for an old run: Inspect re-splits
    assert [r.scores for r in back.results] == [r.scores for r in run.results]
    assert sentencize.sentences_of(back.results[0]) == sentencize.sentencize_case(back.results[0].case)


def test_a_version_1_results_file_is_migrated():
    d = to_json_dict(fake_run())
    d.pop("schema_version")
    d.pop("warnings")
    for c in d["detailed_results"]:
        c.pop("spans")
    new = schema.migrate_export(d)
    assert new["schema_version"] == SCHEMA_VERSION and new["warnings"] == []
    assert all(c["spans"] is None for c in new["detailed_results"])
    assert "schema_version" not in d  # the input is not modified


@pytest.mark.parametrize("bad", [SCHEMA_VERSION + 1, 0, "2", True])
def test_unknown_versions_are_refused_clearly(bad):
    d = json.loads(fake_run().model_dump_json(exclude_computed_fields=True))
    d["schema_version"] = bad
    with pytest.raises(schema.SchemaError, match="schema_version"):
        schema.load_run(d)

"""'Make a test set' keeps test sets like runs (issue 54, item 6): saved to the visitor's history
store, named after the documents (or the name typed), back after a reload and in "Run your app";
another visitor sees none of them; other documents clear the old review and its Save button.
AppTest (Streamlit's own runner) over the real page, the real history store in a temporary file."""

from __future__ import annotations

import secrets as rnd

import pytest
from streamlit.testing.v1 import AppTest

from evaluators.documents import read_documents
from evaluators.store import TestsetStore, testset_name
from tests import ui_fixtures as fx
from tests.test_testset_offline import SAMPLE_DOCS
from ui import state

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "app_py_every_run")

PAGE = "pages/1_testset.py"


def _rows(n: int = 3) -> list[dict]:
    return [{"id": f"q{i:03d}", "question": f"When did event {i} happen?", "ground_truth": f"{1990 + i}",
             "reference_contexts": [f"Event {i} happened in {1990 + i}."], "reference_context_ids": [f"a.md#{i}"],
             "metadata": {"source": "a.md", "question_type": "single_hop", "generator": "offline", "model": None}}
            for i in range(1, n + 1)]


def _page(tok: str, **seed) -> AppTest:
    at = fx.open_page(PAGE, tok, **seed)
    assert not at.exception, at.exception
    return at


def test_a_test_set_is_named_after_its_documents():
    assert testset_name(["faq.md"]) == "faq"
    assert testset_name(["guides/setup.pdf", "faq.html"]) == "setup and faq"
    assert testset_name(["a.md", "b.md", "c.md"]) == "a, b and c"
    assert testset_name([f"page-{i}.html" for i in range(15)]) == "page-0 and 14 more"
    assert testset_name([]) == "test set"


def test_a_file_that_gave_no_question_does_not_name_the_test_set():
    corpus = read_documents([SAMPLE_DOCS / "apollo-11.md", SAMPLE_DOCS / "coral.md"])
    rows = [{**r, "metadata": {**r["metadata"], "source": "coral.md"}} for r in _rows()]
    at = _page(rnd.token_urlsafe(16), **{"testset.corpus": ((("f1", "apollo-11.md"), ("f2", "coral.md")), corpus),
                                         "testset.rows": rows})
    assert at.text_input(key="testset.name").value == "test set from coral"  # apollo-11 gave none


def test_saved_test_sets_are_kept_per_visitor_and_come_back_after_a_reload(tmp_store):
    tok, other = rnd.token_urlsafe(16), rnd.token_urlsafe(16)
    corpus = read_documents([SAMPLE_DOCS / "apollo-11.md", SAMPLE_DOCS / "coral.md"])
    at = _page(tok, **{"testset.corpus": ((("f1", "apollo-11.md"), ("f2", "coral.md")), corpus),
                       "testset.rows": _rows()})
    assert at.text_input(key="testset.name").value == "test set from apollo-11 and coral"  # not "the sample's"
    at.text_input(key="testset.name").set_value("my-docs").run()
    at.button(key="testset.save").click().run()
    assert not at.exception, at.exception
    saved = TestsetStore(tmp_store).list(owner=tok)
    assert [(s.name, s.num_questions, s.documents) for s in saved] == [("my-docs", 3, ("apollo-11.md", "coral.md"))]
    assert TestsetStore(tmp_store).list(owner=other) == []
    assert TestsetStore(tmp_store).name_of(saved[0].id, owner=tok) == "my-docs"
    # a reload: a new session with the same history token finds it, and so does "Run your app"
    again = _page(tok)
    assert again.selectbox(key="testset.saved_pick").value == saved[0].id
    run_app = AppTest.from_file(fx.APP, default_timeout=60)
    run_app.session_state[state._OWNER] = tok
    run_app.run()
    run_app.switch_page("pages/1_run_app.py").run()
    assert not run_app.exception, run_app.exception
    assert any("Your test set “my-docs” (3 questions)" in o for o in run_app.radio(key="run_app.source").options)
    # another visitor sees none of it
    stranger = _page(other)
    assert not [s for s in stranger.selectbox if s.key == "testset.saved_pick"]
    assert state.TESTSET_KEY not in stranger.session_state


def test_other_documents_clear_the_old_review_and_its_save_button():
    tok = rnd.token_urlsafe(16)
    corpus = read_documents([SAMPLE_DOCS / "apollo-11.md"])
    at = _page(tok, **{"testset.corpus": ((("f1", "apollo-11.md"),), corpus), "testset.rows": _rows()})
    assert any(h.value == "Review the questions" for h in at.subheader)
    assert at.button(key="testset.save")
    at.button(key="testset.sample").click().run()
    assert not at.exception, at.exception
    assert not any(h.value == "Review the questions" for h in at.subheader)
    assert not [b for b in at.button if b.key == "testset.save"]
    if [t for t in at.text_input if t.key == "testset.name"]:
        assert at.text_input(key="testset.name").value == "test set from the sample's documents"

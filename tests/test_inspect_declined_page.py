"""Inspect on a declining answer (the walk of issue 53 in Chromium, own questions asked of the sample app):
the case picker said "adherence 1.00 · ✓ supported", the Overall note "the response's one sentence is
supported by the documents" for "The documents do not say." beside "Documents (0)", and the refusal note
read "Right refusal: the answer declines. no documents were retrieved" (a lower-case sentence). AppTest,
app.py on every run; one real ``trace`` run shared by the module."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from evaluators import evaluate_batch
from evaluators.store import RunStore
from tests import ui_fixtures as fx
from ui import state
from ui.inspect import answer_view, inspect_view

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "app_py_every_run")
TOKEN = "declined-visitor-token-0001"
LEAVE = "Primary carers get 16 weeks of parental leave at full pay. Partners get 2 weeks."


@pytest.fixture(scope="module")
def run():
    return evaluate_batch([
        {"id": "none", "question": "What is the meal allowance on trips?", "documents": [],
         "response": "The documents do not say.", "ground_truth": "28 euros a day"},
        {"id": "over", "question": "What is parental leave at full pay for the primary carer?", "documents": [LEAVE],
         "response": "I don't know.", "ground_truth": "16 weeks"},
        {"id": "answered", "question": "What is parental leave at full pay for the primary carer?",
         "documents": [LEAVE], "response": "Primary carers get 16 weeks of parental leave at full pay.",
         "ground_truth": "16 weeks"},
    ])


def test_the_refusal_note_reads_as_sentences_and_the_overall_note_says_the_answer_declines(run):
    by = {r.case.id: r for r in run.results}
    note = answer_view.declined_html(by["none"])
    assert "Right refusal: the answer declines. No documents were retrieved" in note, note
    assert "Over-refusal: the answer declines. The documents state" in answer_view.declined_html(by["over"])
    overall = inspect_view.overall_note(by["none"], by["none"].labels)
    assert "supported by the documents" not in overall and overall.startswith("the response declines"), overall
    answered = by["answered"]
    assert inspect_view.overall_note(answered, answered.labels) == answered.labels.overall_explanation


def test_the_case_picker_names_a_declining_answer_not_supported(run, tmp_store):
    rid = RunStore().save(run, "own questions", owner=TOKEN)
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.session_state[state._OWNER] = TOKEN
    at.query_params.update(run=rid, case="none")
    at.run()
    at.switch_page("pages/4_inspect.py").run()
    assert not at.exception, at.exception
    box = at.selectbox(key="inspect.case")
    tags = {c: box.format_func(c) for c in ("none", "over", "answered")}
    assert tags["none"].endswith("declined (right refusal)"), tags
    assert tags["over"].endswith("declined (over-refusal)"), tags
    assert tags["answered"].endswith("✓ supported"), tags


def test_inspect_says_how_a_ground_truth_that_is_no_text_was_read():
    # the walk: a row with "ground_truth": 42 showed "✗ 42" on Inspect and nowhere that it was a number read as text
    run = evaluate_batch([{"id": "n", "question": "How many weeks?", "documents": [LEAVE], "ground_truth": 16,
                           "response": "Primary carers get 16 weeks of parental leave at full pay."},
                          {"id": "ints", "question": "How many weeks?", "documents": [LEAVE], "ground_truth": [1, 2],
                           "response": "Primary carers get 16 weeks of parental leave at full pay."}])
    by = {r.case.id: r for r in run.results}
    assert "ground_truth is a number (16); read as the text &#x27;16&#x27;" in answer_view.reference_html(by["n"])
    ints = answer_view.reference_html(by["ints"])
    assert ints.count("a list holding int 1") == 1, ints  # said once, in the reason it was not compared


def test_a_reference_answer_and_its_facts_are_escaped_in_inspect():
    """Inspect writes the reference answer's facts as HTML (``st.html``): text from an upload, escaped."""
    evil = "<script>alert(1)</script> Primary carers get <b>16 weeks</b>."
    got = evaluate_batch([{"id": "x", "question": "What is parental leave at full pay?", "documents": [LEAVE],
                           "response": "Partners get 2 weeks.", "ground_truth": evil}]).results[0]
    html = answer_view.reference_html(got)
    assert "rag-answer-facts" in html  # the facts list, not the plain text path
    assert "<script" not in html and "<b>16" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html

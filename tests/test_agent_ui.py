"""The dashboard with an agent's case: Inspect shows the trajectory above the sentence view (each
step, its arguments and result, the documents it brought, a failed step in red, the reference calls
not made); Results and Compare take the tool-call metrics by name (help texts, directions)."""

from __future__ import annotations

import pytest

from evaluators.pipeline import evaluate_batch
from evaluators.toolcalls import read_calls
from evaluators.types import TestCase
from tests.ui_fixtures import inspect_case
from ui import vocab
from ui.inspect.trajectory_view import trajectory_html

CALLS = [{"name": "search_docs", "arguments": {"query": "return <policy>"}, "result": '[{"page_content": "x"}]',
          "status": "ok", "latency_s": 0.12, "documents": [0], "query": "return <policy>", "kind": "TOOL"},
         {"name": "lookup_order", "arguments": {"order_id": "B-77"}, "status": "error",
          "error": "order B-77 not found", "kind": "TOOL"}]


def _case() -> TestCase:
    return TestCase(id="agent-1", question="Can I return order B-77?", response="Items can be returned within 30 days.",
                    documents=("Items can be returned within 30 days of delivery.",),
                    tool_calls=read_calls(CALLS),
                    reference_tool_calls=read_calls([{"name": "search_docs", "arguments": {"query": "return <policy>"}},
                                                     {"name": "cancel_order", "arguments": {"order_id": "B-77"}}]))


def test_the_trajectory_names_every_step_and_marks_the_failed_one():
    r = evaluate_batch([_case()]).results[0]
    html = trajectory_html(r)
    assert "1. search_docs" in html and "2. lookup_order" in html
    assert "return &lt;policy&gt;" in html and "<policy>" not in html  # escaped
    assert 'class="rag-step failed"' in html and "order B-77 not found" in html
    assert "brought document [0]" in html and "120 ms" in html
    assert "expected, not made: <b>cancel_order</b>" in html
    assert "not in the reference calls" in html  # lookup_order
    plain = r.model_copy(update={"case": r.case.model_copy(update={"tool_calls": (), "reference_tool_calls": None})})
    assert trajectory_html(plain) == ""


@pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")
def test_inspect_shows_the_trajectory_above_the_sentences():
    at = inspect_case(_case())
    assert not at.exception
    htmls = [h.proto.body for h in at.main.get("html")]
    traj = next(i for i, h in enumerate(htmls) if "Trajectory" in h)
    sentences = next(i for i, h in enumerate(htmls) if "returned within 30 days" in h and i != traj)
    assert traj < sentences


def test_the_tool_call_metrics_have_help_and_directions():
    for name in ("tool_call_accuracy", "tool_call_f1", "trajectory_superset", "failed_tool_calls", "tool_steps"):
        assert vocab.help_text(name), name
    from evaluators.comparison.verdict import higher_is_better

    assert higher_is_better("tool_call_f1") and not higher_is_better("failed_tool_calls")

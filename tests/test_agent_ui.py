"""The dashboard with an agent's case: Inspect shows the trajectory above the sentence view (each
step, its arguments and result, the documents it brought, a failed step in red, the reference calls
not made); Results shows an agent run's tool-call metrics as one table with their help (goal accuracy not
available offline, said); Compare says which tool the new version stopped calling, beside the paired
verdicts of every tool-call metric."""

from __future__ import annotations

import pytest

from evaluators.pipeline import evaluate_batch
from evaluators.toolcalls import read_calls
from evaluators.types import TestCase
from tests.ui_fixtures import inspect_case
from ui import vocab
from ui.data import md_escape
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


# ------------------------------------------------------------------------------ Results and Compare
TOKEN = "test-visitor-token-0058"


def _agent_runs(tmp_path) -> dict[str, str]:
    """The sample agent's two versions run over its 60 questions (the real runner, Python targets),
    evaluated with the test labeler and saved to the visitor's history: {version: run id}."""
    from evaluators.datasets import load_cases, load_questions
    from evaluators.store import RunStore
    from evaluators.targets import load_target, run_target
    from tests.ui_fixtures import ROOT, fake_run

    store = RunStore()
    ids = {}
    for v in ("agent_v1", "agent_v2"):
        path = tmp_path / f"{v}.jsonl"
        run_target(load_target(ROOT / "data" / "sample_targets" / f"{v}.yaml"),
                   load_questions(ROOT / "data" / "sample_agent_questions.jsonl"), path)
        ids[v] = store.save(fake_run(load_cases(path).cases), v, owner=TOKEN)
    return ids


def _page(name: str):
    from streamlit.testing.v1 import AppTest

    from tests.ui_fixtures import APP
    from ui import state

    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[state._OWNER] = TOKEN
    at.run()
    at.switch_page(f"pages/{name}.py").run()
    assert not at.exception, at.exception
    return at


@pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")
def test_results_shows_an_agent_runs_tool_call_metrics_with_their_help(tmp_path):
    """Results of the sample agent's run: the tool-call metrics in one table (not thirteen more cards),
    each defined in the title's help, which way is better said; goal accuracy not available offline."""
    from evaluators.toolcalls import COMPARED, COUNTED
    from evaluators.toolcalls.goal import OFFLINE

    _agent_runs(tmp_path)
    at = _page("3_results")
    cards = [m.label for m in at.metric]  # the TRACE cards (and the answers' declined / over-refusal), no tool card
    assert cards[:6] == ["Context relevance", "Context utilization", "Completeness", "Adherence",
                         "Expected adherence", "Overall supported"], cards
    assert not {vocab.nice(n) for n in (*COMPARED, *COUNTED)} & set(cards), cards
    title = next(m for m in at.markdown if m.value.startswith("**Tool calls**"))
    for name in (*COMPARED, *COUNTED):
        assert f"**{vocab.nice(name)}**: {vocab.help_text(name).splitlines()[0]}" in title.proto.help, name
    table = next(d.value for d in at.dataframe if "better" in d.value.columns)
    assert list(table["metric"]) == [vocab.nice(n) for n in (*COMPARED, *COUNTED)]
    rows = dict(zip(table["metric"], zip(table["mean"], table["cases"], table["better"])))
    assert rows["Trajectory superset"] == ("0.567", 60, "higher")  # v2 (the newest run): 34 of 60
    assert rows["Tool arguments exact"][1] == 57  # 3 questions expect no call: no arguments to check
    assert rows["Failed tool calls"][2] == "lower"
    assert all(i for i in table["95% interval"])
    goal = next(c.value for c in at.caption if c.value.startswith("Goal accuracy"))
    assert goal == md_escape(f"Goal accuracy: {OFFLINE}.")


@pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")
def test_compare_says_which_tool_the_new_version_stopped_calling(tmp_path):
    """Compare of the sample agent's two versions: the tools v2 stopped calling, in words with the
    questions, beside the verdict; the tool-call metrics with their paired verdicts in Every metric."""
    ids = _agent_runs(tmp_path)
    at = _page("5_compare")
    assert at.selectbox(key="versions.base").value == ids["agent_v1"]
    assert at.multiselect(key="versions.cands").value == [ids["agent_v2"]]
    text = [m.value for m in at.markdown]
    head = next(i for i, t in enumerate(text) if t.startswith("**Tools called** — agent\\_v2 against agent\\_v1"))
    said = text[head + 1]
    assert said.startswith("- **agent\\_v2 stopped calling lookup\\_order on 11 questions**: q15, q16, q17")
    assert said.count(", ") == 10 and said.endswith("q60") and "…" not in said  # all 11 named
    table = at.table[0].value  # every metric, candidate against baseline
    rows = table.set_index("metric")
    assert rows.loc["Trajectory superset", "candidate is"] == "worse"
    assert rows.loc["Tool call f1", "candidate is"] == "worse"
    assert rows.loc["Failed tool calls", "candidate is"] == "no detectable difference"

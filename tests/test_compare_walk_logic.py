"""AppTest of issue 47's dashboard items: every regression listed (how many of all, worst first, a page
at a time, each card with its case id and, where questions repeat, its source); runs labelled by
their names (renamed in the history, two runs of one method told apart in the agreement view and the
ROC legend); a baseline change that keeps a comparable candidate or says which runs fit; one number
formatter for table and words; the caveat beside an offline method's absolute figures and the run in
one sentence on Results; plain words on Evaluate and Upload. The layout at 1280 and 390 px is
tests/test_e2e_compare.py's (Chromium)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from evaluators.store import RunStore
from evaluators.types import TestCase
from tests import ui_fixtures as fx
from ui import state

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")

TOKEN = "test-visitor-token-0047"
DOC = "Paris is the capital of France. The Seine flows through Paris. Lyon lies on the Rhone."
GOOD = "Paris is the capital of France."
BAD = "Dragons guard the golden towers of Marseille."
SUMMARIZE = "Summarize the following news article."


def cases(prefix: str, answers: list[str], repeat: bool = False) -> list[TestCase]:
    return [TestCase(id=f"{prefix}{i}", question=SUMMARIZE if repeat else f"Tell me about Paris, number {i}?",
                     response=a, documents=(f"Article {i} from the wire. {DOC}",), labels={"hallucinated": a == BAD})
            for i, a in enumerate(answers)]


def save(name: str, cs: list[TestCase], method: str | None = None) -> str:
    """A run of the fake labeler saved as ``name``; ``method``: as if that method had labelled it."""
    run = fx.fake_run(cs)
    if method:
        results = tuple(r.model_copy(update={"labels": r.labels.model_copy(update={"method": method})})
                        if r.labels is not None else r for r in run.results)
        run = run.model_copy(update={"method": method, "results": results})
    return RunStore().save(run, name, owner=TOKEN)


def app(**seed) -> AppTest:
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.session_state[state._OWNER] = TOKEN
    for k, v in seed.items():
        at.session_state[k] = v
    return at


def page(at: AppTest, name: str) -> AppTest:
    at.switch_page(f"pages/{name}.py").run()
    assert not at.exception, at.exception
    return at


def captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption).replace("\\", "")


# ---------------------------------------------------------------------------------- item 3
def test_every_regression_is_listed_a_page_at_a_time_worst_first_with_its_case_id():
    save("v1", cases("a", [GOOD] * 30))
    save("v2", cases("b", [BAD] * 25 + [GOOD] * 5))
    at = page(app().run(), "5_compare")
    assert "0 questions score higher under v2, 25 lower, 5 the same" in captions(at)
    assert "1–10 of the 25 questions that score lower under v2 than under v1 on Adherence, worst first" in captions(at)
    cards = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("case ")]
    assert len(cards) == 10 and cards[0].startswith("case a0 → b0 · v1: 1.00 → v2: 0.00 (-1.00 on Adherence)")
    pager = at.number_input(key="versions.reg_page")
    assert pager.label == "Page (of 3)"
    pager.set_value(3).run()
    assert "21–25 of the 25 questions" in captions(at)
    cards = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("case ")]
    assert [c.split(" ·")[0] for c in cards] == [f"case a{i} → b{i}" for i in range(20, 25)]
    assert "source:" not in " ".join(cards)  # every question is its own: no source needed


def test_cards_of_a_repeated_question_show_their_source():
    save("v1", cases("a", [GOOD] * 6, repeat=True))
    save("v2", cases("b", [BAD] * 3 + [GOOD] * 3, repeat=True))
    at = page(app().run(), "5_compare")
    cards = [c.value.replace("\\", "") for c in at.caption if c.value.startswith("case ")]
    assert len(cards) == 3
    assert all(re.match(r"case a\d → b\d · source: “Article \d from the wire\. Paris is the capital", c) for c in cards)
    assert len({c.split("source:")[1][:12] for c in cards}) == 3  # three sources: the cards are told apart


# ---------------------------------------------------------------------------------- item 5
def test_changing_the_baseline_keeps_a_comparable_candidate_or_says_which_runs_fit():
    v1 = save("v1", cases("a", [GOOD] * 12))  # 6 answers changed, all one way: McNemar's p = 0.03
    v2 = save("v2", cases("b", [BAD] * 6 + [GOOD] * 6))
    other = save("other questions", [TestCase(id=f"o{i}", question=f"What about Lyon {i}?", response=GOOD,
                                              documents=(DOC,)) for i in range(4)])
    at = page(app().run(), "5_compare")
    base, cands = at.selectbox(key="versions.base"), at.multiselect(key="versions.cands")
    assert base.value == v1 and cands.value == [v2]  # the newest pair that shares questions
    assert cands.format_func(other).endswith("(other questions)") and cands.format_func(v2) == "v2"
    at.selectbox(key="versions.base").set_value(v2).run()  # the candidate became the baseline: the old one
    assert at.multiselect(key="versions.cands").value == [v1]
    assert at.success and at.selectbox(key="versions.metric").value == "adherence" and not at.warning
    at.selectbox(key="versions.base").set_value(other).run()  # nothing asks its questions: say so
    assert at.multiselect(key="versions.cands").value == []
    assert "No other run asks other questions's questions" in at.info[0].value
    at.selectbox(key="versions.base").set_value(v1).run()  # back: the last comparable candidate returns
    assert at.multiselect(key="versions.cands").value == [v2] and at.error
    at.multiselect(key="versions.cands").set_value([]).run()  # none picked: which runs fit
    assert "Pick a candidate to compare with v1. Runs on its questions: v2." in at.info[0].value


# ---------------------------------------------------------------------------------- item 6, 7
def test_table_and_words_write_p_values_and_differences_alike_and_offline_means_get_the_caveat():
    save("v1", cases("a", [GOOD] * 30), method="trace")
    save("v2", cases("b", [BAD] * 25 + [GOOD] * 5), method="trace")
    at = page(app().run(), "5_compare")
    verdict = at.error[0].value.replace("\\", "")
    table = at.table[0].value
    row = table[table["metric"] == "Expected adherence"].iloc[0]  # the headline of trace runs
    assert row["p-value"] == "< 0.001" and "(p < 0.001)" in verdict
    diff = row["difference (B − A)"]
    assert re.fullmatch(r"-0\.\d\d", diff) and f"by {diff[1:]} (95 % CI" in verdict
    lo, hi = re.fullmatch(r"-(0\.\d\d)\sto\s-(0\.\d\d)", row["95% interval"]).groups()  # no-break spaces
    assert f"(95 % CI {hi}–{lo})" in verdict
    assert "not a hallucination rate" in captions(at) and "35 % of the answers people call clean" in captions(at)


def test_results_says_the_run_in_one_sentence_and_what_offline_figures_are_good_for():
    rid = save("sample_rag", cases("a", [BAD] * 6 + [GOOD] * 10), method="trace")
    at = page(app(**{state._RUNS: {"sample_rag": rid}, state._CURRENT: "sample_rag"}).run(), "3_results")
    said = [m.value for m in at.markdown if "answers have a sentence" in m.value]
    assert said == ["**6 of 16 answers have a sentence the documents do not fully support, by trace's labels.**"]
    assert "trace's scores are for ranking cases and comparing versions" in captions(at)
    assert at.session_state["results.tab"] == "Cases"  # the cases first, as the README says
    assert [m.label for m in at.metric][:4] == ["Context relevance", "Context utilization", "Completeness",
                                                "Adherence"]
    at.query_params["run"], at.query_params["case"] = rid, "a0"
    page(at, "4_inspect")  # a case's own scores get the same words
    assert "trace's scores are for ranking cases and comparing versions" in captions(at)


# ---------------------------------------------------------------------------------- item 4
def test_a_run_renamed_in_the_history_is_called_so_everywhere():
    rid = save("sample_rag", cases("a", [GOOD] * 4))
    save("sample_rag_version2", cases("b", [BAD] * 2 + [GOOD] * 2))
    at = app(**{state._RUNS: {"sample_rag": rid}, state._CURRENT: "sample_rag"})
    at = fx.open_tab(page(at.run(), "5_compare"), "compare.tab", "Run history")
    at.selectbox(key="compare.target").set_value(rid).run()
    at.text_input(key=f"compare.rename.{rid}").input("v1 (old prompt)")
    at.button(key="FormSubmitter:compare.rename_form-Rename").click().run()
    assert not at.exception
    assert RunStore().get(rid, owner=TOKEN).name == "v1 (old prompt)"
    assert "v1 (old prompt)" in at.session_state[state._RUNS]  # the session's label follows
    page(at, "3_results")
    assert at.selectbox(key="results.run").value == "v1 (old prompt)"


def test_two_runs_of_one_method_are_told_apart_in_the_agreement_view_and_the_roc_legend(monkeypatch):
    import functools
    import json

    from ui.compare import compare_view

    # the names are what is checked here, not the intervals: 50 resamples, not 2,000 (19 s -> 2 s)
    monkeypatch.setattr(compare_view, "agreement_table", functools.partial(compare_view.agreement_table, n_boot=50))
    a = save("sample_rag", fx.sample_cases())
    b = save("sample_rag_version2", fx.sample_cases()[::-1])
    at = fx.open_tab(page(app().run(), "5_compare"), "compare.tab", "Agreement with human labels")
    at.multiselect(key="compare.human_runs").set_value(["sample_rag", "sample_rag_version2"]).run()
    assert not at.exception and a and b
    table = next(d.value for d in at.dataframe if "statistic" in d.value.columns)
    assert set(table["run"]) == {"sample_rag", "sample_rag_version2"} and set(table["method"]) == {"ui_fake"}
    roc = next(c for c in at.get("plotly_chart") if c.key == "compare.roc")
    legend = {t.get("name") for t in json.loads(roc.proto.spec)["data"] if t.get("name")}
    assert any(n.startswith("sample_rag · ") for n in legend) and any(n.startswith("sample_rag_version2 · ")
                                                                       for n in legend)


def test_evaluate_names_a_run_after_its_file_and_says_steps_in_plain_words():
    at = page(app().run(), "0_start")
    at.button(key="start.sample_v2").click().run()
    at = page(at, "2_evaluate")
    assert at.text_input(key="evaluate.name").placeholder == "sample_rag_version2"
    assert not [s for s in at.get("select_slider")]  # "Cases per step: auto" is gone
    steps = at.radio(key="evaluate.chunk")
    assert steps.value == "auto" and steps.format_func("auto").startswith("about every 2 seconds")


def test_upload_says_how_the_file_was_read_in_words():
    at = page(app().run(), "1_upload")
    at.button(key="upload.sample.sample_rag.jsonl").click().run()
    assert "Detected format" not in [m.label for m in at.metric]
    assert "Read as a RAGBench-style table (question, response, documents)" in captions(at)


def test_upload_offers_the_example_trace_exports_in_one_click():
    at = page(app().run(), "1_upload")
    at.button(key="upload.trace_example.otlp_traces.json").click().run()
    assert not at.exception
    assert "Read as OTLP JSON (OpenTelemetry)" in captions(at)
    assert {m.label: m.value for m in at.metric}["Cases ready"] == "4"
    at.button(key="upload.trace_example.phoenix_spans.parquet").click().run()
    assert "Read as OpenInference spans (Phoenix export)" in captions(at)

"""AppTest of every dashboard page (through app.py's st.navigation on every run): seed session
state, run, assert widgets / metrics and that nothing raised. Uses the model-free ``ui_fake``
method; runs go through the server's background job queue (``jobs_done`` waits for it)."""

import json
import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from evaluators.store import RunStore
from tests import ui_fixtures as fx
from ui import data as ud
from ui import state

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")

#: The history token of the test's browser session (as if read from its cookie).
TOKEN = "test-visitor-token-0001"


def app(token: str = TOKEN, **seed) -> AppTest:
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.session_state[state._OWNER] = token
    for k, v in seed.items():
        at.session_state[k] = v
    return at


def with_run(*runs) -> AppTest:
    labels = {f"run{i}": r for i, r in enumerate(runs)}
    return app(**{state._RUNS: labels, state._CURRENT: "run0"})


def page(at: AppTest, name: str) -> AppTest:
    at.switch_page(f"pages/{name}.py").run()
    assert not at.exception, at.exception
    return at


def session_runs(at: AppTest) -> dict:
    """The runs a session opened, read whole from the history (the session keeps their ids only)."""
    return {label: RunStore().load(rid, owner=None) for label, rid in at.session_state[state._RUNS].items()}


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def jsonl(cases) -> bytes:
    return "\n".join(json.dumps({"id": c.id, "question": c.question, "response": c.response,
                                 "documents": list(c.documents), **c.labels}) for c in cases).encode()


# ---- Start / Glossary ----------------------------------------------------------------------------
def test_start_page_explains_methods_and_loads_the_sample_in_one_click():
    """Issue 30 item 12: the app opened on Upload, saying nothing of what it does, what the
    methods cost or what the samples hold."""
    at = app().run()
    assert not at.exception and at.title[0].value == "RAG evaluation dashboard"
    text = " ".join(m.value for m in at.markdown)
    for m in ("**trace**", "**gpt_labeling**", "**hybrid**", "**jury**"):
        assert m in text
    assert "free (no LLM call)" in text and "measured on 2 CPU cores" in text
    # priced from prices.py, every call counted as Evaluate counts them (it said "16 LLM calls, about $0.0111"
    # where Evaluate said "LLM calls 32", "$0.0181": answer correctness asks once more per reference answer)
    assert ("32 LLM calls (16 label the sentences, 16 check the answers against their reference answers), "
            "about $0.0") in text
    assert "5 of them as hallucinated" in text and "16 short question/answer cases" in text
    assert len(at.get("download_button")) == 2
    at.button(key="start.sample").click().run()
    assert not at.exception and at.title[0].value == "Evaluate"
    assert len(at.session_state[state._DATA].cases) == 16
    assert any("Loaded sample_rag.jsonl" in i.value for i in at.info)


def test_glossary_page_lists_every_metric_from_the_declarations():
    from evaluators.families import list_metrics

    at = page(app().run(), "6_glossary")
    cards = [m.value for m in at.markdown if m.value.startswith("**")]
    decls = list_metrics(include_trace=True)
    assert len(cards) == len(decls)
    for d in decls:
        card = next(c for c in cards if c.startswith(f"**{d['name']}** ·"))
        assert d["formula"] in card and d["example"] in card and f"{d['direction']} is better" in card
    assert "range 0–1, higher is better" in next(c for c in cards if c.startswith("**expected_adherence**"))
    at.text_input(key="glossary.find").input("pii").run()
    found = {m.value.split("**")[1] for m in at.markdown if m.value.startswith("**")}
    assert {"answer_contains_pii", "context_contains_pii"} <= found and "adherence" not in found
    # Compare's words are there too, found by what they say (the walk searched "p-value" and found none)
    at.text_input(key="glossary.find").input("p-value").run()
    listed = "\n".join(m.value for m in at.markdown)
    assert "**p-value**:" in listed and "**Holm's correction**:" in listed and "**no detectable difference**:" in listed
    # issue 57 item 2: found by the names the screens show, and the app's own words are defined
    for shown, name in (("Expected adherence", "expected_adherence"), ("Context relevance", "context_relevance"),
                        ("Overall supported", "overall_supported"), ("Exp. adherence", "expected_adherence"),
                        ("nDCG@5", "ndcg@K")):
        at.text_input(key="glossary.find").input(shown).run()
        found = [m.value.split("**")[1] for m in at.markdown if m.value.startswith("**")]
        assert found and found[0] == name, (shown, found)
    for word, term in (("p95", "p50 / p95"), ("tokens", "tokens"), ("latency", "latency (of your app)")):
        at.text_input(key="glossary.find").input(word).run()
        assert f"- **{term}**:" in "\n".join(m.value for m in at.markdown), word


# ---- Upload -----------------------------------------------------------------------------------
def test_upload_first_render_and_sample_sets():
    at = page(app().run(), "1_upload")
    assert not at.exception and at.title[0].value == "Upload test cases"
    samples = ud.sample_files()
    assert samples, "data/ should hold sample sets"
    at.button(key=f"upload.sample.{samples[0].name}").click().run()
    assert not at.exception
    m = metrics(at)
    assert int(m["Cases ready"]) > 0 and int(m["Rows"]) >= int(m["Cases ready"])


def test_upload_file_and_validation_errors():
    at = page(app().run(), "1_upload")
    cases = fx.sample_cases()
    raw = jsonl(cases) + b'\n{"id": "bad", "question": "q"}\n'
    at.file_uploader(key="upload.file").set_value(("mine.jsonl", raw, "application/json")).run()
    assert not at.exception
    m = metrics(at)
    assert m["Rows"] == str(len(cases) + 1)
    assert m["Rows with problems"] == "2" and m["Cases ready"] == "3"  # c4 (blank) and the bad row
    problems = at.dataframe[0].value.to_dict("records")
    assert {(p["row"], p["column"]) for p in problems} == {(4, "response"), (5, "response")}
    assert [c.id for c in at.session_state[state._DATA].cases] == ["c1", "c2", "c3"]


def test_upload_counts_a_line_that_is_not_json_among_the_rows_and_says_problems_in_words():
    # the walk: 6 lines, one not JSON and one without a response, read "Rows 5 · Cases ready 4 · Rows with
    # problems 2" (5 ≠ 4 + 2) under "2 problem(s) found"
    at = page(app().run(), "1_upload")
    cases = fx.sample_cases()[:3]
    raw = jsonl(cases) + b'\n{"id": "broken", "question": \n{"id": "bad", "question": "q"}\n'
    at.file_uploader(key="upload.file").set_value(("mine.jsonl", raw, "application/json")).run()
    assert not at.exception
    m = metrics(at)
    assert (m["Rows"], m["Cases ready"], m["Rows with problems"]) == ("5", "3", "2"), m
    assert "2 problems found — these rows are skipped" in [e.label for e in at.expander]


def test_upload_unreadable_file_shows_error():
    at = page(app().run(), "1_upload")
    at.file_uploader(key="upload.file").set_value(("notes.csv", b"", "text/csv")).run()
    assert not at.exception
    assert any("notes.csv" in e.value for e in at.error)


def test_a_failed_upload_says_the_dataset_shown_is_the_previous_one():
    """Issue 30 item 10: a failing upload left the old dataset on screen with no word."""
    at = page(app().run(), "1_upload")
    at.file_uploader(key="upload.file").set_value(("good.jsonl", jsonl(fx.sample_cases()), "application/json")).run()
    assert at.session_state[state._DATA].filename == "good.jsonl"
    at.file_uploader(key="upload.file").set_value(("broken.csv", b"", "text/csv")).run()
    assert not at.exception
    assert any("broken.csv" in e.value for e in at.error)
    assert any("previous dataset" in w.value and "good.jsonl" in w.value for w in at.warning)


def test_upload_size_limit_message(monkeypatch):
    monkeypatch.setattr(ud, "MAX_UPLOAD_MB", 0.0001)
    with pytest.raises(ud.DataError, match="upload limit"):
        ud.load_bytes(b"x" * 1000, "big.csv")


def test_column_mapping_can_be_corrected():
    at = page(app().run(), "1_upload")
    raw = b"ask,said,ctx\nWhat is up?,The sky is up.,The sky is above us.\nWho?,Me.,It was me.\n"
    at.file_uploader(key="upload.file").set_value(("odd.csv", raw, "text/csv")).run()
    for f, col in (("question", "ask"), ("response", "said"), ("documents", "ctx")):
        at.selectbox(key=f"upload.map.{f}").set_value(col)
    at.button(key="upload.apply").click().run()
    assert not at.exception
    assert metrics(at)["Cases ready"] == "2"
    assert at.session_state[state._DATA].cases[0].documents == ("The sky is above us.",)


# ---- Evaluate -----------------------------------------------------------------------------------
def _with_cases(cases=None) -> AppTest:
    data = state.LoadedData(filename="t.jsonl", df=None, mapping=None, cases=tuple(cases or fx.sample_cases()))
    return app(**{state._DATA: data})


def test_evaluate_says_what_the_llm_calls_beyond_one_per_case_are_for():
    # the walk: "GPT labeling (RAGBench, 1 LLM call/case)" on 16 sample cases, then "LLM calls 32" unexplained
    sample = ud.load_path(ud.sample_files()[0])
    at = page(app(**{state._DATA: sample}).run(), "2_evaluate")
    at.radio(key="evaluate.method").set_value("gpt_labeling").run()
    assert metrics(at)["LLM calls"] == "32"
    assert ("LLM calls: 16 label the sentences, 16 check the answers against their reference answers."
            in [c.value for c in at.caption])


def test_evaluate_without_cases_points_to_upload():
    at = page(app().run(), "2_evaluate")
    assert any("No cases" in i.value for i in at.info)


def test_llm_methods_explain_the_missing_key(monkeypatch):
    at = page(_with_cases().run(), "2_evaluate")
    at.radio(key="evaluate.method").set_value("gpt_labeling").run()
    assert any("needs an LLM" in w.value and "GROQ_API_KEY" in w.value for w in at.warning)
    assert at.button(key="evaluate.run").disabled
    assert metrics(at)["LLM calls"] == "3"  # the estimate is shown before any key is set
    monkeypatch.setenv("GROQ_API_KEY", "gsk-test")
    at.run()
    assert not at.warning and not at.button(key="evaluate.run").disabled
    assert not at.exception
    m = metrics(at)
    assert int(m["LLM calls"].replace(",", "")) == len(fx.sample_cases()) - 1  # blank response: no call
    assert int(m["Prompt tokens"].replace(",", "")) > 0


def test_run_in_chunks_then_results_and_history(jobs_done):
    at = page(_with_cases().run(), "2_evaluate")
    at.radio(key="evaluate.method").set_value("ui_fake")
    at.radio(key="evaluate.chunk").set_value(5).run()
    at.button(key="evaluate.run").click().run()
    assert not at.exception
    jobs_done(at)
    assert at.title[0].value == "Results"  # finished runs open Results
    runs = session_runs(at)
    (label, run), = runs.items()
    assert [r.case.id for r in run.results] == ["c1", "c2", "c3", "c4"] and not run.cancelled
    saved = RunStore().list(owner=TOKEN)
    assert len(saved) == 1 and saved[0].num_cases == 4 and saved[0].status == "finished"
    calls = list(fx.CALLS)
    for _ in range(3):  # reruns never recompute the evaluation
        at.run()
    page(at, "3_results")
    page(at, "4_inspect")
    assert fx.CALLS == calls


# ---- Results ------------------------------------------------------------------------------------
def test_results_cards_charts_filter_downloads():
    run = fx.fake_run()
    at = page(with_run(run).run(), "3_results")
    m = metrics(at)
    assert m["Adherence"] == f"{run.means()['adherence']:.3f}"
    assert not at.get("plotly_chart") and not at.get("download_button")  # only the open tab (Cases) is built
    table = at.dataframe[-1].value
    assert list(table["id"]) == ["c1", "c2", "c3", "c4"]
    at.selectbox(key="results.preset").set_value("a sentence with no support at all").run()
    want = [r.case.id for r in run.results if r.scores and r.scores.unsupported_sentences > 0]
    assert list(at.dataframe[-1].value["id"]) == want
    at.selectbox(key="results.col").set_value("adherence")
    at.selectbox(key="results.op").set_value(">")
    at.number_input(key="results.val").set_value(2.0).run()
    assert at.dataframe[-1].value.empty
    fx.open_tab(at, "results.tab", "Download")
    assert len(at.get("download_button")) == 2
    assert any("could not be scored" in e.label for e in at.expander)
    fx.open_tab(at, "results.tab", "Charts")
    assert len(at.get("plotly_chart")) == 4 and not at.get("download_button")


def test_results_show_the_retrieval_metrics_as_one_table_not_21_cards():
    from evaluators.types import TestCase

    cases = [TestCase(id=f"c{i}", question=f"What is item {i}?", response=f"Item {i} is blue.",
                      documents=(f"Item {i} is blue.", "Other text."),
                      document_ids=("d1", "d2") if i % 2 else ("d2", "d1"), reference_context_ids=("d1",))
             for i in range(6)]
    run = fx.fake_run(cases)
    at = page(with_run(run).run(), "3_results")
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert "Adherence" in labels and not any("@" in lbl or lbl == "Mrr" for lbl in labels)
    table = next(d.value for d in at.dataframe if "K = 5" in d.value.columns)
    assert list(table.index) == ["Hit rate", "Precision", "Recall", "MAP", "nDCG"]
    assert list(table.columns) == ["K = 1", "K = 3", "K = 5", "K = 10"]
    assert table.loc["Hit rate", "K = 1"].startswith("0.500 [") and table.loc["Recall", "K = 5"].startswith("1.000")
    assert any(c.value.startswith("MRR (mean reciprocal rank") and "0.750" in c.value for c in at.caption)


def test_results_table_reads_in_order_with_plain_values_and_help():
    """Issue 30 items 6, 13, 14: scores and the Inspect link came last, overall_supported showed
    0.000 and a missing error "None"; nothing said what a metric means."""
    run = fx.fake_run()
    at = fx.open_tab(page(with_run(run).run(), "3_results"), "results.tab", "Cases")
    table = at.dataframe[-1].value
    cols = list(table.columns)
    # the scores right after the id (every one in view at 1280 px: tests/test_e2e_results_columns.py),
    # then the link and the question (issue 33 item 7: it sat off screen, after the counts)
    assert cols[:7] == ["id", "context_relevance", "context_utilization", "completeness", "adherence",
                        "expected_adherence", "overall_supported"] and cols[7:9] == ["inspect", "question"]
    assert cols.index("response") > cols.index("unsupported_sentences") and cols[-1] == "error"
    assert list(table["overall_supported"]) == ["no", "yes", "yes", ""]
    assert list(table["error"])[:3] == ["", "", ""] and "empty" in list(table["error"])[3]
    assert list(table["human_hallucinated"]) == ["yes", "no", "no", "yes"]
    assert str(table["unsupported_sentences"].dtype) == "Int64"
    assert at.dataframe[-1].proto.placeholder == ""  # a missing number is blank, not "None"
    cards = {m.label: m for m in at.metric}
    from evaluators.families import get_metric
    assert get_metric("adherence").formula in cards["Adherence"].proto.help
    assert "higher is better" in cards["Expected adherence"].proto.help


def test_the_hallucination_preset_includes_partially_supported_sentences():
    """Issue 30 item 8: "unsupported sentences > 0" missed partially supported sentences."""
    cases = fx.sample_cases()[:3]
    cases[1] = cases[1].model_copy(update={"response": "The Berlin Wall fell in protests about dragons."})
    run = fx.fake_run(cases)
    partial = [r.case.id for r in run.results if r.scores.partially_supported_sentences]
    assert partial == ["c2"] and run.results[1].scores.unsupported_sentences == 0
    at = fx.open_tab(page(with_run(run).run(), "3_results"), "results.tab", "Cases")
    at.selectbox(key="results.preset").set_value("a sentence not fully supported (incl. partial)").run()
    assert list(at.dataframe[-1].value["id"]) == ["c1", "c2"]


def test_results_tabs_keep_their_state_across_reruns():
    """Issue 30 item 7 (the browser test checks the visible tab): the tabs track which one is open."""
    at = page(with_run(fx.fake_run()).run(), "3_results")
    assert at.session_state["results.tab"] == "Cases"  # the cases first (issue 47)


def test_hybrid_results_show_labeler_agreement_with_links_to_both_labelings():
    """Issue 30 item 15: hybrid runs computed trace-vs-LLM agreement but never showed it."""
    from tests.test_stats_fixtures import make_hybrid_case, make_run

    res = [make_hybrid_case(i, [True, i % 3 != 0, True], [True, True, i % 2 == 0]) for i in range(12)]
    run = make_run(res, method="hybrid")
    rid = RunStore().save(run, "hybrid run", owner=TOKEN)
    at = app(**{state._RUNS: {"hybrid run": run}, state._CURRENT: "hybrid run", state._SAVED: {"hybrid run": rid}})
    page(at.run(), "3_results")
    assert any(t.label == "Agreement (trace vs LLM)" for t in at.tabs)
    fx.open_tab(at, "results.tab", "Agreement (trace vs LLM)")
    table = next(d.value for d in at.dataframe if "mean |difference| [95% CI]" in d.value.columns)
    assert "Adherence" in list(table["metric"]) and "Expected adherence" in list(table["metric"])
    adh = table.set_index("metric").loc["Adherence", "mean |difference| [95% CI]"]
    assert "[" in adh  # an interval
    links = [pl.proto for pl in at.get("page_link") if "compare=1" in pl.proto.query_string]
    assert links and all(f"run={rid}" in pl.query_string for pl in links)
    assert links[0].page.endswith("inspect") or "4_inspect" in links[0].page


# ---- Inspect ------------------------------------------------------------------------------------
def test_inspect_from_url_marks_unsupported_and_escapes():
    at = with_run(fx.fake_run())
    at.query_params["case"] = "c1"
    at.run()
    page(at, "4_inspect")
    assert at.selectbox(key="inspect.case").value == "c1"
    html = "".join(h.proto.body for h in at.main.get("html"))  # the page (the sidebar holds the cookie script)
    assert 'data-key="b" data-level="none"' in html
    assert "&lt;script&gt;" in html and "<script" not in html and "<img" not in html
    at.selectbox(key="inspect.case").set_value("c4").run()
    assert not at.exception
    assert any("not scored" in h.proto.body and "rag-note" in h.proto.body for h in at.get("html"))
    assert at.query_params["case"] in ("c4", ["c4"])


def test_inspect_picker_names_each_case_by_id_question_score_and_support():
    cases = fx.sample_cases()
    long_q = "Which of these   words " + "and more words " * 8 + "?"
    cases[1] = cases[1].model_copy(update={"question": long_q})
    run = fx.fake_run(cases)
    at = page(with_run(run).run(), "4_inspect")
    options = at.selectbox(key="inspect.case").options
    assert len(options) == len(run.results)
    by_id = {o.split(" · ")[0]: o for o in options}
    for r in run.results:
        label = by_id[r.case.id]
        q = " ".join(r.case.question.split())
        q = q[:70] + ("…" if len(q) > 70 else "")
        if r.scores is None or r.error:
            assert label == f"{r.case.id} · {q} · ✗ not scored", label
        elif r.scores.overall_supported:
            assert label == f"{r.case.id} · {q} · adherence {r.scores.adherence:.2f} · ✓ supported", label
        else:
            assert re.fullmatch(re.escape(f"{r.case.id} · {q} · adherence {r.scores.adherence:.2f} · ⚠ ")
                                + r"[1-9]\d* not fully supported", label), label
    assert any(o.startswith(f"{cases[1].id} · Which of these words and more") and "…" in o for o in options)
    assert any("✗ not scored" in o for o in options) and any("✓ supported" in o for o in options)


def test_inspect_unknown_case_warns():
    at = with_run(fx.fake_run())
    at.query_params["case"] = "nope"
    page(at.run(), "4_inspect")
    assert any("nope" in w.value for w in at.warning)


# ---- Compare ------------------------------------------------------------------------------------
def test_compare_two_runs_history_and_human_labels():
    a = fx.fake_run()
    cases = fx.sample_cases()
    cases[0] = cases[0].model_copy(update={"response": "The capital of France is Paris."})
    b = fx.fake_run(cases)
    RunStore().save(a, "saved A", owner=TOKEN)
    at = page(with_run(a, b).run(), "5_compare")
    # only the open tab is built: "which version is better" first
    frames = [d.value for d in at.dataframe]
    # the two runs answer the same questions differently: "which version is better" opens on them
    metrics_table = at.table[0].value
    assert "candidate is" in metrics_table.columns and metrics_table["questions"].iloc[0] == "3"
    assert {c.key for c in at.get("plotly_chart")} == {"versions.means", "versions.diffs", "versions.trend"}
    assert not any("measure" in f.columns for f in frames)  # nor the other tabs' tables

    fx.open_tab(at, "compare.tab", "Two runs, case by case")
    assert {c.key for c in at.get("plotly_chart")} == {"compare.scatter"}
    corr = next(d.value for d in at.dataframe if "measure" in d.value.columns)
    assert list(corr.columns) == ["measure", "value", "95% interval", "note"]  # short cells: none is cut
    assert any("**rank correlation (Spearman)**: 1 = both put" in c.value for c in at.caption)  # what they mean
    links = [pl.proto.label for pl in at.get("page_link") if "case=" in pl.proto.query_string]
    assert links and all(not lbl.endswith("(+0.00)") for lbl in links)
    assert any(lbl.startswith("Inspect c1 · A 0.50 vs B 1.00") for lbl in links), links

    fx.open_tab(at, "compare.tab", "Run history")
    assert {c.key for c in at.get("plotly_chart")} == {"compare.grouped"}  # history means

    fx.open_tab(at, "compare.tab", "Agreement with human labels")
    assert at.multiselect(key="compare.human_runs").value == ["run1", "run0"]
    agreement = next(d.value for d in at.dataframe if "statistic" in d.value.columns)
    assert {"method", "metric", "label", "statistic", "value", "95% interval"} <= set(agreement.columns)
    assert set(agreement["label"]) == {"hallucinated"} and len(agreement) > 0
    assert "expected_adherence" in set(agreement["metric"])  # issue 30 item 16: the ranking metric too
    assert {c.key for c in at.get("plotly_chart")} == {"compare.roc"}


def test_compare_speaks_plainly_defaults_to_one_dataset_and_links_keep_the_session():
    """Issue 30 item 16: module names and "resamples undefined" in the text; Run A/B defaulted to
    the two newest runs whatever they were; the "open" links started a fresh session."""
    from tests.test_stats_fixtures import make_case, make_run

    same = [f"c{i}" for i in range(10)]
    trace = make_run([make_case(i, [True, i % 2 == 0], probs=[0.9, 0.3 + i / 20]) for i in range(10)], "trace")
    hybrid = make_run([make_case(i, [True, i % 3 == 0]) for i in range(10)], "hybrid")
    other = make_run([make_case(i, [True]) for i in range(20, 30)], "trace")  # newest, other cases
    assert [r.case.id for r in trace.results] == same
    ids = {n: RunStore().save(r, n, owner=TOKEN) for n, r in (("run0", trace), ("run1", hybrid), ("run2", other))}
    at = app(**{state._RUNS: {"run0": trace, "run1": hybrid, "run2": other}, state._CURRENT: "run2",
                state._SAVED: ids})
    fx.open_tab(page(at.run(), "5_compare"), "compare.tab", "Two runs, case by case")
    assert (at.selectbox(key="compare.a").value, at.selectbox(key="compare.b").value) == ("run0", "run1")
    text = " ".join([c.value for c in at.caption] + [str(d.value.to_dict()) for d in at.dataframe])
    assert "evaluators." not in text and "resamples" not in text and "pandas" not in text
    corr = next(d.value for d in at.dataframe if "measure" in d.value.columns)  # (issue 33's view comes first)
    assert "rank correlation (Spearman)" in list(corr["measure"])
    links = [pl.proto for pl in at.get("page_link") if "case=" in pl.proto.query_string
             and "vs=" not in pl.proto.query_string]  # (issue 33's side-by-side links carry two runs)
    assert links and all(f"run={ids['run1']}" in pl.query_string and pl.page.endswith("inspect") for pl in links)
    assert at.selectbox(key="compare.metric").options[:5] == ["Context relevance", "Context utilization",
                                                               "Completeness", "Adherence", "Expected adherence"]


def test_compare_with_no_runs():
    at = page(app().run(), "5_compare")
    assert any("No runs" in i.value for i in at.info)


def test_gpt_labeling_with_a_typed_key_never_persists_it(llm_server, tmp_store, tmp_path, monkeypatch,
                                                         jobs_done):
    """The LLM path end to end through the real SDK against the loopback server: the key typed in
    the sidebar reaches the server, and neither the run history nor the exports contain it."""
    from evaluators.export import to_json
    from tests.llm_server import labels_reply

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    secret = "sk-ui-SECRET-4242"
    llm_server.respond(lambda req: labels_reply(["0a"], ["0a"], {"a": (["0a"], True)}))
    at = _with_cases(fx.sample_cases()[1:3])
    # the sidebar's widgets, as if typed (AppTest does not list sidebar widgets after a rerun
    # under st.navigation, so they are seeded before the first run)
    at.session_state[state.PROVIDER] = "openai_compatible"
    at.session_state[state.BASE_URL] = llm_server.base_url
    at.session_state[state.API_KEY] = secret
    at.run()
    assert at.sidebar.text_input(key=state.API_KEY).value == secret
    page(at, "2_evaluate")
    at.radio(key="evaluate.method").set_value("gpt_labeling").run()
    assert any("key from password field" in s.value for s in at.success)
    at.button(key="evaluate.run").click().run()
    jobs_done(at)
    assert not at.exception and at.title[0].value == "Results"
    assert llm_server.count >= 2
    assert all(r.headers.get("authorization") == f"Bearer {secret}" for r in llm_server.requests)
    (run,) = session_runs(at).values()
    assert [r.ok for r in run.results] == [True, True]
    assert run.settings["llm"]["base_url"] == llm_server.base_url
    assert secret not in to_json(run) and secret not in run.model_dump_json()
    assert all(secret.encode() not in p.read_bytes() for p in tmp_path.glob(tmp_store.name + "*"))
    assert RunStore().list(owner=TOKEN)[0].needs_key  # resuming it would ask for the key again
    cache_files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert all(secret.encode() not in p.read_bytes() for p in cache_files)


def test_family_metrics_are_offered_and_shown_next_to_trace(jobs_done):
    at = page(_with_cases().run(), "2_evaluate")
    options = at.multiselect(key="evaluate.metrics").options
    assert any(o.startswith("contains_text") for o in options)
    at.radio(key="evaluate.method").set_value("ui_fake")
    at.multiselect(key="evaluate.metrics").set_value(["contains_text", "faithfulness"]).run()
    at.text_area(key="evaluate.params").set_value('{"contains_text": {"text": "Paris"}}').run()
    assert not at.error
    at.button(key="evaluate.run").click().run()
    jobs_done(at)
    assert not at.exception and at.title[0].value == "Results"
    (run,) = session_runs(at).values()
    c1 = run.results[0].metrics
    assert c1["contains_text"].value == 1.0 and c1["faithfulness"].skipped  # no LLM: skipped, said why
    assert "Contains text" in metrics(at)


def test_sidebar_provider_change_resets_the_model():
    at = app().run()
    assert at.sidebar.text_input(key=state.MODEL).value == state.DEFAULT_MODELS["groq"]
    at.sidebar.selectbox(key=state.PROVIDER).set_value("openai").run()
    assert at.session_state[state.MODEL] == state.DEFAULT_MODELS["openai"]


def test_llm_settings_survive_the_jump_to_results(jobs_done):
    """Issue 30 item 1: when a finished run opened Results (st.switch_page), Streamlit dropped every
    sidebar widget value: the next run silently used the default model (and lost a typed key)."""
    at = _with_cases().run()
    at.sidebar.selectbox(key=state.PROVIDER).set_value("openai").run()
    at.sidebar.text_input(key=state.MODEL).input("my-model").run()
    at.sidebar.text_input(key=state.API_KEY).input("sk-typed-1234").run()
    _start(at)
    jobs_done(at)
    assert at.title[0].value == "Results"
    assert at.session_state[state.PROVIDER] == "openai"
    assert at.session_state[state.MODEL] == "my-model"
    assert at.session_state[state.API_KEY] == "sk-typed-1234"
    page(at, "2_evaluate")
    assert at.sidebar.text_input(key=state.MODEL).value == "my-model"


def test_a_run_is_saved_under_the_name_its_placeholder_shows(jobs_done):
    """Issue 30 item 5: the placeholder said "ui_fake on t.jsonl", the run was saved as
    "ui_fake · 14:03:07"."""
    at = _start(_with_cases().run())
    shown = at.text_input(key="evaluate.name").placeholder
    jobs_done(at)
    (saved,) = RunStore().list(owner=TOKEN)
    assert saved.name == shown == "t"  # the file's stem (issue 47)


def test_openai_compatible_says_base_url_required_and_unknown_price(monkeypatch):
    """Issue 30 item 9: "Base URL (optional)" for a provider that needs one; $0.0000 for a model
    without a known price."""
    at = _with_cases().run()
    assert at.sidebar.text_input(key=state.BASE_URL).label == "Base URL (optional)"
    at.sidebar.selectbox(key=state.PROVIDER).set_value("openai_compatible").run()
    assert at.sidebar.text_input(key=state.BASE_URL).label == "Base URL (required)"
    assert any("needs a base URL" in c.value for c in at.sidebar.caption)
    assert not any("groq" in c.value for c in at.sidebar.caption)
    at.sidebar.text_input(key=state.BASE_URL).input("http://127.0.0.1:9/v1").run()
    at.sidebar.text_input(key=state.MODEL).input("my-local-model").run()
    page(at, "2_evaluate")
    at.radio(key="evaluate.method").set_value("gpt_labeling").run()
    assert metrics(at)["Cost (USD)"] == "unknown"
    at.sidebar.selectbox(key=state.PROVIDER).set_value("groq").run()
    assert metrics(at)["Cost (USD)"].startswith("$")


def test_inspect_link_in_a_fresh_session_loads_the_run_from_history():
    run = fx.fake_run()
    rid = RunStore().save(run, "shared run", owner=TOKEN)
    RunStore().save(fx.fake_run(fx.sample_cases()[1:]), "newer run without c1", owner=TOKEN)
    at = app()
    at.query_params.update({"run": rid, "case": "c1"})
    page(at.run(), "4_inspect")
    assert at.selectbox(key="inspect.case").value == "c1"
    assert "shared run" in at.session_state[state._RUNS]


def test_a_sample_loaded_after_an_upload_stays_loaded():
    at = page(app().run(), "1_upload")
    at.file_uploader(key="upload.file").set_value(("mine.jsonl", jsonl(fx.sample_cases()), "application/json")).run()
    assert at.session_state[state._DATA].filename == "mine.jsonl"
    sample = ud.sample_files()[0]
    at.button(key=f"upload.sample.{sample.name}").click().run()
    at.run()
    assert at.session_state[state._DATA].filename == sample.name


# ---- background runs -------------------------------------------------------------------------------
def _start(at: AppTest, chunk: int = 5, n: int | None = None) -> AppTest:
    page(at, "2_evaluate")
    at.radio(key="evaluate.method").set_value("ui_fake")
    at.radio(key="evaluate.chunk").set_value(chunk).run()
    at.button(key="evaluate.run").click().run()
    assert not at.exception, at.exception
    return at


def n_cases(n: int = 9):
    return [c.model_copy(update={"id": f"k{i}"}) for i, c in enumerate(fx.sample_cases()[:3] * n)][:n]


def _progress(at: AppTest) -> list[str]:
    return [p.proto.text for p in at.get("progress")]


def test_a_run_goes_on_off_page_with_progress_everywhere_and_results_show_finished_cases(jobs_done):
    fx.GATE.clear()
    fx.HOLD_AFTER = 1  # the first chunk finishes, the rest waits
    cases = n_cases(9)
    at = _start(_with_cases(cases).run(), chunk=5)
    queue = __import__("ui.resources", fromlist=["queue"]).queue()
    rid = queue.jobs(TOKEN)[0].id
    deadline = time.time() + 30
    while RunStore().get(rid, owner=TOKEN).num_done < 5 and time.time() < deadline:
        time.sleep(0.05)
    for name in ("3_results", "4_inspect", "5_compare", "2_evaluate"):
        page(at, name)
        (bar,) = _progress(at)
        assert "5 / 9 cases" in bar and "ETA" in bar, (name, bar)
        assert at.button(key=f"jobs.cancel.{rid}")
    page(at, "3_results")  # the run's finished cases, while it goes on
    fx.open_tab(at, "results.tab", "Cases")
    assert "running" in at.selectbox(key="results.run").value
    assert list(at.dataframe[-1].value["id"]) == [c.id for c in cases[:5]]
    assert any("5 of 9 cases finished so far" in i.value for i in at.info)
    fx.GATE.set()
    jobs_done(at)
    assert at.title[0].value == "Results" and not _progress(at)
    assert at.selectbox(key="results.run").value in at.session_state[state._RUNS]
    assert any("Finished" in s.value for s in at.success)
    assert len(at.dataframe[-1].value) == 9


def test_results_shows_the_run_just_started_then_its_results_and_the_sidebar_names_it(jobs_done):
    """Issue 57 item 10: a visitor looked at run A on Results, started run B on Evaluate and opened
    Results at once: Results kept showing A (and made A current again), however often it was opened.
    Now it shows B going on (its finished cases), then B's results; the sidebar's "Current run" is the
    run on screen; a run the visitor picks afterwards stays picked."""
    at = _with_cases(n_cases(9)).run()
    page(at, "2_evaluate")
    at.text_input(key="evaluate.name").input("run A")
    _start(at, chunk=5)
    jobs_done(at)
    assert at.title[0].value == "Results" and at.selectbox(key="results.run").value == "run A"
    fx.GATE.clear()
    fx.HOLD_AFTER = len(fx.CALLS) + 1  # B's first chunk finishes, the rest waits
    page(at, "2_evaluate")
    at.text_input(key="evaluate.name").input("run B")
    _start(at, chunk=5)
    queue = __import__("ui.resources", fromlist=["queue"]).queue()
    rid = next(v.id for v in queue.jobs(TOKEN) if v.active)
    deadline = time.time() + 30
    while RunStore().get(rid, owner=TOKEN).num_done < 5 and time.time() < deadline:
        time.sleep(0.05)
    page(at, "3_results")  # at once: B, going on
    picked = at.selectbox(key="results.run").value
    assert picked.startswith("run B (running 5/9"), picked
    assert any("5 of 9 cases finished so far" in i.value for i in at.info)
    assert any(c.value.startswith("Current run: run B (running 5/9") for c in at.sidebar.caption), \
        [c.value for c in at.sidebar.caption]
    fx.GATE.set()
    jobs_done(at)  # B ends while Results is on screen: its results
    assert at.selectbox(key="results.run").value == "run B"
    assert any(c.value == "Current run: run B · 9/9 scored" for c in at.sidebar.caption)
    for name in ("4_inspect", "3_results", "2_evaluate", "3_results"):  # however often it is opened
        page(at, name)
    assert at.selectbox(key="results.run").value == "run B"
    at.selectbox(key="results.run").set_value("run A").run()  # the visitor's own pick stays
    page(at, "2_evaluate")
    page(at, "3_results")
    assert at.selectbox(key="results.run").value == "run A"
    assert any(c.value.startswith("Current run: run A ·") for c in at.sidebar.caption)


def test_results_picks_the_run_by_the_rule_of_item_10():
    from ui.results.which_run import Choice, decide

    a, b = Choice("A", "ra", False, True), Choice("B (running 2/9)", "rb", True, True)
    other = Choice("C (running 1/4)", "rc", True, False)  # another tab's run: not followed
    assert decide([a, b, other], "A", "A", "A", frozenset()) == "B (running 2/9)"  # just started: shown
    assert decide([a, b], "A", "A", "A", frozenset({"rb"})) == "A"  # shown once; then the visitor's pick
    b2 = Choice("B (running 5/9)", "rb", True, True)  # counted on: the same run under its new label
    assert decide([a, b2], "B (running 2/9)", "A", "A", frozenset({"rb"}), "rb") == "B (running 5/9)"
    done = Choice("B", "rb", False, True)  # filed when it ended: current elsewhere
    assert decide([a, done], "B (running 5/9)", "B", "A", frozenset({"rb"}), "rb") == "B"
    assert decide([a, done], "A", "B", "A", frozenset({"rb"})) == "B"  # filed while A was on screen
    assert decide([a, done], "A", "B", "B", frozenset({"rb"})) == "A"  # then A picked again: kept
    assert decide([a, done, other], None, None, None, frozenset()) == "C (running 1/4)"  # nothing current


def test_progress_counts_cases_inside_a_chunk_and_run_is_disabled_meanwhile(jobs_done):
    """Issue 30 items 3 and 4: a 16-case run in one chunk showed "0 / 16" until done, and the Run
    button stayed clickable while the session's run was going on."""
    fx.GATE.clear()
    fx.TICK_HOLD = 5  # 5 cases finish, then the chunk waits
    at = _start(_with_cases(n_cases(16)).run(), chunk=25)
    queue = __import__("ui.resources", fromlist=["queue"]).queue()
    rid = queue.jobs(TOKEN)[0].id
    deadline = time.time() + 30
    while queue.get(rid, TOKEN).labeled < 5 and time.time() < deadline:
        time.sleep(0.05)
    at.run()
    (bar,) = _progress(at)
    assert "5 / 16 cases" in bar and "ETA" in bar and "measuring" not in bar, bar
    # the sidebar is drawn with the page (not refreshed with the bar): it names the run, no count
    # that would go stale next to the bar's
    assert any(c.value.startswith(":material/hourglass_top: Running: t (16 cases)") for c in at.sidebar.caption)
    assert not any("/16" in c.value for c in at.sidebar.caption)
    run_button = at.button(key="evaluate.run")
    assert run_button.disabled
    assert any("going on" in c.value for c in at.caption), [c.value for c in at.caption]
    fx.GATE.set()
    jobs_done(at)
    page(at, "2_evaluate")
    assert not at.button(key="evaluate.run").disabled


def test_cancel_keeps_finished_chunks(jobs_done):
    fx.GATE.clear()
    fx.HOLD_AFTER = 1
    at = _start(_with_cases(n_cases(15)).run(), chunk=5)
    rid = at.session_state[state._WATCHED].copy().pop()
    deadline = time.time() + 30
    while RunStore().get(rid, owner=TOKEN).num_done < 5 and time.time() < deadline:
        time.sleep(0.05)
    page(at, "3_results")
    at.button(key=f"jobs.cancel.{rid}").click().run()
    fx.GATE.set()
    jobs_done(at)
    # the chunk going on when Cancel was clicked still finishes
    assert any("Cancelled: kept 10 of 15 cases" in s.value for s in at.success)
    (run,) = session_runs(at).values()
    assert run.cancelled and len(run.results) == 10
    assert RunStore().get(rid, owner=TOKEN).status == "cancelled"


def test_a_failing_chunk_interrupts_the_run_and_resume_adds_only_the_missing_cases(monkeypatch, jobs_done):
    from evaluators import pipeline

    real = pipeline.Evaluation.run
    failing = {"k6"}
    monkeypatch.setattr(pipeline.Evaluation, "run", lambda self, cs, *a, **k: (_ for _ in ()).throw(
        MemoryError("boom")) if failing & {c.id for c in cs} else real(self, cs, *a, **k))
    at = _start(_with_cases(n_cases(9)).run(), chunk=5)
    jobs_done(at)
    assert at.title[0].value == "Evaluate"
    assert any("stopped after 5 of 9 cases" in i.value and "boom" in i.value for i in at.info)
    (s,) = RunStore().list(owner=TOKEN)
    assert s.status == "interrupted" and s.num_done == 5
    assert any("stopped at 5 of 9" in w.value for w in at.warning)
    failing.clear()
    fx.CALLS.clear()
    at.button(key=f"jobs.resume.{s.id}").click().run()
    jobs_done(at)
    assert at.title[0].value == "Results" and fx.CALLS == [4]  # only k5..k8 evaluated again
    (run,) = session_runs(at).values()
    assert [r.case.id for r in run.results] == [f"k{i}" for i in range(9)] and not run.cancelled


def test_resuming_a_run_that_used_a_typed_key_asks_for_it_again(jobs_done):
    store = RunStore()
    rid = store.start("ui_fake", fx.sample_cases(), name="typed", owner=TOKEN, needs_key=True,
                      settings={"method": "ui_fake", "llm": {"provider": "groq", "model": "m"}})
    store.finish(rid, "interrupted", error="the server restarted")
    at = page(app().run(), "2_evaluate")
    assert any("type it in the sidebar" in c.value for c in at.caption)
    at.button(key=f"jobs.resume.{rid}").click().run()
    assert any("enter it again in the sidebar" in e.value for e in at.error)
    at.session_state[state.API_KEY] = "gsk-typed-again"
    at.button(key=f"jobs.resume.{rid}").click().run()
    jobs_done(at)
    assert store.get(rid, owner=TOKEN).status == "finished"


def test_sidebar_shows_the_upload_in_the_same_run():
    at = page(app().run(), "1_upload")
    assert any(c.value == "Dataset: none loaded" for c in at.sidebar.caption)
    at.file_uploader(key="upload.file").set_value(("mine.jsonl", jsonl(fx.sample_cases()), "application/json")).run()
    assert any(c.value == "Dataset: mine.jsonl · 3 cases" for c in at.sidebar.caption)
    page(at, "2_evaluate")  # and on the other pages
    assert any(c.value == "Dataset: mine.jsonl · 3 cases" for c in at.sidebar.caption)


def test_the_history_token_stays_out_of_the_url():
    """The address a visitor copies carries no history (issue 35): a ``?u=`` of an old link opens
    nothing and is taken out of the address."""
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.query_params["u"] = "an-old-link-token-0001"
    at.run()
    tok = at.session_state[state._OWNER]
    assert len(tok) >= 16 and tok != "an-old-link-token-0001"
    assert "u" not in at.query_params
    page(at, "3_results")
    assert "u" not in at.query_params and at.session_state[state._OWNER] == tok


def test_the_history_cookie_is_asked_for_until_the_browser_has_it():
    """Sent once a session, the cookie was lost when that first run was cut short before its
    elements reached the browser (a quick click on the Start page): a new tab then had another,
    empty history (seen as a flaky Chromium test)."""
    at = app().run()
    for _ in range(2):
        assert any("document.cookie" in h.proto.body and TOKEN in h.proto.body for h in at.sidebar.get("html"))
        page(at, "5_compare")


# ---- privacy ---------------------------------------------------------------------------------------
def test_visitors_never_see_each_others_runs(jobs_done):
    alice = _start(_with_cases().run(), chunk=5)
    jobs_done(alice)
    (rid,) = [s.id for s in RunStore().list(owner=TOKEN)]
    bob = app(token="another-visitor-token-02").run()
    page(bob, "3_results")
    assert any("No finished run yet" in i.value for i in bob.info)
    page(bob, "5_compare")
    assert any("No runs" in i.value for i in bob.info)
    bob.query_params.update({"run": rid, "case": "c1"})
    page(bob, "4_inspect")
    assert any("No run" in w.value and "another visitor" in w.value for w in bob.warning)
    assert not bob.get("html") or all("Paris" not in h.proto.body for h in bob.get("html"))
    assert bob.session_state[state._RUNS] == {}
    # the owner can open the link in a fresh session of their own browser
    again = app()
    again.query_params.update({"run": rid, "case": "c1"})
    page(again.run(), "4_inspect")
    assert again.selectbox(key="inspect.case").value == "c1"


def test_shared_history_when_the_owner_turns_it_on(monkeypatch):
    rid = RunStore().save(fx.fake_run(), "team run", owner="someone-else-token-03")
    monkeypatch.setenv("RAG_EVAL_SHARED_HISTORY", "1")
    at = fx.open_tab(page(app().run(), "5_compare"), "compare.tab", "Run history")
    assert rid in list(at.dataframe[0].value["id"])
    assert any("shared by everyone" in c.value for c in at.sidebar.caption)


# ---- owner limits ----------------------------------------------------------------------------------
def test_owner_limits_are_shown_and_a_run_over_them_is_refused(monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "gsk-owner")
    monkeypatch.setenv("RAG_EVAL_MAX_LLM_CASES", "2")
    at = page(_with_cases().run(), "2_evaluate")
    at.radio(key="evaluate.method").set_value("gpt_labeling").run()
    assert any("at most 2 cases per LLM run" in c.value and "1,000 of 1,000 LLM calls left" in c.value
               for c in at.caption)
    assert any("4 cases" in e.value and "RAG_EVAL_MAX_LLM_CASES" in e.value for e in at.error)
    assert at.button(key="evaluate.run").disabled
    monkeypatch.setenv("RAG_EVAL_MAX_LLM_CASES", "0")
    monkeypatch.setenv("RAG_EVAL_MAX_LLM_CALLS", "2")
    at.run()
    assert any("about 3 LLM calls" in e.value and "only 2 of 2" in e.value for e in at.error)
    # the visitor's own key is not the owner's to limit
    at.session_state[state.API_KEY] = "gsk-visitor"
    at.run()
    assert not at.error and not at.button(key="evaluate.run").disabled


def test_make_a_test_set_reads_the_sample_documents_and_needs_a_key_only_for_the_llm():
    at = page(app(), "1_testset")
    assert any("Drop documents" in i.value for i in at.info)
    at.button(key="testset.sample").click().run()
    assert not at.exception, at.exception
    assert any("Read 15 documents, 33 passages" in s.value for s in at.success)
    assert at.button(key="testset.go") is not None  # offline: no key needed
    at.radio(key="testset.generator").set_value("llm").run()
    assert not at.exception, at.exception
    assert any("needs an LLM" in w.value for w in at.warning)
    assert not [b for b in at.button if b.key == "testset.go"]  # no start without a key
    at.radio(key="testset.generator").set_value("offline").run()
    at.button(key="testset.go").click().run()
    for _ in range(150):  # the questions are made in the background: the page shows them when done
        if [b for b in at.button if b.key == "testset.save"] or at.exception:
            break
        time.sleep(0.2)
        at.run()
    assert not at.exception, at.exception
    at.button(key="testset.save").click().run()
    assert not at.exception, at.exception
    saved = at.selectbox(key="testset.saved_pick").options  # the visitor's saved test sets, the one in use first
    assert len(saved) == 1 and saved[0].startswith("test set from the sample's documents · "), saved
    assert re.search(r"saved \d{4}-\d\d-\d\d \d\d:\d\d UTC$", saved[0]), saved  # a time a person reads, not ISO
    assert any("Run your app" in pl.proto.label for pl in at.get("page_link"))  # the next step, one click


def test_two_runs_of_the_same_file_are_told_apart_by_their_time_on_every_page(monkeypatch):
    """Walk: the same file evaluated twice gave Results "pricing_cases" (the newer, open in the
    session) and "pricing_cases (saved 2026-11-27T16:48)" (the older) — as if only the older were
    saved. Now both carry their start time, in the words Compare uses for them (``store.labels``)."""
    from evaluators.store import runs as store_runs

    now = store_runs._now
    monkeypatch.setattr(store_runs, "_now", lambda: "2026-11-27T16:48:03+00:00")
    older = RunStore().save(fx.fake_run(), "pricing_cases", owner=TOKEN)
    monkeypatch.setattr(store_runs, "_now", lambda: "2026-11-27T16:55:41+00:00")
    newer = RunStore().save(fx.fake_run(), "pricing_cases", owner=TOKEN)
    monkeypatch.setattr(store_runs, "_now", now)
    at = app(**{state._RUNS: {"pricing_cases": newer}, state._SAVED: {"pricing_cases": newer},
                state._CURRENT: "pricing_cases"})
    page(at.run(), "3_results")
    want = {older: "pricing_cases · ui_fake · 2026-11-27 16:48", newer: "pricing_cases · ui_fake · 2026-11-27 16:55"}
    box = at.selectbox(key="results.run")
    assert sorted(box.options) == sorted(want.values()), box.options
    assert box.value == want[newer]  # the session's run is still the one shown
    assert at.session_state[state._RUNS] == {want[newer]: newer}
    page(at, "4_inspect")
    assert sorted(at.selectbox(key="inspect.run").options) == sorted(want.values())
    fx.open_tab(page(at, "5_compare"), "compare.tab", "Two runs, case by case")
    names = {*at.selectbox(key="compare.a").options, *at.selectbox(key="compare.b").options}
    assert names == set(want.values()), names

"""AppTest of issue 33's dashboard parts: Compare's "Which version is better?" view (default pair,
verdict in words first, charts with intervals, the regression list opening a side-by-side Inspect),
Inspect's run picker and question search, the Results tiles' interval, the run-history bars and the
second sample version on Start. The Chromium walk is in tests/test_e2e_compare.py."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from evaluators.store import RunStore
from evaluators.types import TestCase
from tests import ui_fixtures as fx
from ui import state

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")

TOKEN = "test-visitor-token-0033"
DOCS = ("Paris is the capital of France. The Seine flows through Paris. Lyon lies on the Rhone.",
        'A note <script>window.__xss=1</script> about <b>bold</b> claims.')
GOOD = "Paris is the capital of France."
BAD = "Dragons guard the golden towers of Marseille."


def cases(prefix: str, answers: list[str]) -> list[TestCase]:
    return [TestCase(id=f"{prefix}{i}", question=f"Tell me about Paris, number {i}?", response=a, documents=DOCS)
            for i, a in enumerate(answers)]


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


@pytest.fixture
def two_versions():
    """History: 'v1' (12 grounded answers), then 'v2' (the same questions, ids of its own, 6 answers
    invented): two files that share their questions."""
    v1 = fx.fake_run(cases("a", [GOOD] * 12))
    v2 = fx.fake_run(cases("b", [BAD if i < 6 else GOOD for i in range(12)]))
    store = RunStore()
    return {"v1": store.save(v1, "v1", owner=TOKEN), "v2": store.save(v2, "v2", owner=TOKEN)}


def test_which_version_is_better_opens_on_the_two_latest_runs_and_says_it_in_words(two_versions):
    at = page(app().run(), "5_compare")
    assert at.selectbox(key="versions.base").value == two_versions["v1"]  # the earlier one is the baseline
    assert at.multiselect(key="versions.cands").value == [two_versions["v2"]]
    verdict = at.error[0].value
    assert verdict.startswith("v2 is worse than v1 on adherence by 0.5") and "paired questions" in verdict
    assert verdict == verdict.replace("_", " ")  # metric names as people read them
    captions = " ".join(c.value for c in at.caption)
    assert "0 questions score higher under v2, 6 lower, 6 the same" in captions
    assert "Cases paired by question text" in captions
    table = at.table[0].value  # every metric, candidate against baseline (cells wrap: none is cut)
    assert {"metric", "baseline", "candidate", "difference (B − A)", "95% interval", "p-value",
            "candidate is"} <= set(table.columns)
    assert "worse" in set(table["candidate is"])
    row = table[table["metric"] == "Adherence"].iloc[0]  # the table writes its numbers as the words do
    assert f"by {row['difference (B − A)'].lstrip('-')} (95 % CI" in verdict and f"p {row['p-value']}" in verdict \
        or f"p = {row['p-value']}" in verdict
    titles = [m.value for m in at.markdown if m.value.startswith("**")]  # chart titles above the charts
    assert any("95% interval" in t for t in titles) and any("Difference per metric" in t for t in titles)
    assert all("title" not in json.loads(c.proto.spec)["layout"] for c in at.get("plotly_chart"))
    links = [pl.proto for pl in at.get("page_link") if "vs=" in pl.proto.query_string]
    assert len(links) == 6 and all(pl.page.endswith("inspect") for pl in links)
    q = links[0].query_string
    assert f"run={two_versions['v1']}" in q and f"vs={two_versions['v2']}" in q and "vs_case=b" in q
    text = " ".join(m.value for m in at.markdown)
    assert "had the same sentence fully supported" not in text
    assert "“Dragons guard the golden towers of Marseille.”: not supported at all (a new sentence)" in text \
        .replace("\\", "")


def test_three_runs_get_ranks_a_verdict_matrix_and_the_correction_in_words(two_versions):
    v3 = RunStore().save(fx.fake_run(cases("c", [GOOD] * 12)), "v3", owner=TOKEN)
    at = app()
    at.session_state["versions.base"] = two_versions["v1"]
    at.session_state["versions.cands"] = [two_versions["v2"], v3]
    page(at.run(), "5_compare")
    captions = " ".join(c.value for c in at.caption)
    assert "3 pairs" in captions and "Holm" in captions
    assert any("Best on Adherence" in m.value for m in at.markdown)
    assert any("Row run against column run" in m.value for m in at.markdown)


def test_side_by_side_inspect_shows_both_answers_escaped(two_versions):
    at = app()
    for k, v in {"run": two_versions["v1"], "case": "a0", "vs": two_versions["v2"], "vs_case": "b0"}.items():
        at.query_params[k] = v
    page(at.run(), "4_inspect")
    html = " ".join(h.proto.body for h in at.get("html"))
    assert html.count('class="rag-response"') == 2 and 'data-view="Baseline (A)"' in html
    assert "Dragons guard the golden towers" in html
    assert "not supported at all" in html or "only partly supported" in html
    assert "<script>window.__xss" not in html and "&lt;script&gt;" in html  # uploaded text is escaped
    assert any("Baseline (A): v1" in m.value for m in at.markdown)


def test_side_by_side_with_another_visitors_run_is_not_found(two_versions):
    other = RunStore().save(fx.fake_run(cases("z", [GOOD])), "theirs", owner="someone-else-token-0099")
    at = app()
    for k, v in {"run": two_versions["v1"], "case": "a0", "vs": other, "vs_case": "z0"}.items():
        at.query_params[k] = v
    page(at.run(), "4_inspect")
    assert any("No run" in w.value for w in at.warning)


def test_inspect_picks_its_run_and_finds_a_case_by_the_words_of_its_question(two_versions):
    at = app()
    at.query_params["run"] = two_versions["v1"]
    page(at.run(), "4_inspect")
    picker = at.selectbox(key="inspect.run")
    assert any(o.startswith("v2") for o in picker.options)
    case_box = at.selectbox(key="inspect.case")
    assert "Tell me about Paris, number 3?" in case_box.format_func("a3")
    picker.select(next(o for o in picker.options if o.startswith("v2"))).run()
    assert not at.exception
    assert at.selectbox(key="inspect.case").value.startswith("b")
    assert at.query_params["run"] == [two_versions["v2"]] or at.query_params["run"] == two_versions["v2"]


def test_results_tiles_carry_the_95_interval():
    at = app(**{state._RUNS: {"run0": fx.fake_run()}, state._CURRENT: "run0"})
    page(at.run(), "3_results")
    lines = [c.value for c in at.caption if "95 % interval" in c.value]
    assert lines and all("n=" in x for x in lines)


def test_run_history_bars_have_intervals_and_expected_adherence(two_versions):
    at = fx.open_tab(page(app().run(), "5_compare"), "compare.tab", "Run history")
    assert any("Run vs run" in m.value for m in at.markdown)
    fig = next(c.proto.spec for c in at.get("plotly_chart") if c.key == "compare.grouped")
    assert "Expected adherence" in fig and '"error_y"' in fig and '"arrayminus"' in fig


def test_start_loads_version_2_of_the_sample_in_one_click():
    at = app().run()
    at.button(key="start.sample_v2").click().run()
    assert not at.exception
    assert at.session_state[state._DATA].filename == "sample_rag_version2.jsonl"
    assert len(at.session_state[state._DATA].cases) == 16


def test_runs_of_an_app_are_named_by_target_and_question_set_and_the_trend_keeps_to_that_set():
    """Issue 57 item 4 (and 56 item 10): runs of one app on two question sets looked alike ("v1 · trace
    · 15:01" / "… 15:02"); the trend "over the runs of this test set" took in the static sample run
    (a file of answers to the same questions). Runs of an app carry their target and question set;
    Compare calls runs of one question set by their targets and says the set once; the trend keeps to
    the runs of the app on the baseline's question set."""
    from evaluators.store import app_run_name

    store = RunStore()

    def save(answers: list[str], target: str | None, questions: str = "the sample's questions") -> str:
        run = fx.fake_run(cases("q", answers))
        if target is None:  # a file of answers: no app run
            return store.save(run, "sample_rag", owner=TOKEN)
        app_run = {"target": target, "questions": questions}
        run = run.model_copy(update={"settings": {**run.settings, "app_run": app_run}})
        return store.save(run, app_run_name(target, questions), owner=TOKEN)

    static = save([GOOD] * 12, None)
    v1 = save([GOOD] * 12, "v1")
    v2 = save([BAD if i < 6 else GOOD for i in range(12)], "v2")
    v3 = save([BAD if i < 3 else GOOD for i in range(12)], "v3")
    mine = save([BAD if i < 2 else GOOD for i in range(12)], "v1", "my-docs test set")
    at = app(**{"versions.base": v1, "versions.cands": [v2]})
    page(at.run(), "5_compare")
    labels = at.selectbox(key="versions.base").options  # (as shown)
    assert {"v1 on the sample's questions", "v1 on my-docs test set", "sample_rag"} <= set(labels), labels
    assert any(c.value == "Runs of your app on the sample's questions: v1, v2." for c in at.caption)
    assert at.error[0].value.startswith("v2 is worse than v1 on adherence"), at.error[0].value
    trend = next(c.proto.spec for c in at.get("plotly_chart") if c.key == "versions.trend")
    xs = json.loads(trend)["data"][0]["x"]
    assert len(xs) == 3 and all(" on the sample's questions" in x for x in xs), xs  # v1, v2, v3: not the file
    assert not any("sample_rag" in x or "my-docs" in x for x in xs)
    # two question sets: each run keeps its whole name
    at.multiselect(key="versions.cands").set_value([mine]).run()
    assert not any(c.value.startswith("Runs of your app on") for c in at.caption)
    said = " ".join(x.value for x in (*at.success, *at.error, *at.info))
    assert "v1 on my-docs test set" in said and "v1 on the sample's questions" in said, said
    del static, v3


def test_answers_of_an_app_evaluated_as_files_are_called_by_their_target():
    """Issue 56 item 10: the answers `run --target` wrote, uploaded and evaluated, were called by the
    output files' names ("answers_0712 is worse than answers_0711"): by the target their cases record."""
    store = RunStore()

    def save(name: str, target: str, answers: list[str]) -> str:
        cs = [c.model_copy(update={"metadata": {"target": target, "latency_s": 0.1}}) for c in cases("q", answers)]
        return store.save(fx.fake_run(cs), name, owner=TOKEN)

    a = save("answers_0711", "v1", [GOOD] * 12)
    b = save("answers_0712", "v2", [BAD if i < 6 else GOOD for i in range(12)])
    at = page(app(**{"versions.base": a, "versions.cands": [b]}).run(), "5_compare")
    assert at.error[0].value.startswith("v2 is worse than v1 on adherence"), at.error[0].value
    assert not any(c.value.startswith("Runs of your app on") for c in at.caption)  # (its question set: unknown)


def test_every_metric_counts_a_win_the_way_its_verdict_reads_better():
    # declined is lower-is-better: a candidate that declines less is "better" — and its wins are those
    # questions (the column read "better" beside "0 / 0 / 8", eight losses)
    from evaluators import evaluate_batch
    from evaluators.comparison import compare_runs
    from ui.compare import versions

    q = "How long is parental leave at full pay for the primary carer?"
    cases = [{"id": f"q{i}", "question": q, "documents": ["Primary carers get 16 weeks of parental leave at full pay."],
              "ground_truth": "16 weeks"} for i in range(8)]
    a = evaluate_batch([{**c, "response": "I don't know."} for c in cases])
    b = evaluate_batch([{**c, "response": "Primary carers get 16 weeks of parental leave at full pay."} for c in cases])
    rows = versions.metrics_frame(compare_runs([a, b], names=["A", "B"]), "A", "B").set_index("metric")
    assert rows.loc["Declined", "candidate is"] == "better"
    assert rows.loc["Declined", "wins / ties / losses"] == "8 / 0 / 0"
    assert rows.loc["Answer recall", "candidate is"] == "better"
    assert rows.loc["Answer recall", "wins / ties / losses"] == "8 / 0 / 0"  # higher is better: as before
    assert versions.wins_ties_losses("over_refusal", 1, 2, 5) == "5 / 2 / 1"


def test_regressions_on_answer_correctness_name_the_missing_reference_fact():
    # the walk: with the metric "Answer correctness" picked, each regression listed the sentences the documents
    # do not support ("not supported at all (a new sentence)") — nothing of the reference answer it lost
    from evaluators import evaluate_batch

    q = "How long is parental leave at full pay for the primary carer?"
    docs = ["Primary carers get 16 weeks of parental leave at full pay."]
    rows = [{"id": f"q{i}", "question": q, "documents": docs, "ground_truth": "16 weeks"} for i in range(3)]
    a = evaluate_batch([{**c, "response": docs[0]} for c in rows])
    b = evaluate_batch([{**c, "response": "Primary carers get 12 weeks of leave." if c["id"] == "q0" else docs[0]}
                        for c in rows])
    store = RunStore()
    store.save(a, "A", owner=TOKEN)
    store.save(b, "B", owner=TOKEN)
    at = page(app().run(), "5_compare")
    at.selectbox(key="versions.metric").set_value("answer_correctness").run()
    assert not at.exception, at.exception
    lines = [m.value for m in at.markdown]
    assert "- misses the reference fact “16 weeks”" in lines, lines
    assert "- “Primary carers get 12 weeks of leave.”: the reference answer does not say this" in lines  # F1's half
    at.selectbox(key="versions.metric").set_value("answer_precision").run()
    lines = [m.value for m in at.markdown]
    assert "- “Primary carers get 12 weeks of leave.”: the reference answer does not say this" in lines, lines


def test_regressions_on_a_lower_is_better_metric_say_they_score_higher():
    # the walk: Compare on "Declined" said "1–8 of the 8 questions that score lower under v1 … on Declined" of
    # eight questions that went from 0 to 1 (+1.00 on Declined)
    from evaluators import evaluate_batch

    q = "How long is parental leave at full pay for the primary carer?"
    docs = ["Primary carers get 16 weeks of parental leave at full pay."]
    rows = [{"id": f"q{i}", "question": q, "documents": docs, "ground_truth": "16 weeks"} for i in range(3)]
    store = RunStore()
    store.save(evaluate_batch([{**c, "response": docs[0]} for c in rows]), "A", owner=TOKEN)
    store.save(evaluate_batch([{**c, "response": "I don't know." if c["id"] == "q0" else docs[0]} for c in rows]),
               "B", owner=TOKEN)
    at = page(app().run(), "5_compare")
    at.selectbox(key="versions.metric").set_value("declined").run()
    assert not at.exception, at.exception
    assert "The one question that scores higher under B than under A on Declined (lower is better)." in [
        c.value for c in at.caption], [c.value for c in at.caption]

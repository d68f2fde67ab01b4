"""Unit tests of the dashboard helpers (no Streamlit runtime): highlighting (and its escaping),
tables and filters, chunk merging / progress text, charts, compare helpers, key resolution."""

import html
import re

import pandas as pd
import plotly.graph_objects as go
import pytest

from evaluators.sentencize import sentencize_case
from evaluators.store import RunSummary
from evaluators.types import TRACE_METRICS, RunResult
from tests.ui_fixtures import XSS_DOC, fake_run, sample_cases
from ui import charts, jobs, tables
from ui import highlight as hl
from ui.compare import compare_view

pytestmark = pytest.mark.usefixtures("fake_method")

TAG = re.compile(r"<[^>]+>")
KEY_BADGE = re.compile(r'<span class="rag-key"[^>]*>[^<]*</span>')


def visible_text(markup: str) -> str:
    """The text a reader sees, without the key badges."""
    return html.unescape(TAG.sub("", KEY_BADGE.sub("", markup)))


def _case_and_labels(cid="c1"):
    run = fake_run()
    r = next(r for r in run.results if r.case.id == cid)
    return sentencize_case(r.case), r.labels


def test_uploaded_html_is_escaped_everywhere():
    sc, labels = _case_and_labels()
    doc_html = hl.documents_html(sc, labels)[0]
    assert "<img" not in doc_html and "<script" not in doc_html.lower()
    assert "&lt;img src=x onerror=alert(1)&gt;" in doc_html
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in doc_html
    # the visible text, once tags are stripped and entities decoded, is the document itself
    assert visible_text(doc_html) == "Document 0" + XSS_DOC


def test_attributes_and_explanations_are_escaped():
    from evaluators.types import SentenceLabels, SentenceSupport, TestCase
    case = TestCase(id="x", question="q", response='He said "hi" <b>bold</b>.', documents=("Doc.",))
    sc = sentencize_case(case)
    labels = SentenceLabels(method="m", document_keys=sc.doc_keys, sentences=(
        SentenceSupport(key="a", fully_supported=False, supporting_keys=('0a"><script>',),
                        explanation='"><img src=x onerror=alert(2)>'),))
    out = hl.response_html(sc, labels)
    assert "<b>" not in out and "<img" not in out and "<script" not in out
    assert "&quot;&gt;&lt;img" in out  # explanation, escaped inside the title attribute
    rows = hl.support_rows(sc, labels)
    assert rows[0]["explanation"] == '"><img src=x onerror=alert(2)>'  # plain table keeps raw text


def test_notes_are_escaped():
    out = hl.note_html('Human labels: note = <script>alert(1)</script> "x"', error=True)
    assert "<script" not in out and "&lt;script&gt;" in out and "&quot;x&quot;" in out


def test_document_roles_and_keys():
    sc, labels = _case_and_labels("c2")
    block = hl.documents_html(sc, labels)[0]
    for s in sc.doc_sentences:
        role = hl.doc_role(s.key, labels.relevant_keys, labels.utilized_keys)
        assert f'data-key="{s.key}" data-role="{role}"' in block
    assert hl.doc_role("0a", ["0a"], ["0a"]) == "both"
    assert hl.doc_role("0a", ["0a"], []) == "relevant"
    assert hl.doc_role("0a", [], ["0a"]) == "utilized"
    assert hl.doc_role("0a", ["0b"], []) == "neither"


def test_response_levels_match_labels():
    sc, labels = _case_and_labels("c1")
    out = hl.response_html(sc, labels)
    levels = re.findall(r'data-key="([a-z]+)" data-level="(\w+)"', out)
    assert levels == [(s.key, s.level) for s in labels.sentences]
    assert ("b", "none") in levels  # "ten million dragons" is not in the documents
    # text between sentences is preserved (the response reads the same once tags are stripped)
    assert visible_text(out) == sc.case.response


def test_a_sentences_hover_text_says_its_verdict_once():
    """Walk: "a: fully supported by 0a⏎supported by 0a" — the heading and the reason said the same."""
    from evaluators.types import DETAILS_MARK, SentenceLabels, SentenceSupport, TestCase
    case = TestCase(id="x", question="q", response="The Basic plan costs $5. It has 9 GB. It is free.",
                    documents=("The Basic plan costs $5. It has 10 GB.",))
    sc = sentencize_case(case)
    labels = SentenceLabels(method="m", document_keys=sc.doc_keys, sentences=(
        SentenceSupport(key="a", fully_supported=True, supporting_keys=("0a",),
                        explanation="supported by 0a" + DETAILS_MARK + "P(supported) 0.97"),
        SentenceSupport(key="b", fully_supported=False, supporting_keys=("0b",),
                        explanation="partially supported by 0b; the document says 10 GB, not 9 GB (0b)"),
        SentenceSupport(key="c", fully_supported=False, supporting_keys=(),
                        explanation="no document sentence says this (the closest is 0a)")))
    tips = {k: html.unescape(t) for k, t in re.findall(r'data-key="([a-z])"[^>]*title="([^"]*)"',
                                                       hl.response_html(sc, labels))}
    assert tips == {"a": "a: fully supported by 0a",
                    "b": "b: partially supported by 0b\nthe document says 10 GB, not 9 GB (0b)",
                    "c": "c: not supported\nno document sentence says this (the closest is 0a)"}, tips
    # a reason naming other sentences than the verdict's is kept: it says something new
    other = SentenceSupport(key="a", fully_supported=True, supporting_keys=("0a",), explanation="supported by 1c")
    assert hl.support_tip(other) == "a: fully supported by 0a\nsupported by 1c"


def test_unlabeled_case_renders_without_labels():
    sc, _ = _case_and_labels("c1")
    assert 'data-level="unlabeled"' in hl.response_html(sc, None)
    assert 'data-role="neither"' in hl.documents_html(sc, None)[0]


def test_case_frame_filters_and_summary():
    run = fake_run()
    df = tables.case_frame(run)
    assert list(df["id"]) == ["c1", "c2", "c3", "c4"]
    bad = tables.apply_preset(df, "a sentence with no support at all")
    expected = [r.case.id for r in run.results if r.scores and r.scores.unsupported_sentences > 0]
    assert list(bad["id"]) == expected and "c1" in expected
    assert tables.apply_preset(df, "all cases") is df
    assert "c4" not in list(tables.filter_frame(df, "adherence", ">=", 0)["id"])  # unscored dropped
    with pytest.raises(KeyError, match="nope"):
        tables.filter_frame(df, "nope", ">", 0)
    with pytest.raises(ValueError, match="operator"):
        tables.filter_frame(df, "adherence", "~", 0)
    metrics = tables.metric_columns(df)
    assert metrics[:6] == [*TRACE_METRICS, "expected_adherence", "overall_supported"]
    s = tables.summary(df, metrics).set_index("metric")
    scored = [r.scores.adherence for r in run.results if r.scores]
    assert s.loc["adherence", "mean"] == pytest.approx(sum(scored) / len(scored))
    assert s.loc["adherence", "n"] == 3
    expected = [r.scores.expected_adherence for r in run.results if r.scores]
    assert s.loc["expected_adherence", "mean"] == pytest.approx(sum(expected) / len(expected))


def test_paired_frame_sorted_by_disagreement():
    a = fake_run()
    cases = sample_cases()
    cases[0] = cases[0].model_copy(update={"response": "The capital of France is Paris."})
    b = fake_run(cases)
    p = tables.paired_frame(a, b, "adherence")
    assert set(p["id"]) == {"c1", "c2", "c3"}
    assert p.iloc[0]["id"] == "c1" and p.iloc[0]["diff"] > 0
    assert list(p["diff"].abs()) == sorted(p["diff"].abs(), reverse=True)


def test_merge_runs_keeps_order_usage_and_cancel_flag():
    cases = sample_cases()
    parts = [fake_run(cases[:2]), fake_run(cases[2:])]
    merged = RunResult.merge(parts, method="ui_fake", cancelled=False)
    assert [r.case.id for r in merged.results] == [c.id for c in cases]
    assert merged.timings["total_s"] == pytest.approx(sum(p.timings["total_s"] for p in parts))
    assert merged.means() == fake_run(cases).means()
    partial = RunResult.merge(parts[:1], method="ui_fake", cancelled=True)
    assert partial.cancelled and len(partial.results) == 2


def test_progress_text():
    assert jobs.progress_text(0, 10, 0) == "0 / 10 cases · 0s elapsed · ETA: measuring…"
    assert jobs.progress_text(5, 10, 10) == "5 / 10 cases · 10s elapsed · ETA 10s"
    assert jobs.progress_text(10, 100, 30).endswith("ETA 4m 30s")
    assert jobs.fmt_seconds(0.3) == "0.3s" and jobs.fmt_seconds(0) == "0s"  # a quick run is not "0s"
    assert jobs.progress_text(10, 10, 3).endswith("done")


def test_metric_bars_never_draw_a_zero_width_interval_for_a_missing_one():
    """Issue 30 item 2: a metric without an interval got error bars mean..mean (zero width), and a
    lower bound of exactly 0.0 was read as missing."""
    stats = pd.DataFrame([{"metric": "adherence", "mean": 0.5, "std": 0.3, "n": 10},
                          {"metric": "expected_adherence", "mean": 0.6, "std": 0.3, "n": 10}])
    fig = charts.metric_bars(stats, {"adherence": {"low": 0.0, "high": 0.8}})
    err = fig.data[0].error_y
    assert list(err.arrayminus)[0] == pytest.approx(0.5)  # low = 0.0 is a bound, not "missing"
    assert list(err.array)[0] == pytest.approx(0.3)
    # no interval for expected_adherence: no bar at all rather than a fake zero-width one
    assert list(err.array)[1] is None and list(err.arrayminus)[1] is None
    assert "no interval" in fig.data[0].hovertext[1] and "0.00–0.80" in fig.data[0].hovertext[0]


def test_charts():
    run = fake_run()
    df = tables.case_frame(run)
    stats = tables.summary(df, list(TRACE_METRICS))
    fig = charts.metric_bars(stats)
    assert isinstance(fig, go.Figure) and list(fig.data[0].y) == pytest.approx(list(stats["mean"]))
    ci = {m: {"low": 0.1, "high": 0.9} for m in TRACE_METRICS}
    fig = charts.metric_bars(stats, ci)
    assert list(fig.data[0].error_y.array) == pytest.approx([0.9 - v for v in stats["mean"]])
    rad = charts.radar({"a": run, "b": run})
    assert len(rad.data) == 2 and len(rad.data[0].r) == 5
    assert list(rad.data[0].r[:4]) == pytest.approx([run.means()[m] for m in TRACE_METRICS])
    # a side label of a half-width chart fits: no line of a label longer than a word ("Context relevar" was cut)
    assert max(len(line) for t in rad.data[0].theta for line in t.split("<br>")) <= len("Completeness")
    assert list(rad.data[0].customdata[:2]) == ["Context relevance", "Context utilization"]  # hover: whole names
    assert len(charts.distributions(df, list(TRACE_METRICS)).data) == 4
    assert len(charts.histogram(df, "adherence").data[0].x) == 3
    p = tables.paired_frame(run, run, "adherence")
    assert len(charts.scatter_pair(p, "adherence", "A", "B").data[0].x) == 3
    roc = charts.roc([{"fpr": 0, "tpr": 0, "metric": "adherence", "method": "m"},
                      {"fpr": 1, "tpr": 1, "metric": "adherence", "method": "m"}])
    assert len(roc.data) == 2
    gm = charts.grouped_means(pd.DataFrame([{"run": "x", "metric": "adherence", "mean": 0.5},
                                            {"run": "y", "metric": "adherence", "mean": 0.7}]))
    assert [t.name for t in gm.data] == ["x", "y"]


def test_compare_sources_and_correlation_fallback(monkeypatch):
    run = fake_run()
    hist = [RunSummary(id="h1", name="old", method="m", created_at="2026-01-01T00:00:00", num_cases=1,
                       num_done=1, num_scored=1),
            RunSummary(id="h2", name="mine", method="m", created_at="2026-01-02T00:00:00", num_cases=1,
                       num_done=1, num_scored=1)]
    src = compare_view.run_sources({"s1": run}, {"s1": "h2"}, hist)
    assert list(src) == ["s1", "old"] and src["s1"] is run  # a run is called by its name
    twice = compare_view.run_sources({"old": run}, {"old": "h9"}, hist)  # a session run of the same name
    assert list(twice) == ["old", "old (saved 2026-01-01 00:00)", "mine"]
    rows, lib = compare_view.correlations(run, run, "adherence", None)
    assert "intervals" in lib and rows[0]["statistic"] == "pearson" and rows[0]["value"] == pytest.approx(1.0)
    assert compare_view.corr_text(rows).startswith("Pearson r = 1.00, Spearman ρ = 1.00")
    assert compare_view.corr_text([{"statistic": "spearman", "value": -0.76}]) == "Spearman ρ = −0.76"
    # a metric neither run has: plain correlations of the paired frame, with the reason
    p = pd.DataFrame({"id": list("abcd"), "a": [0.1, 0.2, 0.3, 0.4], "b": [0.2, 0.4, 0.6, 0.8]})
    rows, lib = compare_view.correlations(run, run, "no_such_metric", p)
    assert "no intervals" in lib and "no_such_metric" in lib and rows[0]["value"] == pytest.approx(1.0)


def test_key_resolution_order(monkeypatch):
    from evaluators.llm.settings import resolve_credentials

    monkeypatch.setenv("GROQ_API_KEY", "env-key")
    c = resolve_credentials("groq", None, "typed")
    assert (c.key, c.key_source) == ("typed", "password field")
    c = resolve_credentials("groq", None, "")
    assert (c.key, c.key_source) == ("env-key", "$GROQ_API_KEY")
    monkeypatch.delenv("GROQ_API_KEY")
    assert resolve_credentials("groq", None, None).key is None


def test_upload_templates_round_trip_through_the_reader(tmp_path):
    from evaluators.datasets import load_cases
    from ui.start import home

    for name, raw in (("t.csv", home.template_csv()), ("t.jsonl", home.template_jsonl())):
        path = tmp_path / name
        path.write_bytes(raw)
        res = load_cases(path)
        assert not res.errors, res.errors
        assert [c.id for c in res.cases] == [r["id"] for r in home.TEMPLATE_ROWS]
        first = res.cases[0]
        assert first.documents == tuple(home.TEMPLATE_ROWS[0]["documents"])
        assert first.ground_truth == "Paris"
        assert [c.labels.get("hallucinated") for c in res.cases] == [False, True]


def test_help_texts_come_from_the_metric_declarations():
    from evaluators.families import get_metric
    from ui import vocab

    for name in ("adherence", "expected_adherence", "overall_supported", "faithfulness", "answer_similarity"):
        m = get_metric(name)
        h = vocab.help_text(name)
        assert m.formula in h and m.example in h and f"{m.direction} is better" in h
    assert "0 / 1" in vocab.help_text("overall_supported")
    assert "0–5" in vocab.help_text("answer_similarity")
    assert "partly supported" in vocab.help_text("partially_supported_sentences")
    assert vocab.help_text("question") is None
    assert vocab.help_text("aspect_critique.coherence") == vocab.help_text("coherence")
    ndcg = vocab.help_text("ndcg@5")  # a retrieval metric reads its kind's declaration, with its K
    assert get_metric("ndcg@K").formula in ndcg and "Here K = 5." in ndcg and "Here K" not in vocab.help_text("mrr")
    assert vocab.short_help("recall@10") == vocab.short_help("recall@3") != ""



def test_the_case_tables_score_headers_are_short_and_their_help_names_the_metric_in_full():
    from ui import vocab

    assert [vocab.column_name(m) for m in ("context_relevance", "context_utilization", "completeness",
                                           "adherence", "expected_adherence", "overall_supported")] == [
        "Relevance", "Utilization", "Completeness", "Adherence", "Exp. adherence", "Supported"]
    assert vocab.column_name("ndcg@5") == "nDCG@5" and vocab.column_name("faithfulness") == "Faithfulness"
    assert vocab.column_help("context_relevance") == "**Context relevance**: " + vocab.help_text("context_relevance")
    assert vocab.column_help("adherence") == vocab.help_text("adherence") and vocab.column_help("question") is None


def test_scatter_nudges_only_coinciding_points_and_hovers_exact_values():
    paired = pd.DataFrame({"id": ["a", "b", "c", "d"], "a": [1.0, 1.0, 1.0, 0.2], "b": [1.0, 1.0, 0.5, 0.4]})
    fig = charts.scatter_pair(paired, "adherence", "A", "B", jitter=0.02)
    x, y = list(fig.data[0].x), list(fig.data[0].y)
    assert x[0] != x[1] or y[0] != y[1]  # the two (1, 1) cases no longer sit on each other
    assert all(abs(x[i] - 1.0) <= 0.02 and abs(y[i] - 1.0) <= 0.02 for i in (0, 1))
    assert (x[2], y[2], x[3], y[3]) == (1.0, 0.5, 0.2, 0.4)  # distinct points stay put
    assert [list(c) for c in fig.data[0].customdata] == [[1.0, 1.0], [1.0, 1.0], [1.0, 0.5], [0.2, 0.4]]


def test_compare_words_and_default_pair():
    from ui.compare import compare_view as cv

    assert cv.method_words("hybrid:gpt_labeling") == "hybrid (its gpt_labeling labels)"
    assert cv.method_words("trace") == "trace"
    assert cv.plain_note("3 of 400 resamples undefined, left out") == (
        "interval from the 397 of 400 bootstrap samples where it is defined")
    frame = cv.correlation_frame([{"statistic": "spearman", "value": 0.5, "low": 0.2, "high": 0.7},
                                  {"statistic": "pearson", "value": "one method's scores are constant: no "
                                                                    "correlation", "low": None, "high": None}])
    assert list(frame["measure"]) == ["rank correlation (Spearman)", "linear correlation (Pearson)"]
    assert frame["95% interval"][0] == "0.20 – 0.70" and pd.isna(frame["value"][1])
    assert "constant" in frame["note"][1]
    ids = {"new": frozenset("xyz"), "b": frozenset("abc"), "a": frozenset("abc"), "a2": frozenset("abc")}
    meth = {"new": "trace", "b": "hybrid", "a": "trace", "a2": "trace"}
    assert cv.default_pair(["new", "b", "a", "a2"], ids.__getitem__, meth.__getitem__) == ("a", "b")
    assert cv.default_pair(["new", "b"], ids.__getitem__, meth.__getitem__) == ("b", "new")  # nothing shared


def _every_figure() -> dict[str, go.Figure]:
    from evaluators.comparison import compare_runs
    from ui.compare import compare_charts as cc

    run = fake_run()
    df = tables.case_frame(run)
    stats = tables.summary(df, list(TRACE_METRICS))
    big = pd.DataFrame({"adherence": [i / 7000 for i in range(7000)]})  # drawn from its summary
    c = compare_runs([run, fake_run(), fake_run()], names=["a", "b", "c"], n_boot=50)
    m = c.metrics[0]
    return {
        "bars": charts.metric_bars(stats),
        "bars_ci": charts.metric_bars(stats, {"adherence": {"low": 0.1, "high": 0.9}}),
        "radar": charts.radar({"a": run, "b": run}), "box": charts.distributions(df, list(TRACE_METRICS)),
        "box_big": charts.distributions(big, ["adherence"]), "hist": charts.histogram(df, "adherence"),
        "hist_big": charts.histogram(big, "adherence"),
        "scatter": charts.scatter_pair(tables.paired_frame(run, run, "adherence"), "adherence", "A", "B", "r = 1"),
        "roc": charts.roc([{"fpr": 0.0, "tpr": 0.0, "metric": "adherence", "method": "m"},
                           {"fpr": 1.0, "tpr": 1.0, "metric": "adherence", "method": "m"}]),
        "grouped": charts.grouped_means(pd.DataFrame([{"run": "x", "metric": "adherence", "mean": 0.5, "low": 0.4,
                                                       "high": 0.6}, {"run": "y", "metric": "adherence", "mean": 0.7,
                                                                      "low": None, "high": None}])),
        "means": cc.means_chart(c.standings[m], m, "a"), "diff": cc.diff_chart([c.pair("a", "b", x) for x in c.metrics],
                                                                              "a", "b"),
        "matrix": cc.verdict_matrix(c, m),
        "trend": cc.trend_chart([{"started_at": "2026-11-26T10:00:00", "name": "v1", "mean": 0.5, "ci_low": 0.4,
                                  "ci_high": 0.6}, {"started_at": "2026-11-26T11:00:00", "name": "v2", "mean": 0.6,
                                                    "ci_low": None, "ci_high": None}], m),
    }


def test_every_figure_is_a_valid_plotly_spec_sent_as_plotly_would_send_it_validated(monkeypatch):
    """Figures are written as plotly specs and not validated on each page view (it cost ~5 ms a
    figure): here plotly validates every one of them (a wrong property name or value raises), and
    the JSON the browser gets is the same as from the validated figure. Their template is one
    property, whatever the process's default: the series colours Streamlit's own template names."""
    import json

    import plotly.io as pio
    from streamlit.elements.lib.streamlit_plotly_theme import configure_streamlit_plotly_theme

    configure_streamlit_plotly_theme()  # what st.plotly_chart's module does when imported
    figs = _every_figure()
    assert list(pio.templates["streamlit"].layout.colorway) == charts.TEMPLATE["layout"]["colorway"]
    for default in ("streamlit", "plotly_white"):
        monkeypatch.setattr(pio.templates, "default", default)
        for name, fig in _every_figure().items():
            assert fig.to_dict()["layout"]["template"] == charts.TEMPLATE, (default, name)
    for name, fig in figs.items():
        spec = fig.to_dict()
        validated = go.Figure(spec)  # raises ValueError on an invalid property or value
        assert json.loads(pio.to_json(validated, validate=False)) == json.loads(pio.to_json(fig, validate=False)), name
        assert spec["data"] and spec["layout"]["title"]["text"], name
    with pytest.raises(ValueError):  # the check above can fail
        go.Figure({"data": [{"type": "bar", "colour": "red"}], "layout": {}})
    diff = figs["diff"].to_dict()["layout"]["shapes"][0]
    assert (diff["x0"], diff["x1"], diff["yref"]) == (0, 0, "y domain")  # the dotted no-difference line


def test_the_sample_and_its_method_table_are_read_once_per_process_and_again_when_replaced(tmp_path):
    import os
    import shutil

    from ui import data as ud
    from ui.start import home

    src = next(p for p in ud.sample_files() if p.name == "sample_rag.jsonl")
    path = tmp_path / "sample_rag.jsonl"
    shutil.copy(src, path)
    first = home.sample(path)
    assert home.sample(path) is first and len(first.cases) == 16  # one read for every session
    assert home.sample_methods(path) is home.sample_methods(path)
    assert list(home.sample_methods(path)["method"])[:1] == ["trace"]
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:5]) + "\n", encoding="utf-8")  # the owner replaced the file
    os.utime(path, ns=(1, 1))  # (a new size and time)
    again = home.sample(path)
    assert again is not first and len(again.cases) == 5
    assert "for 5 cases" in home.sample_methods(path)["speed"].iloc[0]  # the table of the new file


def test_run_names_of_the_means_chart_sit_above_the_dots_wrapped_and_escaped():
    """The means chart writes each run's name above its dot (no tick labels: the plot keeps the
    chart's width on a phone), in lines of about 40 characters, its markup escaped."""
    from ui.compare import compare_charts as cc

    long = "pricing_cases · trace · 2026-11-27 16:48 <b>v2</b> & a retriever with a reranker"
    assert cc.wrapped(long) == ("pricing_cases · trace · 2026-11-27 16:48<br>&lt;b&gt;v2&lt;/b&gt; &amp; a "
                                "retriever with a reranker")
    assert all(len(line) <= 40 for line in html.unescape(cc.wrapped(long)).split("<br>")[:-1])
    spec = cc.means_chart([], "adherence", "a").to_dict()["layout"]
    assert spec["yaxis"]["showticklabels"] is False


def test_the_over_refusal_metric_is_named_as_the_pages_write_it():
    # the walk of issue 53: Results' card and Compare's table said "Over refusal" beside "Over-refusal:
    # the answer declines" on Inspect and "over-refusals" in Results' headline
    from ui import vocab

    assert vocab.nice("over_refusal") == "Over-refusal"
    assert vocab.nice("answer_correctness") == "Answer correctness" and vocab.nice("ndcg@5") == "nDCG@5"


def test_a_runs_downloads_are_named_after_the_run():
    # the walk: every run downloaded as "trace_results.csv", the second one "trace_results (1).csv"
    from types import SimpleNamespace

    from ui.results import exports

    assert exports.file_stem(SimpleNamespace(name="sample_rag_version2", method="trace")) == "sample_rag_version2_trace"
    assert exports.file_stem(SimpleNamespace(name="v1 on test set from congés_équipe · x/y", method="trace")) == \
        "v1-on-test-set-from-congés_équipe-x-y_trace"
    assert exports.file_stem(SimpleNamespace(method="trace")) == "trace_results"  # a run in memory has no name


def test_a_pickers_long_sentence_is_cut_at_a_word_with_an_ellipsis():
    # the walk (Inspect, review mode): "0c · The light-independent reactions, also called the Calvin cycle, use car"
    from ui import vocab

    s = "The light-independent reactions, also called the Calvin cycle, use carbon dioxide to build glucose."
    assert vocab.clip(s) == "The light-independent reactions, also called the Calvin cycle, use…"
    assert vocab.clip("Short one.") == "Short one." and len(vocab.clip("x" * 200)) == 71


def test_the_case_tables_retrieval_columns_come_after_the_answers_verdicts():
    # the walk (own questions on the sample app): 21 hit@K … ndcg@K columns stood between the TRACE scores and
    # the Inspect link, the question, declined and answer correctness (columns 29–36 at 1280 px)
    row = {"id": "q1", "context_relevance": 0.5, "adherence": 1.0, "hit@1": 0.0, "ndcg@10": 0.0, "mrr": 0.0,
           "question": "q?", "response": "r.", "unsupported_sentences": 0, "answer_correctness": 0.0, "declined": 1.0}
    metrics = ["context_relevance", "adherence", "hit@1", "ndcg@10", "mrr", "answer_correctness", "declined"]
    cols = list(tables.display_frame(pd.DataFrame([row]), metrics, ["link"]).columns)
    assert cols[:5] == ["id", "context_relevance", "adherence", "inspect", "question"], cols
    assert cols.index("declined") < cols.index("hit@1") and cols.index("answer_correctness") < cols.index("mrr")


def test_a_declining_answer_reads_declined_not_supported_in_the_case_table():
    # the walk: "The documents do not say." beside no document read "Supported: yes" (Inspect's picker says
    # "declined (right refusal)")
    rows = [{"id": "d", "overall_supported": 1, "declined": 1.0}, {"id": "a", "overall_supported": 1, "declined": 0.0},
            {"id": "p", "overall_supported": 0, "declined": 1.0}]
    out = tables.display_frame(pd.DataFrame(rows), ["overall_supported", "declined"])
    assert list(out["overall_supported"]) == ["declined", "yes", "no"]

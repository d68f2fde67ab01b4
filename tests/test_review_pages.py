"""Review mode, cross-highlighting, the review queue and the gold section through the dashboard's
pages (AppTest, app.py on every run): corrections saved by the case fragment's widgets, kept across a
fresh session, marked reviewed, exported; hybrid labelings side by side (``compare=1``); Compare's
gold agreement; calibration applied only on request."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from evaluators import datasets
from evaluators.review import ReviewStore, labels_from_case
from evaluators.store import RunStore
from tests import ui_fixtures as fx
from tests.review_fixtures import case, hybridize, scripted_run
from ui import state

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")
TOKEN = "review-visitor-token-0001"


def app(**query) -> AppTest:
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.session_state[state._OWNER] = TOKEN
    at.query_params.update(query)
    return at


def inspect(at: AppTest) -> AppTest:
    at.run()
    at.switch_page("pages/4_inspect.py").run()
    assert not at.exception, at.exception
    return at


def html(at: AppTest) -> str:
    """The page's HTML (the sidebar holds the history cookie's script)."""
    return "".join(h.proto.body for h in at.main.get("html"))


def review_on(at: AppTest, name: str = "Ann") -> AppTest:
    at.toggle(key="inspect.review").set_value(True).run()
    at.text_input(key="review.name_input").set_value(name).run()
    assert not at.exception, at.exception
    return at


def test_picking_a_sentence_lights_up_its_links_both_ways():
    rid = RunStore().save(fx.fake_run(), "r", owner=TOKEN)
    at = inspect(app(run=rid, case="c2"))
    assert 'data-state="' not in html(at)  # nothing picked yet
    at.radio(key="inspect.fr.c2").set_value("a").run()
    body = html(at)
    assert 'data-key="a" data-level="full" data-support="0a" data-state="focus"' in body
    assert 'data-key="0a" data-role="both" data-state="lit"' in body and 'data-key="0b" data-role' in body
    assert 'data-key="0b" data-role="neither" data-state' not in body
    assert "Supported by" in body
    # the reverse: a document sentence lights up the response sentences citing it
    at.selectbox(key="inspect.fd.c2").set_value("0a").run()
    body = html(at)
    assert 'data-key="0a" data-role="both" data-state="focus"' in body
    assert 'data-key="a" data-level="full" data-support="0a" data-state="lit"' in body
    assert at.radio(key="inspect.fr.c2").value is None  # one focus at a time
    assert "Cited as support by" in body


def test_the_focus_panel_and_marks_keep_uploaded_html_inert():
    rid = RunStore().save(fx.fake_run(), "r", owner=TOKEN)
    at = inspect(app(run=rid, case="c1"))
    at.selectbox(key="inspect.fd.c1").set_value("0b").run()  # the sentence with <img onerror> and <script>
    body = html(at)
    assert "&lt;img src=x onerror=alert(1)&gt;" in body and "&lt;script&gt;" in body
    assert "<img" not in body and "<script" not in body
    panel = [h.proto.body for h in at.get("html") if "rag-focus" in h.proto.body]
    assert panel and "&lt;img" in panel[0]


def test_review_corrections_are_saved_kept_and_marked_gold():
    run = fx.fake_run()
    rid = RunStore().save(run, "r", owner=TOKEN)
    at = inspect(app(run=rid, case="c1"))
    at.toggle(key="inspect.review").set_value(True).run()
    assert any("Type your name" in i.value for i in at.info)
    review_on(at)
    at.radio(key="inspect.fr.c1").set_value("a").run()
    seg = at.button_group(key=f"rv.lvl.{rid}.c1.a")
    seg.set_value("none").run()
    assert not at.exception, at.exception
    assert any("Saved ✓ a: not supported" in s.value and "by Ann" in s.value for s in at.success)
    assert 'data-key="a" data-level="none"' in html(at) and 'data-changed="1"' in html(at)
    # partial without a supporting sentence waits for one (b: "ten million dragons", no support)
    at.radio(key="inspect.fr.c1").set_value("b").run()
    at.button_group(key=f"rv.lvl.{rid}.c1.b").set_value("partial").run()
    assert any("pick the document sentences" in w.value for w in at.warning)
    at.multiselect(key=f"rv.keys.{rid}.c1.b").set_value(["0a"]).run()
    assert any("b: partially supported (0a)" in s.value for s in at.success)
    # a document sentence's flags
    at.selectbox(key="inspect.fd.c1").set_value("1a").run()
    at.checkbox(key=f"rv.use.{rid}.c1.1a").check().run()
    assert any("1a: utilized" in s.value for s in at.success)
    at.button(key="rv.mark").click().run()
    assert any("marked reviewed" in s.value for s in at.success)
    rc = ReviewStore().get(rid, "c1", owner=TOKEN)
    assert rc.reviewed and rc.reviewer == "Ann" and [c.reviewer for c in rc.corrections] == ["Ann"] * 3
    assert [s.level for s in rc.labels.sentences] == ["none", "partial"] and "1a" in rc.labels.utilized_keys
    # a reload (new session, same URL): the review is still there and shown
    again = inspect(app(run=rid, case="c1"))
    assert any(o.startswith("c1 ") and o.endswith("✓ reviewed") for o in again.selectbox(key="inspect.case").options)
    review_on(again, "Bob")
    assert 'data-key="b" data-level="partial"' in html(again) and 'data-key="a" data-level="none"' in html(again)
    assert any("Reviewed by Ann" in m.value for m in again.markdown)


def test_another_visitor_cannot_review_my_run():
    rid = RunStore().save(fx.fake_run(), "r", owner=TOKEN)
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.session_state[state._OWNER] = "someone-else-token-0001"
    at.query_params.update({"run": rid, "case": "c1"})
    inspect(at)
    assert any("No run" in w.value for w in at.warning)
    assert ReviewStore().of_run(rid, owner=None) == {}


def test_a_run_put_in_the_session_whole_goes_to_the_history_and_can_be_reviewed():
    """A session keeps run ids only: a run put there whole (an older session, a test) is saved to
    the visitor's history the first time it is read, so review mode works on it at once."""
    at = app()
    at.session_state[state._RUNS] = {"mine": fx.fake_run()}
    at.session_state[state._CURRENT] = "mine"
    inspect(at)
    assert [s.name for s in RunStore().list(owner=TOKEN)] == ["mine"]
    rid = RunStore().list(owner=TOKEN)[0].id
    assert at.session_state[state._RUNS] == {"mine": rid} and at.session_state[state._SAVED]["mine"] == rid
    at.toggle(key="inspect.review").set_value(True).run()
    assert not any("not in it" in i.value for i in at.info)
    assert at.button(key="rv.mark") is not None


def test_queue_orders_cases_and_next_moves_to_the_next_unreviewed(register_method):
    confs = {"case-0": 0.9, "case-1": 0.1, "case-2": 0.5}
    run = scripted_run(register_method, [case(i) for i in range(3)], lambda c, k: 0.7, conf=lambda c: confs[c.id])
    rid = RunStore().save(run, "q", owner=TOKEN)
    at = inspect(app(run=rid))
    at.selectbox(key="inspect.order").set_value("uncertainty").run()
    assert [o.split(" ")[0] for o in at.selectbox(key="inspect.case").options] == ["case-1", "case-2", "case-0"]
    table = fx.open_expander(at, "inspect.queue_box").dataframe[0].value
    assert list(table["case"]) == ["case-1", "case-2", "case-0"]
    assert table["open"].iloc[0] == f"inspect?run={rid}&case=case-1"
    at.selectbox(key="inspect.case").set_value("case-1").run()
    review_on(at)
    at.button(key="rv.next").click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key="inspect.case").value == "case-2"
    assert ReviewStore().get(rid, "case-1", owner=TOKEN).reviewed
    at.button(key="inspect.next").click().run()
    assert at.selectbox(key="inspect.case").value == "case-0"


def test_hybrid_labelings_side_by_side_with_differences(register_method):
    run = scripted_run(register_method, [case(i) for i in range(2)], lambda c, k: 0.9)
    hyb = hybridize(run, {"case-1": ["b"]})
    rid = RunStore().save(hyb, "hybrid run", owner=TOKEN)
    at = inspect(app(run=rid, case="case-1", compare="1"))
    exp = [e for e in at.expander if "side by side" in e.label]
    assert exp and "trace vs gpt_labeling" in exp[0].label and "1 response" in exp[0].label
    body = html(at)
    assert body.count('data-key="b" data-level="none"') >= 1 and 'data-diff="1"' in body
    diff_table = [d.value for d in at.dataframe if "trace" in d.value.columns]
    assert diff_table and list(diff_table[0]["sentence"]) == ["b"]
    at.radio(key="inspect.variant").set_value("trace").run()
    assert 'data-key="b" data-level="full"' in html(at)


def test_reviewed_labels_export_and_reupload_reproduce_them(register_method):
    run = scripted_run(register_method, [case(i) for i in range(2)], lambda c, k: 0.9)
    rid = RunStore().save(run, "r", owner=TOKEN)
    st_ = ReviewStore()
    st_.correct(rid, run.results[0], "support", "c", {"level": "none", "keys": []}, reviewer="Ann", owner=TOKEN)
    st_.mark(rid, run.results[0], reviewer="Ann", owner=TOKEN)
    at = fx.open_expander(inspect(app(run=rid, case="case-0")), "inspect.queue_box")
    btn = [b for b in at.get("download_button") if "Export 1 reviewed case" in b.proto.label]
    assert btn
    # the exported file, uploaded on the Upload page, carries the labels (read back exactly)
    from evaluators.review import export_rows, to_jsonl

    raw = to_jsonl(export_rows(st_.gold(owner=TOKEN).values())).encode()
    at.switch_page("pages/1_upload.py").run()
    at.file_uploader(key="upload.file").set_value(("reviewed_labels.jsonl", raw, "application/json")).run()
    data = at.session_state[state._DATA]
    assert len(data.cases) == 1 and not data.errors
    labels, _ = labels_from_case(data.cases[0])
    assert [s.level for s in labels.sentences] == ["full", "full", "none"]
    assert datasets.guess_mapping(list(json.loads(raw)))  # the schema's columns are recognised


def test_an_uploaded_export_is_gold_again_after_evaluation(jobs_done):
    """Export -> Upload -> Evaluate: Inspect shows the file's labels as a labeling of their own and
    Compare counts them as gold (nothing reviewed in this history)."""
    from evaluators.review import export_rows, to_jsonl

    run = fx.fake_run(fx.sample_cases()[:3])
    rid = RunStore().save(run, "first", owner="another-visitor-000001")
    st_ = ReviewStore()
    st_.correct(rid, run.results[1], "support", "a", {"level": "none", "keys": []}, reviewer="Ann", owner=None)
    st_.mark(rid, run.results[1], reviewer="Ann", owner=None)
    raw = to_jsonl(export_rows(st_.gold(owner=None).values())).encode()
    at = app()
    at.run()
    at.switch_page("pages/1_upload.py").run()
    at.file_uploader(key="upload.file").set_value(("reviewed_labels.jsonl", raw, "application/json")).run()
    at.switch_page("pages/2_evaluate.py").run()
    at.radio(key="evaluate.method").set_value("ui_fake").run()
    at.button(key="evaluate.run").click().run()
    jobs_done(at)
    at.switch_page("pages/4_inspect.py").run()
    assert not at.exception, at.exception
    labelings = at.radio(key="inspect.variant").options
    assert "human (from the file)" in labelings
    at.radio(key="inspect.variant").set_value("human (from the file)").run()
    assert 'data-key="a" data-level="none"' in html(at)  # the reviewer's verdict, read back from the file
    at.switch_page("pages/5_compare.py").run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Reviewed cases (gold)"] == "0" and metrics["Gold from uploaded labels"] == "1"
    pivot = [d.value for d in at.dataframe if "κ supported" in d.value.columns]
    assert pivot and list(pivot[0]["gold cases"]) == [1]


def test_compare_gold_section_and_calibration(register_method):
    import random

    rng = random.Random(4)
    probs = {f"case-{i}": [rng.random() for _ in range(4)] for i in range(24)}
    run = scripted_run(register_method, [case(i, n_resp=4) for i in range(24)], lambda c, k: probs[c.id][k])
    rid = RunStore().save(run, "to calibrate", owner=TOKEN)
    st_ = ReviewStore()
    for r in run.results:
        for k, p in zip("abcd", probs[r.case.id]):
            lvl = {"level": "full", "keys": ["0a"]} if p >= 0.3 else {"level": "none", "keys": []}
            st_.correct(rid, r, "support", k, lvl, reviewer="Ann", owner=TOKEN)
        st_.mark(rid, r, reviewer="Ann", owner=TOKEN)
    at = app()
    at.run()
    at.switch_page("pages/5_compare.py").run()
    assert not at.exception, at.exception
    assert any(m.label == "Reviewed cases (gold)" and m.value == "24" for m in at.metric)
    gold = [d.value for d in at.dataframe if "statistic" in d.value.columns and "labeling" in d.value.columns]
    assert gold and set(gold[0]["n"]) == {24}
    assert "kappa: sentence supported" in set(gold[0]["statistic"])
    pivot = [d.value for d in at.dataframe if "κ supported" in d.value.columns]
    assert pivot and list(pivot[0]["gold cases"]) == [24] and pivot[0]["κ supported"].iloc[0].count("[") == 1
    ppi = [d.value for d in at.dataframe if "what" in d.value.columns]
    assert ppi and "share of hallucinated responses" in set(ppi[0]["what"])
    cv = [d.value for d in at.dataframe if "before" in d.value.columns]
    assert cv and cv[0].set_index("statistic").loc["kappa: sentence supported", "after"] > \
        cv[0].set_index("statistic").loc["kappa: sentence supported", "before"]
    assert len(RunStore().list(owner=TOKEN)) == 1  # nothing applied yet
    at.button(key="gold.apply").click().run()
    assert not at.exception, at.exception
    runs = RunStore().list(owner=TOKEN)
    assert len(runs) == 2 and "calibrated" in runs[0].name
    assert "calibrated_to_reviews" in RunStore().load(runs[0].id, owner=TOKEN).settings

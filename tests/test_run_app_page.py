"""AppTest of "Run your app" (through app.py on every run): the question sources, the targets offered
(the sample app's two versions when the deployment names none, the owner's file first when it does),
the visitor's typed targets under the visitor's policy (each refusal in words), the owner's limits on
calls to the owner's app, the whole loop (calls -> evaluations on the job queue -> Compare and Results
on the two runs), Cancel and Resume (after a restart too), and no secret on the page or on disk.

The evaluations use the model-free ``ui_fake`` method (put first in the page's method list)."""

from __future__ import annotations

import json
import secrets as rnd
import socket
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evaluators.store import RunStore
from tests import ui_fixtures as fx
from tests.llm_server import Reply
from ui import resources, state
from ui.run_app import folder, runner, view

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run", "settings")

SECRET = "sk-owner-7d1e-never-shown"
TYPED_SECRET = "visitor-typed-token-5f2a"
PAGE = "pages/1_run_app.py"
OWNER_SETTINGS = ("RAG_EVAL_TARGETS", "RAG_EVAL_TYPED_URLS", "RAG_EVAL_TYPED_PRIVATE_URLS", "RAG_EVAL_MAX_LLM_CALLS",
                  "RAG_EVAL_MAX_LLM_CASES", "APP_TOKEN")


@pytest.fixture
def settings(monkeypatch):
    for k in OWNER_SETTINGS:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setattr(view, "METHODS", ("ui_fake", "trace"))


@pytest.fixture
def token():
    tok = "run-app-" + rnd.token_hex(8)
    yield tok
    run = runner.get(tok)
    if run is not None:
        run.cancel.set()
    runner.forget(tok)


def answer_fn(row):
    """A Python target of the owner's (allowed for the owner only)."""
    return {"answer": f"Answer: {row['question']}", "contexts": [{"id": "x#1", "text": "A passage."}]}


def app(tok: str, **seed) -> AppTest:
    at = fx.open_page(PAGE, tok, **seed)
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    """Everything the page shows (every element's proto, data frames as text)."""
    out: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)
    walk(at._tree)
    out += [d.value.to_string() for d in at.dataframe] + [t.value.to_string() for t in at.table]
    return "\n".join(out)


def md(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def finish(at: AppTest, tok: str, timeout: float = 120, back: bool = True) -> AppTest:
    """Wait for the run's end; rerun (a session that saw it going opens Compare / Results by itself);
    then, with ``back``, show Run your app again (its outcome)."""
    end = time.monotonic() + timeout
    while (run := runner.get(tok)) is None or not run.finished:
        assert time.monotonic() < end, "the app run did not end"
        time.sleep(0.1)
    at.run()
    assert not at.exception, at.exception
    if back and at.title[0].value != "Run your app":
        at.switch_page(PAGE).run()
        assert not at.exception, at.exception
    return at


def owner_file(tmp_path: Path, targets: list[dict], monkeypatch) -> Path:
    p = tmp_path / "targets.yaml"
    p.write_text(json.dumps({"targets": targets}), encoding="utf-8")
    monkeypatch.setenv("RAG_EVAL_TARGETS", str(p))
    return p


def http_target(name: str, url: str, **kw) -> dict:
    spec = {"name": name, "http": {"url": url, "body": {"question": "{question}"}, "timeout_s": 5},
            "answer": "answer", "contexts": "sources[*].text", "context_ids": "sources[*].id", "retries": 0}
    spec["http"].update(kw.pop("http", {}))
    spec.update(kw)
    return spec


def echo(secret: str):
    """An app that repeats the secret in its answers, and in the error of one question."""
    def respond(body):
        q = body.get("question", "")
        if "photosynthesis" in q:
            return Reply.error(400, f"token {secret} refused for this question")
        return Reply(body={"answer": f"You sent {secret}. {q}", "sources": [{"id": "photosynthesis#1",
                                                                              "text": "Plants make oxygen."}]})
    return respond


def files_text(tok: str) -> str:
    found = folder.latest(tok)
    assert found is not None
    return "\n".join(p.read_text(encoding="utf-8") for p in found[0].iterdir() if p.is_file())


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---- what is offered ---------------------------------------------------------------------------------
def test_the_sample_apps_two_versions_are_picked_and_the_calls_counted(token):
    at = app(token)
    assert at.title[0].value == "Run your app"
    assert at.checkbox(key="run_app.pick.sample:v1").value and at.checkbox(key="run_app.pick.sample:v2").value
    assert "**32 calls to the app** (16 questions × 2 versions" in md(at)
    go = at.button(key="run_app.go")
    assert go.label == "Run 2 versions on 16 questions" and not go.disabled
    at.checkbox(key="run_app.pick.sample:v2").uncheck().run()
    assert "**16 calls to the app** (16 questions × 1 version" in md(at)
    assert at.button(key="run_app.go").label == "Run 1 version on 16 questions"
    at.checkbox(key="run_app.pick.sample:v1").uncheck().run()
    assert any("Pick at least one version" in i.value for i in at.info)
    assert at.button(key="run_app.go").disabled


def test_the_caption_says_the_samples_are_picked_only_while_they_are(token):
    # the walk: with one's own app added and picked beside v1 and v2 (and with v2 unticked) the caption still
    # read "The sample app's two versions are picked"
    at = app(token)
    assert any(c.value.startswith("The sample app's two versions are picked") for c in at.caption)
    at.checkbox(key="run_app.pick.sample:v2").uncheck().run()
    assert not any("two versions are picked" in c.value for c in at.caption)
    assert any(c.value.startswith("The sample app (v1, v2) is a small RAG app") for c in at.caption)


def test_the_saved_test_set_is_offered_first_and_an_upload_is_checked(token):
    rows = [{"id": f"t{i}", "question": f"What is fact {i}?", "ground_truth": f"Fact {i}.",
             "reference_contexts": [f"Fact {i} is true."], "reference_context_ids": [f"doc#{i}"]} for i in range(3)]
    at = app(token, **{state.TESTSET_KEY: {"name": "my set", "rows": rows, "saved_at": "2026-01-01T00:00:00"}})
    assert at.radio(key="run_app.source").value == "testset"
    assert "**6 calls to the app** (3 questions × 2 versions" in md(at)
    assert any("3 questions · 3 with reference passages" in c.value for c in at.caption)
    at.radio(key="run_app.source").set_value("upload").run()
    bad = b'{"id": "a", "question": "Where is Paris?"}\n{"id": "b", "question": ""}\n'
    at.file_uploader(key="run_app.file").set_value(("qs.jsonl", bad, "application/json")).run()
    assert not at.exception
    assert "**2 calls to the app** (1 question × 2 versions" in md(at)
    assert any("1 row could not be read" in e.label for e in at.expander)
    at.file_uploader(key="run_app.file").set_value(("qs.csv", b"text,other\nhello,1\n", "text/csv")).run()
    assert any("Could not read qs.csv" in e.value for e in at.error)
    assert any("Pick the questions to ask first" in i.value for i in at.info)


def test_the_owners_targets_come_first_and_a_bad_file_is_named(token, tmp_path, monkeypatch):
    owner_file(tmp_path, [http_target("prod", "http://127.0.0.1:9/ask",
                                      http={"headers": {"Authorization": "Bearer ${APP_TOKEN}"}}),
                          {"name": "local-fn", "python": "tests.test_run_app_page:answer_fn"}], monkeypatch)
    at = app(token)
    assert at.checkbox(key="run_app.pick.owner:prod").value and at.checkbox(key="run_app.pick.owner:local-fn").value
    assert not at.checkbox(key="run_app.pick.sample:v1").value
    assert "`POST http://127.0.0.1:9/ask`" in at.checkbox(key="run_app.pick.owner:prod").label
    assert "`python: tests.test_run_app_page:answer_fn`" in at.checkbox(key="run_app.pick.owner:local-fn").label
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nhttp: {url: 'http://127.0.0.1:9/'}\n", encoding="utf-8")
    monkeypatch.setenv("RAG_EVAL_TARGETS", str(bad))
    at = app(token)
    err = " ".join(e.value for e in at.error)
    assert "RAG\\_EVAL\\_TARGETS" in err and "field 'answer' is missing" in err
    assert at.checkbox(key="run_app.pick.sample:v1").value  # the sample app stays offered


# ---- the visitor's own targets ------------------------------------------------------------------------
def add_with_form(at: AppTest, url: str, name: str = "", header: str = "", value: str = "") -> AppTest:
    at.text_input(key="run_app.f.name").input(name)
    at.text_input(key="run_app.f.url").input(url)
    at.text_input(key="run_app.f.header").input(header)
    at.text_input(key="run_app.f.header_value").input(value)
    at.button(key="run_app.f.add").click().run()
    assert not at.exception, at.exception
    return at


def add_pasted(at: AppTest, text: str) -> AppTest:
    at.radio(key="run_app.add_how").set_value("a target file (YAML or JSON)").run()
    at.text_area(key="run_app.f.yaml").input(text)
    at.button(key="run_app.f.add_yaml").click().run()
    assert not at.exception, at.exception
    return at


#: What a visitor may not add, and the words that say why (the forms first: the last ones are pasted).
REFUSED = [
    (("form", "http://127.0.0.1:9/ask"), "is a loopback or private address"),
    (("form", "http://10.1.2.3/ask"), "RAG\\_EVAL\\_TYPED\\_PRIVATE\\_URLS=on"),
    (("form", "http://169.254.169.254/latest"), "link-local"),
    (("paste", "name: mine\npython: os:system\n"), "Python targets run code on this server"),
    (("paste", "http: {url: 'https://example.com/ask', headers: {X-Key: '${HOME}'}}\nanswer: a\n"),
     "environment variables are not read"),
    (("paste", "http: {url: 'https://example.com/ask'}\nanswer: '[[['\n"), "is not a JMESPath expression"),
]


def test_a_typed_target_is_refused_in_words(token):
    at = app(token)  # one session for every refusal (each add is a rerun of it)
    for (kind, value), words in REFUSED:
        at = add_with_form(at, value) if kind == "form" else add_pasted(at, value)
        err = " ".join(e.value for e in at.error)
        assert "Not added" in err and words in err, (value, err)
        assert not any(k.startswith("typed:") for k in (c.key or "" for c in at.checkbox))


def test_typed_names_may_not_take_the_samples_and_typed_addresses_can_be_refused(token, monkeypatch):
    monkeypatch.setenv("RAG_EVAL_TYPED_PRIVATE_URLS", "on")
    at = add_with_form(app(token), "http://127.0.0.1:9/ask", name="v1")
    assert any("the name “v1” is taken by the sample app" in e.value for e in at.error)
    monkeypatch.setenv("RAG_EVAL_TYPED_URLS", "off")
    at = app(token)
    assert any("calls no address typed here" in i.value for i in at.info)
    with pytest.raises(KeyError):
        at.text_input(key="run_app.f.url")


def test_a_typed_target_runs_and_its_token_is_never_shown_or_stored(token, llm_server, monkeypatch):
    monkeypatch.setenv("RAG_EVAL_TYPED_PRIVATE_URLS", "on")  # the owner lets visitors reach loopback
    llm_server.respond(echo(TYPED_SECRET))
    at = add_with_form(app(token), llm_server.base_url + "/chat/completions", name="mine", header="Authorization",
                       value=f"Bearer {TYPED_SECRET}")
    assert any("Added “mine”" in s.value for s in at.success)
    assert at.checkbox(key="run_app.pick.typed:mine").value
    assert at.text_input(key="run_app.f.header_value").value == ""  # the token left its field
    at.checkbox(key="run_app.pick.sample:v1").uncheck()
    at.checkbox(key="run_app.pick.sample:v2").uncheck().run()
    at.button(key="run_app.go").click().run()
    at = finish(at, token)
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {TYPED_SECRET}"  # it was sent
    assert "**mine** · 15 of 16 answered, 1 failed" in md(at)
    failed = at.dataframe[0].value
    assert list(failed["question id"]) == ["sci-photosynthesis"] and "token *** refused" in failed["error"].iloc[0]
    shown = texts(at)
    assert TYPED_SECRET not in shown and "***" in shown
    on_disk = files_text(token)
    assert TYPED_SECRET not in on_disk
    manifest = folder.latest(token)[1]
    assert manifest["targets"][0]["has_headers"] is True and "headers" not in manifest["targets"][0]["spec"]["http"]


def test_a_typed_address_is_checked_again_when_the_page_connects(token, llm_server, monkeypatch):
    """The page runs a typed target through the library's runner, so its guarded connection applies:
    a name that passed the typed-URL check ("public" when added) but resolves to loopback when the
    call is made (DNS rebinding) is refused at the connection, and the app sees no request."""
    import ipaddress

    from evaluators import net

    monkeypatch.setattr(net, "_addresses", lambda host: [ipaddress.ip_address("93.184.216.34")])
    llm_server.respond(lambda body: Reply(body={"answer": "should never be asked", "sources": []}))
    url = llm_server.base_url.replace("127.0.0.1", "localhost") + "/chat/completions"
    at = add_pasted(app(token), f"name: rebound\nhttp: {{url: '{url}', body: {{question: '{{question}}'}}}}\n"
                                "answer: answer\nretries: 0\n")
    assert at.checkbox(key="run_app.pick.typed:rebound").value, [e.value for e in at.error]
    at.checkbox(key="run_app.pick.sample:v1").uncheck()
    at.checkbox(key="run_app.pick.sample:v2").uncheck().run()
    at.button(key="run_app.go").click().run()
    at = finish(at, token)
    assert not llm_server.requests
    assert "refused at connection time" in md(at) and "**rebound** · the run stopped: " in md(at)
    downloads = [e.proto.label for e in at.get("download_button")]
    # nothing answered: no "answers" offered
    assert downloads == ["Download rebound's cases file: every question with its error (JSONL)"], downloads


# ---- the owner's targets: secrets, limits ----------------------------------------------------------------
def test_the_owners_secret_reaches_the_app_and_never_the_page(token, tmp_path, llm_server, monkeypatch):
    owner_file(tmp_path, [http_target("prod", llm_server.base_url + "/chat/completions",
                                      http={"headers": {"Authorization": "Bearer ${APP_TOKEN}"}}),
                          {"name": "local-fn", "python": "tests.test_run_app_page:answer_fn"}], monkeypatch)
    llm_server.respond(echo(SECRET))
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.secrets["APP_TOKEN"] = SECRET  # a Streamlit secret, read at call time
    at.session_state[state._OWNER] = token
    at.run()
    at.switch_page(PAGE).run()
    at.button(key="run_app.go").click().run()
    at = finish(at, token)
    assert {r.headers["authorization"] for r in llm_server.requests} == {f"Bearer {SECRET}"}
    text = md(at)
    assert "**prod** · 15 of 16 answered, 1 failed" in text and "**local-fn** · 16 of 16 answered" in text
    shown = texts(at)
    assert SECRET not in shown and "token *** refused" in shown
    assert SECRET not in files_text(token)
    # calls to the owner's app count against the visitor's limit (answered calls, as billed LLM calls)
    assert resources.queue().ledger.used(token) == 15 + 16


def test_calls_to_the_owners_app_are_held_to_the_visitors_limits(token, tmp_path, monkeypatch):
    owner_file(tmp_path, [http_target("prod", "http://127.0.0.1:9/ask")], monkeypatch)
    monkeypatch.setenv("RAG_EVAL_MAX_LLM_CALLS", "10")
    at = app(token)
    err = " ".join(e.value for e in at.error)
    assert "16 calls to this deployment's own app" in err and "10 are left" in err
    assert at.button(key="run_app.go").disabled
    at.checkbox(key="run_app.pick.owner:prod").uncheck()
    at.checkbox(key="run_app.pick.sample:v1").check().run()  # the sample app is not the owner's spend
    assert not at.error and not at.button(key="run_app.go").disabled
    monkeypatch.setenv("RAG_EVAL_MAX_LLM_CALLS", "100")
    monkeypatch.setenv("RAG_EVAL_MAX_LLM_CASES", "5")
    at = app(token)
    assert any("takes at most 5 per run" in e.value for e in at.error)


# ---- the whole loop --------------------------------------------------------------------------------
def test_the_whole_loop_on_the_sample_app_opens_compare_and_results(token, tmp_store):
    at = app(token)
    at.button(key="run_app.go").click().run()
    assert not at.exception
    at = finish(at, token, back=False)
    assert at.title[0].value == "Compare"  # opened by itself: this session saw the run going
    at.switch_page(PAGE).run()
    text = md(at)
    assert "**v1** · 16 of 16 answered" in text and "**v2** · 16 of 16 answered" in text
    assert text.count("· evaluated") == 2
    runs = RunStore(str(tmp_store)).list(owner=token)
    # named by target and question set (issue 57 item 4), the pair kept in the run's settings
    assert sorted(r.name for r in runs) == ["v1 on the sample's questions", "v2 on the sample's questions"]
    assert {r.status for r in runs} == {"finished"}
    assert sorted(r.settings["app_run"]["target"] for r in runs) == ["v1", "v2"]
    case = RunStore(str(tmp_store)).load(runs[0].id, owner=token).results[0].case
    assert runs[0].name.startswith(case.metadata["target"] + " on ") and case.metadata["latency_s"] is not None
    assert folder.latest(token)[1]["complete"] is True
    at.button(key="run_app.compare").click().run()
    assert not at.exception and at.title[0].value == "Compare"
    assert at.selectbox(key="versions.base").value == next(r.id for r in runs if r.name.startswith("v1 "))
    assert at.multiselect(key="versions.cands").value == [next(r.id for r in runs if r.name.startswith("v2 "))]
    text = md(at)
    # one question set: the versions called by their targets, the question set said once
    assert any(c.value == "Runs of your app on the sample's questions: v1, v2." for c in at.caption)
    assert "**The app itself** — v2 against v1, paired by question" in text
    assert "tokens than v1" in text and "Neither version failed a question (16 paired)." in text
    grid = next(t.value for t in at.table if "K = 5" in t.value.columns)
    assert list(grid.index) == ["Hit rate", "Precision", "Recall", "MAP", "nDCG"] and "K = 5" in grid.columns
    assert "→" in grid.loc["nDCG", "K = 5"]
    assert any(c.value.startswith("MRR: ") for c in at.caption)
    diffs = next(c.proto.spec for c in at.get("plotly_chart") if c.key == "versions.diffs")
    assert "Expected adherence" in diffs and "Ndcg@5" not in diffs  # retrieval: in its grid, not again here
    at.switch_page("pages/3_results.py").run()
    assert "**The app itself** — 16 calls, latency p50" in md(at)


def test_cancel_keeps_the_answers_and_resume_asks_the_rest(token, tmp_path, llm_server, monkeypatch):
    owner_file(tmp_path, [http_target("slow", llm_server.base_url + "/chat/completions", concurrency=1)], monkeypatch)
    llm_server.respond(lambda body: Reply(body={"answer": "ok", "sources": []}, delay=0.15))
    at = app(token)
    at.button(key="run_app.go").click().run()
    end = time.monotonic() + 30
    while runner.get(token).targets[0].done < 2:
        assert time.monotonic() < end
        time.sleep(0.05)
    at.run()
    at.button(key="run_app.cancel").click().run()
    at = finish(at, token)
    t = runner.get(token).targets[0]
    assert t.status == "cancelled" and 2 <= t.done < 16 and t.run_id is None  # not evaluated
    assert f"**slow** · cancelled — {t.done} of 16 questions asked" in md(at)
    llm_server.respond(lambda body: Reply(body={"answer": "ok", "sources": []}))
    asked_before = llm_server.count
    at.button(key="run_app.resume").click().run()
    at = finish(at, token)
    t = runner.get(token).targets[0]
    assert t.status == "answered" and t.eval_status == "finished"
    assert llm_server.count - asked_before == 16 - t.already  # only the questions not yet answered
    ids = [json.loads(x)["id"] for x in t.cases.read_text(encoding="utf-8").splitlines()]
    assert len(ids) == len(set(ids)) == 16


def test_cancel_during_the_evaluations_is_honoured_and_resume_goes_on_from_there(token, tmp_store, monkeypatch):
    """Issue 57 item 3: Cancel pressed in the first second (the sample app answers its 16 questions in
    well under a second: the evaluations were going on) was taken, yet the run then opened Compare on
    half-evaluated runs; the other version sat at "16 of 16 answered … evaluation next"; during
    Resume a version read "0 of 0 answered". Now the page stays on the outcome, says what Cancel
    left, and Resume evaluates the rest (an evaluation cut part way, whole again)."""
    real = view._plan

    def chunked(*args):  # evaluations in chunks of 4 (a fast method's pace makes one chunk of 16)
        plan = real(*args)
        plan.submit["chunk_size"] = 4
        return plan
    monkeypatch.setattr(view, "_plan", chunked)
    fx.GATE.clear()  # every evaluation chunk waits: Cancel comes while v1 is being evaluated
    at = app(token)
    at.button(key="run_app.go").click().run()
    end = time.monotonic() + 60
    while (run := runner.get(token)).phase != "evaluating" or runner.get(token).targets[0].run_id is None:
        assert time.monotonic() < end and not run.finished
        time.sleep(0.05)
    at.run()
    at.button(key="run_app.cancel").click().run()

    fx.GATE.set()
    at = finish(at, token, back=False)

    assert at.title[0].value == "Run your app"  # honoured: no Compare opened on what Cancel left
    text = md(at)
    assert "evaluation next" not in text and "0 of 0" not in text, text
    assert any("You cancelled this run" in i.value for i in at.info)
    lines = [m for m in text.splitlines() if m.startswith("**v")]
    assert len(lines) == 2 and all("16 of 16 answered" in m for m in lines), lines
    allowed = ("· evaluation cancelled part way — Resume evaluates it again",
               "· not evaluated: cancelled first — Resume evaluates it")
    assert all(any(a in m for a in allowed) for m in lines), lines  # neither went on after Cancel
    fx.GATE.clear()  # Resume: the evaluations wait again, the lines are read meanwhile
    at = app(token)  # (a new AppTest session: AppTest would click the Cancel button it remembers again)
    at.button(key="run_app.resume").click().run()
    going = "\n".join(view.target_line(t) for t in runner.get(token).targets)
    assert "0 of 0" not in going and going.count("16 of 16 answered") == 2, going
    fx.GATE.set()
    at = finish(at, token, back=False)
    assert at.title[0].value == "Compare"  # Resume was not cancelled: the verdict opens
    runs = RunStore(str(tmp_store)).list(owner=token)
    assert len(runs) == 2 and {r.num_cases for r in runs} == {16} and {r.status for r in runs} == {"finished"}


def test_a_cancelled_target_and_one_not_evaluated_say_what_resume_does():
    t = runner.TargetRun("v2", "sample", Path("v2.jsonl"), status="answered", done=16, total=16)
    assert view.target_line(t).endswith("· evaluation next")  # while the run goes on
    assert view.target_line(t, ended=True, cancelled=True).endswith(
        "16 of 16 answered · not evaluated: cancelled first — Resume evaluates it")
    waiting = runner.TargetRun("v2", "sample", Path("v2.jsonl"), status="cancelled", total=16)
    assert view.target_line(waiting) == "**v2** · cancelled — 0 of 16 questions asked; Resume asks the others"


def test_a_run_a_restart_cut_short_is_offered_and_resumed(token, tmp_path, llm_server, monkeypatch):
    targets = owner_file(tmp_path, [http_target("prod", f"http://127.0.0.1:{closed_port()}/ask")], monkeypatch)
    at = app(token)
    at.button(key="run_app.go").click().run()
    at = finish(at, token)
    assert "**prod** · the run stopped: " in md(at) and "Resume asks the others" in md(at)
    runner.forget(token)  # the server restarted: no thread, the folder and its manifest on disk
    live = http_target("prod", llm_server.base_url + "/chat/completions")
    targets.write_text(json.dumps({"targets": [live]}), encoding="utf-8")
    llm_server.respond(lambda body: Reply(body={"answer": "ok", "sources": [{"id": "x", "text": "y"}]}))
    at = app(token)
    assert any("did not end" in w.value for w in at.warning)
    at.button(key="run_app.resume_saved").click().run()
    at = finish(at, token)
    assert "**prod** · 16 of 16 answered" in md(at) and "· evaluated" in md(at)
    assert folder.latest(token)[1]["complete"] is True


def test_the_apps_answers_are_evaluated_in_the_question_files_order():
    # the walk: the cases file holds the answers as the concurrent calls finished, and Results' "(file order)"
    # read q002, q004, q005, q006, q001 …
    from evaluators.types import TestCase

    done = [TestCase(id=i, question="q?", response="r.") for i in ("q2", "q4", "x", "q1", "q3")]
    assert [c.id for c in runner.in_question_order(done, ["q1", "q2", "q3", "q4"])] == ["q1", "q2", "q3", "q4", "x"]

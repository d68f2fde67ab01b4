"""The runner against a loopback HTTP app through real sockets (``llm_server``: scripted replies) and
against Python functions: retries honouring Retry-After, errors in words, concurrency, repeat, resume,
history passed through, cancellation — and no secret in any output."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time

import pytest

from evaluators.datasets import QuestionSet, load_questions
from evaluators.targets import TargetError, TargetPolicy, run_target, target_from_dict
from evaluators.targets.call import retry_after_seconds
from tests.llm_server import Reply, max_in_flight

SECRET = "sk-live-7c0ffee-run-secret"


def _questions(tmp_path, n=4, history=False) -> QuestionSet:
    p = tmp_path / "qs.jsonl"
    rows = []
    for i in range(1, n + 1):
        r = {"id": f"q{i}", "question": f"Question {i}?", "ground_truth": f"A{i}", "reference_context_ids": [f"d{i}"]}
        if history:
            r["history"] = [{"speaker": "user", "text": f"earlier {i}"}, {"speaker": "agent", "text": "ok"}]
        rows.append(r)
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return load_questions(p)


def _target(srv, **kw):
    spec = {"http": {"url": srv.base_url + "/chat/completions", "body": {"question": "{question}"}, "timeout_s": 5},
            "answer": "answer", "contexts": "sources", "usage": "usage", "retry_wait_s": 0.02, "retries": 3}
    http = kw.pop("http", {})
    spec["http"].update(http)
    spec.update(kw)
    return target_from_dict(spec, "t.yaml")


def _ok(body):
    q = body.get("question", "")
    return Reply(body={"answer": f"Answer to {q}", "sources": [{"id": "d1", "text": f"Passage for {q}"}],
                       "usage": {"prompt_tokens": 3}})


def _lines(path):
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_answers_with_passages_ids_usage_latency_and_references(llm_server, tmp_path):
    llm_server.respond(_ok)
    out = tmp_path / "cases.jsonl"
    r = run_target(_target(llm_server, match="id"), _questions(tmp_path), out)
    assert (r.answered, r.failed, r.complete) == (4, [], True)
    by = {x["id"]: x for x in _lines(out)}
    q1 = by["q1"]
    assert q1["response"] == "Answer to Question 1?" and q1["documents"] == ["Passage for Question 1?"]
    assert q1["document_ids"] == ["d1"] and q1["reference_context_ids"] == ["d1"] and q1["ground_truth"] == "A1"
    m = q1["metadata"]
    assert m["target"] == "t" and m["attempts"] == 1 and m["error"] is None and m["usage"] == {"prompt_tokens": 3}
    assert m["latency_s"] > 0 and m["retrieval_match"] == "id" and m["status"] == 200


def test_429_with_retry_after_and_5xx_are_retried(llm_server, tmp_path):
    llm_server.queue(Reply.error(429, headers={"Retry-After": "0.3"}), Reply.error(500), Reply.error(503))
    llm_server.respond(_ok)
    r = run_target(_target(llm_server, concurrency=1), _questions(tmp_path, 1), tmp_path / "c.jsonl")
    (line,) = _lines(tmp_path / "c.jsonl")
    assert r.answered == 1 and line["metadata"]["attempts"] == 4
    t = [x.t_received for x in llm_server.requests]
    assert t[1] - t[0] >= 0.28  # waited as the 429 asked
    assert line["metadata"]["elapsed_s"] >= 0.3 > line["metadata"]["latency_s"]


def test_a_question_failing_after_its_retries_is_written_with_its_error(llm_server, tmp_path):
    def respond(body):
        return Reply.error(503, "overloaded") if body["question"] == "Question 2?" else _ok(body)
    llm_server.respond(respond)
    out = tmp_path / "c.jsonl"
    r = run_target(_target(llm_server, retries=2), _questions(tmp_path, 3), out)
    assert r.answered == 2 and [i for i, _ in r.failed] == ["q2"]
    line = next(x for x in _lines(out) if x["id"] == "q2")
    assert line["response"] == "" and line["documents"] == [] and line["metadata"]["attempts"] == 3
    assert line["metadata"]["error"] == "the app answered 503 Service Unavailable: overloaded (after 3 attempts)"
    assert line["metadata"]["status"] == 503


@pytest.mark.parametrize("reply, words", [
    (Reply(body="<html>oops</html>"), "the app's reply is not JSON (application/json; it starts '<html>oops</html>')"),
    (Reply(body={"result": "x", "meta": {}}), "the reply has no answer at 'answer' (top-level keys: result, meta)"),
    (Reply.error(400, "k too big"), "the app answered 400 Bad Request: k too big"),
])
def test_replies_that_cannot_be_read_are_not_retried(llm_server, tmp_path, reply, words):
    llm_server.respond(lambda body: reply)
    r = run_target(_target(llm_server), _questions(tmp_path, 1), tmp_path / "c.jsonl")
    assert r.failed == [("q1", words)] and llm_server.count == 1


def test_a_slow_reply_times_out_and_is_retried(llm_server, tmp_path):
    llm_server.queue(Reply(body={"answer": "late"}, delay=1.0))
    llm_server.respond(_ok)
    r = run_target(_target(llm_server, http={"timeout_s": 0.3}), _questions(tmp_path, 1), tmp_path / "c.jsonl")
    (line,) = _lines(tmp_path / "c.jsonl")
    assert r.answered == 1 and line["metadata"]["attempts"] == 2
    llm_server.reset()
    llm_server.respond(lambda body: Reply(body={"answer": "late"}, delay=1.0))
    r = run_target(_target(llm_server, http={"timeout_s": 0.2}, retries=1), _questions(tmp_path, 1),
                   tmp_path / "c2.jsonl")
    assert r.failed == [("q1", "no whole reply within 0.2 s (http.timeout_s) (after 2 attempts)")]


def test_401_stops_the_run_without_retrying(llm_server, tmp_path):
    llm_server.respond(lambda body: Reply.error(401, "bad key"))
    out = tmp_path / "c.jsonl"
    r = run_target(_target(llm_server, concurrency=1), _questions(tmp_path, 5), out)
    assert r.fatal and r.stopped.startswith("the app refused the request: 401 Unauthorized")
    assert llm_server.count == 1 and r.not_called == 5 and out.read_text() == ""


def test_an_unreachable_app_stops_the_run_after_its_retries(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t = target_from_dict({"http": {"url": f"http://127.0.0.1:{port}/ask"}, "answer": "a", "retries": 1,
                          "retry_wait_s": 0.01}, "t.yaml")
    r = run_target(t, _questions(tmp_path, 3), tmp_path / "c.jsonl")
    assert r.fatal and r.stopped.startswith(f"cannot connect to http://127.0.0.1:{port}/ask (")
    assert "is the app running?" in r.stopped and "(after 2 attempts)" in r.stopped and r.answered == 0


def test_concurrency_is_used_and_bounded(llm_server, tmp_path):
    llm_server.respond(lambda body: Reply(body={"answer": "x"}, delay=0.3))
    qs, target = _questions(tmp_path, 8), _target(llm_server, concurrency=4)
    t0 = time.perf_counter()
    r = run_target(target, qs, None)
    took = time.perf_counter() - t0
    assert r.answered == 8 and len(r.records) == 8
    assert max_in_flight(llm_server.requests) == 4
    assert took < 8 * 0.3 * 0.75  # not one at a time (2 rounds of 4 take 0.6 s)


def test_rpm_spaces_the_calls(llm_server, tmp_path):
    llm_server.respond(_ok)
    qs, target = _questions(tmp_path, 6), _target(llm_server, rpm=600)
    t0 = time.perf_counter()
    r = run_target(target, qs, None)
    assert r.answered == 6 and time.perf_counter() - t0 >= 0.49  # 0.1 s apart, though 8 could go at once


def test_history_is_passed_through_with_its_json_type(llm_server, tmp_path):
    llm_server.respond(_ok)
    t = _target(llm_server, http={"body": {"question": "{question}", "history": "{history}", "id": "{id}",
                                           "note": "turns: {history}"}})
    r = run_target(t, _questions(tmp_path, 2, history=True), tmp_path / "c.jsonl")
    assert r.answered == 2
    got = sorted((x.json for x in llm_server.requests), key=lambda b: b["id"])
    assert got[0]["history"] == [{"speaker": "user", "text": "earlier 1"}, {"speaker": "agent", "text": "ok"}]
    assert got[0]["note"].startswith('turns: [{"speaker": "user"')
    line = next(x for x in _lines(tmp_path / "c.jsonl") if x["id"] == "q1")
    assert line["history"][0] == {"speaker": "user", "text": "earlier 1"}


def test_repeat_keeps_every_answer_under_its_own_id(llm_server, tmp_path):
    llm_server.respond(_ok)
    out = tmp_path / "c.jsonl"
    r = run_target(_target(llm_server), _questions(tmp_path, 2), out, repeat=3)
    assert r.answered == 6
    lines = _lines(out)
    assert sorted(x["id"] for x in lines) == ["q1#r1", "q1#r2", "q1#r3", "q2#r1", "q2#r2", "q2#r3"]
    assert {(x["metadata"]["question_id"], x["metadata"]["repeat"]) for x in lines} >= {("q1", 3), ("q2", 1)}


def test_resume_asks_only_what_is_missing_and_handles_a_cut_line(llm_server, tmp_path):
    llm_server.respond(_ok)
    qs = _questions(tmp_path, 5)
    out = tmp_path / "c.jsonl"
    run_target(_target(llm_server), qs.rows[:2], out)
    out.write_text(out.read_text() + '{"id": "q3", "question": "Quest', encoding="utf-8")  # a kill mid-line
    with pytest.raises(TargetError, match="already holds 2 answered questions"):
        run_target(_target(llm_server), qs, out)
    llm_server.reset()
    llm_server.respond(_ok)
    r = run_target(_target(llm_server), qs, out, resume=True)
    assert (r.already, r.answered, llm_server.count) == (2, 3, 3)
    assert sorted(x["id"] for x in _lines(out)) == ["q1", "q2", "q3", "q4", "q5"]


def test_resume_keeps_failed_questions_unless_asked_to_retry_them(llm_server, tmp_path):
    qs = _questions(tmp_path, 3)
    out = tmp_path / "c.jsonl"
    llm_server.respond(lambda b: Reply.error(400, "no") if b["question"] == "Question 1?" else _ok(b))
    run_target(_target(llm_server), qs, out)
    llm_server.reset()
    llm_server.respond(_ok)
    r = run_target(_target(llm_server), qs, out, resume=True)
    assert (r.total, r.kept_failed, llm_server.count) == (0, 1, 0)
    r = run_target(_target(llm_server), qs, out, resume=True, retry_failed=True)
    assert (r.total, r.answered, llm_server.count) == (1, 1, 1)
    lines = _lines(out)
    assert sorted(x["id"] for x in lines) == ["q1", "q2", "q3"] and all(x["metadata"]["error"] is None for x in lines)


def test_resume_refuses_another_targets_or_questions_file(llm_server, tmp_path):
    llm_server.respond(_ok)
    out = tmp_path / "c.jsonl"
    run_target(_target(llm_server), _questions(tmp_path, 2), out)
    with pytest.raises(TargetError, match="written by target 't', not 'other'"):
        run_target(_target(llm_server, name="other"), _questions(tmp_path, 2), out, resume=True)
    with pytest.raises(TargetError, match=r"holds id 'q[12]', which is not a question of this file with repeat 2"):
        run_target(_target(llm_server), _questions(tmp_path, 2), out, resume=True, repeat=2)


def test_should_stop_cancels_and_resume_finishes(llm_server, tmp_path):
    llm_server.respond(lambda body: Reply(body={"answer": "x"}, delay=0.1))
    stop = threading.Event()
    seen: list[str] = []

    def on_record(line):
        seen.append(line["id"])
        if len(seen) == 3:
            stop.set()
    qs = _questions(tmp_path, 12)
    out = tmp_path / "c.jsonl"
    r = run_target(_target(llm_server, concurrency=2), qs, out, on_record=on_record, should_stop=stop.is_set)
    assert r.stopped == "cancelled" and not r.fatal and 3 <= r.answered < 12 and r.not_called == 12 - r.answered
    r2 = run_target(_target(llm_server, concurrency=2), qs, out, resume=True)
    assert r2.complete and sorted(x["id"] for x in _lines(out)) == sorted(q.id for q in qs.rows)


def test_unknown_columns_and_unset_variables_fail_before_any_call(llm_server, tmp_path, monkeypatch):
    monkeypatch.delenv("APP_TOKEN_UNSET", raising=False)
    with pytest.raises(TargetError, match=r"http.body.x uses \{nope\}, which is not a column of qs.jsonl"):
        run_target(_target(llm_server, http={"body": {"x": "{nope}"}}), _questions(tmp_path), None)
    with pytest.raises(TargetError, match=r"http.headers.Authorization uses \$\{APP_TOKEN_UNSET\}, which is not set"):
        run_target(_target(llm_server, http={"headers": {"Authorization": "Bearer ${APP_TOKEN_UNSET}"}}),
                   _questions(tmp_path), None)
    assert llm_server.count == 0


# ------------------------------------------------------------------------------ Python targets
APP_MODULE = '''
import asyncio

def answer(row):
    if row["id"] == "q2":
        raise ValueError("no passage for " + row["question"])
    return {"answer": "sync " + row["question"], "contexts": [{"id": "d1", "text": "one"}, {"id": "d2", "text": "two"}],
            "usage": {"n": 1}, "seen_history": row.get("history")}

async def answer_async(row):
    await asyncio.sleep(0.01)
    return "async " + row["question"] + " " + str(len(row.get("history") or []))

CALLS = {"n": 0}

def flaky(row):
    CALLS["n"] += 1
    if CALLS["n"] == 1:
        raise TimeoutError("slow backend")
    return {"answer": "ok", "contexts": ["p"]}
'''


@pytest.fixture
def app_module(tmp_path, monkeypatch):
    (tmp_path / "my_rag_app.py").write_text(APP_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "my_rag_app"
    sys.modules.pop("my_rag_app", None)


def test_python_targets_sync_and_async(app_module, tmp_path):
    qs = _questions(tmp_path, 3, history=True)
    r = run_target(target_from_dict({"python": f"{app_module}:answer"}, "p.yaml"), qs, tmp_path / "s.jsonl")
    assert r.answered == 2 and r.failed == [("q2", "my_rag_app:answer raised ValueError: no passage for Question 2?")]
    q1 = next(x for x in _lines(tmp_path / "s.jsonl") if x["id"] == "q1")
    assert q1["response"] == "sync Question 1?" and q1["documents"] == ["one", "two"]
    assert q1["document_ids"] == ["d1", "d2"] and q1["metadata"]["usage"] == {"n": 1}
    r = run_target(target_from_dict({"python": f"{app_module}:answer_async"}, "p.yaml"), qs, None)
    assert sorted(x["response"] for x in r.records) == [f"async Question {i}? 2" for i in (1, 2, 3)]
    r = run_target(target_from_dict({"python": f"{app_module}:flaky", "retry_wait_s": 0.01}, "p.yaml"),
                   qs.rows[:1], None)
    assert r.answered == 1 and r.records[0]["metadata"]["attempts"] == 2


def test_a_python_target_that_cannot_be_imported_is_named(tmp_path):
    with pytest.raises(TargetError, match=r"python: cannot import 'no_such_module_xyz'"):
        run_target(target_from_dict({"python": "no_such_module_xyz:f"}, "p.yaml"), _questions(tmp_path), None)
    with pytest.raises(TargetError, match=r"python: 'json' has no function 'nope'"):
        run_target(target_from_dict({"python": "json:nope"}, "p.yaml"), _questions(tmp_path), None)


# ------------------------------------------------------------------------------ policy, at run time
def test_a_visitor_target_sends_no_environment_value(llm_server, tmp_path, monkeypatch):
    monkeypatch.setenv("APP_TOKEN", SECRET)
    visitor = TargetPolicy.visitor(environ={"RAG_EVAL_TYPED_PRIVATE_URLS": "on"})
    spec = {"http": {"url": llm_server.base_url + "/chat/completions",
                     "headers": {"Authorization": "Bearer ${APP_TOKEN}"}}, "answer": "answer"}
    with pytest.raises(TargetError, match="environment variables are not read"):
        target_from_dict(spec, "typed", visitor)
    llm_server.respond(_ok)
    spec["http"]["headers"] = {"Authorization": "Bearer typed-by-visitor"}
    spec["http"]["body"] = {"question": "{question}"}
    r = run_target(target_from_dict(spec, "typed", visitor), _questions(tmp_path, 2), None)
    assert r.answered == 2
    sent = json.dumps([[x.headers, x.json, x.path] for x in llm_server.requests])
    assert SECRET not in sent and "typed-by-visitor" in sent
    with pytest.raises(TargetError, match="loopback or private"):
        target_from_dict(spec, "typed", TargetPolicy.visitor(environ={}))


def test_retry_after_forms():
    assert retry_after_seconds("2.5") == 2.5 and retry_after_seconds(None) is None
    assert retry_after_seconds("garbage") is None
    assert 0 <= retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


def test_a_visitor_address_that_resolves_elsewhere_at_connection_time_is_refused(llm_server, tmp_path, monkeypatch):
    """DNS rebinding: the name passed the typed-URL check (it resolved to a public address then) but
    resolves to loopback when the connection is made — the guarded connection refuses it, and the app
    sees no request."""
    import ipaddress

    from evaluators import net

    monkeypatch.setattr(net, "_addresses", lambda host: [ipaddress.ip_address("93.184.216.34")])
    llm_server.respond(_ok)
    spec = {"http": {"url": llm_server.base_url.replace("127.0.0.1", "localhost") + "/chat/completions",
                     "body": {"question": "{question}"}, "timeout_s": 5}, "answer": "answer", "retries": 0}
    target = target_from_dict(spec, "typed", TargetPolicy.visitor(environ={}))  # passes: "public" at load
    r = run_target(target, _questions(tmp_path, 2), None)
    assert r.answered == 0 and not llm_server.requests
    assert "refused at connection time" in (r.stopped or "") + json.dumps(r.failed)


def test_a_reply_over_the_size_limit_is_not_read(llm_server, tmp_path):
    llm_server.respond(lambda body: Reply(body={"answer": "x" * 5000}))
    out = tmp_path / "cases.jsonl"
    r = run_target(_target(llm_server, retries=0, http={"max_reply_mb": 200 / 2**20}), _questions(tmp_path, 1), out)
    assert r.answered == 0 and len(r.failed) == 1 and "over 200 bytes" in r.failed[0][1]

"""``run`` and ``evaluate --target`` from the command line: exit codes, messages naming what is wrong,
a ``kill -9`` mid-run then ``--resume`` (every question once, only the missing ones asked), secrets in
no output, and the whole loop with the sample app — a question the app did not answer is a case
flagged with its error, the others scored."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from evaluators.cli import main
from evaluators.sample_app import SAMPLE_QUESTIONS, Faults, serve_in_thread
from evaluators.targets import scan
from tests.llm_server import Reply

ROOT = Path(__file__).resolve().parents[1]
SECRET = "tok-91b2-cli-never-shown-4e7d"


def _target(tmp_path, url, name="app", **extra) -> Path:
    spec = {"name": name, "http": {"url": url, "body": {"question": "{question}"}, "timeout_s": 5},
            "answer": "answer", "contexts": "sources[*].text", "context_ids": "sources[*].id", "usage": "usage",
            "retry_wait_s": 0.02, **extra}
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(spec), encoding="utf-8")
    return p


def _questions(tmp_path, n=4) -> Path:
    p = tmp_path / "qs.jsonl"
    p.write_text("".join(json.dumps({"id": f"q{i}", "question": f"Who wrote book {i}?"}) + "\n"
                         for i in range(1, n + 1)), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def sample_app():
    with serve_in_thread() as running:
        yield running


def test_exit_0_when_every_question_is_answered(sample_app, tmp_path, capsys):
    out = tmp_path / "c.jsonl"
    code = main(["run", str(SAMPLE_QUESTIONS), "--target", str(_target(tmp_path, sample_app.url_for("v1"))),
                 "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0 and f"wrote {out}: 16 answered, 0 failed" in err
    assert len(scan(out).done) == 16


def test_exit_1_when_some_questions_failed(llm_server, tmp_path, capsys):
    llm_server.respond(lambda b: Reply.error(500, "boom") if b["question"].endswith("2?") else
                       Reply(body={"answer": "yes", "sources": []}))
    code = main(["run", str(_questions(tmp_path)), "--target",
                 str(_target(tmp_path, llm_server.base_url + "/chat/completions", retries=1)),
                 "--out", str(tmp_path / "c.jsonl"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and "3 answered, 1 failed" in err
    assert "failed: q2: the app answered 500 Internal Server Error: boom (after 2 attempts)" in err


def test_exit_2_for_bad_files_and_an_app_that_cannot_be_called(llm_server, tmp_path, capsys):
    qs = _questions(tmp_path)
    bad = tmp_path / "bad.yaml"
    bad.write_text("http:\n  method: POST\nanswer: answer\n", encoding="utf-8")
    assert main(["run", str(qs), "--target", str(bad), "--out", str(tmp_path / "a.jsonl")]) == 2
    assert f"error: {bad}: field 'http.url' is missing" in capsys.readouterr().err
    noq = tmp_path / "noq.csv"
    noq.write_text("id,prompt_text\n1,hi\n", encoding="utf-8")
    target = _target(tmp_path, llm_server.base_url + "/chat/completions")
    assert main(["run", str(noq), "--target", str(target), "--out", str(tmp_path / "b.jsonl")]) == 2
    assert "noq.csv" in (err := capsys.readouterr().err) and "no question column found" in err
    llm_server.respond(lambda b: Reply.error(403, "forbidden"))
    assert main(["run", str(qs), "--target", str(target), "--out", str(tmp_path / "c.jsonl"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "error: the run stopped: the app refused the request: 403 Forbidden" in err
    assert "4 questions were not asked; the same command with --resume asks them" in err
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = _target(tmp_path, f"http://127.0.0.1:{port}/ask", name="down", retries=0)
    assert main(["run", str(qs), "--target", str(down), "--out", str(tmp_path / "d.jsonl"), "--no-progress"]) == 2
    assert f"cannot connect to http://127.0.0.1:{port}/ask" in capsys.readouterr().err
    (tmp_path / "e.jsonl").write_text('{"id": "q1", "question": "x", "metadata": {"target": "app"}}\n')
    assert main(["run", str(qs), "--target", str(target), "--out", str(tmp_path / "e.jsonl")]) == 2
    assert "already holds 1 answered questions" in capsys.readouterr().err


def test_secrets_reach_no_output(llm_server, tmp_path):
    """APP_TOKEN is sent (header, URL, body) and echoed back by the app; every failure kind happens;
    neither stdout, stderr nor the cases file holds it."""
    def respond(body):
        q = body["question"]
        if q.endswith("1?"):
            return Reply(body={"answer": f"echo {body['token']}", "sources": [{"id": "d", "text": body["token"]}]})
        if q.endswith("2?"):
            return Reply.error(503, f"overloaded for {body['token']}")
        if q.endswith("3?"):
            return Reply(body=f"<html>{body['token']}</html>")
        if q.endswith("4?"):
            return Reply(body={"detail": body["token"]})
        return Reply(body={"answer": "late"}, delay=1.0)
    llm_server.respond(respond)
    url = llm_server.base_url + "/${APP_TOKEN}/chat/completions"
    target = _target(tmp_path, url, retries=1, http={"url": url, "headers": {"Authorization": "Bearer ${APP_TOKEN}"},
                                                      "body": {"question": "{question}", "token": "${APP_TOKEN}"},
                                                      "timeout_s": 0.3})
    out = tmp_path / "c.jsonl"
    env = {**os.environ, "APP_TOKEN": SECRET}
    proc = subprocess.run([sys.executable, "-m", "evaluators", "run", str(_questions(tmp_path, 5)), "--target",
                           str(target), "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 1, proc.stderr
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {SECRET}"  # it was sent
    assert all(f"/{SECRET}/" in r.path for r in llm_server.requests)
    assert "4 failed" in proc.stderr and "echo ***" in out.read_text()
    for text in (proc.stdout, proc.stderr, out.read_text()):
        assert SECRET not in text
    # a fatal stop: the URL with the secret in its query is shown as the file writes it
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = _target(tmp_path, f"http://127.0.0.1:{port}/ask?key=${{APP_TOKEN}}", name="down", retries=0)
    proc = subprocess.run([sys.executable, "-m", "evaluators", "run", str(_questions(tmp_path, 2)), "--target",
                           str(down), "--out", str(tmp_path / "d.jsonl")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 2 and "key=${APP_TOKEN}" in proc.stderr and SECRET not in proc.stdout + proc.stderr


def test_kill_9_mid_run_then_resume_asks_each_question_once(tmp_path):
    with serve_in_thread(faults=Faults(delay_s=0.4)) as app:  # 8 rounds of 0.4 s: time to kill mid-run
        out = tmp_path / "c.jsonl"
        target = _target(tmp_path, app.url_for("v1"), concurrency=2)
        cmd = [sys.executable, "-m", "evaluators", "run", str(SAMPLE_QUESTIONS), "--target", str(target),
               "--out", str(out), "--no-progress"]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and out.read_text(encoding="utf-8").count("\n") >= 4:
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
        before = scan(out)
        assert 4 <= len(before.done) < 16
        calls = httpx.get(app.base_url + "/health").json()["calls"]
        done = subprocess.run([*cmd, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, done.stderr
        assert f"{16 - len(before.done)} answered, 0 failed, {len(before.done)} already there" in done.stderr
        assert httpx.get(app.base_url + "/health").json()["calls"] - calls == 16 - len(before.done)
    ids = [json.loads(x)["id"] for x in out.read_text(encoding="utf-8").splitlines()]
    assert len(ids) == 16 and len(set(ids)) == 16


def test_evaluate_target_runs_the_app_then_scores_it(sample_app, tmp_path, capsys):
    rows = [json.loads(x) for x in SAMPLE_QUESTIONS.read_text(encoding="utf-8").splitlines()[:5]]
    for r in rows:
        r["k"] = 0 if r["id"] == "docs-router-reset" else 3  # the app refuses k=0: that question gets no answer
    qs = tmp_path / "questions.jsonl"
    qs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    target = _target(tmp_path, sample_app.url_for("v2"), name="v2", match="id",
                     http={"url": sample_app.url_for("v2"), "body": {"question": "{question}", "k": "{k}"}})
    out = tmp_path / "results.json"
    code = main(["evaluate", str(qs), "--target", str(target), "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1, err  # one question unanswered
    cases = tmp_path / "results.cases.jsonl"
    assert f"wrote {cases}: 4 answered, 1 failed" in err and f"evaluating the app's answers: {cases}" in err
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["target"]["name"] == "v2" and d["target"]["cases"] == str(cases) and d["target"]["failed"] == 1
    assert d["num_samples"] == 5 and d["num_scored"] == 4
    by = {c["id"]: c for c in d["detailed_results"]}
    failed = by["docs-router-reset"]
    assert failed["error"] == ("the app gave no answer: the app answered 400 Bad Request: "
                               "'k' is a whole number from 1 to 50")
    assert failed["metrics"]["adherence"] is None
    scored = by["sci-photosynthesis"]
    assert scored["error"] is None and scored["metadata"]["target"] == "v2"
    assert scored["metadata"]["retrieval_match"] == "id" and scored["document_ids"]
    assert scored["reference_context_ids"] == ["photosynthesis#1"]

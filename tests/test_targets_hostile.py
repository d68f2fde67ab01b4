"""The runner against an app that misbehaves on purpose (``tests/hostile_app.py``, one server on
127.0.0.1 for the module), through the CLI as a user runs it (issue 56 items 1-6): for every case no
question is lost (each written, answered or with its error; exit 1 when some failed, 2 when the run
stopped, saying why), the token is in no file / line / message in any form, redirects are followed
only as the target says, replies are bounded while they are read, and every call ends by its
deadline. Sizes are small here (a limit lowered through the target file); the 500 MB replies and
gzip bombs at concurrency 64 are measured in ``bench/hostile_memory.py``."""

from __future__ import annotations

import asyncio
import base64
import html
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from urllib.parse import quote, quote_plus

import httpx
import pytest

from evaluators.cli import main
from evaluators.net import listens_on_loopback_only
from evaluators.targets import TargetError, TargetPolicy, run_target, target_from_dict
from evaluators.targets.reply import read_body
from tests.hostile_app import HostileApp

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "sk/live+7c0ffee/9a8b+7c6d5e4f3a2b1c0d9e8f"
BASIC = base64.b64encode(f"alice:{TOKEN}".encode()).decode()
MB = 1024 * 1024


@pytest.fixture(scope="module")
def app():
    with HostileApp() as running:
        yield running


@pytest.fixture
def env(monkeypatch, app):
    app.reset()
    monkeypatch.setenv("HOSTILE_TOKEN", TOKEN)
    monkeypatch.setenv("HOSTILE_BASIC", BASIC)
    monkeypatch.delenv("HOSTILE_UNSET", raising=False)


def _questions(tmp_path: Path, n: int) -> Path:
    p = tmp_path / "qs.jsonl"
    p.write_text("".join(json.dumps({"id": f"q{i}", "question": f"Question {i}?"}) + "\n" for i in range(1, n + 1)),
                 encoding="utf-8")
    return p


def _target(tmp_path: Path, url: str, *, headers: dict | None = None, http: dict | None = None, **extra) -> Path:
    spec = {"name": "hostile", "http": {"url": url, "body": {"question": "{question}"}, "timeout_s": 5,
                                        "headers": headers if headers is not None else
                                        {"Authorization": "Bearer ${HOSTILE_TOKEN}", "X-Api-Key": "${HOSTILE_TOKEN}"},
                                        **(http or {})},
            "answer": "answer", "contexts": "contexts", "retries": 0, "retry_wait_s": 0.01, **extra}
    p = tmp_path / "target.json"
    p.write_text(json.dumps(spec), encoding="utf-8")
    return p


def _run(capsys, tmp_path: Path, url: str, n: int = 2, *args: str, **target) -> tuple[int, str, list[dict]]:
    out = tmp_path / "cases.jsonl"
    code = main(["run", str(_questions(tmp_path, n)), "--target", str(_target(tmp_path, url, **target)),
                 "--out", str(out), "--no-progress", *args])
    captured = capsys.readouterr()
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    _assert_no_token(captured.out + captured.err, tmp_path)
    return code, captured.err, lines


def token_forms(secret: str = TOKEN) -> list[str]:
    """The forms an app may repeat a secret in (as sent, JSON-escaped, URL-encoded, HTML, \\u, base64
    at each alignment, Basic credentials)."""
    forms = {secret, json.dumps(secret).strip('"').replace("/", "\\/"), quote(secret, safe=""),
             quote(secret, safe="").lower(), quote_plus(secret), html.escape(secret).replace("/", "&#x2F;"),
             "".join(f"\\u{ord(c):04x}" for c in secret), f"alice:{secret}"}
    for prefix in ("", "a", "ab", "alice:", "user=alice:"):
        enc = base64.b64encode((prefix + secret).encode()).decode()
        start = -(-len(prefix) * 4 // 3) + 1
        forms.add(enc[start:-4])
        forms.add(enc[start:-4].translate(str.maketrans("+/", "-_")))
    return sorted(forms)


def _windows(form: str, n: int = 10) -> list[str]:
    return [form[i:i + n] for i in range(0, max(1, len(form) - n + 1))]


def _assert_no_token(printed: str, folder: Path) -> None:
    texts = {"stdout/stderr": printed}
    for f in folder.rglob("*"):
        if f.is_file():
            texts[str(f)] = f.read_bytes().decode("utf-8", "replace")
    for where, text in texts.items():
        for form in token_forms():
            for w in _windows(form, 36 if "\\u" in form else 10):  # 6 characters of the token as \uXXXX
                assert w not in text, f"{w!r} (of {form!r}) in {where}"


# ------------------------------------------------------------------------------ 1. no question lost
def test_json_nested_100000_deep_is_each_questions_error(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/deep"), 3)
    assert code == 1 and "0 answered, 3 failed" in err
    assert sorted(x["id"] for x in lines) == ["q1", "q2", "q3"]
    assert all(x["metadata"]["error"] == "the app's reply (200 OK) is JSON nested deeper than 100 levels: not read"
               for x in lines)
    code, err, lines = _run(capsys, tmp_path, app.url("/deep?status=422"), 2, "--overwrite")  # as an error body
    assert code == 1 and all(x["metadata"]["error"].startswith("the app answered 422 Unprocessable Entity: "
                                                               '{"answer": [[[[') for x in lines)


def test_every_fifth_reply_deep_loses_no_question_in_run_or_evaluate(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/deep?every=5"), 20, "--concurrency", "4")
    assert code == 1 and "16 answered, 4 failed" in err
    assert sorted(x["id"] for x in lines) == sorted(f"q{i}" for i in range(1, 21))
    assert sorted(x["id"] for x in lines if x["metadata"]["error"]) == ["q10", "q15", "q20", "q5"]
    out = tmp_path / "r.json"
    target = _target(tmp_path, app.url("/deep?every=5"))
    qs = _questions(tmp_path, 20)
    code = main(["evaluate", str(qs), "--target", str(target), "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1, err
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["num_samples"] == 20 and d["num_scored"] == 16  # the four unanswered are cases flagged with why
    flagged = {c["id"]: c["error"] for c in d["detailed_results"] if c["error"]}
    assert sorted(flagged) == ["q10", "q15", "q20", "q5"]
    assert all("nested deeper than 100 levels" in e for e in flagged.values())
    _assert_no_token(err, tmp_path)


def test_a_connection_cut_mid_reply_is_retried_then_written_with_its_error(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/cut"), 2, retries=1)
    assert code == 1 and len(lines) == 2
    assert all(x["metadata"]["error"].startswith("the connection to the app broke (RemoteProtocolError")
               and x["metadata"]["attempts"] == 2 for x in lines)


def test_invalid_utf8_and_a_lone_surrogate_are_read_and_said(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/badutf8"), 1)
    assert code == 0
    (line,) = lines
    assert line["response"].startswith("caf\ufffd \ufffd\ufffd na\u00efve \ufffd")
    assert line["documents"] == ["ok \ufffd"]
    assert "the reply is not valid UTF-8 (a bad byte at 15)" in line["metadata"]["notes"][0]
    (tmp_path / "cases.jsonl").read_text(encoding="utf-8")  # the file is valid UTF-8


def test_50000_contexts_are_the_questions_error_not_a_case_of_50000_documents(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/contexts?n=50000"), 2)
    assert code == 1 and len(lines) == 2
    assert lines[0]["metadata"]["error"] == ("the app gave 50,000 passages: more than 1,000 are not read (is its "
                                             "number of passages, k, applied?)")
    assert lines[0]["documents"] == []


def test_a_401_stops_the_run_with_exit_2_and_an_unset_variable_before_any_call(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/echo?status=401&form=json"), 3)
    assert code == 2 and "error: the run stopped: the app refused the request: 401 Unauthorized" in err
    assert "3 questions were not asked; the same command with --resume asks them" in err and lines == []
    app.reset()
    code, err, lines = _run(capsys, tmp_path, app.url("/ok"), 2, "--overwrite",
                            headers={"Authorization": "Bearer ${HOSTILE_UNSET}"})
    assert code == 2 and "http.headers.Authorization uses ${HOSTILE_UNSET}, which is not set" in err
    assert app.requests == [] and lines == []


# ----------------------------------------------------------------------- 2. the token in no form
@pytest.mark.parametrize("status, form", [(400, "plain"), (200, "plain"), (400, "json"), (500, "json"),
                                          (400, "jsonraw"), (422, "html"), (400, "url"), (400, "unicode"),
                                          (503, "plain")])
def test_headers_echoed_in_an_error_reply_never_show_the_token(env, app, tmp_path, capsys, status, form):
    code, err, lines = _run(capsys, tmp_path, app.url(f"/echo?status={status}&form={form}"), 2, retries=1)
    assert code == 1 and len(lines) == 2
    assert app.requests[0].headers["authorization"] == f"Bearer {TOKEN}"  # it was sent
    error = lines[0]["metadata"]["error"]
    assert "***" in error and len(error) < 400
    if status == 200:
        assert error.startswith("the app's reply is not JSON (text/plain; it starts 'Bad request, key=")


def test_basic_credentials_echoed_decoded_or_reencoded_never_show(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/echo?status=400&form=basic"), 2,
                            headers={"Authorization": "Basic ${HOSTILE_BASIC}"})
    assert code == 1 and app.requests[0].headers["authorization"] == f"Basic {BASIC}"
    assert lines[0]["metadata"]["error"].startswith("the app answered 400 Bad Request: credentials '***' refused")


def test_a_token_in_an_answer_or_a_url_is_masked_too(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/ok?key=${HOSTILE_TOKEN}"), 1,
                            http={"body": {"question": "{question} ${HOSTILE_TOKEN}"}})
    assert code == 0 and "***" in lines[0]["response"] and "***" in lines[0]["documents"][0]


# ------------------------------------------------------------------------------------ 3. redirects
@pytest.fixture
def connects(monkeypatch):
    """Every TCP connection the event loop attempts (its address), recorded before it is made."""
    from asyncio import selector_events

    seen: list[object] = []
    real = selector_events.BaseSelectorEventLoop.sock_connect

    async def sock_connect(self, sock, address):
        seen.append(address)
        return await real(self, sock, address)

    monkeypatch.setattr(selector_events.BaseSelectorEventLoop, "sock_connect", sock_connect)
    return seen


def test_a_redirect_is_not_followed_unless_the_target_says_so(env, app, tmp_path, capsys, connects):
    to = quote(app.url("/ok"), safe="")
    code, err, lines = _run(capsys, tmp_path, app.url(f"/redirect?status=302&to={to}"), 2)
    assert code == 1 and app.paths() == [f"/redirect?status=302&to={to}"] * 2  # /ok never asked
    assert lines[0]["metadata"]["error"].startswith(f"the app answered 302 Found to {app.url('/ok')}: redirects are "
                                                    "not followed unless the target sets http.follow_redirects")
    assert lines[0]["response"] == ""  # never "An answer to: ?"
    app.reset()
    code, err, lines = _run(capsys, tmp_path, app.url(f"/redirect?status=302&to={to}"), 1, "--overwrite",
                            http={"follow_redirects": True})
    assert "only 307 / 308 are followed" in lines[0]["metadata"]["error"] and len(app.requests) == 1


def test_a_307_is_followed_when_asked_keeping_method_body_and_headers_on_the_same_origin(env, app, tmp_path,
                                                                                           capsys):
    to = quote(app.url("/ok"), safe="")
    code, err, lines = _run(capsys, tmp_path, app.url(f"/redirect?status=307&to={to}"), 1,
                            http={"follow_redirects": True})
    assert code == 0 and lines[0]["response"] == "An answer to: Question 1?"
    hop = app.requests[1]
    assert (hop.method, hop.path, hop.body) == ("POST", "/ok", {"question": "Question 1?"})
    assert hop.headers["x-api-key"] == TOKEN


def test_a_redirect_to_another_origin_needs_allowing_and_drops_the_targets_headers(env, app, tmp_path, capsys):
    other = app.url("/ok", host="localhost")
    to = quote(other, safe="")
    code, err, lines = _run(capsys, tmp_path, app.url(f"/redirect?status=308&to={to}"), 1,
                            http={"follow_redirects": True})
    assert code == 1
    assert "another origin than the target's, not in http.redirect_origins" in lines[0]["metadata"]["error"]
    assert len(app.requests) == 1
    app.reset()
    code, err, lines = _run(capsys, tmp_path, app.url(f"/redirect?status=308&to={to}"), 1, "--overwrite",
                            http={"follow_redirects": True, "redirect_origins": [f"http://localhost:{app.port}"]})
    assert code == 0 and lines[0]["response"] == "An answer to: Question 1?"
    hop = app.requests[1]
    assert hop.method == "POST" and hop.body == {"question": "Question 1?"}
    assert "authorization" not in hop.headers and "x-api-key" not in hop.headers


@pytest.mark.parametrize("status, follow", [(302, False), (307, True), (308, True)])
def test_a_redirect_to_a_link_local_address_is_refused_before_connecting(env, app, tmp_path, capsys, connects,
                                                                        status, follow):
    metadata = "http://169.254.169.254/latest/meta-data/iam"
    code, err, lines = _run(capsys, tmp_path, app.url(f"/redirect?status={status}&to={quote(metadata, safe='')}"),
                            1, http={"follow_redirects": follow, "redirect_origins": ["http://169.254.169.254"]})
    error = lines[0]["metadata"]["error"]
    assert code == 1 and error.startswith(f"the app answered {status} ")
    assert f"to {metadata}" in error  # the redirect is blamed, not the target's URL
    if follow:
        assert "refused before connecting" in error and "link-local" in error
    assert connects and all(a[0] == "127.0.0.1" for a in connects)  # nothing ever sent to 169.254.*


# --------------------------------------------------------------------- 4. bounded while reading
@pytest.mark.parametrize("length", ["1", "0"])
def test_a_reply_over_the_limit_is_refused_while_read_with_or_without_a_length(env, app, tmp_path, capsys, length):
    code, err, lines = _run(capsys, tmp_path, app.url(f"/big?mb=64&length={length}"), 1,
                            http={"max_reply_mb": 1})
    suffix = " (its Content-Length)" if length == "1" else ""
    assert lines[0]["metadata"]["error"] == f"the app's reply (200 OK) is over 1,048,576 bytes{suffix}: not read"
    time.sleep(0.2)
    assert app.sent.get(f"/big?mb=64&length={length}", 0) < 40 * MB  # the runner hung up: the app stopped


@pytest.mark.parametrize("layers", [1, 2])
def test_a_gzip_bomb_is_refused_once_the_decoded_bytes_pass_the_limit(env, app, tmp_path, capsys, layers):
    code, err, lines = _run(capsys, tmp_path, app.url(f"/bomb?mb=64&layers={layers}"), 1,
                            http={"max_reply_mb": 1})
    assert lines[0]["metadata"]["error"] == ("the app's reply (200 OK) is over 1,048,576 bytes once decompressed "
                                             f"({', '.join(['gzip'] * layers)}): not read")


def test_an_error_status_with_a_body_over_the_limit_is_still_that_error(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/bomb?mb=8&status=503"), 1, retries=1,
                            http={"max_reply_mb": 1})
    assert code == 1 and lines[0]["metadata"]["error"] == "the app answered 503 Service Unavailable (after 2 attempts)"
    code, err, lines = _run(capsys, tmp_path, app.url("/bomb?mb=8&status=401"), 1, "--overwrite",
                            http={"max_reply_mb": 1})
    assert code == 2 and "the app refused the request: 401 Unauthorized" in err


def test_decoding_a_gzip_bomb_holds_no_more_than_the_limit(app):
    """64 MB of zeros in 64 KB of gzip, read with a 1 MB limit: what Python allocates while reading
    stays near the limit (httpx's own decoder yields up to ~64 MB from one compressed chunk)."""
    async def read() -> None:
        async with httpx.AsyncClient(trust_env=False) as client:
            async with client.stream("GET", app.url("/bomb?mb=64"), headers={"Accept-Encoding": "gzip"}) as resp:
                tracemalloc.start()
                try:
                    await read_body(resp, MB)
                except ValueError as exc:
                    assert "once decompressed" in str(exc)
                finally:
                    _, peak = tracemalloc.get_traced_memory()
                    tracemalloc.stop()
        assert peak < 3 * MB, peak

    asyncio.run(read())


# ----------------------------------------------------------------------------- 5. deadlines
def test_a_trickle_of_one_byte_a_second_ends_by_the_deadline(env, app, tmp_path, capsys):
    t0 = time.monotonic()
    code, err, lines = _run(capsys, tmp_path, app.url("/trickle?seconds=30"), 2, http={"timeout_s": 1.5})
    assert time.monotonic() - t0 < 15  # not 30 s: the whole call is bounded, not each read
    assert code == 1 and all(x["metadata"]["error"] == "no whole reply within 1.5 s (http.timeout_s)" for x in lines)
    assert all(x["metadata"]["elapsed_s"] < 6 for x in lines)


def slow(row):
    time.sleep(3 if row["id"] != "q2" else 0)
    return {"answer": f"late {row['id']}"}


def framework_object(row):
    return object()


@pytest.fixture
def on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent))


def test_a_python_target_overrunning_its_timeout_is_abandoned_and_written(on_path, tmp_path):
    target = target_from_dict({"python": "test_targets_hostile:slow", "timeout_s": 0.3}, "p.yaml")
    out = tmp_path / "cases.jsonl"
    t0 = time.monotonic()
    r = run_target(target, _questions_set(tmp_path, 3), out)
    assert time.monotonic() - t0 < 2.5  # not 3 s per question
    assert r.answered == 1 and sorted(i for i, _ in r.failed) == ["q1", "q3"]
    assert r.failed[0][1] == "no answer within 0.3 s (timeout_s): the call was abandoned"
    with pytest.raises(TargetError, match="timeout_s at the top of a target file is a Python target's"):
        target_from_dict({"http": {"url": "http://127.0.0.1:9/x"}, "answer": "a", "timeout_s": 3}, "h.yaml")


def test_a_python_target_stuck_for_minutes_does_not_hold_the_process(tmp_path):
    marker = tmp_path / "called"
    code = f"import pathlib, time\n\ndef answer(row):\n    pathlib.Path({str(marker)!r}).touch()\n    time.sleep(120)\n"
    (tmp_path / "stuck_app.py").write_text(code, encoding="utf-8")
    target = tmp_path / "t.yaml"
    target.write_text("python: stuck_app:answer\ntimeout_s: 0.5\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "evaluators", "run", str(_questions(tmp_path, 2)), "--target", str(target),
           "--out", str(tmp_path / "c.jsonl"), "--no-progress"]
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=100)
    assert proc.returncode == 1, proc.stderr
    assert time.monotonic() - t0 < 60  # the abandoned calls' threads do not hold the exit (was 121 s)
    assert "failed: q1: no answer within 0.5 s (timeout_s): the call was abandoned" in proc.stderr
    # interrupted mid-call (timeout_s far away): it exits at once, not when the call would end
    target.write_text("python: stuck_app:answer\ntimeout_s: 300\n", encoding="utf-8")
    marker.unlink()
    # Ctrl-C as a terminal delivers it: the child takes SIGINT's default even when this test runs
    # where it is ignored (a job started with "&" by a non-interactive shell inherits SIG_IGN, and
    # Python then never raises KeyboardInterrupt)
    running = subprocess.Popen([*cmd, "--overwrite"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 90
    while not marker.exists() and time.monotonic() < deadline and running.poll() is None:
        time.sleep(0.05)
    running.send_signal(signal.SIGINT)
    t1 = time.monotonic()
    assert running.wait(timeout=60) == 130
    assert time.monotonic() - t1 < 30


def _questions_set(tmp_path: Path, n: int):
    from evaluators.datasets import load_questions

    return load_questions(_questions(tmp_path, n))


# ------------------------------------------------------------------------------- 6. fail fast
def test_the_same_error_on_the_first_calls_stops_the_run_with_exit_2_and_the_cause(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/echo?status=422&form=json"), 20, "--concurrency", "2")
    assert code == 2
    assert "error: the run stopped: the first 5 calls failed with the same cause and none was answered: the app " \
           "answered 422 Unprocessable Entity" in err
    assert len(lines) == 5 and all(x["metadata"]["error"] for x in lines)
    assert "15 questions were not asked; the same command with --resume asks them (add --retry-failed" in err
    assert len(app.requests) <= 7  # not 20


def test_a_python_target_returning_what_cannot_be_read_stops_the_run(on_path, tmp_path, capsys):
    target = tmp_path / "t.yaml"
    target.write_text("python: test_targets_hostile:framework_object\n", encoding="utf-8")
    code = main(["run", str(_questions(tmp_path, 12)), "--target", str(target), "--out", str(tmp_path / "c.jsonl"),
                 "--no-progress", "--concurrency", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "the first 5 calls failed with the same cause and none was answered" in err
    assert "7 questions were not asked" in err


def test_mixed_failures_or_one_answer_do_not_stop_the_run(env, app, tmp_path, capsys):
    code, err, lines = _run(capsys, tmp_path, app.url("/deep?every=6"), 12, "--concurrency", "1")
    assert code == 1 and len(lines) == 12  # q1..q5 answered before q6 fails


# ------------------------------------------------------------------- 10. the loopback rule (first part)
def test_loopback_only_servers_allow_typed_loopback_addresses(env, app, tmp_path):
    assert listens_on_loopback_only("127.0.0.1") and listens_on_loopback_only("localhost")
    assert listens_on_loopback_only("::1") and listens_on_loopback_only("[::1]")
    assert not any(listens_on_loopback_only(a) for a in (None, "", "0.0.0.0", "::", "10.0.0.5"))
    spec = {"http": {"url": app.url("/ok"), "body": {"question": "{question}"}}, "answer": "answer", "retries": 0}
    with pytest.raises(TargetError, match=r"loopback or private .*--server.address 127.0.0.1"):
        target_from_dict(spec, "typed", TargetPolicy.visitor(environ={}))  # a public server: refused
    local = TargetPolicy.visitor(environ={}, server_address="127.0.0.1")
    r = run_target(target_from_dict(spec, "typed", local), _questions_set(tmp_path, 1), None)
    assert r.answered == 1  # through the guarded connection
    for url in ("http://10.1.2.3/ask", "http://192.168.1.20/ask", "http://169.254.169.254/latest"):
        with pytest.raises(TargetError, match="private|link-local"):
            target_from_dict({**spec, "http": {"url": url}}, "typed", local)


def test_the_run_app_page_tells_the_policy_where_the_dashboard_listens(monkeypatch):
    from streamlit import config

    from ui.run_app.choices import visitor_policy

    monkeypatch.delenv("RAG_EVAL_TYPED_PRIVATE_URLS", raising=False)
    before = config.get_option("server.address")
    try:
        config.set_option("server.address", "127.0.0.1")
        assert visitor_policy().allow_loopback is True and visitor_policy().allow_private is False
        config.set_option("server.address", "0.0.0.0")
        assert visitor_policy().allow_loopback is False
    finally:
        config.set_option("server.address", before)


def test_a_followed_redirect_that_cannot_be_reached_names_the_redirect_not_the_target(env, app, tmp_path, capsys):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    to = f"http://127.0.0.1:{port}/ok"
    code, err, lines = _run(capsys, tmp_path, app.url(f"/redirect?status=307&to={quote(to, safe='')}"), 1,
                            http={"follow_redirects": True, "redirect_origins": [f"http://127.0.0.1:{port}"]})
    assert code == 1 and lines[0]["metadata"]["error"].startswith(f"cannot connect to {to}, where the app redirected")

"""Target files, the owner / visitor policy, request filling and question files: every bad input gets a
message naming the file and the field (never a header value), and a visitor's target can neither run
code, read the environment nor reach the server's neighbours."""

from __future__ import annotations

import json

import pytest

from evaluators.datasets import DatasetError, load_questions
from evaluators.net import AddressRefused, check_typed_url
from evaluators.targets import TargetError, TargetPolicy, TargetRefused, load_target, target_from_dict
from evaluators.targets.extract import ReplyError, extract
from evaluators.targets.template import Filler, Secrets

SECRET = "tok-5f1d2c9e-unique-secret"
HTTP = {"http": {"url": "http://127.0.0.1:9/ask", "headers": {"Authorization": f"Bearer {SECRET}"}},
        "answer": "answer"}


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# ---------------------------------------------------------------------------- target files
def test_a_yaml_and_a_json_target_load_with_defaults(tmp_path):
    y = _write(tmp_path, "v2.yaml", "http:\n  url: http://127.0.0.1:8000/ask\n  body: {question: '{question}', k: 5}\n"
                                    "answer: answer\ncontexts: sources[*].text\ncontext_ids: sources[*].id\n")
    t = load_target(y)
    assert t.name == "v2" and t.kind == "http" and t.spec.http.method == "POST" and t.spec.retries == 3
    assert t.spec.concurrency == 8 and set(t.paths) == {"answer", "contexts", "context_ids"}
    j = _write(tmp_path, "app.json", json.dumps({"name": "mine", **HTTP}))
    assert load_target(j).name == "mine"


@pytest.mark.parametrize("content, field, words", [
    ("http: {method: POST}\nanswer: answer\n", "http.url", "is missing"),
    ("http: {url: 'http://x/ask'}\n", "answer", "'answer' is missing"),
    ("http: {url: 'http://x/ask'}\nanswer: a\nanser: b\n", "anser", "did you mean 'answer'"),
    ("http: {url: 'http://x/ask', timeout: 3}\nanswer: a\n", "http.timeout", "did you mean 'timeout_s'"),
    ("answer: a\n", None, "give either 'http'"),
    ("http: {url: 'http://x/ask'}\npython: m:f\nanswer: a\n", None, "not both"),
    ("http: {url: 'http://x/ask'}\nanswer: 'sources[*.text'\n", "answer", "not a JMESPath expression"),
    ("http: {url: 'http://x/ask'}\nanswer: a\nconcurrency: 0\n", "concurrency", "greater than or equal to 1"),
    ("python: 'not a reference'\n", "python", "should match pattern"),
    ("- a\n- b\n", None, "expected a mapping"),
    ("http: {url: 'http://x/ask', headers: {Authorization: 'Bearer tok-5f1d2c9e-unique-secret\n", None,
     "not valid YAML"),
])
def test_a_bad_target_file_names_the_file_and_the_field(tmp_path, content, field, words):
    p = _write(tmp_path, "bad.yaml", content)
    with pytest.raises(TargetError) as ei:
        load_target(p)
    msg = str(ei.value)
    assert str(p) in msg and words in msg, msg
    assert ei.value.field == field
    assert SECRET not in msg  # the YAML error names the line, never quotes it


def test_a_header_value_of_the_wrong_type_is_named_without_its_value(tmp_path):
    p = _write(tmp_path, "t.yaml", f"http: {{url: 'http://x/ask', headers: {{X-Key: [{SECRET}]}}}}\nanswer: a\n")
    with pytest.raises(TargetError, match=r"http\.headers\.X-Key") as ei:
        load_target(p)
    assert SECRET not in str(ei.value)


def test_missing_file(tmp_path):
    with pytest.raises(TargetError, match="file not found"):
        load_target(tmp_path / "nope.yaml")


# ---------------------------------------------------------------------------- policy
def test_the_owner_may_use_python_env_and_any_address():
    t = target_from_dict({"python": "os.path:join"}, "t.yaml")
    assert t.kind == "python" and t.policy == TargetPolicy.owner()
    target_from_dict({"http": {"url": "http://127.0.0.1:1/${APP_PATH}"}, "answer": "a"}, "t.yaml")


def test_a_visitor_cannot_run_python_nor_read_the_environment():
    visitor = TargetPolicy.visitor(environ={"RAG_EVAL_TYPED_PRIVATE_URLS": "on"})
    with pytest.raises(TargetRefused, match="Python targets run code"):
        target_from_dict({"python": "os.path:join"}, "typed", visitor)
    for where, spec in [("http.headers.Authorization", {"url": "http://127.0.0.1:1/ask",
                                                        "headers": {"Authorization": "Bearer ${APP_TOKEN}"}}),
                        ("http.url", {"url": "http://127.0.0.1:1/ask?key=${APP_TOKEN}"}),
                        ("http.body.k", {"url": "http://127.0.0.1:1/ask", "body": {"k": "${APP_TOKEN}"}})]:
        with pytest.raises(TargetRefused, match=r"environment variables are not read") as ei:
            target_from_dict({"http": spec, "answer": "a"}, "typed", visitor)
        assert ei.value.field == where


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/ask", "http://localhost:8000/ask", "http://10.1.2.3/ask",
                                 "http://192.168.1.20/ask", "http://[::1]:80/ask", "http://100.64.0.7/ask",
                                 "http://0.0.0.0:80/ask"])
def test_a_visitor_cannot_reach_loopback_or_private_ranges_unless_the_owner_allows(url):
    with pytest.raises(TargetRefused, match="loopback or private") as ei:
        target_from_dict({"http": {"url": url}, "answer": "a"}, "typed", TargetPolicy.visitor(environ={}))
    assert "RAG_EVAL_TYPED_PRIVATE_URLS=on" in str(ei.value)
    allowed = TargetPolicy.visitor(environ={"RAG_EVAL_TYPED_PRIVATE_URLS": "on"})
    assert target_from_dict({"http": {"url": url}, "answer": "a"}, "typed", allowed).policy.typed_url


def test_a_visitor_target_keeps_the_other_typed_url_rules():
    with pytest.raises(TargetRefused, match="link-local"):
        target_from_dict({"http": {"url": "http://169.254.169.254/x"}, "answer": "a"}, "typed",
                         TargetPolicy.visitor(environ={"RAG_EVAL_TYPED_PRIVATE_URLS": "on"}))
    with pytest.raises(TargetRefused, match="RAG_EVAL_TYPED_URLS=off"):
        target_from_dict({"http": {"url": "https://app.example.com/ask"}, "answer": "a"}, "typed",
                         TargetPolicy.visitor(environ={"RAG_EVAL_TYPED_URLS": "off"}))
    with pytest.raises(TargetRefused, match="host of a typed URL"):
        target_from_dict({"http": {"url": "http://{host}/ask"}, "answer": "a"}, "typed",
                         TargetPolicy.visitor(environ={}))
    public = target_from_dict({"http": {"url": "https://app.example.com/ask"}, "answer": "a"}, "typed",
                              TargetPolicy.visitor(environ={}))
    assert public.policy.follow_redirects is False
    with pytest.raises(TargetRefused, match="loopback"):  # pointing it elsewhere is checked again
        public.at("http://127.0.0.1:9/ask")


def test_check_typed_url_private_rule_is_opt_in():
    check_typed_url("http://127.0.0.1:6006", "Phoenix address", environ={})  # the existing callers: unchanged
    with pytest.raises(AddressRefused, match="loopback or private"):
        check_typed_url("http://127.0.0.1:6006", "x", environ={}, allow_private=False)
    check_typed_url("https://example.com", "x", environ={}, allow_private=False)


# ---------------------------------------------------------------------------- filling, secrets, replies
def test_columns_take_their_json_type_alone_and_text_inside_a_string():
    row = {"id": "q1", "question": "Why?", "history": [{"speaker": "user", "text": "hi"}], "k": 3}
    f = Filler(row, {"APP_TOKEN": SECRET}, Secrets())
    body = f.value({"q": "{question}", "h": "{history}", "k": "{k}", "missing": "{nope}",
                    "text": "Q={question} H={history} {{literal}}", "tok": "${APP_TOKEN}", "n": 5, "l": ["{id}"]})
    assert body == {"q": "Why?", "h": row["history"], "k": 3, "missing": None,
                    "text": 'Q=Why? H=[{"speaker": "user", "text": "hi"}] {literal}', "tok": SECRET, "n": 5,
                    "l": ["q1"]}
    assert f.string("http://x/ask?q={question}", url=True) == "http://x/ask?q=Why%3F"
    assert f.secrets.redact(f"the token {SECRET}!") == "the token ***!"


def test_a_row_value_is_never_read_as_a_template():
    f = Filler({"question": "${APP_TOKEN} {id}"}, {"APP_TOKEN": SECRET}, Secrets())
    assert f.value("Q: {question}") == "Q: ${APP_TOKEN} {id}"


def test_credential_headers_are_secrets_others_are_not():
    f = Filler({}, {"T": SECRET}, Secrets())
    f.headers({"Authorization": "Bearer literal-credential-value", "X-Api-Key": "k-123456",
               "Accept": "application/json", "X-Custom": "v-${T}"})
    s = f.secrets
    assert s.redact("literal-credential-value k-123456 application/json v-" + SECRET) == "*** *** application/json ***"


def test_extract_reads_answers_passages_and_ids():
    t = target_from_dict({"http": {"url": "http://x/ask"}, "answer": "data.answer", "contexts": "data.sources",
                          "usage": "usage"}, "t")
    a = extract({"data": {"answer": "Paris.", "sources": [{"id": "d1", "text": "Paris is…"}, {"id": 7, "text": "x"}]},
                 "usage": {"tokens": 3}}, t.paths)
    assert (a.text, a.contexts, a.context_ids, a.usage) == ("Paris.", ("Paris is…", "x"), ("d1", "7"), {"tokens": 3})
    with pytest.raises(ReplyError, match=r"no answer at 'data.answer' \(top-level keys: result, sources\)"):
        extract({"result": "x", "sources": []}, t.paths)
    ids = target_from_dict({"http": {"url": "http://x/ask"}, "answer": "a", "contexts": "c", "context_ids": "i"}, "t")
    with pytest.raises(ReplyError, match="2 ids for 1 passages"):
        extract({"a": "x", "c": ["p"], "i": [1, 2]}, ids.paths)
    with pytest.raises(ReplyError, match="gave a dict, expected text"):
        extract({"a": {"x": 1}}, ids.paths)


# ---------------------------------------------------------------------------- question files
def test_a_question_file_keeps_every_column_and_its_references(tmp_path):
    rows = [{"id": "q1", "question": "Who?", "answer": "Ada.", "reference_context_ids": ["d1", "d2"],
             "history": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], "topic": "t"},
            {"id": "q2", "question": "", "topic": "t"},
            {"id": "q3", "question": "When?", "response": "old answer", "hallucinated": True}]
    p = _write(tmp_path, "qs.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    qs = load_questions(p)
    assert [r.id for r in qs.rows] == ["q1", "q3"]
    assert [(e.row, e.column) for e in qs.errors] == [(2, "question")] and "qs.jsonl" in str(qs.errors[0])
    q1 = qs.rows[0]
    assert q1.case.ground_truth == "Ada." and q1.case.reference_context_ids == ("d1", "d2")
    assert [t.speaker for t in q1.case.history] == ["user", "agent"]
    assert q1.row["history"] == rows[0]["history"] and q1.row["topic"] == "t" and q1.case.response == ""


def test_a_question_file_without_a_question_column_is_named(tmp_path):
    p = _write(tmp_path, "qs.csv", "id,text\n1,hello\n")
    with pytest.raises(DatasetError, match=r"qs\.csv.*no question column found"):
        load_questions(p)


def test_csv_cells_holding_json_keep_their_type(tmp_path):
    p = _write(tmp_path, "qs.csv", 'id,question,history\n1,Why?,"[{""speaker"": ""user"", ""text"": ""hi""}]"\n')
    q = load_questions(p).rows[0]
    assert q.row["history"] == [{"speaker": "user", "text": "hi"}] and q.row["id"] == "1"  # CSV cells are text


def test_an_owners_targets_file_holds_several_named_targets(tmp_path):
    from evaluators.targets import load_targets

    p = _write(tmp_path, "targets.yaml", "targets:\n- {name: v1, http: {url: 'http://127.0.0.1:1/v1'}, answer: a}\n"
                                         "- {name: v2, http: {url: 'http://127.0.0.1:1/v2'}, answer: a}\n")
    assert [t.name for t in load_targets(p)] == ["v1", "v2"]
    one = _write(tmp_path, "one.yaml", "http: {url: 'http://x'}\nanswer: a\n")
    assert [t.name for t in load_targets(one)] == ["one"]
    dup = _write(tmp_path, "dup.yaml", "- {name: a, python: 'm:f'}\n- {name: a, python: 'm:g'}\n")
    with pytest.raises(TargetError, match=r"dup.yaml \(target 2\): name 'a' is given twice"):
        load_targets(dup)
    with pytest.raises(TargetError, match=r"\(target 1\): field 'name' is missing"):
        load_targets(_write(tmp_path, "anon.yaml", "- {python: 'm:f'}\n"))
    with pytest.raises(TargetRefused, match="Python targets"):
        load_targets(dup, TargetPolicy.visitor(environ={}))

"""Reply and request shapes as frameworks make them (issue 56 items 7, 8): passage objects of
LangServe / LlamaIndex / Haystack / vector stores read with the id the test set can know, a chat
message as the answer, a Python target's framework objects read as they are, server-sent events
assembled into one reply, the conversation sent as chat ``messages``, a Python target's ``args`` —
and what goes wrong said plainly."""

from __future__ import annotations

import json
import sys

import pytest

from evaluators.datasets import load_questions
from evaluators.targets import TargetError, run_target, target_from_dict
from evaluators.targets.extract import ReplyError, extract, made_up
from evaluators.targets.objects import Unreadable, plain
from evaluators.targets.stream import StreamError, assemble, events, read_stream

UUID = "3a201bfa-385b-4034-a6e7-6234ecdd3009"
SHA = "dc3db34c6dc4020e122717194101dda0ce381742964529ae84da8276d07c2310"


def _paths(**kw):
    return target_from_dict({"http": {"url": "http://x/ask"}, **kw}, "t").paths


# ------------------------------------------------------------------------------------ reply shapes
def test_each_frameworks_passage_gives_the_id_a_test_set_can_know():
    p = _paths(answer="a", contexts="c")
    langserve = [{"id": None, "metadata": {"id": "doc-1", "source": "f.md"}, "page_content": "one", "type": "Document"},
                 {"id": UUID, "metadata": {"id": "doc-2"}, "page_content": "two", "type": "Document"}]
    llama_json = [{"node": {"id_": UUID, "text": "three", "metadata": {},
                            "relationships": {"1": {"node_id": "doc-3", "node_type": "4"}}}, "score": 0.8},
                  {"node": {"id_": UUID, "text": "four", "ref_doc_id": "doc-4"}, "score": 0.5}]
    haystack = [{"id": SHA, "content": "five", "doc_id": "doc-5", "score": 3.2},
                {"id": SHA, "content": "six", "meta": {"doc_id": "doc-6"}}]
    a = extract({"a": "x", "c": langserve + llama_json + haystack}, p)
    assert a.contexts == ("one", "two", "three", "four", "five", "six")
    assert a.context_ids == ("doc-1", "doc-2", "doc-3", "doc-4", "doc-5", "doc-6")
    assert a.context_scores == (None, None, 0.8, 0.5, 3.2, None)
    source_only = extract({"a": "x", "c": [{"page_content": "t", "metadata": {"source": "docs/a.md"}}]}, p)
    assert source_only.context_ids == ("docs/a.md",) and source_only.context_scores == ()
    made = extract({"a": "x", "c": [{"text": "t", "id": UUID}]}, p)  # nothing else names it: kept
    assert made.context_ids == (UUID,)
    explicit = extract({"a": "x", "c": langserve, "i": ["p", "q"]}, _paths(answer="a", contexts="c", context_ids="i"))
    assert explicit.context_ids == ("p", "q")
    assert made_up(UUID) and made_up(UUID.replace("-", "")) and made_up(SHA) and not made_up("photosynthesis#1")


def test_a_chat_message_as_the_answer_is_its_text():
    lc = {"output": {"content": "Paris.", "type": "ai", "id": "run-1", "additional_kwargs": {}}}
    assert extract(lc, _paths(answer="output")).text == "Paris."
    parts = {"choices": [{"message": {"role": "assistant", "content": [{"type": "text", "text": "Par"},
                                                                       {"type": "text", "text": "is."}]}}]}
    assert extract(parts, _paths(answer="choices[0].message")).text == "Paris."
    with pytest.raises(ReplyError, match="gave a dict, expected text"):
        extract({"a": {"content": {"x": 1}}}, _paths(answer="a"))


def test_a_python_targets_framework_objects_are_read_as_they_are():
    from langchain_core.documents import Document
    from langchain_core.messages import AIMessage

    p = target_from_dict({"python": "m:f"}, "t").paths
    a = extract({"answer": AIMessage(content="Paris."),
                 "context": [Document(page_content="one", metadata={"id": "d1"}),
                             Document(page_content="two", id=UUID, metadata={"id": "d2"})]}, p, python=True)
    assert (a.text, a.contexts, a.context_ids) == ("Paris.", ("one", "two"), ("d1", "d2"))
    assert extract(AIMessage(content="plain"), p, python=True).text == "plain"
    with pytest.raises(ReplyError, match=r"has no answer at 'answer / response / output / result'"):
        extract([Document(page_content="one")], p, python=True)


def test_a_haystack_document_and_chat_message_are_read_as_they_are():
    pytest.importorskip("haystack")
    from haystack import Document
    from haystack.dataclasses import ChatMessage

    got = plain({"replies": [ChatMessage.from_assistant("Paris.")], "documents": [Document(content="one",
                                                                                          meta={"doc_id": "d1"})]})
    assert got["replies"] == ["Paris."]
    assert got["documents"][0]["content"] == "one" and got["documents"][0]["meta"] == {"doc_id": "d1"}
    a = extract({"answer": "x", "documents": got["documents"]}, _paths(answer="answer", contexts="documents"))
    assert a.context_ids == ("d1",)


def test_what_cannot_be_read_is_named_by_its_type_and_place_never_its_value():
    class Opaque:
        def __repr__(self) -> str:
            return "SECRET-REPR"

    with pytest.raises(Unreadable, match=r"returned a .*Opaque at the return value\['contexts'\]\[1\]") as e:
        plain({"contexts": ["ok", Opaque()]})
    assert "SECRET-REPR" not in str(e.value)
    loop: list = []
    loop.append(loop)
    with pytest.raises(Unreadable, match="nests deeper than 64 levels"):
        plain(loop)
    p = target_from_dict({"python": "m:f"}, "t").paths
    with pytest.raises(ReplyError, match="cannot be read: return a dict"):
        extract(object(), p, python=True)


# ------------------------------------------------------------------------------ server-sent events
def test_langserve_stream_is_added_up_into_the_invoke_output():
    body = ("event: metadata\r\ndata: {\"run_id\": \"r1\"}\r\n\r\n"
            ": a comment\n"
            "event: data\ndata: {\"context\": [{\"page_content\": \"one\", \"metadata\": {\"id\": \"d1\"}}]}\n\n"
            "event: data\ndata: {\"answer\": \"Par\"}\n\n"
            "event: data\ndata: {\"answer\": \"is.\"}\n\n"
            "event: end\n\n")
    assert read_stream(body.encode()) == {"output": {"context": [{"page_content": "one", "metadata": {"id": "d1"}}],
                                                     "answer": "Paris."}, "metadata": {"run_id": "r1"}}
    chunks = "".join(f"event: data\ndata: {json.dumps(c)}\n\n" for c in
                     ({"content": "Par", "type": "AIMessageChunk", "id": "x"},
                      {"content": "is.", "type": "AIMessageChunk", "id": "x"}))
    out = read_stream((chunks + "event: end\n\n").encode())["output"]
    assert out == {"content": "Paris.", "type": "AIMessageChunk", "id": "x"}  # a message chunk: content joined


def test_openai_chunks_become_one_chat_completion_with_usage():
    def chunk(choices, **kw):
        return "data: " + json.dumps({"id": "c1", "object": "chat.completion.chunk", "model": "m",
                                      "choices": choices, **kw}) + "\n\n"
    body = (chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}}], sources=[{"id": "d1", "text": "t"}])
            + chunk([{"index": 0, "delta": {"content": "Par"}}, {"index": 1, "delta": {"content": "Ot"}}])
            + chunk([{"index": 0, "delta": {"content": "is."}, "finish_reason": "stop"},
                     {"index": 1, "delta": {"content": "her"}, "finish_reason": "stop"}])
            + chunk([], usage={"total_tokens": 7}) + "data: [DONE]\n\n")
    got = read_stream(body.encode())
    assert got["object"] == "chat.completion" and got["sources"] == [{"id": "d1", "text": "t"}]
    assert [c["message"] for c in got["choices"]] == [{"role": "assistant", "content": "Paris."},
                                                      {"role": "assistant", "content": "Other"}]
    assert got["choices"][0]["finish_reason"] == "stop" and got["usage"] == {"total_tokens": 7}
    responses = ('data: {"type": "response.output_text.delta", "delta": "Pa"}\n\n'
                 'data: {"type": "response.completed", "response": {"id": "r", "output_text": "Paris."}}\n\n')
    assert read_stream(responses.encode()) == {"id": "r", "output_text": "Paris."}


@pytest.mark.parametrize("body, words", [
    ("event: error\ndata: {\"status_code\": 500, \"message\": \"chain failed\"}\n\n",
     "the app's stream ended with an error: chain failed"),
    ("data: {\"error\": {\"message\": \"rate limited\"}}\n\n", "the app's stream ended with an error: rate limited"),
    ("data: [DONE]\n\n", "holds no data"),
    (": only a comment\n\n", "holds no data"),
    ("data: not json\n\n", "data that is not JSON (event 1)"),
    ("data: " + "[" * 100_000 + "\n\n", "data that is not JSON"),
])
def test_a_stream_without_a_reply_is_an_error_in_words(body, words):
    with pytest.raises(StreamError, match=words.replace("(", r"\(").replace(")", r"\)")):
        read_stream(body.encode())


def test_events_follow_the_standard_and_a_stream_cut_at_its_end_still_counts():
    got = events("event: a\ndata: 1\ndata: 2\nid: 7\nretry: 10\n\ndata:3")
    assert [(e.name, e.data) for e in got] == [("a", "1\n2"), ("message", "3")]
    assert assemble(got[1:]) == 3
    assert assemble(events("data: \"Par\"\n\ndata: \"is.\"\n\n")) == "Paris."


# ---------------------------------------------------------------------------------- request shapes
def _questions(tmp_path, rows):
    p = tmp_path / "qs.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return load_questions(p)


def test_the_conversation_is_sent_as_chat_messages_with_the_question_last(llm_server, tmp_path):
    llm_server.respond(lambda body: {"answer": "ok"})
    t = target_from_dict({"http": {"url": llm_server.base_url + "/chat/completions",
                                   "body": {"model": "m", "messages": "{messages}"}}, "answer": "answer"}, "t")
    qs = _questions(tmp_path, [
        {"id": "a", "question": "And in winter?", "history": [{"role": "user", "content": "Opening hours?"},
                                                               {"role": "assistant", "content": "9 to 5."}]},
        {"id": "b", "question": "Hello?"}])
    run_target(t, qs, None)
    sent = {r.json["messages"][-1]["content"]: r.json["messages"] for r in llm_server.requests}
    assert sent["And in winter?"] == [{"role": "user", "content": "Opening hours?"},
                                      {"role": "assistant", "content": "9 to 5."},
                                      {"role": "user", "content": "And in winter?"}]
    assert sent["Hello?"] == [{"role": "user", "content": "Hello?"}]
    own = _questions(tmp_path, [{"id": "c", "question": "Q?", "messages": [{"role": "system", "content": "mine"}]}])
    llm_server.reset()
    llm_server.respond(lambda body: {"answer": "ok"})
    run_target(t, own, None)
    assert llm_server.requests[0].json["messages"] == [{"role": "system", "content": "mine"}]  # the file's column


APP = '''
def answer(row, k=2, style="short"):
    return {"answer": f"{style} {row['question']}", "contexts": [f"p{i}" for i in range(k)]}
'''


@pytest.fixture
def app_module(tmp_path, monkeypatch):
    (tmp_path / "args_app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "needs_dep.py").write_text("import not_installed_pkg_xyz\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for m in ("args_app", "needs_dep"):
        sys.modules.pop(m, None)


def test_a_python_target_takes_args_checked_before_any_call(app_module, tmp_path):
    qs = _questions(tmp_path, [{"id": "a", "question": "Q?"}])
    r = run_target(target_from_dict({"python": "args_app:answer", "args": {"k": 4, "style": "long"}}, "t"), qs, None)
    assert r.records[0]["response"] == "long Q?" and r.records[0]["documents"] == ["p0", "p1", "p2", "p3"]
    with pytest.raises(TargetError, match=r"cannot be called as answer\(row, \*\*args\) with args top_k") as e:
        run_target(target_from_dict({"python": "args_app:answer", "args": {"top_k": 4}}, "t"), qs, None)
    assert e.value.field == "args"
    with pytest.raises(TargetError, match="'args' are a Python target's keyword arguments"):
        target_from_dict({"http": {"url": "http://x/"}, "answer": "a", "args": {"k": 1}}, "t")


def test_a_python_target_that_needs_a_missing_package_says_it_runs_in_this_python(app_module, tmp_path):
    qs = _questions(tmp_path, [{"id": "a", "question": "Q?"}])
    with pytest.raises(TargetError) as e:
        run_target(target_from_dict({"python": "needs_dep:answer"}, "t"), qs, None)
    said = str(e.value)
    assert "'needs_dep' imports 'not_installed_pkg_xyz', which is not installed here" in said
    assert f"runs inside the evaluator's own Python ({sys.executable})" in said
    with pytest.raises(TargetError, match=r"cannot import 'nowhere_xyz' .*evaluator's own Python.*PYTHONPATH"):
        run_target(target_from_dict({"python": "nowhere_xyz:f"}, "t"), qs, None)


# ---------------------------------------------------------------------------------- the examples
def test_the_docs_show_each_example_target_file_as_it_is():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "targets.md").read_text(encoding="utf-8")
    ex = root / "docs" / "examples" / "targets"
    shown = ["langserve_k1", "langserve_k4_stream", "llamaindex_k1", "openai_k1", "openai_k4_stream", "haystack_k1"]
    for name in shown:
        assert (ex / f"{name}.yaml").read_text(encoding="utf-8") in doc, name
    for k4 in ("langserve_k4", "llamaindex_k4", "openai_k4", "haystack_k4"):  # "the same with k4"
        k1 = (ex / f"{k4.replace('k4', 'k1')}.yaml").read_text(encoding="utf-8")
        want = k1.replace("k1", "k4").replace("k=1", "k=4").replace("{k: 1}", "{k: 4}")
        assert (ex / f"{k4}.yaml").read_text(encoding="utf-8") == want, k4
    from evaluators.targets import load_target

    for f in sorted(ex.glob("*.yaml")):
        load_target(f)  # every one a valid target file

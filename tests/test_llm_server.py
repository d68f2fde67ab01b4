"""The loopback server itself, through the real openai and groq SDKs."""

import groq
import openai

from tests.llm_server import Reply


def test_openai_sdk_roundtrip(llm_server):
    llm_server.queue('{"a": 1}')
    c = openai.OpenAI(base_url=llm_server.base_url, api_key="k", max_retries=0)
    r = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert r.choices[0].message.content == '{"a": 1}'
    assert llm_server.count == 1
    rec = llm_server.requests[0]
    assert rec.json["messages"][0]["content"] == "hi" and rec.status == 200


def test_groq_sdk_roundtrip_and_errors(llm_server):
    llm_server.queue(Reply.error(500), "ok")
    c = groq.Groq(base_url=llm_server.groq_base_url, api_key="k", max_retries=0)
    try:
        c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        raise AssertionError("expected a 500")
    except groq.InternalServerError:
        pass
    r = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert r.choices[0].message.content == "ok"
    assert [q.status for q in llm_server.requests] == [500, 200]
    assert llm_server.requests[0].path.endswith("/openai/v1/chat/completions")

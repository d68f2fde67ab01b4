"""The OpenAI-compatible example (docs/examples/targets/openai_app.py: FastAPI answering
``/v1/chat/completions`` with the openai package's own types, its passages as ``sources``) through its
target files: the question sent as chat ``messages``, the key from ``${RAG_APP_KEY}`` (never written),
two versions by model name whose retrieval numbers are what the server's ids say, and ``stream: true``
read to ``[DONE]`` giving what the plain reply gives. The real ``openai`` SDK talks to the same
server, plain and streaming, so the example is what it claims to be."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

from tests.target_examples import (
    aimed,
    questions,
    run,
    run_two_versions,
    serve_asgi,
)

openai_app = pytest.importorskip("openai_app")
KEY = "sk-example-4f1d9c2b7a-never-written"


@pytest.fixture(scope="module")
def app_url():
    mp = pytest.MonkeyPatch()
    mp.setenv("RAG_APP_KEY", KEY)  # the server requires it, the target files send it
    with serve_asgi(openai_app.app) as url:
        yield url
    mp.undo()


def _ranked(k: int) -> dict[str, list[str]]:
    return {q["id"]: [s["id"] for s in openai_app.search(q["question"], k)] for q in questions()}


def test_two_versions_give_the_retrieval_numbers_their_ids_say(app_url, tmp_path):
    for out, lines in run_two_versions(lambda k: aimed(f"openai_k{k}", app_url, tmp_path), tmp_path, _ranked).values():
        assert lines[0]["metadata"]["usage"]["total_tokens"] > 0
        assert KEY not in out.read_text(encoding="utf-8")


def test_stream_true_is_read_to_done_and_gives_what_the_plain_reply_gives(app_url, tmp_path):
    _, plain = run(aimed("openai_k4", app_url, tmp_path), tmp_path / "plain.jsonl")
    report, streamed = run(aimed("openai_k4_stream", app_url, tmp_path), tmp_path / "stream.jsonl")
    assert report.answered == 16
    for a, b in zip(plain, streamed):
        assert (b["response"], b["documents"], b["document_ids"]) == (a["response"], a["documents"], a["document_ids"])
        assert b["metadata"]["usage"] == a["metadata"]["usage"]
        assert len(b["response"].split()) > 3  # many chunks, every one kept


def test_a_wrong_key_stops_the_run(app_url, tmp_path):
    report, _ = run(aimed("openai_k1", app_url, tmp_path), tmp_path / "c.jsonl",
                    environ={"RAG_APP_KEY": "sk-wrong-key-0000"})  # the server, in this process, still wants KEY
    assert report.fatal and "401" in (report.stopped or "") and "sk-wrong-key-0000" not in (report.stopped or "")


def test_the_real_openai_sdk_reads_the_example_server(app_url):
    import openai

    client = openai.OpenAI(base_url=app_url + "/v1", api_key=KEY, max_retries=0)
    q = questions()[0]["question"]
    done = client.chat.completions.create(model="rag-k4", messages=[{"role": "user", "content": q}])
    parts = list(client.chat.completions.create(model="rag-k4", messages=[{"role": "user", "content": q}],
                                                stream=True, stream_options={"include_usage": True}))
    assert "".join(p.choices[0].delta.content or "" for p in parts if p.choices) == done.choices[0].message.content
    assert parts[-1].usage is not None and parts[-1].usage.total_tokens == done.usage.total_tokens
    client.close()

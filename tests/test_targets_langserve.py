"""The LangServe example (docs/examples/targets/langserve_app.py: a LangChain RAG chain with
langchain_core's fake chat model, served by LangServe on 127.0.0.1) run through its target files:
two versions (k = 1, k = 4) give the retrieval numbers the chain's own ids say — read from
``metadata.id``, not the vector store's random UUIDs — ``/stream`` read to the end gives what
``/invoke`` gives, and the whole loop (``evaluate --target`` on both, ``compare``) ends in a verdict."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("langserve")

from evaluators.cli import main
from evaluators.sample_app import SAMPLE_QUESTIONS
from tests.target_examples import (
    aimed,
    questions,
    run,
    run_two_versions,
    serve_asgi,
)

langserve_app = pytest.importorskip("langserve_app")


@pytest.fixture(scope="module")
def app_url():
    with serve_asgi(langserve_app.app) as url:
        yield url


def _ranked(k: int) -> dict[str, list[str]]:
    return {q["id"]: [d.metadata["id"] for d in langserve_app.store.similarity_search(q["question"], k=k)]
            for q in questions()}


def test_two_versions_give_the_retrieval_numbers_their_ids_say(app_url, tmp_path):
    runs = run_two_versions(lambda k: aimed(f"langserve_k{k}", app_url, tmp_path), tmp_path, _ranked)
    for k, (_, lines) in runs.items():
        assert all(len(x["documents"]) == k for x in lines)
        assert lines[0]["response"] == "The passages above answer it."


def test_stream_is_read_to_the_end_and_gives_what_invoke_gives(app_url, tmp_path):
    _, invoked = run(aimed("langserve_k4", app_url, tmp_path), tmp_path / "invoke.jsonl")
    report, streamed = run(aimed("langserve_k4_stream", app_url, tmp_path), tmp_path / "stream.jsonl")
    assert report.answered == 16
    for a, b in zip(invoked, streamed):
        assert (b["response"], b["documents"], b["document_ids"]) == (a["response"], a["documents"], a["document_ids"])


def test_the_whole_loop_evaluate_both_versions_then_compare(app_url, tmp_path, capsys):
    results = {}
    for k in (1, 4):
        results[k] = tmp_path / f"r{k}.json"
        code = main(["evaluate", str(SAMPLE_QUESTIONS), "--target", str(aimed(f"langserve_k{k}", app_url, tmp_path)),
                     "--out", str(results[k]), "--no-progress"])
        assert code == 0, capsys.readouterr().err
    printed = capsys.readouterr()
    assert "retrieval: matched by id" in printed.out
    assert main(["compare", str(results[1]), str(results[4])]) in (0, 1)
    said = capsys.readouterr().out
    assert "recall@5" in said
    top = json.loads(results[4].read_text(encoding="utf-8"))
    assert top["settings"]["retrieval_run"]["match"] == "id"

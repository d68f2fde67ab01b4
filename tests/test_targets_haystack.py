"""The Haystack example (docs/examples/targets/haystack_app.py: an in-memory BM25 retriever, a prompt
builder and a stand-in generator in a Haystack pipeline, behind FastAPI; telemetry off) through its
target files: documents as ``Document.to_dict()`` sends them, each id read from its ``doc_id`` rather
than Haystack's SHA-256 content hash, the two versions' retrieval numbers what the pipeline's own
ids say."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # before haystack is imported: no call home
pytest.importorskip("haystack")

from evaluators.targets.extract import made_up
from tests.target_examples import (
    aimed,
    questions,
    run_two_versions,
    serve_asgi,
)

haystack_app = pytest.importorskip("haystack_app")


@pytest.fixture(scope="module")
def app_url():
    with serve_asgi(haystack_app.app) as url:
        yield url


def _ranked(k: int) -> dict[str, list[str]]:
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever

    retriever = InMemoryBM25Retriever(document_store=haystack_app.store)
    return {q["id"]: [d.meta["doc_id"] for d in retriever.run(query=q["question"], top_k=k)["documents"]]
            for q in questions()}


def test_two_versions_give_the_retrieval_numbers_their_ids_say(app_url, tmp_path):
    for _, lines in run_two_versions(lambda k: aimed(f"haystack_k{k}", app_url, tmp_path), tmp_path, _ranked).values():
        assert lines[0]["metadata"]["document_scores"][0] > 0
    doc = haystack_app._answer(questions()[0]["question"], 1)["documents"][0]
    assert made_up(doc["id"]) and not made_up(doc["doc_id"])  # the shape the test reads past

"""The LlamaIndex example (docs/examples/targets/llamaindex_app.py: a VectorStoreIndex over the sample
documents with MockLLM, called as a Python target with ``args: {k: …}``) returns LlamaIndex's own
``Response``: read as it is, each passage's id its node's ``ref_doc_id`` (the node ids are random
UUIDs), the two versions' retrieval numbers what those ids say. The same run told to read the node
ids says plainly that they match no reference id while the texts do."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core")

from evaluators.cli import main
from evaluators.sample_app import SAMPLE_QUESTIONS
from evaluators.targets import load_target, target_from_dict
from evaluators.targets.extract import made_up
from tests.target_examples import (
    example,
    our_metrics,
    questions,
    run,
    run_two_versions,
)

llamaindex_app = pytest.importorskip("llamaindex_app")


def _ranked(k: int) -> dict[str, list[str]]:
    retriever = llamaindex_app.index.as_retriever(similarity_top_k=k)
    return {q["id"]: [n.node.ref_doc_id for n in retriever.retrieve(q["question"])] for q in questions()}


def test_two_versions_by_args_give_the_retrieval_numbers_their_ids_say(tmp_path):
    def target_of(k: int):
        target = load_target(example(f"llamaindex_k{k}"))
        assert target.spec.args == {"k": k}
        return target

    for k, (_, lines) in run_two_versions(target_of, tmp_path, _ranked).items():
        assert lines[0]["response"].startswith("text")  # MockLLM's answer
        scores = lines[0]["metadata"]["document_scores"]
        assert len(scores) == k and scores == sorted(scores, reverse=True)


def test_node_ids_match_nothing_but_the_texts_do_and_the_run_says_so(tmp_path, capsys):
    spec = {"name": "node-ids", "python": "llamaindex_app:answer", "args": {"k": 4},
            "context_ids": "contexts[*].id"}  # the nodes' own ids: random UUIDs
    f = tmp_path / "node_ids.json"
    f.write_text(__import__("json").dumps(spec), encoding="utf-8")
    out = tmp_path / "c.jsonl"
    assert main(["run", str(SAMPLE_QUESTIONS), "--target", str(f), "--out", str(out), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "note: none of the app's passage ids is a reference id (14 questions with both" in err
    assert "but their texts match the reference passages of 14 of 14: the ids are the app's own" in err
    assert "source_nodes[*].node.ref_doc_id" in err
    _, lines = run(target_from_dict(spec, "t"), tmp_path / "again.jsonl")
    assert all(made_up(i) for x in lines for i in x["document_ids"])
    by_text = our_metrics(out)  # scored by text, as the note says: the same numbers as by ref_doc_id
    by_id = our_metrics(_run_k4(tmp_path))
    assert by_text == by_id


def _run_k4(tmp_path):
    out = tmp_path / "k4.jsonl"
    run(load_target(example("llamaindex_k4")), out)
    return out

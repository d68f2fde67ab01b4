"""A run history for review mode's browser test and bench: a **hybrid** run of the sample cases
(the real offline labeler + LLM labels from the loopback OpenAI-compatible server, through the real
SDK) and a run of the offline method on two sample cases and a **50-document case**, saved for one
visitor's token.

The loopback "LLM" labels by word overlap (a response sentence is fully supported when >= 60 % of
its words occur in one document sentence), so it disagrees with the offline method on some
sentences, as a real LLM would.

    python -m bench.review_fixture STORE.sqlite3 TOKEN    # writes the runs, prints their ids
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from evaluators import datasets, evaluate_batch
from evaluators.llm import LLMSettings, close_clients
from evaluators.store import RunStore
from evaluators.testing.llm_server import LLMServer, labels_reply, last_user_message
from evaluators.types import TestCase

ROOT = Path(__file__).resolve().parents[1]
_LINE = re.compile(r"^(\d*[a-z]+)\. (.*)$", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9]{3,}")


def overlap_responder(request_json: dict[str, Any]) -> dict[str, Any]:
    """gpt_labeling reply by word overlap (module docstring)."""
    text = last_user_message(request_json)
    head, _, tail = text.partition("\nResponse:\n")
    docs = {k: set(_WORD.findall(t.lower())) for k, t in _LINE.findall(head) if k[0].isdigit()}
    resp = [(k, set(_WORD.findall(t.lower())) or {"_"}) for k, t in _LINE.findall(tail.split("\n\n", 1)[0])
            if not k[0].isdigit()]
    sentences, used = {}, set()
    for k, words in resp:
        best, share = None, 0.0
        for dk, dw in docs.items():
            s = len(words & dw) / len(words)
            if s > share:
                best, share = dk, s
        keys = [best] if best and share >= 0.3 else []
        used.update(keys)
        sentences[k] = (keys, share >= 0.6)
    question = set(_WORD.findall(head.split("Documents:")[0].lower()))
    relevant = [k for k, w in docs.items() if w & question] or sorted(used)
    return labels_reply(relevant, sorted(used), sentences)


def sample_cases() -> list[TestCase]:
    return list(datasets.load_cases(ROOT / "data" / "sample_rag.jsonl").cases)


def big_case(n_docs: int = 50) -> TestCase:
    """A case with ``n_docs`` documents (the sample documents, numbered, several sentences each)."""
    base = [d for c in sample_cases() for d in c.documents]
    docs = tuple(f"Source {i}: {base[i % len(base)]} This note {i} was filed under section {i % 7}."
                 for i in range(n_docs))
    return TestCase(id=f"big-{n_docs}-docs", question="What does photosynthesis produce besides glucose?",
                    response=("Photosynthesis releases oxygen as a by-product. The oxygen comes from water molecules "
                              "that are split. The Calvin cycle uses carbon dioxide to build glucose. Plants store "
                              "the glucose as starch. Note 12 was filed under section 5. Every leaf glows at night."),
                    documents=docs)


def build(store_path: str | Path, owner: str, cases: list[TestCase] | None = None) -> dict[str, str]:
    """Evaluate and save the two runs; {"hybrid": id, "big": id}."""
    store = RunStore(store_path)
    with LLMServer() as srv:
        srv.respond(overlap_responder)
        llm = LLMSettings(provider="openai_compatible", base_url=srv.base_url, model="loopback-judge",
                          cache_path=str(Path(store_path).with_name("llm_cache.sqlite3")), retry_base_s=0.05)
        try:
            hybrid = evaluate_batch(cases or sample_cases(), "hybrid", llm=llm)
        finally:
            close_clients()
    big = evaluate_batch([*sample_cases()[:2], big_case()], "trace")
    return {"hybrid": store.save(hybrid, "hybrid (sample, loopback LLM)", owner=owner),
            "big": store.save(big, "trace (a case with 50 documents)", owner=owner)}


if __name__ == "__main__":
    print(json.dumps(build(sys.argv[1], sys.argv[2])))

"""A test set from your documents: questions, reference answers and reference passages, offline or
with an LLM, written as the question file ``run --target`` and Upload read.

    from evaluators.testset import make_testset, write_jsonl
    result = make_testset(["docs/"], n=40, generator="offline", seed=0)   # or generator="llm", llm=LLMSettings(...)
    print(result.summary())            # "40 of 40 questions (offline)", or fewer with the reason
    write_jsonl(result.rows, "questions.jsonl")

Generators (an explicit registry, :data:`GENERATORS`): ``offline`` — rules over the passages' own
sentences (a date, a number, a name, a defined term becomes the answer of a grammatical question;
no key, nothing downloaded; English) — and ``llm`` — single-hop, multi-hop, reasoning, unanswerable
and conversational questions through ``evaluators.llm`` (keys, rate limits, reply cache, cost
estimate first), in the documents' language, with a critic call that drops what the passages do
not answer. Either way: exactly ``n`` rows (fewer only with ``result.reason``), spread over the
files in proportion to the square root of their length, near-duplicates removed with the embedded
MiniLM, seeded.

Modules (private; the surface is below): ``types`` (question types, candidates, the result),
``registry`` (the generator contract and registry), ``build`` (one run: allocation, rounds,
selection), ``allocate`` (questions per document), ``dedupe`` (near-duplicates), ``rows`` (the
question file), ``offline`` (the offline generator) with ``offline_questions`` (a sentence -> a
question), ``offline_clause`` (a sentence read as subject, verb group and the rest),
``offline_facts`` (dates, quantities, names), ``offline_kinds`` (yes/no questions, "What is the
default ...?"), ``offline_patterns`` (conditions, purposes, instructions, uses, reasons),
``offline_page`` (FAQs, task headings, definition lists, a page's names) and ``offline_words``
(tokens, word classes, the dictionary), ``llm`` (the LLM generator) with ``llm_prompts`` (prompts and reply
schemas).
"""

from __future__ import annotations

from .allocate import allocate, length_weights
from .build import MAX_N, check_request, estimate, make_testset
from .dedupe import NEAR_DUPLICATE
from .registry import GENERATORS, GeneratorSpec, get_generator
from .rows import make_rows, to_jsonl, write_jsonl
from .types import QUESTION_TYPES, TYPE_HELP, Candidate, TestsetError, TestsetResult

__all__ = [
    "GENERATORS", "MAX_N", "NEAR_DUPLICATE", "QUESTION_TYPES", "TYPE_HELP", "Candidate", "GeneratorSpec",
    "TestsetError", "TestsetResult", "allocate", "check_request", "estimate", "get_generator", "length_weights",
    "make_rows", "make_testset", "to_jsonl", "write_jsonl",
]

"""The explicit registry of test-set generators, and the contract every generator keeps.

A generator answers requests — "make one question of each of these types for this document" —
with candidates; the run (:mod:`.build`) allocates the questions over the documents, removes
near-duplicates, picks exactly ``n`` and asks again (``Context.attempt`` + 1) where a generator
came back short. Adding one = a class with the members of :data:`CONTRACT` plus one
:class:`GeneratorSpec` line below; the CLI and the dashboard find it here.

* ``propose(requests, ctx)`` -> ``{document name: [Candidate, ...]}``: never raises for one
  document or one question (it leaves it out and says why in ``notes``); may return more than asked
  (the run picks) or fewer (the run asks again, or others). A document left out of the answer is one
  the generator can make nothing more of; an empty list means "tried, none kept this time". An
  ``exhaustive`` generator (offline) gives everything it can make of a document at the first ask;
* ``notes`` — what it could not do and why ("tour-eiffel.md: French; the offline generator writes
  English questions"), read after each round;
* ``estimate(corpus, n, types)`` -> ``{calls, prompt_tokens, completion_tokens, cost_usd,
  price_known, model}`` before anything is spent (no call made);
* ``usage`` (LLM usage so far) and ``model`` (None offline).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from ..documents import Corpus
from ..registry import Registry
from ..types import Usage
from .types import Candidate, Context, Request

CONTRACT = ("propose", "estimate", "notes", "usage", "model", "exhaustive")


class Generator(Protocol):
    notes: list[str]
    model: str | None
    exhaustive: bool

    def propose(self, requests: Sequence[Request], ctx: Context) -> dict[str, list[Candidate]]: ...

    def estimate(self, corpus: Corpus, n: int, types: Sequence[str]) -> dict[str, Any]: ...

    @property
    def usage(self) -> Usage: ...


@dataclass(frozen=True)
class GeneratorSpec:
    id: str
    name: str
    description: str
    needs_llm: bool
    #: The question types it makes; the first is its default.
    types: tuple[str, ...]
    #: Types made when none are named.
    default_types: tuple[str, ...]
    #: "module:attribute" of a factory ``(llm_settings) -> Generator``.
    target: str

    def build(self, llm: Any = None) -> Generator:
        mod, _, attr = self.target.partition(":")
        impl = getattr(importlib.import_module(mod), attr)(llm)
        missing = [m for m in CONTRACT if not hasattr(impl, m)]
        if missing:
            raise TypeError(f"generator {self.id!r} ({self.target}) lacks {', '.join(missing)}")
        return impl


GENERATORS: Registry[GeneratorSpec] = Registry("generator")

for _spec in (
    GeneratorSpec(
        "offline", "Offline (rules, no key)",
        "Questions from the passages' own sentences: a date, a number, a name or a defined term becomes the "
        "answer of a grammatical question. No key, no model download; English documents.",
        False, ("single_hop",), ("single_hop",), "evaluators.testset.offline:OfflineGenerator",
    ),
    GeneratorSpec(
        "llm", "LLM (single-hop, multi-hop, reasoning, unanswerable, conversational)",
        "An LLM writes each question and its reference answer from one or two passages, in the documents' "
        "language; a second call (the critic) drops questions the passages do not answer.",
        True, ("single_hop", "multi_hop", "reasoning", "unanswerable", "conversational"),
        ("single_hop", "multi_hop", "reasoning", "unanswerable", "conversational"),
        "evaluators.testset.llm:LLMGenerator",
    ),
):
    GENERATORS.register(_spec.id, _spec)


def get_generator(name: str) -> GeneratorSpec:
    return GENERATORS.get(name)

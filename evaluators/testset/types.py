"""The vocabulary of test-set generation: question types, a candidate question, a generator's
request and context, and the result of a run.

Contract: a :class:`Candidate`'s ``passages`` are the reference passages exactly as read (their
``text`` is what the row's ``reference_contexts`` hold, their ``id`` its ``reference_context_ids``);
``history`` holds the earlier turns of a conversational question as chat ``{role, content}`` dicts.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from ..documents import Corpus, Document, Passage, Skipped
from ..types import Usage

#: Every question type a generator may make, in the order they are explained.
QUESTION_TYPES: tuple[str, ...] = ("single_hop", "multi_hop", "reasoning", "unanswerable", "conversational")
TYPE_HELP: dict[str, str] = {
    "single_hop": "one fact from one passage",
    "multi_hop": "needs two passages together",
    "reasoning": "an inference or comparison the passage supports, not stated word for word",
    "unanswerable": "the documents do not hold the answer; the reference is a refusal",
    "conversational": "a follow-up that needs the earlier turn (written to `history`)",
}

#: ``progress(done, total, message)``: ``done`` of ``total`` questions so far.
Progress = Callable[[int, int, str], None]


class TestsetError(ValueError):
    """Bad input to a test-set run (a count, a type a generator does not make, ...)."""

    __test__ = False  # not a pytest test class, whatever its name


@dataclass(frozen=True)
class Candidate:
    question: str
    ground_truth: str
    passages: tuple[Passage, ...]
    question_type: str
    #: The file the question was made for (its allocation), whatever passages it cites.
    source: str
    history: tuple[dict[str, str], ...] = ()
    #: Higher is better, within one document.
    score: float = 1.0
    #: Kept in the row's ``metadata`` (the kind of fact, the sentence it came from, the critic's note).
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    """Make one question of each of ``types`` (in order) for ``document``."""

    document: Document
    types: tuple[str, ...]


@dataclass
class Context:
    """What a generator may use besides its requests."""

    corpus: Corpus
    seed: int = 0
    #: 0 for the first round; a later round asks again for what the first could not make.
    attempt: int = 0
    progress: Progress | None = None
    cancel: threading.Event | None = None
    #: Passage ids already used (a later round avoids them).
    used_passages: set[str] = field(default_factory=set)
    #: Most billed LLM calls the run may make (None: no limit).
    max_calls: int | None = None

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()


@dataclass(frozen=True)
class TestsetResult:
    __test__ = False
    rows: tuple[dict[str, Any], ...]
    requested: int
    #: Why there are fewer rows than requested ("" when there are exactly as many).
    reason: str = ""
    #: Files not read, and documents no question could be made of, each with why.
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()
    generator: str = ""
    model: str | None = None
    usage: Usage = field(default_factory=Usage)
    #: Candidates dropped (critic, near-duplicate, malformed), by reason, for the summary.
    dropped: dict[str, int] = field(default_factory=dict)
    #: How many of ``skipped`` (the first ones) are files that could not be read; the rest are
    #: documents no question was made of (:attr:`no_question`).
    unread: int = 0

    @property
    def no_question(self) -> tuple[Skipped, ...]:
        """The documents read that gave no question (the count the summary's reason gives)."""
        return self.skipped[self.unread:]

    @property
    def complete(self) -> bool:
        return len(self.rows) == self.requested

    def summary(self) -> str:
        text = f"{len(self.rows)} of {self.requested} questions ({self.generator}"
        text += f", {self.model})" if self.model else ")"
        if self.reason:  # (the reason opens with the same count: "36 of 40: …", said once)
            text += f": {self.reason.removeprefix(f'{len(self.rows)} of {self.requested}: ')}"
        return text

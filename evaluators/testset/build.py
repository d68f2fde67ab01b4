"""One test-set run: documents in, exactly ``n`` rows out (or fewer, with the reason).

    result = make_testset(["docs/"], n=40, generator="offline", seed=0)
    result.rows          # the rows of the question file (see :mod:`.rows`)
    result.reason        # "" when there are n rows; else why not

Contract:

* the questions are allocated over the documents in proportion to the square root of their length,
  every document at least one when ``n`` allows (:mod:`.allocate`); the question types over the ``n`` questions in
  equal shares (seeded shuffle), each document's share of every type as even as the count allows;
* a document that gives fewer than its share hands the rest to documents that still can, in the
  same proportion; a generator that is not exhaustive (the LLM) is asked again for what is missing,
  up to ``MAX_ROUNDS`` rounds;
* near-duplicate questions are never both kept (:mod:`.dedupe`); within a document the passages
  are used evenly (a passage gets a second question only once every passage with a candidate has
  one) and better-scored candidates win, ties broken by the seed: the same inputs and seed give the
  same rows;
* a candidate marked ``extra["filler"]`` (the offline generator's affirmative yes/no questions) is
  taken only where nothing better is left: a file's first question when it has no other (and ``n``
  is at least the number of files), then — once every file's other candidates are used — to reach ``n``;
* fewer than ``n`` rows only with a stated reason (the documents hold no more questions this
  generator can make, the critic dropped them, the run was cancelled), never silently.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from ..documents import Corpus, Skipped, read_documents
from ..registry import RegistryError
from .allocate import allocate, length_weights, top_up
from .dedupe import Deduper, embed
from .registry import GeneratorSpec, get_generator
from .rows import make_rows
from .types import QUESTION_TYPES, Candidate, Context, Progress, Request, TestsetError, TestsetResult

#: Kinds whose answer is a whole statement (a yes/no question's): one inside another kept answer of the
#: file asks the same thing again.
_STATEMENTS = frozenset({"yes/no", "negation"})
#: Most rounds of asking a non-exhaustive generator again for the questions still missing.
MAX_ROUNDS = 3
#: Most questions one run makes.
MAX_N = 5000


def check_request(generator: str, n: int, types: Sequence[str] | None) -> tuple[GeneratorSpec, tuple[str, ...]]:
    """The generator and the types asked for, or TestsetError naming what is wrong."""
    try:
        spec = get_generator(generator)
    except RegistryError as exc:
        raise TestsetError(str(exc)) from None
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise TestsetError(f"the number of questions must be at least 1 (got {n!r})")
    if n > MAX_N:
        raise TestsetError(f"at most {MAX_N:,} questions per run (got {n:,})")
    chosen = tuple(dict.fromkeys(types)) if types else spec.default_types
    unknown = [t for t in chosen if t not in QUESTION_TYPES]
    if unknown:
        raise TestsetError(f"unknown question type(s) {', '.join(unknown)}; valid: {', '.join(QUESTION_TYPES)}")
    unsupported = [t for t in chosen if t not in spec.types]
    if unsupported:
        raise TestsetError(f"the {spec.id} generator does not make {', '.join(unsupported)} questions (it makes "
                           f"{', '.join(spec.types)}); use --generator llm for them")
    return spec, chosen


def _type_slots(quota: dict[str, int], types: tuple[str, ...], seed: int) -> dict[str, list[str]]:
    """Each document's list of question types: equal shares over all the questions (seeded shuffle),
    dealt round-robin over the documents so each gets a mix."""
    n = sum(quota.values())
    per_type = allocate({t: 1.0 for t in types}, n, seed)
    pool = [t for t in types for _ in range(per_type.get(t, 0))]
    random.Random(seed).shuffle(pool)
    slots: dict[str, list[str]] = {d: [] for d in quota}
    docs = [d for d in sorted(quota) if quota[d]]
    cursor = 0
    while cursor < len(pool):
        for d in docs:
            if len(slots[d]) < quota[d] and cursor < len(pool):
                slots[d].append(pool[cursor])
                cursor += 1
    return slots


class _Run:
    def __init__(self, corpus: Corpus, n: int, spec: GeneratorSpec, types: tuple[str, ...], seed: int,
                 llm: Any, progress: Progress | None, cancel: threading.Event | None,
                 max_calls: int | None = None) -> None:
        self.corpus, self.n, self.spec, self.types, self.seed = corpus, n, spec, types, seed
        self.gen = spec.build(llm)
        self.ctx = Context(corpus, seed=seed, progress=progress, cancel=cancel, max_calls=max_calls)
        self.progress = progress
        self.rng = random.Random(seed)
        self.docs = {d.name: d for d in corpus.documents}
        #: Each file's length, and the weight its share of the questions follows: the square root of its
        #: length, so a long file gets more questions than a short one without crowding the others out
        #: (a file 100 times as long gets 10 times the questions; see docs/testset.md).
        self.chars = {d.name: float(max(d.chars, 1)) for d in corpus.documents}
        self.weights = length_weights(self.chars)
        self.quota = allocate(self.weights, n, seed)
        self.slots = _type_slots(self.quota, types, seed)
        self.pools: dict[str, list[Candidate]] = {d: [] for d in self.docs}
        self.vectors: dict[str, Any] = {}
        self.chosen: dict[str, list[Candidate]] = {d: [] for d in self.docs}
        self.exhausted: set[str] = set()
        self.dedupe = Deduper()
        self.dropped: Counter[str] = Counter()
        self.exhaustive = bool(getattr(self.gen, "exhaustive", False))
        #: Documents a question was asked of (the others were not needed: n < documents).
        self.asked: set[str] = set()
        #: Fillers may be taken anywhere (the second phase: nothing better is left).
        self.fillers = False

    # ---------------------------------------------------------------------------------- helpers
    def missing(self, d: str) -> list[str]:
        """The types of ``d``'s slots not yet filled."""
        left = list(self.slots[d])
        for c in self.chosen[d]:
            if c.question_type in left:
                left.remove(c.question_type)
        return left

    def total(self) -> int:
        return sum(len(v) for v in self.chosen.values())

    def tick(self, message: str) -> None:
        if self.progress is not None:
            self.progress(self.total(), self.n, message)

    # ---------------------------------------------------------------------------------- steps
    def ask(self) -> None:
        requests = [Request(self.docs[d], tuple(self.missing(d))) for d in sorted(self.docs)
                    if self.missing(d) and d not in self.exhausted]
        if not requests:
            return
        self.asked.update(r.document.name for r in requests)
        got = self.gen.propose(requests, self.ctx)
        new: list[Candidate] = []
        for r in requests:
            cands = got.get(r.document.name, [])
            # an exhaustive generator gave all it has; another leaves out a document it has nothing left to
            # ask of (an empty list is "tried, none kept": worth another round)
            if self.exhaustive or r.document.name not in got:
                self.exhausted.add(r.document.name)
            self.pools[r.document.name].extend(cands)
            new += cands
        texts = [c.question for c in new if c.question not in self.vectors]
        if texts:
            for t, v in zip(texts, embed(texts)):
                self.vectors[t] = v

    def pick(self) -> None:
        for d in sorted(self.docs):
            for t in self.missing(d):
                c = self._best(d, t)
                if c is not None:
                    self.chosen[d].append(c)
                    self.ctx.used_passages.update(p.id for p in c.passages)

    def usable(self, d: str, qtype: str | None = None) -> list[Candidate]:
        """``d``'s candidates (of ``qtype``) the run may take now: fillers only in the second phase, or
        for a file's first question when it has nothing else."""
        pool = [c for c in self.pools[d] if qtype is None or c.question_type == qtype]
        if self.fillers:
            return pool
        better = [c for c in pool if not c.extra.get("filler")]
        if better or self.chosen[d] or any(not c.extra.get("filler") for c in self.pools[d]) or \
                self.n < len(self.docs):  # every file used is a promise only when n allows it
            return better
        return pool

    def _best(self, d: str, qtype: str) -> Candidate | None:
        used = Counter(p.id for c in self.chosen[d] for p in c.passages)
        pool = self.pools[d]
        while True:
            options = self.usable(d, qtype)
            if not options:
                return None
            keyed = [(bool(c.extra.get("filler")), used[c.passages[0].id] if c.passages else 0, -c.score,
                      self.rng.random(), i) for i, c in enumerate(options)]
            best = options[min(keyed)[4]]
            pool.remove(best)
            if self._same_answer(d, best):
                self.dropped["question whose answer another question of its file already has"] += 1
                continue
            if self.dedupe.accept(best.question, self.vectors[best.question], best.ground_truth):
                return best
            self.dropped["near-duplicate of a question already kept"] += 1

    def _same_answer(self, d: str, c: Candidate) -> bool:
        """Whether a question of ``d`` already kept has this one's answer (one inside the other, four words
        at least): "Does IBM Cloud Transit Gateway perform encryption?" beside the FAQ's "How does my transit
        gateway handle encryption ...?" whose answer holds it."""
        a = " ".join(c.ground_truth.lower().split()).strip(" .")
        for k in self.chosen[d]:
            if not ({c.extra.get("fact"), k.extra.get("fact")} & _STATEMENTS):
                continue  # a fact inside a longer answer is a question of its own ("When do explorers meet?")
            b = " ".join(k.ground_truth.lower().split()).strip(" .")
            short, long = sorted((a, b), key=len)
            if len(short.split()) >= 4 and short in long:
                return True
        return False

    def fill(self) -> bool:
        """The second phase: fillers allowed, the questions still missing given to the files that have
        some, in proportion to length (D'Hondt); True when a slot was added."""
        self.fillers = True
        spare = {d: len(self.usable(d)) for d in self.docs if d in self.exhausted}
        for d in self.docs:
            self.slots[d] = [c.question_type for c in self.chosen[d]]
        filled = {d: len(self.chosen[d]) for d in self.docs}
        extra = top_up(filled, self.weights, spare, self.n - self.total())
        added = False
        for d, k in extra.items():
            for _ in range(k - filled[d]):
                have = [c.question_type for c in self.usable(d)]
                if have:
                    self.slots[d].append(have[0])
                    added = True
        return added

    def reallocate(self) -> bool:
        """Move the unfilled slots of documents that cannot give more to documents that can; True
        when a slot moved."""
        stuck = {d: self.missing(d) for d in self.docs
                 if self.missing(d) and d in self.exhausted and not self._has_pool(d, self.missing(d))}
        if not stuck:
            return False
        open_docs = {d: (len(self.usable(d)) if d in self.exhausted else self.n) for d in self.docs
                     if d not in stuck and (d not in self.exhausted or self.usable(d))}
        moving = [t for d in sorted(stuck) for t in stuck[d]]
        if not open_docs:
            return False
        filled = {d: len(self.slots[d]) for d in open_docs}
        extra = top_up(filled, self.weights, open_docs, len(moving))
        moved = False
        for d in sorted(stuck):
            self.slots[d] = [c.question_type for c in self.chosen[d]]
        for d in sorted(extra):
            for _ in range(extra[d] - filled[d]):
                if moving:
                    self.slots[d].append(self._take_type(moving, d))
                    moved = True
        return moved

    def _take_type(self, moving: list[str], d: str) -> str:
        """A moved slot keeps its type when ``d`` has a candidate of it, else becomes one ``d`` has."""
        have = {c.question_type for c in self.usable(d)}
        for t in moving:
            if t in have or d not in self.exhausted:
                moving.remove(t)
                return t
        t = moving.pop(0)
        return next(iter(have)) if have else t

    def _has_pool(self, d: str, types: list[str]) -> bool:
        return any(c.question_type in types for c in self.usable(d))

    def run(self) -> TestsetResult:
        self.tick("reading the passages")
        for attempt in range(MAX_ROUNDS + (1 if self.exhaustive else 0)):
            if self.ctx.cancelled:
                break
            self.ctx.attempt = attempt
            self.ask()
            self.pick()
            while self.total() < self.n and self.reallocate():
                self.pick()
            self.tick(f"{self.total()} of {self.n} questions")
            if self.total() >= self.n or all(d in self.exhausted for d in self.docs):
                break
        while not self.ctx.cancelled and self.total() < self.n and all(d in self.exhausted for d in self.docs) \
                and self.fill():
            before = self.total()
            self.pick()
            if self.total() == before:
                break
        return self.result()

    def result(self) -> TestsetResult:
        chosen = [c for d in sorted(self.chosen) for c in self.chosen[d]]
        rows = make_rows(chosen, self.spec.id, self.gen.model)
        notes = list(dict.fromkeys(self.gen.notes))
        made = Counter(c.source for c in chosen)
        total = sum(self.chars.values())
        for d, k in made.items():  # a long file among short ones takes the largest share: say so
            if len(self.docs) > 2 and self.chars[d] > total / 2:
                notes.append(f"{d}: {k} of the {len(rows)} questions, as it holds {self.chars[d] / total:.0%} of "
                             "the documents' text (questions follow the square root of a file's length, so the "
                             "other files keep theirs; give it alone, or its parts, for more of it)")
        reasons = getattr(self.gen, "reasons", {})
        more = [f"{d} +{made[d] - self.quota.get(d, 0)}" for d in sorted(self.docs)
                if made[d] > self.quota.get(d, 0) and self.quota.get(d, 0) > 0]
        taken = f" (the rest taken from the files that had more: {', '.join(more)})" if more else ""
        for d in sorted(self.docs):  # fewer than its share at the start: what was found there, and why it was left
            share = self.quota.get(d, 0)
            if d in reasons and 0 < made[d] < share:
                notes.append(f"{d}: {made[d]} of its {share} questions{taken}; {reasons[d]}")
        skipped = list(self.corpus.skipped) + [
            Skipped(d, next((n.split(": ", 1)[1] for n in notes if n.startswith(d + ": ")),
                            "no question this generator could make of it"))
            for d in sorted(self.docs) if not made[d] and d in self.asked]
        reason = ""
        if len(rows) < self.n:
            reason = self._reason(len(rows), made)
        dropped = dict(self.dropped)
        for k, v in getattr(self.gen, "dropped", {}).items():
            dropped[k] = dropped.get(k, 0) + v
        return TestsetResult(tuple(rows), self.n, reason, tuple(skipped), tuple(notes), self.spec.id,
                             self.gen.model, self.gen.usage, dropped, unread=len(self.corpus.skipped))

    def _reason(self, got: int, made: Counter[str]) -> str:
        if self.ctx.cancelled:
            return f"cancelled after {got} of {self.n} questions"
        if self.exhaustive:
            text = (f"{got} of {self.n}: the documents hold only {got} distinct "
                    f"{'question' if got == 1 else 'questions'} the {self.spec.id} "
                    "generator can make (one per sentence that states a date, a number, a name or a defined term)")
        else:
            text = (f"{got} of {self.n}: the generator could not make more questions the critic kept "
                    f"(asked up to {MAX_ROUNDS} times, with other passages each time)")
        lost = {k: v for k, v in self.dropped.items() if v}
        for k, v in getattr(self.gen, "dropped", {}).items():
            lost[k] = lost.get(k, 0) + v
        if lost:
            text += " (dropped: " + ", ".join(f"{v} {k}" for k, v in sorted(lost.items())) + ")"
        none = [d for d in sorted(self.docs) if not made[d] and d in self.asked]
        if none:
            more = f" and {len(none) - 5} more" if len(none) > 5 else ""
            docs = f"{len(none)} document{'s' if len(none) != 1 else ''}"  # (TestsetResult.no_question's count)
            text += f"; no question from {docs}: {', '.join(none[:5])}{more}"
        return text


def make_testset(documents: Corpus | Sequence[str | Path], n: int, *, generator: str = "offline",
                 types: Sequence[str] | None = None, seed: int = 0, llm: Any = None,
                 progress: Progress | None = None, cancel: threading.Event | None = None,
                 max_llm_calls: int | None = None) -> TestsetResult:
    """Make a test set of ``n`` questions from ``documents`` (a Corpus, or files and folders to read).
    ``llm``: the ``LLMSettings`` of the llm generator; ``max_llm_calls`` caps its billed calls.
    Raises TestsetError (bad n / generator / types, no usable LLM) or DocumentsError (nothing readable)."""
    spec, chosen = check_request(generator, n, types)
    corpus = documents if isinstance(documents, Corpus) else read_documents(list(documents))
    return _Run(corpus, n, spec, chosen, seed, llm, progress, cancel, max_llm_calls).run()


def estimate(documents: Corpus, n: int, *, generator: str = "llm", types: Sequence[str] | None = None,
             llm: Any = None) -> dict[str, Any]:
    """What a run would spend (LLM calls, tokens, USD), before anything is spent."""
    spec, chosen = check_request(generator, n, types)
    return spec.build(llm).estimate(documents, n, chosen)

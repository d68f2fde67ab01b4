"""The ``llm`` generator: an LLM writes each question and its reference answer from one passage (two
for multi-hop), a second call — the critic — keeps it only if the passages answer it.

Contract:

* every call goes through ``evaluators.llm`` (the project's providers, the key rule, rate limits,
  retries, the reply cache, json-repair and one re-ask on a malformed or invalid reply); nothing
  here imports an SDK;
* a question is written in its document's language (:mod:`evaluators.documents.language`);
* types: ``single_hop`` (one fact of one passage), ``multi_hop`` (the passage and its most similar
  other passage, by MiniLM), ``reasoning``, ``unanswerable`` (the reference answer is a refusal and
  the row has no reference passage; the critic sees the seed passage and the three passages most
  like the question, and the question is dropped if they answer it) and ``conversational`` (a first
  turn, kept in ``history``, and a follow-up that needs it);
* a reply that is still unusable after the re-ask (malformed, a refusal, a question that gives its
  answer away) and a question the critic rejects are dropped and counted in ``dropped`` by reason;
  the run asks again with other passages. If every call of the first round fails outright (a bad
  key, a server that is down) the run stops with that error instead of spending more calls;
* generation runs at temperature 0.7 (variety), the critic at 0; with the reply cache the same
  documents, settings and seed give the same questions again without a call;
* ``Context.max_calls`` caps the billed calls (the public Space's visitor limit): past it, no new
  question is started.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from typing import Any, Sequence

import numpy as np

from ..documents import Corpus, Document, Passage
from ..llm import LLMUnavailable, StructuredCallError
from ..types import Usage
from .dedupe import embed
from .llm_prompts import (
    EXPECTED_OUTPUT_TOKENS,
    PROMPT_VERSION,
    CriticReply,
    FollowUpReply,
    QuestionReply,
    check_question,
    critic_messages,
    generation_messages,
    schema_for,
)
from .types import Candidate, Context, Request, TestsetError

GENERATION_TEMPERATURE = 0.7
#: Passages shorter than this are asked about only when a document has no longer one left.
MIN_PASSAGE_CHARS = 120


class _Dropped(Exception):
    def __init__(self, why: str, detail: str = "", call_failed: bool = False) -> None:
        super().__init__(why)
        self.why, self.detail, self.call_failed = why, detail, call_failed


class LLMGenerator:
    exhaustive = False

    def __init__(self, llm: Any = None) -> None:
        self.settings = llm
        self.model: str | None = f"{llm.provider}/{llm.model}" if llm is not None else None
        self.notes: list[str] = []
        self.dropped: Counter[str] = Counter()
        self._usage = Usage()
        self._client: Any = None
        self._tried: set[tuple[str, str]] = set()
        self._vectors: np.ndarray | None = None
        self._passages: list[Passage] = []

    @property
    def usage(self) -> Usage:
        return self._usage

    # ------------------------------------------------------------------------------- the client
    def _get_client(self) -> Any:
        if self._client is None:
            from ..llm.keys import check_settings
            from ..llm.shared import get_client

            check_settings(self.settings, "the llm test-set generator")
            self._client = get_client(self.settings)
        return self._client

    def _add(self, u: Usage) -> None:
        self._usage = self._usage + u

    # ------------------------------------------------------------------------------- passages
    def _index(self, corpus: Corpus) -> None:
        if self._vectors is None:
            self._passages = corpus.passages
            self._vectors = embed([p.text for p in self._passages])

    def _nearest(self, vector: np.ndarray, exclude: set[str], k: int) -> list[Passage]:
        assert self._vectors is not None
        sims = self._vectors @ vector
        out: list[Passage] = []
        seen_text: set[str] = set()
        for i in np.argsort(-sims):
            p = self._passages[int(i)]
            if p.id in exclude or p.text in seen_text:
                continue
            seen_text.add(p.text)
            out.append(p)
            if len(out) == k:
                break
        return out

    def _pick(self, doc: Document, qtype: str, ctx: Context, rng: random.Random) -> tuple[Passage, ...] | None:
        untried = [p for p in doc.passages if (p.id, qtype) not in self._tried]
        fresh = [p for p in untried if p.id not in ctx.used_passages]
        options = next((ps for ps in ([p for p in fresh if len(p.text) >= MIN_PASSAGE_CHARS], fresh,
                                      [p for p in untried if len(p.text) >= MIN_PASSAGE_CHARS], untried) if ps), [])
        if not options:
            return None
        first = rng.choice(options)
        self._tried.add((first.id, qtype))
        if qtype != "multi_hop":
            return (first,)
        self._index(ctx.corpus)
        i = self._passages.index(first)
        assert self._vectors is not None
        near = [p for p in self._nearest(self._vectors[i], {first.id}, 6) if p.text != first.text]
        if not near:
            self.notes.append(f"{doc.name}: multi_hop needs two passages; the documents hold one")
            return None
        return first, rng.choice(near[:3])

    # ------------------------------------------------------------------------------- one question
    async def _one(self, client: Any, doc: Document, qtype: str, passages: tuple[Passage, ...],
                   ctx: Context) -> Candidate:
        if ctx.cancelled:
            raise _Dropped("cancelled")
        if ctx.max_calls is not None and self._usage.calls + 2 > ctx.max_calls:
            raise _Dropped("not started: the LLM call limit was reached")
        try:
            res = await client.structured(
                generation_messages(qtype, passages, doc.language), schema_for(qtype),
                temperature=GENERATION_TEMPERATURE, cache_salt=f"{PROMPT_VERSION}/write/{ctx.seed}",
                validate=functools.partial(check_question, qtype=qtype))
        except StructuredCallError as exc:
            self._add(exc.usage)
            unusable = "reply unusable" in exc.reason
            raise _Dropped("unusable replies (malformed JSON or a refusal, after a re-ask)" if unusable
                           else "failed LLM calls", exc.reason, call_failed=not unusable) from None
        self._add(res.usage)
        reply = res.value
        assert isinstance(reply, QuestionReply)
        history: tuple[dict[str, str], ...] = ()
        if isinstance(reply, FollowUpReply):
            history = ({"role": "user", "content": reply.first_question.strip()},
                       {"role": "assistant", "content": reply.first_answer.strip()})
        shown = passages
        if qtype == "unanswerable":
            self._index(ctx.corpus)
            shown = passages + tuple(self._nearest(embed([reply.question])[0], {p.id for p in passages}, 3))
        try:
            crit = await client.structured(critic_messages(qtype, shown, reply.question, reply.answer, history),
                                           CriticReply, temperature=0.0, cache_salt=f"{PROMPT_VERSION}/check")
        except StructuredCallError as exc:
            self._add(exc.usage)
            raise _Dropped("critic calls that failed", exc.reason) from None
        self._add(crit.usage)
        c = crit.value
        assert isinstance(c, CriticReply)
        answered = not c.answerable if qtype == "unanswerable" else c.answerable
        if not (answered and c.answer_supported and c.standalone):
            raise _Dropped("dropped by the critic", c.reason)
        return Candidate(reply.question.strip(), reply.answer.strip(), passages, qtype, doc.name, history,
                         extra={"critic": c.reason.strip()} if c.reason.strip() else {})

    # ------------------------------------------------------------------------------- the contract
    def propose(self, requests: Sequence[Request], ctx: Context) -> dict[str, list[Candidate]]:
        try:
            client = self._get_client()
        except LLMUnavailable as exc:
            raise TestsetError(str(exc)) from None
        rng = random.Random(f"{ctx.seed}/{ctx.attempt}")
        tasks: list[tuple[Document, str, tuple[Passage, ...]]] = []
        for r in requests:
            for t in r.types:
                ps = self._pick(r.document, t, ctx, rng)
                if ps is None:
                    self.dropped["not asked: no passage left for this type"] += 1
                else:
                    tasks.append((r.document, t, ps))
        done = [0]

        def job(doc: Document, qtype: str, ps: tuple[Passage, ...]) -> Any:
            async def run() -> Candidate:
                try:
                    return await self._one(client, doc, qtype, ps, ctx)
                finally:
                    done[0] += 1
                    if ctx.progress is not None:
                        ctx.progress(done[0], len(tasks), f"round {ctx.attempt + 1}: {done[0]} of {len(tasks)} "
                                                          "questions written and checked")
            return run

        results = client.run_all([job(*t) for t in tasks])
        out: dict[str, list[Candidate]] = {doc.name: [] for doc, _, _ in tasks}  # the others: nothing left
        fatal: list[str] = []
        for (doc, _, _), res in zip(tasks, results):
            if isinstance(res, Candidate):
                out[doc.name].append(res)
            elif isinstance(res, _Dropped):
                self.dropped[res.why] += 1
                if res.call_failed:
                    fatal.append(res.detail)
                if res.detail and len(self.notes) < 20:
                    self.notes.append(f"{doc.name}: {res.why}: {res.detail}")
            else:
                self.dropped["errors"] += 1
                self.notes.append(f"{doc.name}: {type(res).__name__}: {res}")
        if tasks and len(fatal) == len(tasks):
            msg = f"every LLM call failed ({fatal[0]})"
            if ctx.attempt == 0:
                raise TestsetError(msg)
            self.notes.append(msg)
            return {}
        return out

    def estimate(self, corpus: Corpus, n: int, types: Sequence[str]) -> dict[str, Any]:
        from ..llm.estimate import estimate_cost
        from ..llm.settings import LLMSettings

        settings = self.settings or LLMSettings()
        passages = [p for p in corpus.passages if len(p.text) >= MIN_PASSAGE_CHARS] or corpus.passages
        prompts: list[str] = []
        outs: list[int] = []
        for i in range(n):
            qtype = types[i % len(types)]
            p = passages[(i * len(passages)) // max(n, 1)]
            shown = [p, p] if qtype in ("multi_hop", "unanswerable") else [p]
            prompts.append("\n".join(m["content"] for m in generation_messages(qtype, shown, "")))
            outs.append(EXPECTED_OUTPUT_TOKENS["conversational" if qtype == "conversational" else "generate"])
            critic = critic_messages(qtype, shown * (2 if qtype == "unanswerable" else 1), "?" * 80, "?" * 120)
            prompts.append("\n".join(m["content"] for m in critic))
            outs.append(EXPECTED_OUTPUT_TOKENS["critic"])
        est = estimate_cost(prompts, settings, outs)
        est["note"] = ("2 calls per question (write it, then check it); a question the check drops is asked again "
                       "with another passage, so a run may spend up to about a third more")
        if self.settings is None:
            est["note"] += f"; no LLM configured: priced as {settings.provider}/{settings.model}"
        return est

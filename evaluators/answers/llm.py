"""Answer correctness by an LLM: one sentence-keyed call per case, cached.

Contract: :func:`build_messages` shows the question, the reference answer split into keyed facts
(``r1``, ``r2``, …) and the response split into keyed sentences (``a``, ``b``, … as everywhere) and asks
for one JSON object (:class:`CorrectnessReply`): per fact whether the response states it (and which
response sentences), per response sentence whether the reference backs it, or whether it declines /
states nothing. :func:`to_judged` turns the reply into the two :class:`~.judge.Judged` sides the offline
path gives (reference facts against the response, response claims against the reference), so both
paths score alike. :func:`judge_with_llm` makes the calls through the shared client
(``evaluators.llm``; cached under :data:`PROMPT_VERSION`) with bounded concurrency; a case whose call
fails gets the reason, never an exception.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Annotated, Any, Sequence

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ..llm.errors import LLMUnavailable, StructuredCallError
from ..sentencize import sentencize_response
from ..types import Usage
from .judge import Judged, Sentence

PROMPT_VERSION = "answer-correctness-v1"

SYSTEM_PROMPT = (
    "You are a meticulous grader of answers against a reference answer. You compare facts sentence by "
    "sentence, refer to sentences only by the keys you are given, and answer with a single JSON object and "
    "nothing else."
)

INSTRUCTIONS = """\
The reference answer is split into facts keyed "r1", "r2", …; the response into sentences keyed "a", \
"b", …. Judge them as follows; numbers, dates, names and amounts must match exactly to count.

1. For every reference fact, in order: "key"; an "explanation" of where the response states it (or that it \
does not, or contradicts it); "stated_by", the keys of the response sentences that state it (empty when \
none); and then "stated": true only if the response states the whole fact.
2. For every response sentence, in order: "key"; an "explanation"; "backed_by", the keys of the reference \
facts that back it; "declines": true if the sentence declines to answer or says the information is not \
available ("I don't know", "the documents do not say"); "states_nothing": true if it makes no claim at all \
(a greeting, a transition, an apology); and then "backed": true only if every claim in it is in the \
reference answer.

Reply with only this JSON object:
{
  "reference_facts": [{"key": "r1", "explanation": "...", "stated_by": ["a"], "stated": true}],
  "response_sentences": [{"key": "a", "explanation": "...", "backed_by": ["r1"], "declines": false, \
"states_nothing": false, "backed": true}]
}"""


def _keys(v: Any) -> Any:
    if v is None:
        return []
    if isinstance(v, str):
        v = [p for p in re.split(r"[,\s;]+", v) if p]
    return [str(x).strip().strip(".").lower() for x in v if x is not None and str(x).strip()] \
        if isinstance(v, (list, tuple)) else v


Keys = Annotated[list[str], BeforeValidator(_keys)]
Text = Annotated[str, BeforeValidator(lambda v: "" if v is None else str(v))]


class FactVerdict(BaseModel):
    model_config = ConfigDict(extra="ignore")

    key: str
    explanation: Text = ""
    stated_by: Keys = Field(default_factory=list)
    stated: bool


class SentenceVerdict(BaseModel):
    model_config = ConfigDict(extra="ignore")

    key: str
    explanation: Text = ""
    backed_by: Keys = Field(default_factory=list)
    declines: bool = False
    states_nothing: bool = False
    backed: bool


class CorrectnessReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reference_facts: list[FactVerdict]
    response_sentences: list[SentenceVerdict] = Field(default_factory=list)


def facts_of(reference: str) -> list[str]:
    """The reference answer's facts: its sentences (the response's split)."""
    return [s.text for s in sentencize_response(reference)]


def build_messages(question: str, reference: str, response: str) -> list[dict[str, str]]:
    """The chat messages of one case (system + user)."""
    facts = facts_of(reference)
    sents = sentencize_response(response)
    parts = ["Question:", question.strip() or "(no question given)", "", "Reference answer:"]
    parts += [f"r{i + 1}. {t}" for i, t in enumerate(facts)] or ["(empty)"]
    parts += ["", "Response:"]
    parts += [f"{s.key}. {s.text}" for s in sents] or ["(empty)"]
    parts += ["", INSTRUCTIONS]
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(parts)}]


def to_judged(reply: CorrectnessReply, reference: str, response: str) -> tuple[Judged, Judged]:
    """(reference facts judged against the response, response sentences judged against the reference).
    Raises ValueError when the reply covers none of the reference facts (the client re-asks once)."""
    facts = facts_of(reference)
    sents = sentencize_response(response)
    by_fact = {f.key.lower().strip("."): f for f in reply.reference_facts}
    if facts and not any(f"r{i + 1}" in by_fact for i in range(len(facts))):
        raise ValueError("reference_facts must hold one object per reference fact, keyed "
                         + ", ".join(f"r{i + 1}" for i in range(len(facts))))
    text_of = {s.key: s.text for s in sents}
    fact_text = {f"r{i + 1}": t for i, t in enumerate(facts)}
    out_facts = []
    for i, t in enumerate(facts):
        f = by_fact.get(f"r{i + 1}")
        if f is None:
            out_facts.append(Sentence(text=t, stated=False, claims=True, why="(not judged by the model; counted as "
                                                                              "not stated)"))
            continue
        out_facts.append(Sentence(text=t, stated=bool(f.stated), claims=True,
                                  by=tuple(text_of[k] for k in f.stated_by if k in text_of), why=f.explanation))
    by_sent = {v.key.lower().strip("."): v for v in reply.response_sentences}
    out_sents = []
    for s in sents:
        v = by_sent.get(s.key)
        if v is None:
            out_sents.append(Sentence(text=s.text, stated=False, claims=True,
                                      why="(not judged by the model; counted as not backed)"))
            continue
        claims = not (v.declines or v.states_nothing)
        out_sents.append(Sentence(text=s.text, stated=bool(v.backed) and claims, claims=claims,
                                  by=tuple(fact_text[k] for k in v.backed_by if k in fact_text), why=v.explanation,
                                  declines=bool(v.declines)))
    return Judged(sentences=tuple(out_facts)), Judged(sentences=tuple(out_sents))


@dataclass(frozen=True)
class Failed:
    """A correctness call that gave no usable judgment: why (key-free), and what its attempts cost
    (a reply that could not be used was still paid for: it counts in the run's usage)."""

    reason: str
    usage: Usage = dc_field(default_factory=Usage)


def judge_with_llm(triples: Sequence[tuple[str, str, str]], settings: Any
                   ) -> list[tuple[Judged, Judged, Usage] | Failed]:
    """Per ``(question, reference, response)``: (recall side, precision side, usage), or :class:`Failed`
    (the reason and the usage of the failed attempts). One call per triple (plus at most one re-ask), cached."""
    from ..llm.keys import check_settings
    from ..llm.shared import get_client

    if not triples:
        return []
    try:
        check_settings(settings, "answer correctness")
    except LLMUnavailable as exc:
        return [Failed(str(exc))] * len(triples)
    client = get_client(settings)

    def one(q: str, ref: str, resp: str):
        async def run() -> tuple[Judged, Judged, Usage]:
            res = await client.structured(build_messages(q, ref, resp), CorrectnessReply, cache_salt=PROMPT_VERSION,
                                          validate=functools.partial(_checked, reference=ref, response=resp))
            recall_side, precision_side = to_judged(res.value, ref, resp)  # type: ignore[arg-type]
            return recall_side, precision_side, res.usage
        return run

    out: list[tuple[Judged, Judged, Usage] | Failed] = []
    for r in client.run_all([one(*t) for t in triples]):
        if isinstance(r, StructuredCallError):
            out.append(Failed(f"answer correctness (LLM): {r.reason}", r.usage))
        elif isinstance(r, Exception):
            out.append(Failed(f"answer correctness (LLM) failed: {type(r).__name__}: {r}"))
        else:
            out.append(r)
    return out


def _checked(reply: CorrectnessReply, reference: str, response: str) -> CorrectnessReply:
    to_judged(reply, reference, response)  # raises ValueError for a reply that covers no fact
    return reply


__all__ = ["CorrectnessReply", "Failed", "PROMPT_VERSION", "build_messages", "facts_of", "judge_with_llm", "to_judged"]

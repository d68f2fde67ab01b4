"""``gpt_labeling``: one LLM call per case labels every document and response sentence.

The prompt (our own, versioned by ``PROMPT_VERSION``) shows the documents split into keyed
sentences (``0a.``, ``0b.``, …; a JSON record or table as its facts, ``0c. hours › Monday: 08:00–14:00``,
its ``<document>`` tag saying how they read), the question, and the response split into keyed sentences
(``a.``, ``b.``, …; its Markdown headings and labels, which are no sentences, shown without a key as
``~ ## Pricing``: see :func:`response_lines`), and asks for one JSON object (explanation before verdict everywhere):

* ``relevance_explanation``, ``all_relevant_sentence_keys`` — judged from documents and question only;
* ``overall_supported_explanation``, ``overall_supported``;
* ``sentence_support_information``: per response sentence ``response_sentence_key``, ``explanation``,
  ``supporting_sentence_keys`` (empty when unsupported, or special values for sentences that need no
  document: ``supported_without_sentence``, ``general``, ``well_known_fact``,
  ``numerical_reasoning``), ``fully_supported``;
* ``all_utilized_sentence_keys``.

A turn of a conversation (a case with ``history``) also shows the turns before the question, marked
as context that is not a document, and one more rule: a sentence only an earlier agent turn supports
cites that turn (``turn_4``); see :mod:`evaluators.conversations.prompt`. A single-turn case's prompt
is unchanged.

Parsing (see ``to_labels``): the reply is validated with lenient pydantic models (keys normalised:
``"0A."`` -> ``0a``; a comma-separated string becomes a list; a dict keyed by sentence becomes a list).
Keys that do not exist are dropped and recorded in ``SentenceLabels.notes``; response sentences the
reply leaves out count as unsupported and are recorded; special values are kept in
``supporting_keys`` and count as support when the model says ``fully_supported``; the model's
``overall_supported`` is recomputed from the sentence verdicts (a contradiction is recorded). A reply
that covers none of the response sentences, or lacks a required field, is re-asked once with the
error (``LLMClient.structured``); if it still fails, the case is unscored with the reason.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Annotated, Any, Callable, Sequence, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from .. import citations
from ..conversations.prompt import CONVERSATION_RULES, citable_keys, conversation_lines
from ..llm.errors import LLMUnavailable, StructuredCallError
from ..methods import BaseMethod, Tick
from ..options import EvalOptions
from ..sentencize import structure_spans
from ..structured import is_structured
from ..types import (
    SPECIAL_SUPPORT_KEYS,
    LabelOutcome,
    SentenceLabels,
    SentenceSupport,
    SentencizedCase,
    earlier_turn_of,
)

if TYPE_CHECKING:
    from ..llm.client import LLMClient
    from ..llm.settings import LLMSettings

METHOD = "gpt_labeling"
PROMPT_VERSION = "trace-label-v1"

SYSTEM_PROMPT = (
    "You are a meticulous annotator of retrieval-augmented generation (RAG) outputs. You judge "
    "documents, a question and a response sentence by sentence, refer to sentences only by the "
    "keys you are given, and answer with a single JSON object and nothing else."
)

INSTRUCTIONS = """\
Every document sentence above has a key such as "0a" (document 0, sentence a) and every response \
sentence a key such as "a". Label them as follows.

1. Relevance. Using only the documents and the question (ignore the response for this step), decide \
which document sentences contain information useful for answering the question. Explain briefly in \
"relevance_explanation", then list their keys in "all_relevant_sentence_keys".
2. Overall support. Explain in "overall_supported_explanation" whether the response as a whole is \
grounded in the documents, then set "overall_supported" to true only if every response sentence is \
fully supported.
3. Support of each response sentence. Give one object per response sentence, in order, with \
"response_sentence_key"; an "explanation" of which document sentences back it and whether anything \
in it goes beyond them; "supporting_sentence_keys", the keys of the document sentences that back it \
(an empty list when nothing backs it); and then "fully_supported": true only if every claim in the \
sentence is backed. A sentence with only some claims backed keeps its supporting keys and has \
"fully_supported": false. A sentence that needs no document support uses one of these values in \
"supporting_sentence_keys" and is fully supported:
   - "supported_without_sentence": follows from the documents as a whole, no single sentence states it;
   - "general": a transition, hedge or other statement that makes no factual claim;
   - "well_known_fact": common knowledge no reader would dispute;
   - "numerical_reasoning": a correct calculation from numbers in the documents (list the keys of \
those numbers too).
4. Utilization. List in "all_utilized_sentence_keys" the keys of every document sentence the response \
draws information from, whether or not it is relevant to the question.

Use only keys shown above. Reply with only this JSON object:
{
  "relevance_explanation": "...",
  "all_relevant_sentence_keys": ["0a", "..."],
  "overall_supported_explanation": "...",
  "overall_supported": true,
  "sentence_support_information": [
    {"response_sentence_key": "a", "explanation": "...", "supporting_sentence_keys": ["0a"], \
"fully_supported": true}
  ],
  "all_utilized_sentence_keys": ["0a", "..."]
}"""


#: A structured document (a JSON record, a table) is shown as its facts; its tag says how they read.
_STRUCTURED_TAG = (' kind="structured data: one fact per sentence, written path › field: value; a table row '
                   'as column (row "label"): cell; null or (empty) means the record does not give it"')


def build_messages(item: SentencizedCase) -> list[dict[str, str]]:
    """The chat messages of one case (system + user)."""
    parts: list[str] = ["Documents:"]
    n_docs = len(item.case.documents)
    if n_docs == 0:
        parts.append("(no documents were retrieved)")
    for d in range(n_docs):
        sents = [s for s in item.doc_sentences if s.doc == d]
        parts.append(f"<document {d}{_STRUCTURED_TAG if is_structured(item.case.documents[d]) else ''}>")
        parts.extend(f"{s.key}. {s.text}" for s in sents)
        if not sents:
            parts.append("(empty)")
        parts.append(f"</document {d}>")
    parts.append("")
    parts.extend(conversation_lines(item.case.history))  # a turn of a chat: the turns before it, not a document
    parts.append("Question:")
    parts.append(item.case.question.strip() or "(no question given)")
    parts.append("")
    parts.append("Response:")
    parts.extend(response_lines(item))
    parts.append("")
    parts.append(INSTRUCTIONS)
    if item.case.history:
        parts.extend(("", CONVERSATION_RULES))
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(parts)}]


#: Said before the response when it holds lines of Markdown structure (shown without a key).
STRUCTURE_NOTE = ("(Lines starting with \"~\" are headings or labels of the response: they make no "
                  "claim and have no key; read them as the context of the sentences under them.)")


def response_lines(item: SentencizedCase) -> list[str]:
    """The response's keyed sentences (``a. …``), with its lines of Markdown structure
    (``evaluators.markdown_lines``) in their place as ``~ ## Pricing``, so a bullet under a heading
    reads in its context. A response with no such line reads exactly as before."""
    sents = item.response_sentences
    text = item.case.response
    c = item.case  # citation markers ("[2]") are no part of what a sentence says (evaluators.citations)
    said = {s.key: citations.strip(s.text, c.documents, c.document_ids) or s.text for s in sents}
    shown = [(a, b) for a, b in structure_spans(item) if re.search(r"\w", text[a:b])]
    if not shown:
        return [f"{s.key}. {said[s.key]}" for s in sents]
    rows = sorted([(s.start, f"{s.key}. {said[s.key]}") for s in sents]
                  + [(a, f"~ {text[a:b].strip()}") for a, b in shown])
    return [STRUCTURE_NOTE, *(r for _, r in rows)]


def expected_output_tokens(item: SentencizedCase) -> int:
    """Rough size of a good reply (for dry-run estimates): explanations plus keys."""
    return 120 + 60 * len(item.response_sentences) + 4 * len(item.doc_sentences)


# ---------------------------------------------------------------------- reply models
_KEY_NOISE = re.compile(r"^[\s\[\(\"'`*]*(?:key|sentence|doc(?:ument)?)?[\s:#]*|[\s\]\)\"'`*.,:;]*$",
                        re.IGNORECASE)


def normalize_key(k: Any) -> str:
    s = _KEY_NOISE.sub("", str(k)).strip().lower()
    special = re.sub(r"[\s\-]+", "_", s)
    return special if special in SPECIAL_SUPPORT_KEYS or earlier_turn_of(special) is not None else s


def _key_list(v: Any) -> Any:
    if v is None:
        return []
    if isinstance(v, str):
        v = [p for p in re.split(r"[,\s;]+", v) if p]
    if isinstance(v, (list, tuple)):
        return [normalize_key(x) for x in v if x is not None and str(x).strip()]
    return v


def _text(v: Any) -> Any:
    return "" if v is None else str(v)


#: Sentence keys: a list or a comma / space separated string, each key normalised; null -> [].
KeyList = Annotated[list[str], BeforeValidator(_key_list)]
#: Free text; null -> "".
Explanation = Annotated[str, BeforeValidator(_text)]


class SupportInfo(BaseModel):
    model_config = ConfigDict(extra="ignore")

    response_sentence_key: str
    explanation: Explanation = ""
    supporting_sentence_keys: KeyList = Field(default_factory=list)
    fully_supported: bool

    @field_validator("response_sentence_key", mode="before")
    @classmethod
    def _rkey(cls, v: Any) -> Any:
        return normalize_key(v) if v is not None else v

    @field_validator("fully_supported", mode="before")
    @classmethod
    def _fully(cls, v: Any) -> Any:
        if isinstance(v, str):
            t = v.strip().lower()
            if t in ("full", "fully", "supported", "fully supported", "fully_supported"):
                return True
            if t in ("partial", "partially", "unsupported", "not supported", "none", "no support"):
                return False
        return v


class LabelingReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    relevance_explanation: Explanation = ""
    all_relevant_sentence_keys: KeyList
    overall_supported_explanation: Explanation = ""
    overall_supported: bool | None = None
    sentence_support_information: list[SupportInfo]
    all_utilized_sentence_keys: KeyList

    @field_validator("sentence_support_information", mode="before")
    @classmethod
    def _sentences(cls, v: Any) -> Any:
        if isinstance(v, dict):  # {"a": {...}, "b": {...}}
            return [{"response_sentence_key": k, **(x if isinstance(x, dict) else {})} for k, x in v.items()]
        return v


def _filter_doc_keys(keys: Sequence[str], doc_set: set[str], field: str, notes: list[str],
                     allow_special: bool = False, turn_keys: frozenset[str] = frozenset()) -> tuple[str, ...]:
    out: list[str] = []
    bad: list[str] = []
    for k in keys:
        if k in doc_set or (allow_special and (k in SPECIAL_SUPPORT_KEYS or k in turn_keys)):
            if k not in out:
                out.append(k)
        elif k not in bad:
            bad.append(k)
    if bad:
        notes.append(f"dropped unknown keys from {field}: {', '.join(bad)}")
    return tuple(out)


def to_labels(reply: LabelingReply, item: SentencizedCase, method: str = METHOD) -> SentenceLabels:
    """Validated reply -> SentenceLabels (see the module docstring). Raises ValueError when the
    reply covers none of the response sentences (the client then re-asks once)."""
    doc_keys = item.doc_keys
    doc_set = set(doc_keys)
    resp_keys = item.response_keys
    resp_set = set(resp_keys)
    notes: list[str] = []
    turn_keys = citable_keys(item.case.history)  # the agent's earlier turns the prompt showed
    relevant = _filter_doc_keys(reply.all_relevant_sentence_keys, doc_set, "all_relevant_sentence_keys", notes)
    utilized = _filter_doc_keys(reply.all_utilized_sentence_keys, doc_set, "all_utilized_sentence_keys", notes)
    by_key: dict[str, SupportInfo] = {}
    unknown: list[str] = []
    dupes: list[str] = []
    for info in reply.sentence_support_information:
        k = info.response_sentence_key
        if k not in resp_set:
            unknown.append(k or "(empty)")
        elif k in by_key:
            dupes.append(k)
        else:
            by_key[k] = info
    if resp_keys and not by_key:
        raise ValueError(
            "sentence_support_information must have one object per response sentence with "
            f"response_sentence_key among: {', '.join(resp_keys)}"
            + (f" (got: {', '.join(unknown[:10])})" if unknown else " (got none)")
        )
    if unknown:
        notes.append(f"dropped support entries for unknown response sentences: {', '.join(unknown)}")
    if dupes:
        notes.append(f"kept the first of duplicate support entries for: {', '.join(dupes)}")
    sentences: list[SentenceSupport] = []
    missing: list[str] = []
    for k in resp_keys:
        got = by_key.get(k)
        if got is None:
            missing.append(k)
            sentences.append(SentenceSupport(key=k, fully_supported=False,
                                             explanation="(not labeled by the model; counted as unsupported)"))
            continue
        keys = _filter_doc_keys(got.supporting_sentence_keys, doc_set,
                                f"supporting_sentence_keys of sentence {k}", notes, allow_special=True,
                                turn_keys=turn_keys)
        sentences.append(SentenceSupport(key=k, supporting_keys=keys, fully_supported=got.fully_supported,
                                         explanation=got.explanation))
    if missing:
        notes.append(f"response sentences missing from the reply, counted as unsupported: {', '.join(missing)}")
    overall = all(s.fully_supported for s in sentences)
    if reply.overall_supported is None:
        notes.append("overall_supported missing from the reply; derived from the sentence verdicts")
    elif reply.overall_supported != overall:
        notes.append(f"the model's overall_supported={str(reply.overall_supported).lower()} contradicts "
                     "its sentence verdicts; the sentence verdicts were used")
    return SentenceLabels(
        method=method,
        document_keys=doc_keys,
        relevant_keys=relevant,
        utilized_keys=utilized,
        sentences=tuple(sentences),
        overall_supported=overall,
        relevance_explanation=reply.relevance_explanation,
        overall_explanation=reply.overall_supported_explanation,
        notes=tuple(notes),
        extra={"prompt_version": PROMPT_VERSION},
    )


# ---------------------------------------------------------------------- labeling
async def label_one(client: Any, item: SentencizedCase, method: str = METHOD, salt: str = "") -> LabelOutcome:
    """One call (plus at most one re-ask) for one case. Raises StructuredCallError on failure.
    ``salt`` separates cached answers of repeated samples (identical jurors)."""
    res = await client.structured(build_messages(item), LabelingReply,
                                  cache_salt=PROMPT_VERSION + (f"/{salt}" if salt else ""),
                                  validate=functools.partial(to_labels, item=item, method=method))
    labels = cast(SentenceLabels, res.value)
    parse_notes = tuple(n for n in res.notes if n not in labels.notes)
    if parse_notes:
        labels = labels.model_copy(update={"notes": parse_notes + labels.notes})
    labels = labels.model_copy(update={"extra": {**labels.extra, "model": client.describe()}})
    return LabelOutcome(labels=labels, labeled_by=method, usage=res.usage)


def _as_outcome(r: Any, method: str) -> LabelOutcome:
    if isinstance(r, LabelOutcome):
        return r
    if isinstance(r, StructuredCallError):
        return LabelOutcome(error=f"{method}: {r.reason}", usage=r.usage, labeled_by=method)
    if isinstance(r, Exception):
        return LabelOutcome(error=f"{method} failed: {type(r).__name__}: {r}", labeled_by=method)
    return LabelOutcome(error=f"{method}: unexpected result {type(r).__name__}")


def label_with_client(client: Any, items: Sequence[SentencizedCase], method: str = METHOD,
                      salt: str = "", on_done: Callable[[int], None] | None = None) -> list[LabelOutcome]:
    """Label ``items`` with bounded concurrency; one outcome per item, in order, never raising
    for a single case. ``on_done(i)`` is called (from the client's thread) as item ``i`` finishes,
    so progress moves case by case."""
    def one(i: int, it: SentencizedCase) -> Callable[[], Any]:
        async def run() -> LabelOutcome:
            try:
                return await label_one(client, it, method, salt)
            finally:
                if on_done is not None:
                    on_done(i)
        return run

    fns = [one(i, it) for i, it in enumerate(items)]
    return [_as_outcome(r, method) for r in client.run_all(fns)]


def llm_client(settings: LLMSettings | None, purpose: str) -> LLMClient:
    """The shared client of ``settings``; ``LLMUnavailable`` naming ``purpose`` when it cannot call."""
    from ..llm.keys import check_settings
    from ..llm.shared import get_client

    check_settings(settings, purpose)  # raises unless settings can make calls
    assert settings is not None
    return get_client(settings)


def unavailable(items: Sequence[SentencizedCase], reason: str) -> list[LabelOutcome]:
    return [LabelOutcome(error=reason) for _ in items]


DRY_RUN_REASON = "dry run: no LLM call made (see evaluators.pipeline.estimate for the cost)"


class LLMMethod(BaseMethod):
    """The ``gpt_labeling`` method (registered in ``evaluators.methods``)."""

    name = METHOD

    def estimate(self, items: Sequence[SentencizedCase], options: EvalOptions) -> dict[str, Any]:
        settings, notes = settings_for_estimate(options)
        out: dict[str, Any] = {"cases": len(items), **estimate_items(items, settings)}
        if notes:
            out["notes"] = notes
        return out

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick: Tick) -> list[LabelOutcome]:
        if options.dry_run:
            return unavailable(items, DRY_RUN_REASON)
        try:
            client = llm_client(options.llm, METHOD)
        except LLMUnavailable as exc:
            return unavailable(items, str(exc))
        return label_with_client(client, items, on_done=lambda i: tick(1))


#: The figures an estimate adds up (see :func:`add_estimates`).
ZERO_ESTIMATE: dict[str, Any] = {"calls": 0, "cached_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                 "cost_usd": 0.0}


def add_estimates(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {k: a.get(k, 0) + b.get(k, 0) for k in ZERO_ESTIMATE}


def settings_for_estimate(options: EvalOptions) -> tuple[Any, list[str]]:
    """The LLM settings to price with (the default model when none is configured, with a note)."""
    from ..llm.settings import LLMSettings

    if options.llm is not None:
        return options.llm, []
    settings = LLMSettings()
    return settings, [f"no LLM configured: priced as the default {settings.provider}/{settings.model}"]


def estimate_items(items: Sequence[SentencizedCase], settings: Any) -> dict[str, Any]:
    """Dry-run figures for labeling ``items`` with ``settings``: no call is made. Cases already in
    the local cache are counted in ``cached_calls`` and cost nothing; ``calls``, tokens and cost
    are for the rest."""
    from ..llm.estimate import estimate_cost

    prompts = [build_messages(it) for it in items]
    cached_flags = [False] * len(items)
    try:
        from ..llm.client import LLMClient
        from ..llm.keys import check_settings

        check_settings(settings, METHOD)
        probe = LLMClient(settings)  # no loop, no SDK: only the cache is opened
        if probe.cache is not None:
            cached_flags = [probe.is_cached(probe.structured_key(p, LabelingReply, None, PROMPT_VERSION))
                            for p in prompts]
    except LLMUnavailable:
        pass
    todo = [i for i, c in enumerate(cached_flags) if not c]
    est = estimate_cost(["\n".join(m["content"] for m in prompts[i]) for i in todo], settings,
                        [expected_output_tokens(items[i]) for i in todo])
    est["cached_calls"] = len(items) - len(todo)
    est["cases"] = len(items)
    return est


__all__ = ["LLMMethod", "LabelingReply", "PROMPT_VERSION", "SupportInfo", "add_estimates", "build_messages",
           "estimate_items", "label_one", "label_with_client", "settings_for_estimate", "to_labels"]

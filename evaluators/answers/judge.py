"""One text's sentences judged against other texts, offline, with the machinery that judges an answer
against its documents (the ``trace`` method, reached through its public contract).

Contract: :func:`judge` takes ``(question, claims, evidence)`` triples and returns, per triple, the
:class:`Judged` sentences of ``claims`` — each stated (fully supported by ``evidence``) or not, with
the evidence sentences behind it and the labeler's reason — or the reason it could not be judged.
Every triple of a call is labeled in one ``label`` call (one embedding batch). What it relies on,
and nothing else, of the labeler: ``evaluators.methods.get_method("trace").build().label(items,
options, tick)`` on ``SentencizedCase`` items (documents split by ``evaluators.sentencize.sentencize_document``,
the claims one sentence each as ``sentencize_response`` splits them) and the ``SentenceLabels`` it returns
(``sentences[i].fully_supported`` / ``supporting_keys`` / ``explanation``); a sentence it labels with a
special key such as ``general`` needs no support and is "states nothing" here.
"""

from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Iterator, Mapping, Sequence

from ..declined import DECLINED_KEY, declines, states_nothing
from ..labelers.heuristic import HeuristicMethod, load_params
from ..labelers.heuristic_explain import needs_no_support
from ..labelers.heuristic_text import NEGATIONS
from ..methods import Method, get_method
from ..options import EvalOptions
from ..sentencize import letters, sentencize_document, sentencize_response
from ..types import LabelOutcome, SentenceSupport, SentencizedCase, TestCase, split_explanation
from ..types import Sentence as SplitSentence

#: Special keys that mark a sentence stating nothing (a transition, a pleasantry, a refusal).
NO_CLAIM_KEYS = frozenset({"general", "supported_without_sentence", DECLINED_KEY})


@dataclass(frozen=True)
class Sentence:
    """One sentence of the judged text: ``stated`` = fully supported by the evidence; ``claims``:
    False for a sentence that states nothing (a pleasantry, a refusal) — it counts on neither side."""

    text: str
    stated: bool
    claims: bool
    #: The evidence sentences that back it (their text), best first.
    by: tuple[str, ...] = ()
    #: The labeler's reason, in words (no figures).
    why: str = ""
    declines: bool = False
    #: The labeler's probability that the evidence supports the sentence (1 word for word, None: not judged).
    p: float | None = None
    #: Share of its content words the evidence proper (not the question) holds: how much of it is said.
    share: float = 0.0

    @property
    def credit(self) -> float:
        """How much of the sentence the evidence states: 1 when stated, else the share of its content
        words the evidence holds (a fact half said counts half); 0 for a sentence that claims nothing."""
        return 0.0 if not self.claims else 1.0 if self.stated else self.share

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "stated": self.stated, "claims": self.claims, "explanation": self.why,
                **({"declines": True} if self.declines else {}),
                **({"credit": round(self.credit, 4)} if self.claims and not self.stated else {})}


@dataclass(frozen=True)
class Judged:
    """The sentences of one judged text, or why it could not be judged."""

    sentences: tuple[Sentence, ...] = ()
    error: str | None = None

    @property
    def claims(self) -> list[Sentence]:
        return [s for s in self.sentences if s.claims]

    def share_stated(self) -> float | None:
        """Share of the sentences that claim something which the evidence states (None: none claims)."""
        c = self.claims
        return sum(s.stated for s in c) / len(c) if c else None


@lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[str, ...]:
    """The sentences of a reference answer or an answer (the response split), kept for the run's texts."""
    return tuple(s.text for s in sentencize_response(text))


def _pieces(text: str, d: int, split: Sequence[str] | None) -> tuple[SplitSentence, ...]:
    """Document ``d``'s sentences: as the caller already split it (pieces of ``text`` in order), else as
    documents are split."""
    if not split:
        return sentencize_document(text, d)
    out: list[SplitSentence] = []
    at = 0
    for t in split:
        start = text.find(t, at)
        if start < 0:  # not pieces of this text after all
            return sentencize_document(text, d)
        out.append(SplitSentence.model_construct(key=f"{d}{letters(len(out))}", text=t, start=start, end=start + len(t),
                                                 doc=d))  # (built from checked pieces: no validation)
        at = start + len(t)
    return tuple(out)


def _split(case: TestCase, shown: list[str], splits: Mapping[str, Sequence[str]] | None = None) -> SentencizedCase:
    """The judging case split as judged: its "response" is the claims, one sentence each (already split:
    joined by line breaks, never split again); its documents split as documents are, or as ``splits``
    says for a text already split (an answer, split when the run labeled it)."""
    resp, at = [], 0
    for k, t in enumerate(shown):
        resp.append(SplitSentence.model_construct(key=letters(k), text=t, start=at, end=at + len(t), doc=None))
        at += len(t) + 1
    docs = [s for d, text in enumerate(case.documents) for s in _pieces(text, d, (splits or {}).get(text))]
    return SentencizedCase(case=case, doc_sentences=tuple(docs), response_sentences=tuple(resp))


@contextmanager
def frozen_gc() -> Iterator[None]:
    """The objects alive when the answers are judged (a run's cases, labels and results: often millions,
    all kept to the end) left out of the cyclic garbage collector meanwhile (``gc.freeze``): each
    collection the judging's allocations set off walked them all again — a third of answer correctness's
    CPU on a 240-case rerun. What the judging itself leaves behind is collected as usual (the collector
    stays on for every thread)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@lru_cache(maxsize=1)
def _trace() -> Method:
    return get_method("trace").build()


def _label(items: Sequence[SentencizedCase], options: EvalOptions) -> list[LabelOutcome]:
    """The ``trace`` labeler's sentence verdicts on the judging cases. They have no earlier turns, and
    only their sentences' support is read here, so the labeler's steps for conversations, its learned
    context models (which document sentences are relevant / utilized) and its fitted selector of
    supporting keys (the greedy set names the evidence instead) are left out: the verdicts are the same
    (all 1,486 sentences of the MTRAG dev judging), at less cost. Any other method (a test's stand-in)
    is asked as usual."""
    method = _trace()
    if not isinstance(method, HeuristicMethod):
        return method.label(items, options, lambda n: None)
    settings, prepared = method.featurize(items, options)
    if settings.get("threshold") is None:
        settings = {**settings, "threshold": float(load_params().get("threshold", 0.5))}
    return method.label_prepared(items, prepared, settings, context="hand", support=None)


_TOKEN = re.compile(r"\w+", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_POLARITY = re.compile(r"^\W*(yes|no|yeah|nope|ja|nein|oui|non|sí|não|sim)\b\s*(?:[,.;:!-]+\s*|$)", re.IGNORECASE)
_STOP = frozenset(
    "the a an and or of to in on at for by with from is are was were be been being it its this that these those "
    "as into about than then there their they them he she his her you your we our i me my not no yes do does did "
    "has have had can could will would should may might must also which who whom what when where why how so if "
    "but all any some such more most other per via".split())


@lru_cache(maxsize=8192)
def _content(text: str) -> frozenset[str]:
    return frozenset(t for t in set(_TOKEN.findall(text.lower())) - _STOP if len(t) > 2 or t.isdigit())


_SPACE = re.compile(r"[^\S\n]+")
_LINE_EDGE = re.compile(r" ?\n[\s]*")
_EDGE = re.compile(r"^[\W_]+|[\W_]+$", re.UNICODE)
_END = re.compile(r"[.!?]*(?:\s|$)")
#: A claim found word for word among the evidence's sentences is stated without judging it (a text judged
#: against itself, a sentence copied from the reference) — when it has at least this many content words.
VERBATIM_MIN_WORDS = 3


def _verbatim_key(text: str) -> str:
    """``text`` lower-cased, emphasis marks and curly apostrophes out, spaces collapsed (line breaks kept)."""
    return _LINE_EDGE.sub("\n", _SPACE.sub(" ", text.replace("*", "").replace("\u2019", "'"))).strip().lower()


_verbatim_text = lru_cache(maxsize=4096)(_verbatim_key)
_BEFORE = frozenset(".!?:;-•\n")


def _verbatim(claim: str, evidence: Sequence[str]) -> bool:
    """Whether an evidence text says ``claim`` word for word as a sentence of its own (case, spacing
    and emphasis aside; it starts the text, a line or follows a sentence's end, and ends the text, a
    line or a sentence). A claim of fewer than :data:`VERBATIM_MIN_WORDS` content words is always judged
    ("Yes.", "16 weeks" read with their question)."""
    if len(_content(claim)) < VERBATIM_MIN_WORDS:
        return False
    key = _EDGE.sub("", _verbatim_key(claim))
    if not key:
        return False
    for ev in evidence:
        text = _verbatim_text(ev)
        at = text.find(key)
        while at >= 0:
            before = text[:at].rstrip(" ")
            if (not before or before[-1] in _BEFORE) and _END.match(text, at + len(key)):
                return True
            at = text.find(key, at + 1)
    return False


def _flat(text: str) -> str:
    return _SPACE.sub(" ", _verbatim_key(text).replace("\n", " "))


def _same_text(claims: Sequence[str], evidence: Sequence[str]) -> bool:
    """The claims are the one evidence text itself (an answer judged against itself)."""
    ev = [e for e in evidence if e and e.strip()]
    if len(ev) != 1:
        return False
    joined = " ".join(claims)
    return abs(len(joined) - len(ev[0])) <= 0.2 * len(ev[0]) and _flat(joined) == _flat(ev[0])


def _apart(sentence: str, question: str, evidence: Sequence[str]) -> bool:
    """No content word (nor number) of the sentence is in the evidence or the question: the labeler never
    finds such a sentence stated (0 of 138 on MTRAG human dev's answers and references), so it is not
    asked."""
    words = _content(sentence)
    return bool(words) and words.isdisjoint(_content(question)) and all(words.isdisjoint(_content(e))
                                                                          for e in evidence if e)


def _share(sentence: str, evidence: Sequence[str]) -> float:
    """Share of the sentence's content words found in the evidence texts — 0 when a number of it is
    not there (numbers must match: "12 weeks" states nothing of "16 weeks")."""
    words = _content(sentence)
    if not words:
        return 0.0
    nums = set(_NUMBER.findall(sentence))
    if nums and not nums <= {n for e in evidence if e for n in _NUMBER.findall(e)}:
        return 0.0
    held = [_content(e) for e in evidence if e]
    return len(words.intersection(*held) if len(held) == 1 else words & frozenset().union(*held)) / len(words)


def split_polarity(text: str) -> tuple[str | None, str]:
    """("yes" / "no" / None, the rest): a leading yes / no is the answer's polarity, judged apart
    (the labeler reads "Yes, …" as a transition)."""
    m = _POLARITY.match(text)
    if not m:
        return None, text
    word = m.group(1).lower()
    pol = "yes" if word in ("yes", "yeah", "ja", "oui", "sí", "sim") else "no"
    return pol, text[m.end():]


_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w-]+")
#: A list item's marker or a heading's hashes before a sentence ("- ", "2. ", "* ", "## "): the word after
#: it opens the sentence, it is no name because of its capital.
_LEAD = re.compile(r"^\s*(?:[-*•+>]+|\d{1,3}[.)]|#{1,6})\s+")


_WORDS = re.compile(r"[\w'’]+")


def _negates(text: str) -> bool:
    """Whether ``text`` holds a negation (the labeler's own list, ``heuristic_text.NEGATIONS``, and any
    "…n't"): "not" or "no" is no content word, yet a sentence that negates its question adds its polarity."""
    return any(w in NEGATIONS or w.endswith(("n't", "n’t")) for w in _WORDS.findall(text.lower()))


def _new_words_found(sentence: str, question: str, evidence: Sequence[str]) -> bool:
    """A sentence the question alone backs must still find what it adds to the question in the evidence
    proper: its numbers and names, all of them; half of its other new words — unless the evidence is
    terse (three content words at most: "16 weeks", "Canberra"), which leaves the wording to the answer;
    and a negation the question lacks (or the other way round): "X is not stored in Y" restates "Is X
    stored in Y?" word for word, and only evidence that negates too can state it."""
    ev = " ".join(evidence)
    body = _LEAD.sub("", sentence.strip())  # (a list item's "2." is no number of its claim)
    if _negates(body) != _negates(question) and not _negates(ev):
        return False
    nums = set(_NUMBER.findall(body))
    if nums and not nums <= set(_NUMBER.findall(ev)):
        return False
    names = {n.lower() for n in _NAME.findall(body)} - _content(question) - _STOP
    ev_words = _content(ev)
    if names - ev_words:
        return False
    new = _content(body) - _content(question)
    if not new or len(ev_words) <= 3:
        return True
    return len(new & ev_words) / len(new) >= 0.5


_KEYS = r"\d+[a-z]+(?:(?:, | and )\d+[a-z]+)*"
#: The labeler names the closest sentence of a claim it finds no support for: "(the closest is 0a)".
_CLOSEST = re.compile(r"\(the closest is (\d+[a-z]+)\)")
_REWORDS = (
    (re.compile(rf"\s*\(the closest is {_KEYS}\)"), ""),
    (re.compile(rf"\s*\({_KEYS}\)"), ""),
    (re.compile(r"\bno document sentence says this\b"), "{name} does not say this"),
    (re.compile(r"\bno document mentions\b"), "{name} does not mention"),
    (re.compile(r"\bnot in the documents\b"), "not in {name}"),
    (re.compile(r"\bthe documents? (says|names|say)\b"), "{name} says"),
    (re.compile(rf"\bpartially supported by {_KEYS}"), "partly in {name}"),
    (re.compile(rf"\bsupported by {_KEYS}"), "in {name}"),
    (re.compile(rf"\bit negates what {_KEYS} says\b"), "it negates what {name} says"),
    (re.compile(rf"\b{_KEYS} says the opposite\b"), "{name} says the opposite"),
)


def reword(explanation: str, name: str) -> str:
    """The labeler's reason with the evidence called by ``name`` ("the answer", "the reference answer")
    instead of "the documents", its sentence keys left out (they are keys of a text made for judging)."""
    out = explanation
    for rx, to in _REWORDS:
        out = rx.sub(to.format(name=name), out)
    return out[:1].upper() + out[1:] if out else out


def judge(triples: Sequence[tuple[str, str | Sequence[str], Sequence[str]]], options: EvalOptions | None = None, *,
          with_question: bool = True, evidence_names: Sequence[str] | None = None,
          splits: Mapping[str, Sequence[str]] | None = None) -> list[Judged]:
    """Per ``(question, claims, evidence texts)``: the sentences of ``claims`` (a text, or its sentences
    already split) judged against the evidence (see the module docstring). With ``with_question`` the
    question is evidence too (a short reference answer, "16 weeks", reads with its question), but a
    sentence only the question backs must find its own numbers and most of its new words in the
    evidence. A leading yes / no is compared with the evidence's. A sentence that states nothing (a
    refusal, a pleasantry) is not judged; one the evidence says word for word is stated without
    judging (:func:`_verbatim`); the labeler reads the rest, all triples in one call.
    ``evidence_names``: per triple, what the reasons call the evidence ("the answer"); ``splits``: the
    sentences of evidence texts already split (an answer as the run split it). Never raises for one
    triple."""
    if not triples:
        return []
    heuristic = dict(options.heuristic) if options is not None else {}
    opts = EvalOptions(heuristic=heuristic)
    names = list(evidence_names) if evidence_names is not None else ["the evidence"] * len(triples)
    items: list[SentencizedCase] = []
    plans = []  # per triple: per sentence (text, polarity, body, declines, claims, how: "" judged by the
    # labeler, "verbatim" stated word for word, "apart" no word of it in the evidence)
    for i, (question, claims_given, evidence) in enumerate(triples):
        texts = list(sentences(claims_given)) if isinstance(claims_given, str) else [t for t in claims_given]
        plan = []
        itself = _same_text(texts, evidence)
        for t in texts:
            pol, body = split_polarity(t)
            body = body.strip() or t
            dec = declines(t)
            claims = bool(not dec and not states_nothing(t) and (_content(t) or pol is not None))
            how = ""
            if claims and (itself or _verbatim(t, evidence) or (body != t and _verbatim(body, evidence))):
                how = "verbatim"
            elif claims and pol is None and _apart(body, question, evidence):
                how = "apart"
            if how and pol is None and needs_no_support(body) is not None:
                claims, how = False, ""  # the labeler's own rule (it reads the sentences it is asked about)
            plan.append((t, pol, body, dec, claims, how))
        plans.append(plan)
        shown = [body for _, _, body, _, claims, how in plan if claims and not how]
        if not shown:
            continue
        docs = tuple(e for e in evidence if e and e.strip())
        if with_question and question.strip():
            docs = (question.strip(), *docs)
        case = TestCase(id=f"answers-{i}", question=question or "", response="\n".join(shown), documents=docs)
        items.append(_split(case, shown, splits))
    try:
        outs = iter(_label(items, opts) if items else [])
        done = iter(items)
    except Exception as exc:  # noqa: BLE001 - the answer metrics say it; the run goes on
        return [Judged(error=f"could not judge: {type(exc).__name__}: {exc}") for _ in triples]
    out: list[Judged] = []
    again: list[tuple[int, int, str]] = []  # (triple, sentence, body) to look for in the evidence alone
    for t_i, ((question, _, evidence), plan, evidence_name) in enumerate(zip(triples, plans, names)):
        first = next((e for e in evidence if e and e.strip()), "")
        ev_pol = split_polarity(first[:200])[0]
        labeled: Iterator[tuple[SplitSentence, SentenceSupport]] = iter(())
        doc_text: dict[str, str] = {}
        doc_of: dict[str, int | None] = {}
        if any(claims and not how for *_, claims, how in plan):
            it, o = next(done), next(outs)
            if o.labels is None:
                out.append(Judged(error=o.error or "could not judge"))
                continue
            labeled = iter(zip(it.response_sentences, o.labels.sentences))
            doc_text = {s.key: s.text for s in it.doc_sentences}
            doc_of = {s.key: s.doc for s in it.doc_sentences}
        q_doc = 0 if with_question and question.strip() else None
        sents = []
        for j, (text, pol, body, dec, claims, how) in enumerate(plan):
            keys: list[str] = []
            prob: float | None = None
            near_question = False  # the labeler's closest sentence, or all its support, was the question
            if not claims:
                stated, why = False, "states nothing to check"
            elif how == "verbatim":
                stated, why, prob = True, f"said word for word in {evidence_name}", 1.0
            elif how == "apart":
                stated, why, prob = False, f"none of its words is in {evidence_name}", 0.0
            else:
                s, lab = next(labeled)
                if pol is None and NO_CLAIM_KEYS.intersection(lab.supporting_keys):
                    claims = False  # the labeler reads a pleasantry, a transition or a refusal: no fact
                keys = [k for k in lab.supporting_keys if k in doc_text]
                stated = bool(lab.fully_supported) and bool(keys)
                prob = None if lab.score is None else float(lab.score)
                reason = split_explanation(lab.explanation)[0]
                why = reword(reason, evidence_name)
                closest = _CLOSEST.search(reason)
                near_question = q_doc is not None and (
                    (bool(keys) and all(doc_of[k] == q_doc for k in keys))
                    or (closest is not None and doc_of.get(closest.group(1)) == q_doc))
                if stated and q_doc is not None and all(doc_of[k] == q_doc for k in keys) \
                        and not _new_words_found(s.text, question, evidence):
                    stated, why = False, f"only the question says this; not in {evidence_name}"
            if pol is not None and not split_polarity(text)[1].strip(" .!"):  # "Yes." alone: the polarity is the fact
                stated = pol == ev_pol
                why = (f"says {pol!r}; the other text says {ev_pol!r}" if ev_pol
                       else f"says {pol!r}; the other text does not")
            elif pol is not None and ev_pol is not None and pol != ev_pol:
                stated, why = False, f"says {pol!r}; the other text says {ev_pol!r}"
            by = (body,) if how == "verbatim" else tuple(doc_text[k] for k in keys if doc_of[k] != q_doc)
            share = _share(body, evidence) if claims and not stated else 0.0
            if claims and not stated and near_question and pol is None and share > 0:
                again.append((t_i, j, body))
            sents.append(Sentence(text=text, stated=stated and claims, claims=claims, by=by, why=why, declines=dec,
                                  p=prob, share=share))
        out.append(Judged(sentences=tuple(sents)))
    return _alone(out, again, triples, names, opts, splits)


def _alone(out: list[Judged], again: list[tuple[int, int, str]], triples: Sequence[tuple[str, Any, Sequence[str]]],
           names: Sequence[str], opts: EvalOptions, splits: Mapping[str, Sequence[str]] | None) -> list[Judged]:
    """A claim the labeler did not find with the question among the evidence, looked for in the evidence
    alone (one more batch, of those claims only): the question can be the sentence closest to a terse
    claim ("10 seconds" beside "How long should you hold the button?") and hide the evidence sentence
    that states it. What the evidence alone states is stated: the question only ever adds support. Only
    the claims whose closest sentence (or whole support) was the question, and some of whose words the
    evidence holds, are asked again (asking every claim not stated again cost half the judging's CPU and
    turned 3 of 550 on MTRAG human dev)."""
    by_triple: dict[int, list[tuple[int, str]]] = {}
    for t_i, j, body in again:
        by_triple.setdefault(t_i, []).append((j, body))
    order = [t_i for t_i in by_triple if out[t_i].error is None]
    items = [_split(TestCase(id=f"answers-{t_i}-alone", question=triples[t_i][0] or "",
                             response="\n".join(b for _, b in by_triple[t_i]),
                             documents=tuple(e for e in triples[t_i][2] if e and e.strip())),
                    [b for _, b in by_triple[t_i]], splits) for t_i in order]
    if not items:
        return out
    try:
        labels = _label(items, opts)
    except Exception:  # noqa: BLE001 - the first judgement stands
        return out
    for t_i, it, o in zip(order, items, labels):
        if o.labels is None:
            continue
        doc_text = {s.key: s.text for s in it.doc_sentences}
        sents = list(out[t_i].sentences)
        for (j, _), lab in zip(by_triple[t_i], o.labels.sentences):
            keys = [k for k in lab.supporting_keys if k in doc_text]
            if lab.fully_supported and keys:
                sents[j] = replace(sents[j], stated=True, share=0.0, by=tuple(doc_text[k] for k in keys),
                                   why=reword(split_explanation(lab.explanation)[0], names[t_i]),
                                   p=None if lab.score is None else float(lab.score))
        out[t_i] = Judged(sentences=tuple(sents))
    return out


__all__ = ["Judged", "NO_CLAIM_KEYS", "Sentence", "frozen_gc", "judge", "reword", "split_polarity"]

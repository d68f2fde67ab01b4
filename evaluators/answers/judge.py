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

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from ..methods import Method, get_method
from ..options import EvalOptions
from ..sentencize import letters, sentencize_document, sentencize_response
from ..types import Sentence as SplitSentence
from ..types import SentencizedCase, TestCase, split_explanation
from .declined import DECLINED_KEY, declines, states_nothing

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

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "stated": self.stated, "claims": self.claims, "explanation": self.why,
                **({"declines": True} if self.declines else {})}


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


def _split(case: TestCase, shown: list[str]) -> SentencizedCase:
    """The judging case split as judged: its "response" is the claims, one sentence each (already split:
    joined by line breaks, never split again); its documents split as documents are."""
    resp, at = [], 0
    for k, t in enumerate(shown):
        resp.append(SplitSentence(key=letters(k), text=t, start=at, end=at + len(t)))
        at += len(t) + 1
    docs = [s for d, text in enumerate(case.documents) for s in sentencize_document(text, d)]
    return SentencizedCase(case=case, doc_sentences=tuple(docs), response_sentences=tuple(resp))


def _item(i: int, question: str, shown: list[str], evidence: Sequence[str], asked: bool) -> SentencizedCase:
    """Triple ``i`` as the labeler reads it: the claims ``shown`` one sentence each, the evidence texts
    as documents (after the question when ``asked``)."""
    docs = tuple(e for e in evidence if e and e.strip())
    if asked:
        docs = (question.strip(), *docs)
    case = TestCase(id=f"answers-{i}", question=question or "", response="\n".join(shown), documents=docs)
    return _split(case, shown)


@lru_cache(maxsize=1)
def _trace() -> Method:
    return get_method("trace").build()


_TOKEN = re.compile(r"\w+", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_POLARITY = re.compile(r"^\W*(yes|no|yeah|nope|ja|nein|oui|non|sí|não|sim)\b\s*(?:[,.;:!-]+\s*|$)", re.IGNORECASE)
_STOP = frozenset(
    "the a an and or of to in on at for by with from is are was were be been being it its this that these those "
    "as into about than then there their they them he she his her you your we our i me my not no yes do does did "
    "has have had can could will would should may might must also which who whom what when where why how so if "
    "but all any some such more most other per via".split())


def _content(text: str) -> set[str]:
    return {t for t in (w.lower() for w in _TOKEN.findall(text)) if t not in _STOP and (len(t) > 2 or t.isdigit())}


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


def _new_words_found(sentence: str, question: str, evidence: Sequence[str]) -> bool:
    """A sentence the question alone backs must still find what it adds to the question in the evidence
    proper: its numbers and names, all of them; half of its other new words — unless the evidence is
    terse (three content words at most: "16 weeks", "Canberra"), which leaves the wording to the answer."""
    ev = " ".join(evidence)
    body = _LEAD.sub("", sentence.strip())  # (a list item's "2." is no number of its claim)
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


def judge(triples: Sequence[tuple[str, str, Sequence[str]]], options: EvalOptions | None = None, *,
          with_question: bool = True, evidence_names: Sequence[str] | None = None) -> list[Judged]:
    """Per ``(question, claims, evidence texts)``: the sentences of ``claims`` judged against the
    evidence (see the module docstring). With ``with_question`` the question is evidence too (a short
    reference answer, "16 weeks", reads with its question), but a sentence only the question backs must
    find its own numbers and most of its new words in the evidence. A leading yes / no is compared with
    the evidence's. ``evidence_names``: per triple, what the reasons call the evidence ("the answer").
    Never raises for one triple."""
    if not triples:
        return []
    heuristic = dict(options.heuristic) if options is not None else {}
    opts = EvalOptions(heuristic=heuristic)
    asked = [bool(with_question and q.strip()) for q, _, _ in triples]
    items, originals, polarities, ev_pols = [], [], [], []
    for i, (question, claims_text, evidence) in enumerate(triples):
        texts = list(sentences(claims_text))
        pols, bodies = zip(*(split_polarity(t) for t in texts)) if texts else ((), ())
        shown = [b.strip() or t for b, t in zip(bodies, texts)]
        items.append(_item(i, question, shown, evidence, asked[i]))
        originals.append(texts)
        polarities.append(pols)
        first = next((e for e in evidence if e and e.strip()), "")
        ev_pols.append(split_polarity(first[:200])[0])
    try:
        outs = _trace().label(items, opts, lambda n: None)
    except Exception as exc:  # noqa: BLE001 - the answer metrics say it; the run goes on
        return [Judged(error=f"could not judge: {type(exc).__name__}: {exc}") for _ in items]
    # A claim the labeler did not find with the question among the evidence is looked for in the evidence
    # alone (one more batch, of those triples only): the question can be the sentence closest to a terse
    # claim ("10 seconds" beside "How long should you hold the button?") and hide the evidence sentence
    # that states it. What the evidence alone states is stated: the question only ever adds support.
    again = [i for i, o in enumerate(outs) if asked[i] and o.labels is not None
             and any(not lab.fully_supported for lab in o.labels.sentences)]
    alone: dict[int, Any] = {}
    if again:
        try:
            redo = _trace().label([_item(i, triples[i][0], [s.text for s in items[i].response_sentences],
                                         triples[i][2], False) for i in again], opts, lambda n: None)
            alone = {i: o.labels for i, o in zip(again, redo) if o.labels is not None}
        except Exception:  # noqa: BLE001 - the first judgement stands
            alone = {}
    out: list[Judged] = []
    names = list(evidence_names) if evidence_names is not None else ["the evidence"] * len(triples)
    for i, ((question, _, evidence), it, o, texts, pols, ev_pol, evidence_name) in enumerate(zip(
            triples, items, outs, originals, polarities, ev_pols, names)):
        if o.labels is None:
            out.append(Judged(error=o.error or "could not judge"))
            continue
        q_doc = 0 if asked[i] else None
        doc_text = {s.key: s.text for s in it.doc_sentences}
        doc_of = {s.key: s.doc for s in it.doc_sentences}
        second = alone.get(i)
        # the evidence alone was split without the question: its keys are its own (document 0 = evidence 0)
        alone_text = ({s.key: s.text for s in _item(i, question, [], evidence, False).doc_sentences}
                      if second is not None else {})
        sents = []
        for j, (text, pol, s, lab) in enumerate(zip(texts, pols, it.response_sentences, o.labels.sentences)):
            dec = declines(text)
            claims = bool(not dec and not states_nothing(text) and (_content(text) or pol is not None))
            keys = [k for k in lab.supporting_keys if k in doc_text]
            stated = bool(lab.fully_supported) and claims and bool(keys)
            why = reword(split_explanation(lab.explanation)[0], evidence_name)
            by = tuple(doc_text[k] for k in keys if doc_of[k] != q_doc)
            if stated and q_doc is not None and all(doc_of[k] == q_doc for k in keys) \
                    and not _new_words_found(s.text, question, evidence):
                stated, why = False, f"only the question says this; not in {evidence_name}"
            if not stated and claims and second is not None and j < len(second.sentences):
                lab2 = second.sentences[j]
                keys2 = [k for k in lab2.supporting_keys if k in alone_text]
                if lab2.fully_supported and keys2:
                    stated, why = True, reword(split_explanation(lab2.explanation)[0], evidence_name)
                    by = tuple(alone_text[k] for k in keys2)
            if pol is not None and not split_polarity(text)[1].strip(" .!"):  # "Yes." alone: the polarity is the fact
                stated = pol == ev_pol
                why = (f"says {pol!r}; the other text says {ev_pol!r}" if ev_pol
                       else f"says {pol!r}; the other text does not")
            elif pol is not None and ev_pol is not None and pol != ev_pol:
                stated, why = False, f"says {pol!r}; the other text says {ev_pol!r}"
            sents.append(Sentence(text=text, stated=stated, claims=claims, by=by, why=why, declines=dec))
        out.append(Judged(sentences=tuple(sents)))
    return out


__all__ = ["Judged", "NO_CLAIM_KEYS", "Sentence", "judge", "reword", "split_polarity"]

"""The trace labeler's words and small rules: sentences that need no support, the relevant
document sentences (the learned model or the cosine rule) and the explanation of each verdict, which
names its evidence. Used by :class:`evaluators.labelers.heuristic.HeuristicMethod`."""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from ..declined import declines
from ..types import DETAILS_MARK, SentenceSupport, SentencizedCase, split_explanation
from . import context_model
from .heuristic_contradiction import Clash
from .heuristic_features import analyze, strip_markup

# ---------------------------------------------------------------- sentences needing no support
_REFUSAL = [re.compile(p, re.I) for p in (
    r"\b(documents?|context|passages?|sources?|articles?|texts?|data|information|snippets?|"
    r"search results?|records?)\b[^.]{0,80}?\b(do(es)? not|don'?t|doesn'?t|did not|didn'?t|cannot|"
    r"can'?t|does ?n[o']t|fail to|lacks?|no)\b[^.]{0,60}?\b(mention|say|contain|include|provide|"
    r"specify|state|discuss|address|cover|give|information|details?|indicate|reference)",
    r"\b(there is|there's|there are|i found|i could find|i can find|i have|i've got)\s+no\s+"
    r"(specific\s+|further\s+|additional\s+)?(information|mention|details?|data|reference)",
    r"\b(i (do not|don'?t) (know|have (enough|any|that|this|the))|i('m| am) (not sure|unable|sorry)|"
    r"i cannot (answer|find|determine|provide|say)|i can'?t (answer|find|determine|provide|say)|"
    r"not enough information|insufficient information|unable to (answer|find|determine|provide)|"
    r"(is|are) not (mentioned|specified|provided|stated|available|included|given) in the)",
    r"\bnot (mentioned|specified|provided|stated|included|covered|addressed) (in|by) (the )?"
    r"(provided |given |available )?(documents?|context|passages?|text|data|information|sources?)",
)]
# No rule for Markdown headings: a heading that is only structure is no sentence
# (``evaluators.markdown_lines``); one that reaches a labeler states something and is judged.
_GENERAL = [re.compile(p, re.I) for p in (
    r"^(here is|here's|here are|below is|below are|the following (is|are))\b[^.!?:]{0,120}[:.]?$",
    r"^(sure|certainly|of course|great question|absolutely|okay|ok|yes|no problem|you're welcome|"
    r"thank you|thanks|hello|hi)\b[!.,]?[^.!?]{0,40}[!.]?$",
    r"^(i hope (this|that) helps|let me know|feel free to|please let me know|is there anything else|"
    r"if you have (any )?(other|more|further) questions)",
    r"^\W*(summary|overview|in summary|to summarize|in conclusion|conclusion|answer|details|"
    r"key points|notes?)\W*$",
)]
_ENDS_COLON = re.compile(r":\s*\**$")
_INTRO = re.compile(r"\b(here (is|are)|here's|the following|as follows)\b[^:]{0,60}:\s*\**$", re.I)
_HAS_DIGIT = re.compile(r"\d")


_MARKERS_ONLY = re.compile(r"^(?:\s*(?:\[\^?[\w\s,;\-–]{1,20}\]|【[^】]{1,20}】|\((?:sources?|docs?|documents?)"
                           r"[\s\d,;\-–:]*\)|\^\d{1,2})\s*[.,;:]?)+\s*$", re.I)


def needs_no_support(text: str) -> tuple[str, str] | None:
    """(special key, explanation) for a sentence that needs no document support, else None."""
    if _MARKERS_ONLY.match(text):
        return "general", "citation markers only, no claim: needs no support"
    t = strip_markup(text).strip().strip("*_ ").strip()
    for rx in _REFUSAL:
        if rx.search(t) or declines(t):  # declines: the headline's rule, in every language it reads
            return ("supported_without_sentence",
                    "states that the documents do not give the information (a refusal): needs no support")
    for rx in _GENERAL:
        if rx.search(t):
            return "general", "transition / pleasantry with no factual claim: needs no support"
    words = t.split()
    if _ENDS_COLON.search(t) and not _HAS_DIGIT.search(t) and (len(words) <= 16 or _INTRO.search(t)):
        return "general", "introduces what follows (ends with ':'), no factual claim: needs no support"
    return None


def _fmt_keys(keys: Sequence[str], limit: int = 8) -> str:
    keys = list(keys)
    return ", ".join(keys[:limit]) + (f" … (+{len(keys) - limit})" if len(keys) > limit else "")


def _quote(items: Sequence[str], limit: int = 3) -> str:
    return ", ".join(f"'{x}'" for x in list(items)[:limit])


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def clash_text(c: Clash, key: str) -> str:
    """"the document says 1989, not 1991 (0a)" / "the document names Stewart Adams, not Marie Curie (0a)"
    / "the documents say metformin, not insulin (0a)" (a swapped term)."""
    if c.kind == "substitution":
        return f"the documents say {_and(c.said)}, not {_and(c.claimed)} ({key})"
    verb = "says" if c.kind == "number" else "names"
    return f"the document {verb} {_and(c.said)}, not {_and(c.claimed)} ({key})"


def explain(ev: dict[str, Any], keys: Sequence[str], support: list[int], level: str, prob: float,
            nli_p: float | None, ver_p: float | None = None, clashes: Sequence[Clash] = (),
            missing: Sequence[str] = (), by_part: str = "") -> str:
    """The reason a person needs first (what supports the sentence, what the document says instead,
    what no document mentions), then, after :data:`DETAILS_MARK`, the figures behind it. ``by_part``:
    which part of the sentence came from which key when several carry it ("2001: 1c; extracurricular:
    1d", ``heuristic_parts.explain_parts``)."""
    best = ev["best"]
    kb = keys[best]
    sup = _fmt_keys([keys[i] for i in support])
    if by_part:
        sup = f"{sup} ({by_part})"
    if level == "full":
        reasons = [f"supported by {sup}"]
    else:
        specific = [clash_text(c, kb) for c in clashes]
        if missing and not clashes:
            specific.append(f"no document mentions {_and(list(missing[:4]))}")
        if ev["attr_conflict"]:
            state = "true" if ev["attr_negated"] else "false / 'no'"
            specific.append(f"the data gives {_quote(ev['attr_conflict'], 2)} as {state}")
        if ev["attr_null"]:
            specific.append(f"the data leaves {_quote(ev['attr_null'], 2)} unknown (null)")
        if ev["neg_resp_only"]:
            specific.append(f"it negates what {kb} says")
        elif ev["neg_doc_only"]:
            specific.append(f"{kb} says the opposite (it is negated)")
        if level == "partial":
            reasons = [f"partially supported by {sup}", *specific]
        else:
            reasons = specific or [f"no document sentence says this (the closest is {kb})"]
        if not specific and ev["missing_words"]:
            reasons.append(f"not in the documents: {_quote(ev['missing_words'], 4)}")
    sup = _fmt_keys([keys[i] for i in support])
    details = [f"closest document sentence {kb} (similarity {ev['sim_max']:.2f})",
               (f"{ev['cov_top']:.0%} of its content words are in {sup}" if level != "none"
                else f"{ev['cov_all']:.0%} of its content words are in the documents")]
    if level == "full" and missing:
        details.append(f"not found in the documents: {_and(list(missing[:4]))}")
    if nli_p is not None:
        details.append(f"NLI entailment {nli_p:.2f}")
    if ver_p is not None:
        details.append(f"verifier {ver_p:.2f}")
    details.append(f"P(supported) {prob:.2f}")
    return "; ".join(reasons) + DETAILS_MARK + "; ".join(details)


def overall_text(sentences: Sequence[SentenceSupport]) -> str:
    """The "Overall" note: how many sentences are fully supported, then EVERY other sentence with
    its reason (not supported first, then partially supported)."""
    n = len(sentences)
    if not n:
        return "the response has no sentences"
    n_full = sum(1 for s in sentences if s.fully_supported)
    if n_full == n:
        return ("the response's one sentence is supported by the documents" if n == 1
                else f"all {n} response sentences are supported by the documents")
    parts = [f"{n_full} of {n} response sentences fully supported."]
    for level, title in (("none", "Not supported"), ("partial", "Partially supported")):
        these = [s for s in sentences if s.level == level]
        if these:
            items = [f"{s.key}: {split_explanation(s.explanation)[0].removeprefix('partially supported ')}"
                     for s in these]
            parts.append(f"{title} — " + ". ".join(items) + ".")
    return " ".join(parts)


def relevance_learned(it: SentencizedCase, p: dict[str, Any], model: dict[str, Any], feats: np.ndarray
                      ) -> tuple[set[int], str]:
    """The learned relevant set: the expected number of most probable sentences. ``feats`` come from
    ``context_model.relevance_features`` (question and documents only), so the set never depends on
    the response."""
    keys = it.doc_keys
    pr = context_model.predict(model, feats)
    rel = {int(i) for i in context_model.relevant(pr, feats, model)}
    dq = p["dq"]
    top = sorted(range(len(keys)), key=lambda i: -pr[i])[:3]
    closest = ", ".join(f"{keys[i]} (P {pr[i]:.2f}, cosine {float(dq[i]):.2f})" for i in top)
    if rel:
        expl = (f"{len(rel)} of {len(keys)} document sentences relate to the question: "
                f"{_fmt_keys([keys[i] for i in sorted(rel)])}" + DETAILS_MARK
                + f"learned relevance model: the {len(rel)} most probable, expected count {pr.sum():.1f}; "
                f"most probable: {closest}")
    else:
        expl = ("no document sentence relates to the question" + DETAILS_MARK
                + f"learned relevance model: expected count {pr.sum():.1f}; closest: {closest}")
    return rel, expl


def relevance_rule(it: SentencizedCase, p: dict[str, Any], st: dict[str, Any]) -> tuple[set[int], str]:
    keys = it.doc_keys
    if not keys:
        return set(), "no documents were retrieved"
    dq = p["dq"]
    q_info = analyze(it.case.question)
    qwords = q_info.content
    thr = float(st["relevance_threshold"] if st.get("relevance_threshold") is not None else 0.40)
    floor = float(st["relevance_floor"])
    rel: set[int] = set()
    for i, inf in enumerate(p["doc"].infos):
        sim = float(dq[i])
        overlap = len(qwords & inf.content)
        if sim >= thr or (sim >= floor and overlap >= max(1, min(2, len(qwords)))):
            rel.add(i)
    if rel:
        top = sorted(rel, key=lambda i: -float(dq[i]))[:3]
        expl = (f"{len(rel)} of {len(keys)} document sentences relate to the question: "
                f"{_fmt_keys([keys[i] for i in sorted(rel)])}" + DETAILS_MARK
                + f"cosine to the question >= {thr:.2f}, or >= {floor:.2f} with shared keywords; closest: "
                + ", ".join(f"{keys[i]} ({float(dq[i]):.2f})" for i in top))
    else:
        b = int(np.argmax(dq))
        expl = ("no document sentence relates to the question" + DETAILS_MARK
                + f"closest {keys[b]} at cosine {float(dq[b]):.2f} < {thr:.2f}")
    return rel, expl

"""Synthetic unsupported claims for the verifier: small edits of SUPPORTED claims that make them
wrong while keeping almost every word of them in the premise — the misses the lexical evidence of
``trace`` cannot see (issue 19: a wrong one of two entities that both appear, role swaps, wrong
numbers or attributes, comparisons and negations).

Made only from the claims and premises of the training domains of a fold (or of the NLI pairs), so
a fold model still never sees the held-out domain. One edit per claim, chosen at random among those
that apply:

* ``number``   — a number of the claim replaced by another number of the premise (or shifted);
* ``entity``   — a capitalised name of the claim replaced by another name of the premise;
* ``role``     — two names of the claim swapped;
* ``negation`` — "not" added after the first auxiliary verb, or removed;
* ``antonym``  — one comparative / direction word flipped (more/less, before/after, first/last...).

An edit can still leave a true claim (the other name may also be right); that noise is accepted.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

_NUM = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_NAME = re.compile(r"\b[A-Z][a-zA-Z'\-]+(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][a-zA-Z'\-]+)*")
_AUX = re.compile(r"\b(is|are|was|were|can|could|will|would|should|has|have|had|does|do|did|may|must)\b")
_NEG = re.compile(r"\s+not\b|n't\b")
_FLIPS = {
    "more": "less", "less": "more", "higher": "lower", "lower": "higher", "increase": "decrease",
    "decrease": "increase", "increased": "decreased", "decreased": "increased", "before": "after",
    "after": "before", "first": "last", "last": "first", "most": "least", "least": "most",
    "larger": "smaller", "smaller": "larger", "older": "younger", "younger": "older",
    "earlier": "later", "later": "earlier", "above": "below", "below": "above", "maximum": "minimum",
    "minimum": "maximum", "positive": "negative", "negative": "positive", "always": "never",
    "never": "always", "allowed": "prohibited", "required": "optional", "north": "south",
    "south": "north", "east": "west", "west": "east", "left": "right", "right": "left",
    "on": "off", "enable": "disable", "disable": "enable", "enabled": "disabled", "disabled": "enabled",
}
_FLIP_RE = re.compile(r"\b(" + "|".join(sorted(_FLIPS, key=len, reverse=True)) + r")\b", re.IGNORECASE)
_STOP_NAMES = {"The", "A", "An", "This", "That", "These", "Those", "It", "In", "On", "At", "For", "However",
               "According", "Yes", "No", "If", "When", "To", "I", "You", "We", "They", "He", "She"}


def _names(text: str) -> list[str]:
    out = []
    for m in _NAME.finditer(text):
        if m.group(0) not in _STOP_NAMES:  # a lone "The", "However", ... is no name
            out.append(m.group(0))
    return out


def _number(claim: str, premise: str, rng: np.random.Generator) -> str | None:
    nums = [m for m in _NUM.finditer(claim)]
    if not nums:
        return None
    m = nums[int(rng.integers(len(nums)))]
    old = m.group(0)
    others = sorted({x for x in _NUM.findall(premise) if x != old})
    if others and rng.random() < 0.7:
        new = others[int(rng.integers(len(others)))]
    else:
        try:
            v = float(old.replace(",", ""))
        except ValueError:
            return None
        new_v = v + int(rng.integers(1, 10)) if v < 30 else v * float(rng.choice([0.5, 2.0, 1.5, 0.75]))
        new = str(int(new_v)) if new_v == int(new_v) and "." not in old else f"{new_v:.1f}"
        if new == old:
            return None
    return claim[:m.start()] + new + claim[m.end():]


def _entity(claim: str, premise: str, rng: np.random.Generator) -> str | None:
    mine = _names(claim)
    theirs = [n for n in dict.fromkeys(_names(premise)) if n not in claim and not any(n in x or x in n for x in mine)]
    if not mine or not theirs:
        return None
    old = mine[int(rng.integers(len(mine)))]
    new = theirs[int(rng.integers(len(theirs)))]
    return claim.replace(old, new, 1)


def _role(claim: str, premise: str, rng: np.random.Generator) -> str | None:
    mine = list(dict.fromkeys(n for n in _names(claim) if claim.find(n) > 0 or len(n.split()) > 1))
    if len(mine) < 2:
        return None
    i, j = rng.choice(len(mine), size=2, replace=False)
    a, b = mine[int(i)], mine[int(j)]
    if a in b or b in a:
        return None
    out = claim.replace(a, "\x00").replace(b, a).replace("\x00", b)
    return out if out != claim else None


def _negation(claim: str, premise: str, rng: np.random.Generator) -> str | None:
    if _NEG.search(claim):
        out = _NEG.sub("", claim, count=1)
        return out if out != claim else None
    m = _AUX.search(claim)
    if not m:
        return None
    return claim[:m.end()] + " not" + claim[m.end():]


def _antonym(claim: str, premise: str, rng: np.random.Generator) -> str | None:
    hits = list(_FLIP_RE.finditer(claim))
    if not hits:
        return None
    m = hits[int(rng.integers(len(hits)))]
    w = m.group(0)
    new = _FLIPS[w.lower()]
    if w[0].isupper():
        new = new[0].upper() + new[1:]
    return claim[:m.start()] + new + claim[m.end():]


EDITS: dict[str, Callable[[str, str, np.random.Generator], str | None]] = {
    "number": _number, "entity": _entity, "role": _role, "negation": _negation, "antonym": _antonym,
}


def perturb(claim: str, premise: str, rng: np.random.Generator) -> tuple[str, str] | None:
    """(edited claim, edit kind), or None when no edit applies."""
    kinds = list(EDITS)
    for k in rng.permutation(len(kinds)):
        out = EDITS[kinds[int(k)]](claim, premise, rng)
        if out and out.strip() != claim.strip():
            return out, kinds[int(k)]
    return None


def synthetic_negatives(positives: Sequence[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """Up to n edited claims (label 0) from supported pairs ({claim, premise, source})."""
    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    for i in rng.permutation(len(positives)):
        if len(out) >= n:
            break
        r = positives[int(i)]
        got = perturb(r["claim"], r["premise"], rng)
        if got is None:
            continue
        out.append({"claim": got[0], "premise": r["premise"], "label": 0,
                    "source": f"synth:{got[1]}:{r['source']}"})
    return out

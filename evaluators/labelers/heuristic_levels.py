"""How ``trace`` names a response sentence's support level from its P(supported) and its clashes.

:func:`level` keeps one contract, as a person reads a verdict: *full* from the threshold up;
*partial* only when the sentence is more likely supported than not (``partial_p``) and a document
sentence matches it; else *none*. A number or date that contradicts the best-matching sentence
(``heuristic_contradiction``), or a specific term swapped for the one it states
(``heuristic_entities``; prose only), makes it *none* even above the threshold, its P capped at
1 − threshold (as sure it is unsupported as a supported verdict must be sure). Option
``contradictions``: "substitutions" (default: numbers, dates and swapped terms), "numbers"
(numbers and dates only), "all" (also names that differ without an aligned slot), "off".
"""

from __future__ import annotations

from typing import Any, Sequence

from . import heuristic_contradiction as contradiction
from . import heuristic_entities as entities

CONTRADICTION_MODES = ("substitutions", "numbers", "all", "off")


def level(ev: dict[str, Any], prob: float, st: dict[str, Any], text: str, best_text: str,
          swap_ctx: tuple[str, Sequence[str], str] | None = None) -> tuple[str, float, list[contradiction.Clash]]:
    """(level, P(supported), clashes) of one response sentence (see the module docstring).
    ``swap_ctx`` = (whole response, the documents' sentences, question) for the swapped-term check,
    None = not read (structured documents)."""
    thr = float(st["threshold"])
    mode = st["contradictions"]
    if mode not in CONTRADICTION_MODES:
        raise ValueError(f"contradictions={mode!r}: valid: {', '.join(CONTRADICTION_MODES)}")
    clashes = [] if mode == "off" else contradiction.find(ev, text, best_text, float(st["partial_floor"]))
    if mode in ("substitutions", "all") and swap_ctx is not None:
        clashes = entities.merge(clashes, entities.find_in(ev, text, best_text, *swap_ctx,
                                                           partial_floor=float(st["partial_floor"])))
    decisive = [c for c in clashes if mode == "all" or c.kind in ("number", "substitution")]
    if decisive and prob >= thr:
        prob = min(prob, 1.0 - thr)
    if prob >= thr and not decisive:
        return "full", prob, clashes
    matched = ev["sim_max"] >= float(st["partial_floor"]) or ev["cov_top"] >= 0.5
    if not clashes and matched and prob >= float(st["partial_p"]):
        return "partial", prob, clashes
    return "none", prob, clashes

"""How far to trust an offline method's absolute figures, in plain words and in the one set of figures the
dashboard, the CLI and ``docs/research.md`` all quote.

An offline method (``trace``) ranks cases and compares versions well enough to act on, but its absolute
scores are no hallucination rate: it marks a sentence of many answers as not fully supported that
people call clean. :data:`CLEAN_FLAGGED` is how often, per labelled dev set (leave-one-domain-out,
the shipped labeler, ``bench/clean_flags.py`` derives it from :data:`SOURCE`); :func:`caveat` says
it beside an absolute figure; :func:`markdown_table` is the table of ``docs/research.md``
(``tests/test_trust.py`` keeps the three in agreement).

    from evaluators import trust
    trust.caveat("trace")   # "… trace flags 35 % of the answers people call clean (3–75 % by set) …"
    trust.caveat("gpt_labeling")   # None: no measured figure for an LLM method
"""

from __future__ import annotations

from typing import Mapping

#: Methods whose absolute figures get the caveat (offline labelers measured on the dev sets).
OFFLINE = ("trace",)
#: The leave-one-domain-out result the figures come from (``bench/lodo.py``; the labeler as shipped).
SOURCE = "bench/results/lodo_i35_after.json"
#: Dev set -> (answers people call clean that ``trace`` flags, answers people call clean). Flagged:
#: ``overall_supported`` = 0 (a sentence below the 0.8 threshold, or a contradicted number).
CLEAN_FLAGGED: dict[str, tuple[int, int]] = {
    "covidqa": (21, 231),
    "delucionqa": (73, 168),
    "emanual": (542, 1016),
    "expertqa": (73, 97),
    "hagrid": (45, 274),
    "hotpotqa": (11, 395),
    "msmarco": (58, 347),
    "ragtruth_summary": (88, 150),
    "ragtruth_data2txt": (44, 150),
    "mtrag": (100, 200),
}
#: Where a reader finds the figures and how they were made.
WHERE = "docs/research.md"


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def clean_flag_share(figures: Mapping[str, tuple[int, int]] = CLEAN_FLAGGED) -> float:
    """Share of all the clean answers of the dev sets that ``trace`` flags (pooled)."""
    return sum(f for f, _ in figures.values()) / sum(c for _, c in figures.values())


def clean_flag_range(figures: Mapping[str, tuple[int, int]] = CLEAN_FLAGGED) -> tuple[float, float]:
    """The lowest and highest share over the dev sets."""
    shares = [f / c for f, c in figures.values()]
    return min(shares), max(shares)


def flags_clean_words(figures: Mapping[str, tuple[int, int]] = CLEAN_FLAGGED) -> str:
    """"on 10 labelled dev sets it flags 35 % of the answers people call clean (3–75 % by set)"."""
    lo, hi = clean_flag_range(figures)
    return (f"on {len(figures)} labelled dev sets it flags {_pct(clean_flag_share(figures))} of the answers "
            f"people call clean ({100 * lo:.0f}–{_pct(hi)} by set)")


def caveat(method: str) -> str | None:
    """What an absolute figure of ``method`` is good for, in plain words (None: a method without
    measured figures, e.g. an LLM judge)."""
    if method.split(":")[-1] not in OFFLINE:  # "hybrid:trace": a hybrid run's trace labels
        return None
    return (f"{method}'s scores are for ranking cases and comparing versions on the same questions, not "
            f"a hallucination rate: {flags_clean_words()}; see {WHERE}.")


def markdown_table(figures: Mapping[str, tuple[int, int]] = CLEAN_FLAGGED) -> str:
    """The table of ``docs/research.md``: per dev set, the clean answers flagged, then all pooled."""
    lines = ["| dev set | clean answers (by the human labels) | flagged by `trace` | share |", "|---|---|---|---|"]
    for d, (f, c) in figures.items():
        lines.append(f"| {d} | {c:,} | {f:,} | {_pct(f / c)} |")
    tf, tc = sum(f for f, _ in figures.values()), sum(c for _, c in figures.values())
    lines.append(f"| **all ten** | {tc:,} | {tf:,} | **{_pct(tf / tc)}** |")
    return "\n".join(lines)

"""The caveat beside an offline method's absolute figures (issue 47, item 7): one set of figures in the
library (``evaluators/trust.py``), the same in docs/research.md, derived from the leave-one-domain-out
result file it names; the words quote them."""

from __future__ import annotations

import re
from pathlib import Path

from bench.clean_flags import clean_flagged
from evaluators import trust

ROOT = Path(__file__).resolve().parents[1]


def test_the_figures_are_those_of_the_result_file_they_name():
    assert trust.CLEAN_FLAGGED == clean_flagged(ROOT / trust.SOURCE)


def test_docs_show_the_same_table():
    assert trust.markdown_table() in (ROOT / "docs" / "research.md").read_text(encoding="utf-8")


def test_the_caveat_quotes_the_figures_and_says_what_the_scores_are_for():
    words = trust.caveat("trace")
    assert words is not None
    assert "ranking cases and comparing versions" in words and "not a hallucination rate" in words
    share = sum(f for f, _ in trust.CLEAN_FLAGGED.values()) / sum(c for _, c in trust.CLEAN_FLAGGED.values())
    assert f"{100 * share:.0f} % of the answers people call clean" in words
    lo, hi = trust.clean_flag_range()
    assert re.search(rf"\({100 * lo:.0f}–{100 * hi:.0f} % by set\)", words)
    assert "docs/research.md" in words
    assert trust.caveat("hybrid:trace") is not None  # a hybrid run's trace labels


def test_no_caveat_without_measured_figures():
    assert trust.caveat("gpt_labeling") is None and trust.caveat("jury") is None


def test_the_derivation_recovers_whole_counts_and_refuses_others():
    import pytest

    from bench.clean_flags import counts

    assert counts({"n": 10, "hallucinated": 4, "flag_rate": 0.5, "f1": 2 * 3 / 9}) == (2, 6, 3, 4)
    with pytest.raises(ValueError, match="not whole counts"):
        counts({"n": 10, "hallucinated": 4, "flag_rate": 0.55, "f1": 0.5})

"""Every regression of a pair, a page at a time (issue 47, item 3), and numbers written one way in the
comparison's words and tables (item 6)."""

from __future__ import annotations

import numpy as np
import pytest

from evaluators.comparison import (
    TableBuilder,
    changes_page,
    compare_tables,
    comparison_text,
    short_number,
    short_p_value,
    verdict_sentence,
)
from evaluators.comparison.paired import PairStats


def _tables(n: int = 40, repeat: bool = False, seed: int = 3):
    rng = np.random.default_rng(seed)
    a, b = TableBuilder("main", "trace"), TableBuilder("branch", "trace")
    va = rng.uniform(0.3, 1.0, n)
    vb = np.clip(va + rng.normal(-0.1, 0.2, n), 0, 1)
    vb[:3] = va[:3]  # three ties
    for i in range(n):
        q = "Summarize the following news article." if repeat else f"Question {i}?"
        docs = [f"article {i}"]
        a.add(f"c{i}", q, docs, {"adherence": va[i]})
        b.add(f"c{i}", q, docs, {"adherence": vb[i]})
    return a.build(), b.build(), va, vb


def test_pages_list_every_regression_worst_first_and_the_first_page_is_the_comparisons():
    ta, tb, va, vb = _tables()
    c = compare_tables([ta, tb], ["adherence"], n_boot=200)
    first = changes_page(c, "main", "branch", count=10)
    worse = int(((vb - va) < -5e-4).sum())
    assert first.total == worse == c.pair("main", "branch", "adherence").stats.losses > 10
    assert [x.a_id for x in first.changes] == [x.a_id for x in c.pair("main", "branch").regressions]
    got = []
    for start in range(0, first.total, 7):
        page = changes_page(c, "main", "branch", start=start, count=7)
        assert page.start == start and page.end == min(start + 7, worse)
        got.extend(page.changes)
    assert len(got) == worse and len({x.a_id for x in got}) == worse
    diffs = [x.diff for x in got]
    assert diffs == sorted(diffs) and max(diffs) < 0
    assert changes_page(c, "main", "branch", start=10_000).changes == ()


def test_improvements_page_too_and_an_unknown_run_is_named():
    ta, tb, va, vb = _tables()
    c = compare_tables([ta, tb], ["adherence"], n_boot=200)
    up = changes_page(c, "main", "branch", regressions=False, count=100)
    assert up.total == int(((vb - va) > 5e-4).sum()) == len(up.changes)
    assert all(x.diff > 0 for x in up.changes)
    with pytest.raises(KeyError, match="nightly"):
        changes_page(c, "main", "nightly")


def test_cards_of_a_repeated_question_are_marked_so_the_reader_gets_their_id():
    ta, tb, *_ = _tables(repeat=True)
    c = compare_tables([ta, tb], ["adherence"], n_boot=200)
    page = changes_page(c, "main", "branch")
    assert page.changes and all(page.repeated)
    ta2, tb2, *_ = _tables()
    assert not any(changes_page(compare_tables([ta2, tb2], ["adherence"], n_boot=200), "main", "branch").repeated)


def test_the_report_says_how_many_regressions_it_lists_of_all():
    ta, tb, va, vb = _tables()
    c = compare_tables([ta, tb], ["adherence"], n_boot=200)
    worse = int(((vb - va) < -5e-4).sum())
    assert f"worst first (5 of {worse} listed" in comparison_text(c, top=5)


def test_one_way_to_write_p_values_and_differences():
    assert short_p_value(0.00001) == "< 0.001" and short_p_value(0.0184) == "0.018" and short_p_value(None) == ""
    assert short_number(-0.375) == "-0.38" and short_number(-0.3749) == "-0.37" and short_number(0.004) == "0.004"
    s = PairStats(n=16, n_missing=0, mean_a=0.76, mean_b=0.39, diff=-0.3749, ci_low=-0.63, ci_high=-0.11,
                  p_value=0.00001, detectable=0.2, method="bootstrap", note="", wins=3, ties=3, losses=10)
    words = verdict_sentence("v1", "v2", "expected adherence", s, "a_better", s.p_value, 1)
    assert f"by {short_number(abs(s.diff))} " in words and f"p {short_p_value(s.p_value)}" in words


def test_the_leaderboard_of_offline_runs_says_what_its_means_are_good_for():
    ta, tb, *_ = _tables()
    tc, _, *_ = _tables(seed=5)
    tc.name = "nightly"
    text = comparison_text(compare_tables([ta, tb, tc], ["adherence"], n_boot=200))
    assert "Leaderboard on adherence" in text and "not a hallucination rate" in text

"""Our retrieval metrics equal trec_eval's (pytrec_eval, a test dependency) on random rankings and
qrels, with graded relevance, repeats and cutoffs past the end of the ranking, and on MTRAG-UN's human
qrels with a BM25 ranking of its corpus (skipped when ../shared/data is absent)."""

from __future__ import annotations

import random

import pytest

from bench.retrieval_check import RETRIEVAL, bm25_rankings, load_mtrag
from bench.retrieval_check import trec_measures as trec
from evaluators.retrieval import (
    TEXT_MATCH_THRESHOLD,
    by_id,
    by_text,
    measures,
    overlap,
    shingles,
    text_references,
)

pytrec_eval = pytest.importorskip("pytrec_eval")


def ours(qrels: dict[str, int], ids: list[str], ks: tuple[int, ...]) -> dict[str, float]:
    rk = by_id(ids, {k: g for k, g in qrels.items() if g > 0})
    return measures(rk.grades, list(rk.relevant.values()), ks)


def assert_equal(mine: dict[str, float], theirs: dict[str, float], where: str) -> None:
    bad = {n: (mine[n], theirs[n]) for n in theirs if abs(mine[n] - theirs[n]) > 1e-9}
    assert not bad, f"{where}: ours vs pytrec_eval {bad}"


def test_random_rankings_with_grades_repeats_and_short_lists_equal_pytrec_eval():
    rng = random.Random(44)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, list[str]] = {}
    ks = (1, 2, 3, 5, 7, 10, 20)
    for q in range(3000):
        pool = [f"d{i}" for i in range(rng.randint(3, 40))]
        judged = rng.sample(pool, rng.randint(1, min(12, len(pool))))
        grades = {d: rng.choice((0, 1, 1, 2, 3)) for d in judged}
        if not any(g > 0 for g in grades.values()):
            grades[judged[0]] = rng.randint(1, 3)
        ranking = [rng.choice(pool) for _ in range(rng.randint(1, 25))]  # repeats on purpose
        qrels[f"q{q}"], run[f"q{q}"] = grades, ranking
    theirs = trec(qrels, run, ks)
    assert len(theirs) == 3000
    repeats = sum(len(set(r)) < len(r) for r in run.values())
    assert repeats > 1000  # the rule for repeats is exercised
    for q in run:
        assert_equal(ours(qrels[q], run[q], ks), theirs[q], q)


def test_an_empty_ranking_scores_zero_and_no_relevant_passage_is_undefined():
    got = ours({"a": 1}, [], (1, 5))
    assert set(got.values()) == {0.0}
    with pytest.raises(ValueError, match="no relevant passage"):
        measures([1, 0], [0, 0], (1,))


def test_worked_examples_of_the_declarations():
    ks = (3, 5)
    got = ours({"a": 1}, ["x", "y", "z", "a"], ks)
    assert (got["hit@3"], got["hit@5"]) == (0.0, 1.0)
    got = ours({"a": 1, "b": 1}, ["a", "x", "b"], ks)
    assert got["map@3"] == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert ours({"a": 1}, ["x", "y", "a"], ks)["mrr"] == pytest.approx(1 / 3)


@pytest.mark.skipif(not RETRIEVAL.is_dir(), reason="../shared/data/retrieval not present")
def test_mtrag_bm25_rankings_equal_pytrec_eval_by_id_and_by_text():
    corpus, questions = load_mtrag()
    ranked = bm25_rankings(corpus, questions)
    qrels = {q["id"]: {i: 1 for i in q["reference_context_ids"]} for q in questions}
    ks = (1, 3, 5, 10)
    theirs = trec(qrels, ranked, ks)
    assert len(theirs) == len(questions) == 144
    nonzero = same_by_text = windows = 0
    for q in questions:
        mine = ours(qrels[q["id"]], ranked[q["id"]], ks)
        assert_equal(mine, theirs[q["id"]], q["id"])
        nonzero += mine["ndcg@10"] > 0
        # by text: the app's own ids, the references given as texts. MTRAG's passages are overlapping
        # windows of longer documents (ids doc-start-end): a window sharing at least half of a
        # reference counts as it by text; where no such window was retrieved, the numbers are the ids'.
        refs = text_references([corpus[i]["text"] for i in q["reference_context_ids"]], q["reference_context_ids"], {})
        rk = by_text([corpus[i]["text"] for i in ranked[q["id"]]], refs)
        ref_sh = [shingles(t) for _, t, _ in refs]
        window = any(overlap(shingles(corpus[d]["text"]), r) >= TEXT_MATCH_THRESHOLD
                     for d in ranked[q["id"]] if d not in qrels[q["id"]] for r in ref_sh)
        if window:
            windows += 1
            assert all(m is None or m in qrels[q["id"]] for m in rk.matched)
            continue
        assert_equal(measures(rk.grades, list(rk.relevant.values()), ks), theirs[q["id"]], f"{q['id']} by text")
        same_by_text += 1
    assert nonzero > 60  # BM25 finds something for most questions: the check is not all zeros
    assert same_by_text > 100 and windows > 0

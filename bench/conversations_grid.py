"""Conversations (issue 48): the standalone rule's grid, chosen leave-one-collection-out.

    python -m bench.conversations_bench --grid --write conversations   # runs this as part of it

The contract: the nDCG@5 the standalone question is credited with must not come from parameters
fitted on the questions it is reported on. The rule (``evaluators.conversations.standalone.Rule``)
has numeric parameters (``short``, ``budget``, ``min_words``, ``common``) and three switches of its
parts (``nouns``, ``lemmas``, ``rarest_first``); all of them are a grid here. MTRAG-UN's retrieval
questions come from two collections (fiqa 58, ibmcloud 86), so:

* **chosen on fiqa, scored on ibmcloud** and **chosen on ibmcloud, scored on fiqa** — each
  collection's questions are scored with the rule chosen on the other one alone (the criterion: the
  smaller of the two retrievers' mean nDCG@5 gains over the last turn, ties by their sum, then by
  the grid's order). Together these 144 held-out scores are the **leave-one-collection-out** figure,
  with its 95 % paired bootstrap interval: the honest estimate of the rule-and-its-choice.
* **chosen on another data set**: the rule chosen (same criterion) on a retrieval task made from
  MTRAG's human-evaluation conversations (``../shared/data/mtrag_human_dev.jsonl``: each later turn
  with passages is a question, its reference passages the relevant ones, each collection's corpus
  the passages of all its turns; a conversation whose opening turn is also one of the retrieval
  set's is left out), scored on all 144 MTRAG-UN questions, none of which played a part in it.
* the rule in use (:data:`~evaluators.conversations.standalone.RULE`) is scored on all questions
  beside it; where it is also the choice of the grid on a collection, that collection's score of it
  is in-sample, and the results say which.
* the ablations: each part of :data:`RULE` switched off, per collection.

Scores are cached by (question, text asked): a rule that asks the same text scores the same, so the
grid's thousand rules cost little more than their distinct texts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
from pathlib import Path
from typing import Any, Callable

import numpy as np

from evaluators.conversations.standalone import OLD_RULE, RULE, Rule

#: The grid the rule is chosen from (numbers and switches of its parts).
GRID: dict[str, tuple[Any, ...]] = {"short": (1, 2, 3), "budget": (0, 4, 5, 6), "min_words": (1, 2, 3),
                                    "common": (0, 500, 1000, 2000), "nouns": (False, True),
                                    "lemmas": (False, True), "rarest_first": (False, True)}
#: The rule's parts, each switched off at :data:`RULE`.
ABLATIONS = {"all_kinds_of_words": {"nouns": False}, "same_spelling_not_lemma": {"lemmas": False},
             "first_words_not_rarest": {"rarest_first": False}, "no_common_word_cut": {"common": 0},
             "fixed_count_2": {"budget": 0, "min_words": 2}}
RETRIEVERS = ("minilm", "bm25")
#: The results keep the best rows of the grid by the criterion on each collection and on all questions.
TOP = 10

#: ``score(questions, texts, retriever)`` -> nDCG@5 per question.
Scorer = Callable[[list[dict[str, Any]], list[str], str], np.ndarray]
#: ``text(question, rule)`` -> the text the rule asks for that question.
Texter = Callable[[dict[str, Any], Rule], str]
#: ``gain(before, after)`` -> {"gain", "low", "high"} (paired bootstrap).
Gainer = Callable[[np.ndarray, np.ndarray], dict[str, Any]]


class CachedScores:
    """nDCG@5 per (question, text asked, retriever), computed once."""

    def __init__(self, questions: list[dict[str, Any]], score: Scorer) -> None:
        self.questions, self.score = questions, score
        self.cache: dict[tuple[str, str, str], float] = {}

    def __call__(self, texts: list[str], retriever: str) -> np.ndarray:
        todo = [i for i, q in enumerate(self.questions) if (q["id"], texts[i], retriever) not in self.cache]
        if todo:
            got = self.score([self.questions[i] for i in todo], [texts[i] for i in todo], retriever)
            for i, v in zip(todo, got):
                self.cache[(self.questions[i]["id"], texts[i], retriever)] = float(v)
        return np.asarray([self.cache[(q["id"], t, retriever)] for q, t in zip(self.questions, texts)])


def human_dev_retrieval(path: Path, exclude_openings: set[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(questions, corpus) of a retrieval task made from MTRAG's human-evaluation records (see the
    module docstring), in the shape of the retrieval set's: one question per task (its three
    answers share it), later turns with passages only."""
    questions: dict[str, dict[str, Any]] = {}
    corpus: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        meta = r.get("meta") or {}
        history = r.get("history") or []
        if not r.get("documents") or not history or meta["task_id"] in questions:
            continue
        if history[0]["text"].strip().lower() in exclude_openings:
            continue
        coll = meta["collection"].split("-")[2]
        ids = []
        for d in r["documents"]:
            pid = hashlib.sha1(f"{coll}|{d}".encode()).hexdigest()[:16]
            corpus.setdefault(pid, {"id": pid, "collection": coll, "text": d})
            ids.append(pid)
        questions[meta["task_id"]] = {"id": meta["task_id"], "collection": coll, "question": r["question"],
                                      "history": history, "reference_context_ids": ids}
    return list(questions.values()), list(corpus.values())


def _key(rows: list[dict[str, Any]], i: int, on: str) -> tuple[float, float, int]:
    """The criterion of row ``i`` on the questions ``on`` names (a collection, "all")."""
    return min(rows[i][f"{r}_{on}"] for r in RETRIEVERS), sum(rows[i][f"{r}_{on}"] for r in RETRIEVERS), -i


def _best(rows: list[dict[str, Any]], on: str) -> int:
    """The index of the row the criterion prefers on the questions ``on`` names."""
    return max(range(len(rows)), key=lambda i: _key(rows, i, on))


def _rules() -> list[Rule]:
    return [dataclasses.replace(RULE, **dict(zip(GRID, values))) for values in itertools.product(*GRID.values())]


def choose_on(questions: list[dict[str, Any]], score: Scorer, text: Texter) -> tuple[Rule, dict[str, Any]]:
    """The rule of the grid the criterion prefers on ``questions`` (all of them), with its gains there."""
    scores = CachedScores(questions, score)
    last = {r: scores([q["question"] for q in questions], r) for r in RETRIEVERS}
    rules = _rules()
    rows = []
    for rule in rules:
        texts = [text(q, rule) for q in questions]
        rows.append({f"{r}_all": round(float((scores(texts, r) - last[r]).mean()), 4) for r in RETRIEVERS})
    best = _best(rows, "all")
    there: dict[str, Any] = {"ndcg5_last_turn": {r: round(float(last[r].mean()), 4) for r in RETRIEVERS}}
    for name, rule in (("rule_in_use", RULE), ("old_rule", OLD_RULE)):
        texts = [text(q, rule) for q in questions]
        there[f"gain_{name}"] = {r: round(float((scores(texts, r) - last[r]).mean()), 4) for r in RETRIEVERS}
        there[f"rewritten_{name}"] = sum(1 for q, t in zip(questions, texts) if t != q["question"])
    return rules[best], {"questions": len(questions), "rule": {k: getattr(rules[best], k) for k in GRID},
                         **{f"{k}_there": v for k, v in rows[best].items()},
                         "rules_tied_at_best": sum(1 for r in rows if r == rows[best]), **there}


def grid(questions: list[dict[str, Any]], score: Scorer, text: Texter, gain: Gainer,
         other: tuple[list[dict[str, Any]], Scorer] | None = None) -> dict[str, Any]:
    """The grid, its leave-one-collection-out choices and held-out figure, the choice on ``other``
    (questions and their scorer, another data set) scored here, :data:`RULE` and ablations."""
    scores = CachedScores(questions, score)
    colls = sorted({q["collection"] for q in questions})
    masks = {c: np.asarray([q["collection"] == c for q in questions]) for c in colls}
    last = {r: scores([q["question"] for q in questions], r) for r in RETRIEVERS}

    def per_question(rule: Rule) -> dict[str, np.ndarray]:
        texts = [text(q, rule) for q in questions]
        return {r: scores(texts, r) for r in RETRIEVERS}

    def summary(s: dict[str, np.ndarray]) -> dict[str, float]:
        row: dict[str, float] = {}
        for r in RETRIEVERS:
            d = s[r] - last[r]
            row.update({f"{r}_{c}": round(float(d[masks[c]].mean()), 4) for c in colls})
            row[f"{r}_all"] = round(float(d.mean()), 4)
        return row

    rules = _rules()
    per_rule = [per_question(rule) for rule in rules]
    rows = [{**{k: getattr(rule, k) for k in GRID}, **summary(s)} for rule, s in zip(rules, per_rule)]

    held_out = {r: np.zeros(len(questions)) for r in RETRIEVERS}
    choices: dict[str, Any] = {}
    for c in colls:
        fit = [o for o in colls if o != c]
        best = _best(rows, fit[0])  # two collections: the other one
        for r in RETRIEVERS:
            held_out[r][masks[c]] = per_rule[best][r][masks[c]]
        choices[f"scored_on_{c}"] = {"chosen_on": fit, "rule": {k: getattr(rules[best], k) for k in GRID},
                                     "is_rule_in_use": rules[best] == RULE, **rows[best]}
    loco = {r: {"ndcg5": round(float(held_out[r].mean()), 4), "gain_over_last_turn": gain(last[r], held_out[r]),
                **{f"gain_{c}": gain(last[r][masks[c]], held_out[r][masks[c]]) for c in colls}}
            for r in RETRIEVERS}
    best_all = _best(rows, "all")
    in_use = per_question(RULE)
    elsewhere: dict[str, Any] = {}
    if other is not None:
        rule, there = choose_on(other[0], other[1], text)
        s = per_question(rule)
        elsewhere = {"chosen_on": there, "is_rule_in_use": rule == RULE, **summary(s),
                     **{f"{r}_gain_over_last_turn": gain(last[r], s[r]) for r in RETRIEVERS},
                     **{f"{r}_ndcg5": round(float(s[r].mean()), 4) for r in RETRIEVERS}}
    return {
        "grid": {k: list(v) for k, v in GRID.items()}, "rules": len(rules),
        "criterion": "the smaller of MiniLM's and BM25's mean nDCG@5 gain over the last turn on the questions "
                     "chosen on; ties by their sum, then by the grid's order",
        "leave_one_collection_out": {"choices": choices, "held_out": loco},
        "chosen_on_mtrag_human_dev": elsewhere,
        "rule_in_use": {"rule": dataclasses.asdict(RULE), **summary(in_use),
                        "in_sample_on": [fit for c in colls if choices[f"scored_on_{c}"]["is_rule_in_use"]
                                         for fit in choices[f"scored_on_{c}"]["chosen_on"]]},
        "chosen_on_all_questions (in-sample, not a claim)": {"rule": {k: getattr(rules[best_all], k) for k in GRID},
                                                             **rows[best_all]},
        "ablations": {name: {**change, **summary(per_question(dataclasses.replace(RULE, **change)))}
                      for name, change in ABLATIONS.items()},
        "top_rows": {on: [rows[i] for i in sorted(range(len(rows)), key=lambda i: _key(rows, i, on),
                                                   reverse=True)[:TOP]] for on in (*colls, "all")},
    }

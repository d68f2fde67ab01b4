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

Every rule is scored with every retriever the bench has (MiniLM; BM25 as IR toolkits mean it, with
Elasticsearch's and Anserini's k1, b; the plain BM25 of the first measurements). The choice is made
by each :data:`CRITERIA` (the pair of retrievers whose smaller gain is maximised: MiniLM with the
standard BM25 — the claim — and MiniLM with the plain BM25 — the first figures, reproduced) in each
:data:`FAMILIES` (the first grid, 1,152 rules, and the whole grid, 2,304, with the ``echo`` switch
added on the second pass), and the held-out figures of every retriever are given for each choice.

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
                                    "lemmas": (False, True), "rarest_first": (False, True),
                                    "echo": (False, True)}
#: The grids the rule is chosen from: restrictions of :data:`GRID` (the first grid had no echo switch).
FAMILIES: dict[str, dict[str, tuple[Any, ...]]] = {"first_grid_1152": {"echo": (False,)}, "grid_2304": {}}
#: The criteria: the retrievers whose smaller mean gain over the last turn the choice maximises.
CRITERIA: dict[str, tuple[str, str]] = {"minilm_and_bm25": ("minilm", "bm25"),
                                        "minilm_and_bm25_plain": ("minilm", "bm25_plain")}
#: The rule's parts, each switched off at :data:`RULE`.
ABLATIONS = {"all_kinds_of_words": {"nouns": False}, "same_spelling_not_lemma": {"lemmas": False},
             "first_words_not_rarest": {"rarest_first": False}, "no_common_word_cut": {"common": 0},
             "fixed_count_2": {"budget": 0, "min_words": 2}, "no_echo": {"echo": False}}
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


def _rules() -> list[Rule]:
    return [dataclasses.replace(RULE, **dict(zip(GRID, values))) for values in itertools.product(*GRID.values())]


def _in(rule: Rule, family: str) -> bool:
    return all(getattr(rule, k) in v for k, v in FAMILIES[family].items())


def _key(rows: list[dict[str, Any]], i: int, on: str, pair: tuple[str, str]) -> tuple[float, float, int]:
    """The criterion of row ``i`` on the questions ``on`` names (a collection, "all")."""
    return min(rows[i][f"{r}_{on}"] for r in pair), sum(rows[i][f"{r}_{on}"] for r in pair), -i


def _best(rows: list[dict[str, Any]], on: str, pair: tuple[str, str], among: list[int]) -> int:
    """The index (of ``among``) of the row the criterion ``pair`` prefers on the questions ``on`` names."""
    return max(among, key=lambda i: _key(rows, i, on, pair))


def _gains(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in GRID}


def _params(rule: Rule) -> dict[str, Any]:
    return {k: getattr(rule, k) for k in GRID}


class Grid:
    """Every rule of :data:`GRID` scored on ``questions`` by every retriever: gains over the last
    turn per question, and their means per collection and on all questions (``rows``)."""

    def __init__(self, questions: list[dict[str, Any]], score: Scorer, text: Texter,
                 retrievers: tuple[str, ...]) -> None:
        self.questions, self.text, self.retrievers = questions, text, retrievers
        self.scores = CachedScores(questions, score)
        self.colls = sorted({q["collection"] for q in questions})
        self.masks = {c: np.asarray([q["collection"] == c for q in questions]) for c in self.colls}
        self.last = {r: self.scores([q["question"] for q in questions], r) for r in retrievers}
        self.rules = _rules()
        self.per_rule = [self.per_question(rule) for rule in self.rules]
        self.rows = [{**_params(rule), **self.summary(s)} for rule, s in zip(self.rules, self.per_rule)]

    def per_question(self, rule: Rule) -> dict[str, np.ndarray]:
        texts = [self.text(q, rule) for q in self.questions]
        return {r: self.scores(texts, r) for r in self.retrievers}

    def summary(self, s: dict[str, np.ndarray]) -> dict[str, float]:
        row: dict[str, float] = {}
        for r in self.retrievers:
            d = s[r] - self.last[r]
            row.update({f"{r}_{c}": round(float(d[self.masks[c]].mean()), 4) for c in self.colls})
            row[f"{r}_all"] = round(float(d.mean()), 4)
        return row

    def among(self, family: str) -> list[int]:
        return [i for i, rule in enumerate(self.rules) if _in(rule, family)]

    def rewritten(self, rule: Rule) -> int:
        return sum(1 for q in self.questions if self.text(q, rule) != q["question"])


def grid(questions: list[dict[str, Any]], score: Scorer, text: Texter, gain: Gainer, retrievers: tuple[str, ...],
         other: tuple[list[dict[str, Any]], Scorer] | None = None) -> dict[str, Any]:
    """The grid; per family and criterion its leave-one-collection-out choices and held-out figures and
    the choice on ``other`` (questions and their scorer, another data set) scored here; :data:`RULE`
    and the ablations."""
    g = Grid(questions, score, text, retrievers)
    elsewhere = Grid(other[0], other[1], text, retrievers) if other is not None else None
    choices: dict[str, Any] = {}
    for family in FAMILIES:
        among = g.among(family)
        for cname, pair in CRITERIA.items():
            held_out = {r: np.zeros(len(questions)) for r in retrievers}
            picked: dict[str, Any] = {}
            for c in g.colls:
                fit = [o for o in g.colls if o != c]
                best = _best(g.rows, fit[0], pair, among)  # two collections: the other one
                for r in retrievers:
                    held_out[r][g.masks[c]] = g.per_rule[best][r][g.masks[c]]
                picked[f"scored_on_{c}"] = {"chosen_on": fit, "rule": _params(g.rules[best]),
                                            "is_rule_in_use": g.rules[best] == RULE, **g.rows[best]}
            block: dict[str, Any] = {
                "rules": len(among), "criterion": list(pair), "leave_one_collection_out": picked,
                "held_out": {r: {"ndcg5": round(float(held_out[r].mean()), 4),
                                 "gain_over_last_turn": gain(g.last[r], held_out[r]),
                                 **{f"gain_{c}": gain(g.last[r][g.masks[c]], held_out[r][g.masks[c]])
                                    for c in g.colls}} for r in retrievers}}
            if elsewhere is not None:
                e = _best(elsewhere.rows, "all", pair, among)
                tied = sum(1 for i in among if _gains(elsewhere.rows[i]) == _gains(elsewhere.rows[e]))
                s = g.per_rule[e]
                block["chosen_on_mtrag_human_dev"] = {
                    "rule": _params(g.rules[e]), "is_rule_in_use": g.rules[e] == RULE,
                    "there": {"questions": len(elsewhere.questions), **_gains(elsewhere.rows[e]),
                              "ndcg5_last_turn": {r: round(float(elsewhere.last[r].mean()), 4) for r in retrievers},
                              "rules_tied_at_best": tied},
                    "here": {**{f"{r}_gain_over_last_turn": gain(g.last[r], s[r]) for r in retrievers},
                             **{f"{r}_ndcg5": round(float(s[r].mean()), 4) for r in retrievers}}}
            best_all = _best(g.rows, "all", pair, among)
            block["chosen_on_all_questions (in-sample, not a claim)"] = g.rows[best_all]
            block["top_rows"] = {on: [g.rows[i] for i in sorted(among, key=lambda i: _key(g.rows, i, on, pair),
                                                                  reverse=True)[:TOP]] for on in (*g.colls, "all")}
            choices[f"{family}/{cname}"] = block
    in_use = g.per_question(RULE)
    out: dict[str, Any] = {
        "grid": {k: list(v) for k, v in GRID.items()}, "families": {k: dict(v) for k, v in FAMILIES.items()},
        "criteria": {k: list(v) for k, v in CRITERIA.items()},
        "criterion": "the smaller of the pair's mean nDCG@5 gains over the last turn on the questions chosen on; "
                     "ties by their sum, then by the grid's order",
        "choices": choices,
        "rule_in_use": {"rule": dataclasses.asdict(RULE), **g.summary(in_use), "rewritten": g.rewritten(RULE),
                        **{f"{r}_gain_over_last_turn": gain(g.last[r], in_use[r]) for r in retrievers}},
        "old_rule": {"rule": dataclasses.asdict(OLD_RULE), **g.summary(g.per_question(OLD_RULE))},
        "ablations": {name: {**change, **g.summary(g.per_question(dataclasses.replace(RULE, **change)))}
                      for name, change in ABLATIONS.items()},
    }
    if elsewhere is not None:
        out["mtrag_human_dev"] = {"questions": len(elsewhere.questions),
                                  "rule_in_use": elsewhere.summary(elsewhere.per_question(RULE)),
                                  "old_rule": elsewhere.summary(elsewhere.per_question(OLD_RULE))}
    return out

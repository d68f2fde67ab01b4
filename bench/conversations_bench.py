"""Conversations (issue 48): does judging a turn with the turns before it work?

    python -m bench.conversations_bench --write conversations      # bench/results/conversations.json

Two measurements, each beside today's behaviour (the turn judged alone) and a simple reference:

1. **Retrieval with the standalone question** (``../shared/data/retrieval/mtrag_retrieval_dev_*``:
   144 last-turn questions of MTRAG-UN's fiqa and ibmcloud conversations with human qrels). Each
   question ranks its collection's corpus with each of :data:`RETRIEVERS`: MiniLM (the project's
   encoder, cosine); BM25 as IR toolkits mean it (``bench/bm25_standard.py``: Lucene's English
   analysis — stop words, Porter stemming — and Lucene's formula; checked against Lucene itself by
   ``bench/bm25_check.py``) with Elasticsearch's k1 = 1.2, b = 0.75 (``bm25``: what MTRAG's BEIR
   baselines run; the goal's BM25) and with Anserini's 0.9, 0.4 (``bm25_anserini``); and the plain
   BM25 of the first figures (``bm25_plain``: ``rank_bm25`` Okapi over lower-cased word tokens, no
   stop words, no stemming). Asked as: the last turn alone (today); the earlier user turns prepended
   (the naive reference the issue names); the user's previous turn prepended; the first standalone
   rule (``OLD_RULE``: the first 8 content words of the previous turn); the standalone question
   (``evaluators.conversations.standalone``, ``RULE``). nDCG@5 by trec_eval's definition (the
   project's ``evaluators.retrieval``, checked against ``pytrec_eval``'s ``ndcg_cut_5`` on every
   run), per collection and overall, with the gain over the last turn and its 95 % paired bootstrap
   interval (by question). ``--grid``: the grid the rule's parameters were chosen from,
   leave-one-collection-out (chosen on fiqa, checked on ibmcloud, and the reverse; the criterion: the
   smaller of two retrievers' gains over the last turn on the collection it is chosen on), the choice
   on MTRAG's human-dev conversations, and the ablations of the rule's parts (each switched off) per
   collection (``bench/conversations_grid.py``).
2. **Adherence by turn index** (``../shared/data/mtrag_human_dev.jsonl``: 10 conversations, 240
   answers with human faithfulness per turn; cases without documents left out, as the data's README
   advises). ``expected_adherence`` of ``trace`` — today (history dropped) and with the
   conversation (standalone question, support from the agent's earlier turns) — and the naive
   reference (1 − the share of response tokens found in no document) against human faithfulness:
   AUROC for ``hallucinated`` (median faithfulness < 3) and Spearman with the mean faithfulness,
   turn 1 against later turns, 95 % intervals resampled by conversation. With the time each takes:
   once after a warm-up (the conversation's run embeds what only it reads) and three reruns each,
   alternating (everything embedded: the labeling's own cost).

Records the CPU (``bench.machine``) and the load average; figures taken while others share the
machine's two cores are noisy in time, never in value.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import time
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from bench.machine import stamp
from bench.results_file import write_result
from bench.shared_data import SHARED_DIR
from evaluators.agreement.stats import auroc_fast
from evaluators.conversations.standalone import OLD_RULE, RULE, standalone_question
from evaluators.stats import bootstrap_stat
from evaluators.types import TestCase, Turn

RETRIEVAL = SHARED_DIR / "retrieval"
_TOKEN = re.compile(r"[a-z0-9]+")
N_BOOT = 2000


def turns_of(history: Sequence[dict[str, Any]]) -> tuple[Turn, ...]:
    return tuple(Turn(speaker=t["speaker"], text=t["text"]) for t in history)


def _users(q: dict[str, Any]) -> list[str]:
    return [t["text"] for t in q["history"] if t["speaker"] == "user"]


#: How each question is asked of the retriever.
QUERIES: dict[str, Callable[[dict[str, Any]], str]] = {
    "last_turn": lambda q: q["question"],
    "prepend_user_turns": lambda q: " ".join([*_users(q), q["question"]]),
    "prepend_previous_user_turn": lambda q: " ".join([*_users(q)[-1:], q["question"]]),
    "old_rule": lambda q: standalone_question(q["question"], turns_of(q["history"]), rule=OLD_RULE),
    "standalone": lambda q: standalone_question(q["question"], turns_of(q["history"])),
}


# ---------------------------------------------------------------- 1. retrieval
def load_retrieval(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (RETRIEVAL / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


#: The retrievers each question is ranked with: MiniLM (cosine), BM25 as IR toolkits mean it (Lucene's
#: English analysis — stop words, Porter stemming — and formula, ``bench/bm25_standard.py``) with
#: Elasticsearch's k1 = 1.2, b = 0.75 (what MTRAG's BEIR baselines run) and with Anserini's 0.9, 0.4, and
#: the plain BM25 of the first measurements (``rank_bm25`` Okapi over lower-cased word tokens: no stop
#: words, no stemming).
RETRIEVERS = ("minilm", "bm25", "bm25_anserini", "bm25_plain")


def _plain_scores(index: Any, text: str) -> Any:
    return index.get_scores(_tokens(text))


class Rankers:
    """The :data:`RETRIEVERS`' rankings of each collection's corpus."""

    def __init__(self, corpus: list[dict[str, Any]]) -> None:
        from rank_bm25 import BM25Okapi

        from bench.bm25_standard import BM25, PRESETS
        from evaluators.encoder import embeddings

        self.by_coll: dict[str, list[dict[str, Any]]] = {}
        for p in corpus:
            self.by_coll.setdefault(p["collection"], []).append(p)
        self.lexical: dict[str, dict[str, Callable[[str], Any]]] = {}
        for c, ps in self.by_coll.items():
            texts = [p["text"] for p in ps]
            plain = BM25Okapi([_tokens(t) for t in texts])
            self.lexical[c] = {"bm25_plain": partial(_plain_scores, plain)}
            for name, preset in (("bm25", "elasticsearch"), ("bm25_anserini", "anserini")):
                self.lexical[c][name] = BM25(texts, *PRESETS[preset]).scores
        self.vecs = {c: embeddings.encode([p["text"] for p in ps]) for c, ps in self.by_coll.items()}

    def run(self, questions: list[dict[str, Any]], texts: list[str], retriever: str) -> dict[str, dict[str, float]]:
        from evaluators.encoder import embeddings

        V = embeddings.encode(texts) if retriever == "minilm" else None
        out: dict[str, dict[str, float]] = {}
        for i, q in enumerate(questions):
            ps = self.by_coll[q["collection"]]
            c = q["collection"]
            s = self.lexical[c][retriever](texts[i]) if V is None else self.vecs[c] @ V[i]
            out[q["id"]] = {p["id"]: float(x) for p, x in zip(ps, s)}
        return out


def ndcg5(questions: list[dict[str, Any]], run: dict[str, dict[str, float]]) -> np.ndarray:
    """nDCG@5 per question with the project's retrieval metrics (``evaluators.retrieval``, trec_eval's
    definition), checked here against pytrec_eval's ``ndcg_cut_5`` on the same run."""
    import pytrec_eval

    from evaluators.retrieval import case_metrics

    out = []
    for q in questions:
        # trec_eval's order: score descending, ties by document id descending
        ranked = [d for d, _ in sorted(run[q["id"]].items(), key=lambda x: (-x[1], _desc(x[0])))][:10]
        case = TestCase(id=q["id"], question=q["question"], response="-", documents=tuple(ranked),
                        document_ids=tuple(ranked), reference_context_ids=tuple(q["reference_context_ids"]))
        out.append(float(case_metrics(case, "id", ks=(5,))["ndcg@5"].value or 0.0))
    qrels = {q["id"]: {d: 1 for d in q["reference_context_ids"]} for q in questions}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5"}).evaluate(run)
    check = np.asarray([ev[q["id"]]["ndcg_cut_5"] for q in questions])
    assert np.allclose(out, check, atol=1e-9), "evaluators.retrieval and pytrec_eval disagree on nDCG@5"
    return np.asarray(out)


def _desc(doc_id: str) -> tuple[int, ...]:
    return tuple(-ord(ch) for ch in doc_id)


def paired_gain(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    iv = bootstrap_stat(lambda x, y: float(np.mean(y - x)), a, b, n_boot=N_BOOT)
    return {"gain": round(float(np.mean(b - a)), 4), "low": _r(iv.low), "high": _r(iv.high)}


def _r(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


def retrieval(grid: bool = False) -> dict[str, Any]:
    questions = load_retrieval("mtrag_retrieval_dev_questions.jsonl")
    rankers = Rankers(load_retrieval("mtrag_retrieval_dev_corpus.jsonl"))
    colls = sorted({q["collection"] for q in questions})
    out: dict[str, Any] = {"questions": len(questions), "with_history": sum(1 for q in questions if q["history"]),
                           "per_collection": {c: sum(1 for q in questions if q["collection"] == c) for c in colls},
                           "retrievers": {}}
    for retriever in RETRIEVERS:
        scores = {name: ndcg5(questions, rankers.run(questions, [f(q) for q in questions], retriever))
                  for name, f in QUERIES.items()}
        rows: dict[str, Any] = {}
        for name, s in scores.items():
            row: dict[str, Any] = {"all": round(float(s.mean()), 4)}
            for c in colls:
                m = np.asarray([q["collection"] == c for q in questions])
                row[c] = round(float(s[m].mean()), 4)
            if name != "last_turn":
                row["gain_over_last_turn"] = paired_gain(scores["last_turn"], s)
                for c in colls:
                    m = np.asarray([q["collection"] == c for q in questions])
                    row[f"gain_{c}"] = paired_gain(scores["last_turn"][m], s[m])
            rows[name] = row
        rows["standalone"]["gain_over_prepend_user_turns"] = paired_gain(scores["prepend_user_turns"],
                                                                         scores["standalone"])
        rows["standalone"]["gain_over_old_rule"] = paired_gain(scores["old_rule"], scores["standalone"])
        out["retrievers"][retriever] = rows
    out["rule"] = dataclasses.asdict(RULE)
    out["rewritten"] = {name: sum(1 for q in questions if QUERIES[name](q) != q["question"])
                        for name in ("old_rule", "standalone")}
    if grid:
        out["grid"] = _grid(questions, rankers)
    return out


def _grid(questions: list[dict[str, Any]], rankers: Rankers) -> dict[str, Any]:
    """The rule's grid, chosen leave-one-collection-out (``bench/conversations_grid.py``)."""
    from bench.conversations_grid import grid, human_dev_retrieval

    openings = {q["history"][0]["text"].strip().lower() for q in questions if q["history"]}
    other_qs, other_corpus = human_dev_retrieval(SHARED_DIR / "mtrag_human_dev.jsonl", openings)
    other = Rankers(other_corpus)
    return grid(questions, lambda qs, texts, r: ndcg5(qs, rankers.run(qs, texts, r)),
                lambda q, rule: standalone_question(q["question"], turns_of(q["history"]), rule=rule), paired_gain,
                RETRIEVERS, (other_qs, lambda qs, texts, r: ndcg5(qs, other.run(qs, texts, r))))


# ---------------------------------------------------------------- 2. adherence by turn
def _mtrag_cases(with_history: bool) -> list[TestCase]:
    out = []
    for line in (SHARED_DIR / "mtrag_human_dev.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if not r.get("documents"):
            continue  # no passage: annotators judged chit-chat, not groundedness (data README)
        meta = r.get("meta") or {}
        out.append(TestCase(id=r["id"], question=r["question"], response=r["response"],
                            documents=tuple(r["documents"]), labels=r["labels"],
                            metadata={"turn": int(meta.get("turn") or 0)},
                            conversation_id=meta.get("conversation_id"),
                            history=turns_of(r.get("history") or []) if with_history else ()))
    return out


def _spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    from scipy.stats import spearmanr

    if len(set(x.tolist())) < 2 or len(set(y.tolist())) < 2:
        return None
    return float(spearmanr(x, y).statistic)


def _agreement(score: np.ndarray, faith: np.ndarray, halluc: np.ndarray, groups: list[str]) -> dict[str, Any]:
    au = bootstrap_stat(lambda y, s: auroc_fast(y, -s), halluc.astype(int), score, groups=groups, n_boot=N_BOOT)
    sp = bootstrap_stat(_spearman, score, faith, groups=groups, n_boot=N_BOOT)
    return {"n": len(score), "hallucinated": int(halluc.sum()), "conversations": len(set(groups)),
            "auroc": {"value": _r(au.estimate), "low": _r(au.low), "high": _r(au.high), "note": au.note},
            "spearman": {"value": _r(sp.estimate), "low": _r(sp.low), "high": _r(sp.high), "note": sp.note}}


def adherence_by_turn() -> dict[str, Any]:
    from evaluators import evaluate_batch
    from evaluators.labelers.confidence import novel_token_ratio

    out: dict[str, Any] = {}
    scores: dict[str, np.ndarray] = {}
    cases = _mtrag_cases(True)
    evaluate_batch(_mtrag_cases(False), method="trace", progress=None)  # warm-up: encoder loaded, texts cached
    out["timing_note"] = ("both runs after one warm-up run of the cases without history (encoder loaded, their "
                          "texts' embeddings cached): the conversation's figure includes embedding what only it "
                          "reads (standalone questions, the agent's earlier turns)")
    for name, with_history in (("today_history_dropped", False), ("with_conversation", True)):
        t0 = time.perf_counter()
        run = evaluate_batch(_mtrag_cases(with_history), method="trace", progress=None)
        out[f"{name}_seconds"] = round(time.perf_counter() - t0, 1)
        by_id = {r.case.id: r for r in run.results}
        scores[name] = np.asarray([by_id[c.id].value("expected_adherence") for c in cases], dtype=float)
        if with_history:
            revised = [r for r in run.results if r.labels and r.labels.extra.get("earlier_turn_support")]
            out["earlier_turn_support"] = {"cases": len(revised), "sentences": sum(
                len(r.labels.extra["earlier_turn_support"]) for r in revised if r.labels)}
            out["standalone_rewritten"] = sum(1 for r in run.results
                                              if r.standalone_question and r.standalone_question != r.case.question)
    reruns: dict[str, list[float]] = {"today_history_dropped": [], "with_conversation": []}
    for _ in range(3):  # everything embedded already: the labeling's own cost, alternating
        for name, with_history in (("today_history_dropped", False), ("with_conversation", True)):
            t0 = time.perf_counter()
            evaluate_batch(_mtrag_cases(with_history), method="trace", progress=None)
            reruns[name].append(round(time.perf_counter() - t0, 2))
    out["rerun_seconds"] = {**reruns, "median_ratio": round(float(np.median(reruns["with_conversation"])
                                                                  / np.median(reruns["today_history_dropped"])), 2)}
    scores["naive_reference"] = np.asarray([1.0 - novel_token_ratio(c.response, c.documents) for c in cases])
    faith = np.asarray([float(c.labels["faithfulness"]["mean"]) for c in cases])
    halluc = np.asarray([bool(c.labels["hallucinated"]) for c in cases])
    turn = np.asarray([int(c.metadata["turn"]) for c in cases])
    groups = [str(c.conversation_id) for c in cases]
    for name, s in scores.items():
        block: dict[str, Any] = {}
        for label, m in (("turn_1", turn == 1), ("later_turns", turn > 1), ("all", turn > 0)):
            block[label] = _agreement(s[m], faith[m], halluc[m], [g for g, k in zip(groups, m) if k])
        out[name] = block
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", metavar="NAME", help="write bench/results/NAME.json")
    ap.add_argument("--grid", action="store_true", help="also the rule's grid, chosen leave-one-collection-out")
    ap.add_argument("--skip-adherence", action="store_true")
    ap.add_argument("--skip-retrieval", action="store_true")
    args = ap.parse_args(argv)
    if not (RETRIEVAL / "mtrag_retrieval_dev_questions.jsonl").exists():
        print(f"skipped: {RETRIEVAL} not found")
        return 0
    t0 = time.perf_counter()
    res: dict[str, Any] = stamp()
    if not args.skip_retrieval:
        res["retrieval_ndcg5"] = retrieval(args.grid)
        print(json.dumps(res["retrieval_ndcg5"]["retrievers"], indent=1))
    if not args.skip_adherence:
        res["adherence_by_turn"] = adherence_by_turn()
        print(json.dumps(res["adherence_by_turn"], indent=1))
    res["load_average_end"] = list(os.getloadavg())
    res["seconds"] = round(time.perf_counter() - t0, 1)
    if args.write:
        print(f"wrote {write_result(args.write, res)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

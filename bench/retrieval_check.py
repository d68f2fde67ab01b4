"""Our retrieval metrics against trec_eval (pytrec_eval) on a BM25 ranking of MTRAG-UN, through the
real ``evaluate`` path, by id and by text; and what they cost.

    .venv/bin/python -m bench.retrieval_check [--method trace] [--scan-cases 100000] [--write retrieval_check]

1. **By id.** Each of the 144 MTRAG-UN questions (../shared/data/retrieval) gets a BM25 ranking
   (rank_bm25 over its collection; the query is the question with the earlier user turns) of the top
   10 passages; a cases file holds them as documents ``{id, text}``, the human qrels as
   ``reference_context_ids`` and an extractive answer (the top passage's first sentence). ``evaluate``
   (``resultfiles.evaluate_file``, method ``--method``) scores it; every case's 21 retrieval metrics
   are compared with pytrec_eval's on the same ranking. Expected: equal to 1e-9, every question.
2. **By text.** The same file with the app's own ids (``app-…``) and the references given as
   texts (``reference_contexts``): the run decides "text" by itself. MTRAG's passages are overlapping
   windows of longer documents (ids ``doc-start-end``), so a retrieved window sharing at least half of
   a reference counts as it by text: equal to pytrec_eval on every question where no such window was
   retrieved; the others are counted, each explained by a window (checked).
3. **Cost.** ``score_cases`` cases/s by id and by text (the 144 cases repeated), and the pre-scan
   ``evaluate`` makes of a file whose references are matched by text (the whole file read once more)
   beside one plain read of the same file, ``--scan-cases`` rows.

Results: ``bench/results/<write>.json`` (with the CPU and the load average: the cores are shared);
the generated files stay under ``bench/out/retrieval_check/``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from bench import machine
from bench.results_file import write_result
from bench.shared_data import SHARED_DIR

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "retrieval_check"
RETRIEVAL = SHARED_DIR / "retrieval"
TREC = {"hit": "success", "precision": "P", "recall": "recall", "map": "map_cut", "ndcg": "ndcg_cut"}
KS = (1, 3, 5, 10)


def load_mtrag() -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """(corpus by id, questions) of ../shared/data/retrieval."""
    with (RETRIEVAL / "mtrag_retrieval_dev_corpus.jsonl").open(encoding="utf-8") as fh:
        corpus = {d["id"]: d for d in map(json.loads, fh)}
    with (RETRIEVAL / "mtrag_retrieval_dev_questions.jsonl").open(encoding="utf-8") as fh:
        questions = [json.loads(line) for line in fh if line.strip()]
    return corpus, questions


def bm25_rankings(corpus: dict[str, dict[str, Any]], questions: list[dict[str, Any]],
                  top: int = 10) -> dict[str, list[str]]:
    """A BM25 ranking (rank_bm25) of each question's collection, best first: the question with its
    earlier user turns as the query."""
    from rank_bm25 import BM25Okapi

    from evaluators.retrieval import words

    out = {}
    for coll in sorted({d["collection"] for d in corpus.values()}):
        ids = [i for i, d in corpus.items() if d["collection"] == coll]
        bm = BM25Okapi([words(corpus[i]["text"]) for i in ids])
        for q in questions:
            if q["collection"] != coll:
                continue
            turns = [t["text"] for t in q.get("history") or [] if t.get("speaker") == "user"]
            scores = bm.get_scores(words(" ".join([*turns, q["question"]])))
            order = sorted(range(len(ids)), key=lambda k: -scores[k])
            out[q["id"]] = [ids[k] for k in order[:top]]
    return out


def trec_name(name: str) -> str:
    from evaluators.retrieval import split

    kind, k = split(name)  # type: ignore[misc]
    return "recip_rank" if k is None else f"{TREC[kind]}_{k}"


def trec_measures(qrels: dict[str, dict[str, int]], run: dict[str, list[str]],
                  ks: tuple[int, ...] = KS) -> dict[str, dict[str, float]]:
    """pytrec_eval's measures of rankings given in order (scores n, n − 1, …: no ties), under our
    metric names. trec_eval refuses a ranking that names a document twice: a repeat is renamed to an
    unjudged document (what our metrics do with it)."""
    import pytrec_eval

    from evaluators.retrieval import metric_names

    names = metric_names(ks)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {trec_name(n) for n in names})
    scored = {}
    for q, ids in run.items():
        seen: set[str] = set()
        ranked = {}
        for r, d in enumerate(ids):
            ranked[d if d not in seen else f"{d}#repeat{r}"] = float(len(ids) - r)
            seen.add(d)
        scored[q] = ranked
    got = ev.evaluate(scored)
    return {q: {n: got[q][trec_name(n)] for n in names} for q in got}


def _first_sentence(text: str) -> str:
    m = re.match(r"(.+?[.!?])(\s|$)", text.strip(), re.S)
    return (m.group(1) if m else text.strip())[:400]


def write_cases(path: Path, corpus: dict, questions: list[dict], ranked: dict[str, list[str]], *,
                by_text: bool) -> Path:
    """The cases file of the BM25 app: by id (the corpus ids) or by text (the app's own ids, the
    references as texts)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for q in questions:
            ids = ranked[q["id"]]
            row: dict[str, Any] = {
                "id": q["id"], "question": q["question"], "response": _first_sentence(corpus[ids[0]]["text"]),
                "documents": [{"id": f"app-{k}-{d}" if by_text else d, "text": corpus[d]["text"]}
                              for k, d in enumerate(ids)],
                "reference_context_ids": q["reference_context_ids"]}
            if by_text:
                row["reference_contexts"] = [corpus[i]["text"] for i in q["reference_context_ids"]]
            fh.write(json.dumps(row) + "\n")
    return path


def _evaluated(path: Path, method: str) -> tuple[dict[str, dict[str, Any]], dict[str, Any], float]:
    from evaluators.resultfiles import evaluate_file, iter_case_dicts

    out = path.with_suffix(".results.jsonl")
    out.unlink(missing_ok=True)
    t0 = time.perf_counter()
    fr = evaluate_file(path, method, out=out)
    dt = time.perf_counter() - t0
    return {d["id"]: d for d in iter_case_dicts(out)}, fr.top, dt


def _compare(cases: dict[str, dict[str, Any]], theirs: dict[str, dict[str, float]]) -> tuple[float, list[str]]:
    worst, differ = 0.0, []
    for q, want in theirs.items():
        got = cases[q]["metrics"]
        d = max(abs(float(got[n]) - v) for n, v in want.items())
        worst = max(worst, d)
        if d > 1e-9:
            differ.append(q)
    return worst, differ


def check(method: str) -> dict[str, Any]:
    from evaluators.retrieval import TEXT_MATCH_THRESHOLD, overlap, shingles

    corpus, questions = load_mtrag()
    ranked = bm25_rankings(corpus, questions)
    qrels = {q["id"]: {i: 1 for i in q["reference_context_ids"]} for q in questions}
    theirs = trec_measures(qrels, ranked)
    res: dict[str, Any] = {"questions": len(questions), "passages": len(corpus), "ranking": "BM25 (rank_bm25), top 10",
                           "metrics_per_case": len(next(iter(theirs.values()))), "method": method}
    cases, top, dt = _evaluated(write_cases(OUT / "by_id.jsonl", corpus, questions, ranked, by_text=False), method)
    worst, differ = _compare(cases, theirs)
    res["by_id"] = {"match": top["settings"]["retrieval_run"], "max_abs_diff": worst, "questions_differing": differ,
                    "means": {n: top[n] for n in ("hit@5", "recall@5", "mrr", "map@10", "ndcg@5", "ndcg@10")},
                    "intervals_ndcg@5": top["intervals"]["ndcg@5"], "evaluate_s": round(dt, 2)}
    cases, top, dt = _evaluated(write_cases(OUT / "by_text.jsonl", corpus, questions, ranked, by_text=True), method)
    same, windows, unexplained = [], [], []
    for q in questions:
        refs = [shingles(corpus[i]["text"]) for i in q["reference_context_ids"]]
        window = any(overlap(shingles(corpus[d]["text"]), r) >= TEXT_MATCH_THRESHOLD
                     for d in ranked[q["id"]] if d not in qrels[q["id"]] for r in refs)
        d = max(abs(float(cases[q["id"]]["metrics"][n]) - v) for n, v in theirs[q["id"]].items())
        (windows if window else same).append(q["id"])
        if d > 1e-9 and not window:
            unexplained.append(q["id"])
    res["by_text"] = {"match": top["settings"]["retrieval_run"], "equal_where_no_window": len(same),
                      "questions_with_an_overlapping_window_retrieved": len(windows),
                      "differing_without_a_window": unexplained,
                      "means": {n: top[n] for n in ("hit@5", "recall@5", "mrr", "ndcg@5")}, "evaluate_s": round(dt, 2)}
    return res


def cost(scan_cases: int) -> dict[str, Any]:
    from evaluators.datasets.stream import open_cases
    from evaluators.options import EvalOptions
    from evaluators.resultfiles.run import plan_run
    from evaluators.retrieval import score_cases

    corpus, questions = load_mtrag()
    ranked = bm25_rankings(corpus, questions)
    out: dict[str, Any] = {}
    for name, by_text in (("by_id", False), ("by_text", True)):
        src = write_cases(OUT / f"{name}.jsonl", corpus, questions, ranked, by_text=by_text)
        cases = [c for chunk in open_cases(src) for c in chunk.cases] * 70  # 10,080 cases
        t0 = time.perf_counter()
        got = score_cases(cases, EvalOptions())
        dt = time.perf_counter() - t0
        assert all(got)
        out[f"score_cases_{name}_per_s"] = round(len(cases) / dt)
    big = OUT / "scan.jsonl"
    src = (OUT / "by_text.jsonl").read_text(encoding="utf-8").splitlines()
    with big.open("w", encoding="utf-8") as fh:
        for k in range(scan_cases):
            row = json.loads(src[k % len(src)])
            row["id"] = f"{row['id']}#{k}"
            fh.write(json.dumps(row) + "\n")
    stream = open_cases(big)
    t0 = time.perf_counter()
    opts = plan_run(EvalOptions(), stream)
    scan = time.perf_counter() - t0
    t0 = time.perf_counter()
    n = sum(len(chunk.cases) for chunk in open_cases(big))
    read = time.perf_counter() - t0
    decided = opts.retrieval_run.match if opts.retrieval_run else None
    out.update({"scan_file_cases": n, "scan_file_mb": round(big.stat().st_size / 1e6, 1),
                "prescan_s": round(scan, 2), "plain_read_s": round(read, 2), "prescan_decision": decided})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--method", default="trace", help="the labeling method of the evaluate runs (default trace)")
    ap.add_argument("--scan-cases", type=int, default=100_000, help="rows of the pre-scan file (default 100000)")
    ap.add_argument("--write", default=None, metavar="NAME", help="write bench/results/NAME.json")
    args = ap.parse_args(argv)
    if not RETRIEVAL.is_dir():
        print(f"skipped: {RETRIEVAL} is absent")
        return 0
    res = {"cpu": machine.cpu_shared(), "loadavg_start": os.getloadavg()[0], **check(args.method)}
    res["cost"] = cost(args.scan_cases)
    res["loadavg_end"] = os.getloadavg()[0]
    print(json.dumps(res, indent=1))
    ok = not res["by_id"]["questions_differing"] and not res["by_text"]["differing_without_a_window"]
    if args.write:
        write_result(args.write, res)
    print("OK: equal to pytrec_eval" if ok else "MISMATCH with pytrec_eval", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""The bench's standard BM25 (``bench/bm25_standard.py``) against Lucene itself, on MTRAG-UN.

    python -m bench.bm25_check --write bm25_check          # bench/results/bm25_check.json

Lucene is the reference: ``bench/lucene/LuceneBM25.java`` runs Lucene's ``EnglishAnalyzer`` and
``BM25Similarity`` (Debian's ``liblucene8-java``, run by ``java`` as a single source file; the check
says it is skipped when either is absent: ``apt-get install liblucene8-java``).

1. **Tokens.** Every passage of ``../shared/data/retrieval``'s corpus, every question and every earlier
   turn, analysed by Lucene and by :func:`bench.bm25_standard.analyze`: the texts and tokens that
   differ (expected: none).
2. **Scores.** Each collection indexed by Lucene with each preset's k1, b; every question of the
   conversations bench asked in each of its forms (``conversations_bench.QUERIES``: the last turn, the
   earlier turns prepended, the previous turn prepended, both rules, and — when
   ``bench/results/conversations.json`` has the grid — the held-out standalone question, each
   collection's with the rule chosen on the other) — 864 queries a preset. Lucene's
   scores are compared (a) with Lucene's formula computed here from the analysed tokens with the
   document lengths Lucene stores (one byte each, ``SmallFloat.intToByte4``): equal to float32
   precision means the analysis and the formula are Lucene's; (b) with ``bm25s`` as the bench uses it
   (exact lengths): the largest relative difference, and the nDCG@5 of both rankings per query form
   (mean and the questions whose nDCG@5 differs).
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import numpy as np

from bench.bm25_standard import BM25, PRESETS, analyze
from bench.conversations_bench import QUERIES, RETRIEVAL, load_retrieval, ndcg5, turns_of
from bench.machine import stamp
from bench.results_file import RESULTS, write_result

JAVA_SOURCE = Path(__file__).resolve().parent / "lucene" / "LuceneBM25.java"
#: The choice of the conversations grid whose held-out questions are asked too (family/criterion).
HELD_OUT_CHOICE = "grid_2304/minilm_and_bm25"


def query_forms() -> dict[str, Callable[[dict[str, Any]], str]]:
    """The bench's query forms, and the held-out standalone question of the committed grid's choice."""
    import dataclasses

    from evaluators.conversations.standalone import RULE, standalone_question

    forms = dict(QUERIES)
    path = RESULTS / "conversations.json"
    done = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    choice = (done.get("retrieval_ndcg5", {}).get("grid") or {}).get("choices", {}).get(HELD_OUT_CHOICE)
    if choice:
        rules = {key.removeprefix("scored_on_"): dataclasses.replace(RULE, **v["rule"])
                 for key, v in choice["leave_one_collection_out"].items()}
        forms["held_out"] = lambda q: standalone_question(q["question"], turns_of(q["history"]),
                                                          rule=rules[q["collection"]])
    return forms


def lucene_classpath() -> str | None:
    """The Lucene jars of Debian's ``liblucene8-java`` (core and analyzers-common), None when absent."""
    jars = [sorted(glob.glob(f"/usr/share/java/lucene-{name}-[0-9]*.jar")) for name in ("core", "analyzers-common")]
    return ":".join(j[-1] for j in jars) if all(jars) and shutil.which("java") else None


def _tsv(path: Path, rows: list[tuple[str, str]]) -> None:
    clean = str.maketrans({"\t": " ", "\n": " ", "\r": " "})
    path.write_text("".join(f"{i}\t{t.translate(clean)}\n" for i, t in rows), encoding="utf-8")


def _java(classpath: str, *args: str) -> None:
    subprocess.run(["java", "-cp", classpath, str(JAVA_SOURCE), *args], check=True, capture_output=True, text=True)


# Lucene 8's SmallFloat: a document's length in one byte (exact below 24, 3 significant bits above).
def _int4(i: int) -> int:
    bits = i.bit_length()
    if bits < 4:
        return i
    shift = bits - 4
    return ((i >> shift) & 0x07) | ((shift + 1) << 3)


def _from_int4(i: int) -> int:
    bits, shift = i & 0x07, (i >> 3) - 1
    return bits if shift == -1 else (bits | 0x08) << shift


_FREE = 255 - _int4(2**31 - 1)


def lucene_length(n: int) -> int:
    """The length Lucene 8 scores a document of ``n`` tokens with (``byte4ToInt(intToByte4(n))``)."""
    return n if n < _FREE else _FREE + _from_int4(_int4(n - _FREE))


def lucene_formula(docs: list[list[str]], query: list[str], k1: float, b: float) -> np.ndarray:
    """Lucene 8.7's ``BM25Similarity`` score of each document: Σ over the query's tokens (repeats
    counted) of idf · (1 − 1 / (1 + tf / (k1 (1 − b + b · L / avgdl)))), L the stored length."""
    n = len(docs)
    df = Counter(t for d in docs for t in set(d))
    avgdl = np.float32(sum(len(d) for d in docs) / n)
    tfs = [Counter(d) for d in docs]
    inv = [np.float32(1.0 / (k1 * ((1 - b) + b * lucene_length(len(d)) / avgdl))) for d in docs]
    out = np.zeros(n)
    for t in query:
        if t not in df:
            continue
        w = np.float32(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)))
        for j, tf in enumerate(tfs):
            if tf[t]:
                out[j] += w - w / (1 + tf[t] * inv[j])
    return out


def check_tokens(classpath: str, work: Path, corpus: list[dict[str, Any]],
                 questions: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [(p["id"], p["text"]) for p in corpus]
    for q in questions:
        rows.append((f"{q['id']}|q", q["question"]))
        rows += [(f"{q['id']}|h{i}", t["text"]) for i, t in enumerate(q["history"])]
    _tsv(work / "texts.tsv", rows)
    _java(classpath, "analyze", str(work / "texts.tsv"), str(work / "tokens.tsv"))
    lucene = dict(line.split("\t", 1) for line in (work / "tokens.tsv").read_text(encoding="utf-8").splitlines())
    clean = str.maketrans({"\t": " ", "\n": " ", "\r": " "})
    differ = [i for i, t in rows if analyze(t.translate(clean)) != lucene[i].split()]
    return {"texts": len(rows), "tokens": sum(len(v.split()) for v in lucene.values()),
            "texts_that_differ": len(differ), "examples": differ[:10]}


def check_scores(classpath: str, work: Path, corpus: list[dict[str, Any]], questions: list[dict[str, Any]],
                 preset: str) -> dict[str, Any]:
    k1, b = PRESETS[preset]
    forms = query_forms()
    texts = {name: [f(q) for q in questions] for name, f in forms.items()}
    runs: dict[str, dict[str, dict[str, dict[str, float]]]] = {"lucene": {}, "bm25s": {}}
    worst_formula = worst_bm25s = 0.0
    for coll in sorted({p["collection"] for p in corpus}):
        ps = [p for p in corpus if p["collection"] == coll]
        qi = [i for i, q in enumerate(questions) if q["collection"] == coll]
        _tsv(work / "docs.tsv", [(p["id"], p["text"]) for p in ps])
        _tsv(work / "queries.tsv", [(f"{name}|{i}", texts[name][i]) for name in forms for i in qi])
        _java(classpath, "score", str(work / "docs.tsv"), str(work / "queries.tsv"), str(work / "scores.tsv"),
              str(k1), str(b))
        got: dict[str, dict[str, float]] = {}
        for line in (work / "scores.tsv").read_text(encoding="utf-8").splitlines():
            qid, pid, score = line.split("\t")
            got.setdefault(qid, {})[pid] = float(score)
        docs = [analyze(p["text"]) for p in ps]
        ours = BM25([p["text"] for p in ps], k1, b)
        for name in forms:
            for i in qi:
                lucene = np.asarray([got.get(f"{name}|{i}", {}).get(p["id"], 0.0) for p in ps])
                formula = lucene_formula(docs, analyze(texts[name][i]), k1, b)
                mine = ours.scores(texts[name][i])
                scale = max(float(np.abs(lucene).max()), 1e-9)
                worst_formula = max(worst_formula, float(np.abs(lucene - formula).max()) / scale)
                worst_bm25s = max(worst_bm25s, float(np.abs(lucene - mine).max()) / scale)
                qid = questions[i]["id"]
                runs["lucene"].setdefault(name, {})[qid] = {p["id"]: float(x) for p, x in zip(ps, lucene)}
                runs["bm25s"].setdefault(name, {})[qid] = {p["id"]: float(x) for p, x in zip(ps, mine)}
    per = {k: {name: ndcg5(questions, runs[k][name]) for name in forms} for k in runs}
    ndcg: dict[str, Any] = {}
    for name in forms:
        a, s = per["lucene"][name], per["bm25s"][name]
        ndcg[name] = {"lucene": round(float(a.mean()), 4), "bm25s": round(float(s.mean()), 4),
                      "questions_that_differ": int((np.abs(a - s) > 1e-9).sum())}
        if name != "last_turn":
            ndcg[name]["gain_over_last_turn"] = {k: round(float((per[k][name] - per[k]["last_turn"]).mean()), 4)
                                                 for k in runs}
    return {"k1": k1, "b": b, "queries": len(forms) * len(questions),
            "max_relative_difference_lucene_vs_formula_with_its_lengths": float(f"{worst_formula:.2e}"),
            "max_relative_difference_lucene_vs_bm25s": round(worst_bm25s, 4), "ndcg5": ndcg}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", metavar="NAME", help="write bench/results/NAME.json")
    args = ap.parse_args(argv)
    classpath = lucene_classpath()
    if classpath is None:
        print("skipped: java or Lucene's jars not found (apt-get install liblucene8-java)")
        return 0
    if not (RETRIEVAL / "mtrag_retrieval_dev_questions.jsonl").exists():
        print(f"skipped: {RETRIEVAL} not found")
        return 0
    t0 = time.perf_counter()
    corpus = load_retrieval("mtrag_retrieval_dev_corpus.jsonl")
    questions = load_retrieval("mtrag_retrieval_dev_questions.jsonl")
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    res: dict[str, Any] = {**stamp(), "lucene": classpath, "java": java}
    with tempfile.TemporaryDirectory() as tmp:
        res["tokens"] = check_tokens(classpath, Path(tmp), corpus, questions)
        res["scores"] = {preset: check_scores(classpath, Path(tmp), corpus, questions, preset) for preset in PRESETS}
    res["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(res, indent=1))
    if args.write:
        print(f"wrote {write_result(args.write, res)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A test set from documents, offline: 40 questions from 12 documents of every kind, timed end to end.

    python -m bench.testset_bench [--n 40] [--docs 12] [--runs 3] [--write testset]

The documents are MTRAG-UN's passages (``../shared/data/retrieval/mtrag_retrieval_dev_corpus.jsonl``,
405 passages) grouped into ``--docs`` documents and written as .txt .md .html .pdf (printed by
Chromium) .docx files (``evaluators.testing.document_files``; not timed). Each timed run is one fresh
process, ``python -m evaluators testset DIR --n 40 --out OUT.jsonl`` — start-up, reading and cutting
every file, the dictionary and the encoder loading, the rules, near-duplicate removal and writing —
with an empty embedding cache (the encoder's graph itself is built once per machine, as the image
does at build time). Reported: the median wall time and the process's CPU time, the load averages
around each run (the cores are shared), a breakdown in-process (read / generate), the checks of
``evaluators.testset.checks`` on the rows, and 20 rows drawn with a fixed seed (for docs/testset.md).
Skips when the shared data is absent. Results: ``bench/results/<name>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import machine
from bench.results_file import write_result
from bench.shared_data import SHARED_DIR

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "testset"


def write_docs(n_docs: int) -> Path:
    from evaluators.testing.document_files import passages_as_documents, write_documents

    rows = [json.loads(line) for line in (SHARED_DIR / "retrieval" / "mtrag_retrieval_dev_corpus.jsonl")
            .read_text(encoding="utf-8").splitlines() if line.strip()]
    folder = OUT / f"docs_{n_docs}"
    shutil.rmtree(folder, ignore_errors=True)
    write_documents(passages_as_documents(rows, n_docs), folder)
    return folder


def timed_run(folder: Path, n: int, out: Path, cache: Path) -> dict[str, Any]:
    shutil.rmtree(cache, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAG_EVAL_")}
    env.update({"RAG_EVAL_EMBED_CACHE": str(cache), "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"})
    load0 = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "evaluators", "testset", str(folder), "--n", str(n), "--out",
                           str(out), "--no-progress"], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"testset failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return {"wall_s": round(wall, 2), "cpu_s": round((after.ru_utime - before.ru_utime)
                                                      + (after.ru_stime - before.ru_stime), 2),
            "load_before": [round(x, 2) for x in load0], "load_after": [round(x, 2) for x in os.getloadavg()]}


def breakdown(folder: Path, n: int) -> dict[str, float]:
    from evaluators.documents import read_documents
    from evaluators.testset import make_testset

    t = time.perf_counter()
    corpus = read_documents([folder])
    t_read = time.perf_counter() - t
    t = time.perf_counter()
    make_testset(corpus, n)
    return {"read_s": round(t_read, 2), "generate_s": round(time.perf_counter() - t, 2),
            "passages": len(corpus.passages), "documents": len(corpus.documents)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--docs", type=int, default=12)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--write", default=None, metavar="NAME", help="write bench/results/NAME.json")
    args = ap.parse_args(argv)
    if not (SHARED_DIR / "retrieval" / "mtrag_retrieval_dev_corpus.jsonl").is_file():
        print(f"skipped: {SHARED_DIR}/retrieval is absent")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    folder = write_docs(args.docs)
    out = OUT / "questions.jsonl"
    runs = [timed_run(folder, args.n, out, OUT / "embed_cache") for _ in range(args.runs)]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]

    from evaluators.documents import read_documents
    from evaluators.testset.checks import problems

    corpus = read_documents([folder])
    found = problems(rows, corpus, args.n)
    kinds = sorted({d.kind for d in corpus.documents})
    result = {
        "what": f"python -m evaluators testset: {args.n} questions from {args.docs} documents ({', '.join(kinds)}), "
                "offline, one fresh process per run, empty embedding cache",
        "cpu": machine.cpu_shared(), "cores": os.cpu_count(),
        "runs": runs, "median_wall_s": statistics.median(r["wall_s"] for r in runs),
        "median_cpu_s": statistics.median(r["cpu_s"] for r in runs),
        "in_process": breakdown(folder, args.n),
        "rows": len(rows), "files_used": len({r["metadata"]["source"] for r in rows}),
        "problems": found,
        "fact_kinds": {k: sum(r["metadata"].get("fact") == k for r in rows)
                       for k in sorted({r["metadata"].get("fact") for r in rows})},
        "sample": [{"question": r["question"], "ground_truth": r["ground_truth"], "source": r["metadata"]["source"],
                    "evidence": r["metadata"]["evidence"]}
                   for r in random.Random(45).sample(rows, min(20, len(rows)))],
    }
    print(json.dumps({k: v for k, v in result.items() if k != "sample"}, indent=2))
    for s in result["sample"]:
        print(f"- {s['question']}  ->  {s['ground_truth']}")
    if args.write:
        write_result(args.write, result, indent=2, ensure_ascii=False)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

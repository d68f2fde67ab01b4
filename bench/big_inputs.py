"""Large inputs for the streaming and speed benches: the shared dev files' question-answering
records repeated under new ids (``bench/stream_bench.py``, ``bench/dash_vs_cli.py``).

The issue's figures came from RAGTruth QA repeated under new ids; RAGTruth QA is not among the
shared files, so the equivalent here is the first ``distinct`` records of the shared QA-style files
(MTRAG, RAGBench emanual, RAGBench validation — question, retrieved passages, answer), cycled, each
copy under a new id (``<id>~<copy>``). With the embedding disk cache filled by one run of the
distinct records, a run of the repeated file costs everything but the encoder.

    .venv/bin/python -m bench.big_inputs 100000 bench/out/cases_100k.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.shared_data import SHARED_DIR

#: QA-style shared files, in the order their records are taken.
QA_FILES = ("mtrag_human_dev.jsonl", "ragbench_emanual_train_dev.jsonl", "ragbench_validation_dev.jsonl")
#: Distinct records by default (RAGTruth QA's test split size in the issue's measurement).
DISTINCT = 817


def distinct_records(n: int = DISTINCT, max_bytes: int | None = None) -> list[dict]:
    """The first ``n`` records of the QA files, taken in turn from each (so every file is in);
    ``max_bytes``: only records whose JSON line is at most that long (smaller files)."""
    per_file = []
    for name in QA_FILES:
        p = SHARED_DIR / name
        if p.is_file():
            with p.open(encoding="utf-8") as fh:
                recs = [json.loads(line) for line in fh if line.strip()
                        and (max_bytes is None or len(line.encode("utf-8")) <= max_bytes)]
                per_file.append(recs)
    if not per_file:
        raise SystemExit(f"no shared QA files in {SHARED_DIR}: nothing to generate")
    out: list[dict] = []
    i = 0
    while len(out) < n and any(i < len(f) for f in per_file):
        for f in per_file:
            if i < len(f) and len(out) < n:
                out.append(f[i])
        i += 1
    return out


def write_cases(n: int, path: Path, distinct: int = DISTINCT, max_bytes: int | None = None) -> Path:
    """``n`` cases: the ``distinct`` records cycled, the k-th copy of a record under id ``<id>~k``
    (the first copy keeps its id). Written line by line (JSONL)."""
    recs = distinct_records(distinct, max_bytes)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            r = dict(recs[i % len(recs)])
            k = i // len(recs)
            if k:
                r["id"] = f"{r['id']}~{k}"
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("path", type=Path)
    ap.add_argument("--distinct", type=int, default=DISTINCT)
    args = ap.parse_args()
    write_cases(args.n, args.path, args.distinct)
    print(args.path)


if __name__ == "__main__":
    main()

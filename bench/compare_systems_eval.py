"""Step 1 of the systems bench: the RAGTruth *_systems_dev files split into one file per generator
model (six systems over the same 150 sources), each evaluated with ``trace`` and written as a
results file (the ``evaluate --out`` format) under ``bench/out/compare_systems/<task>/<model>.json``.

    .venv/bin/python -m bench.compare_systems_eval [--tasks summary,data2txt] [--method trace]

Checkpoints: a results file already written is not evaluated again (delete it to redo). The case
ids are the shared file's ids, which name the model: no id is shared between the systems, so the
comparison has to pair them by question + documents (the question is one task instruction). Step 2
(``bench.compare_systems``) compares them. Skips when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "compare_systems"
TASKS = ("summary", "data2txt")


def system_files(task: str) -> dict[str, list[dict]]:
    """Generator model -> its records of ``ragtruth_<task>_systems_dev.jsonl`` (file order)."""
    from bench.shared_data import SHARED_DIR

    path = SHARED_DIR / f"ragtruth_{task}_systems_dev.jsonl"
    if not path.is_file():
        return {}
    out: dict[str, list[dict]] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                out.setdefault(str((rec.get("meta") or {}).get("generator_model")), []).append(rec)
    return out


def results_path(task: str, model: str) -> Path:
    return OUT / task / f"{model}.json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--method", default="trace")
    args = ap.parse_args(argv)
    from bench.shared_data import record_to_case
    from evaluators import evaluate_batch
    from evaluators.cli.common import write_json
    from evaluators.export import to_json_dict

    for task in [t.strip() for t in args.tasks.split(",") if t.strip()]:
        systems = system_files(task)
        if not systems:
            print(f"skip {task}: ../shared/data/ragtruth_{task}_systems_dev.jsonl is absent")
            continue
        for model, recs in sorted(systems.items()):
            out = results_path(task, model)
            if out.exists():
                print(f"{task}/{model}: done before ({out})")
                continue
            cases = [record_to_case(r, f"{task} {model}") for r in recs]
            t0 = time.perf_counter()
            run = evaluate_batch(cases, args.method)
            dt = time.perf_counter() - t0
            write_json(str(out), to_json_dict(run))
            print(f"{task}/{model}: {len(cases)} cases in {dt:.1f} s ({len(cases) / dt:.1f} cases/s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``engine="ray"`` with two local workers against a local run, on a real shared file.

    .venv/bin/python -m bench.ray_bench [--file ragtruth_data2txt] [--cases 300] [--workers 2]

One process: load the encoder, warm up on 5 cases, then time on the same cases

* local — ``evaluate_batch(cases, "trace")`` (the encoder's threads on every core);
* ray   — ``evaluate_batch(cases, "trace", engine="ray")`` on a local Ray instance with ``--workers``
          CPUs (``ray.init`` timed apart; the wall time includes starting the actors, which each
          load the encoder once, and one thread per actor, as Ray sets).

Reported: both wall times and cases/s, the time to start Ray, whether every case's result (labels,
scores, errors; timings left out) is identical and in input order, and the peak RSS of this
process (Ray's workers are separate processes: their peak is read from /proc while they run).
Figures go to bench/results/ray.json and ray.md. On one 2-core machine the two workers share the
cores the local run uses too: this measures overhead and identity, not a speed-up — Ray pays off
with workers on other machines (``--ray-address``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

os.environ["RAG_EVAL_EMBED_CACHE"] = "off"  # no disk cache: the Ray workers start cold, so does local

from bench.shared_data import load_shared, resolve

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


def _comparable(run) -> list[dict]:
    return [r.model_dump(exclude={"seconds"}) for r in run.results]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", default="ragtruth_data2txt")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    path = resolve(args.file)
    if path is None:
        raise SystemExit(f"shared file {args.file!r} not found (../shared/data or $RAG_EVAL_SHARED_DATA)")
    cases = load_shared(path)[:args.cases]

    from evaluators import evaluate_batch
    from evaluators.encoder import embeddings
    from evaluators.engines.ray_engine import ensure_ray

    embeddings.load()
    evaluate_batch(cases[:5], "trace")  # warm: labelers imported, encoder session built
    t = time.perf_counter()
    local = evaluate_batch(cases, "trace")
    local_s = time.perf_counter() - t

    t = time.perf_counter()
    ray = ensure_ray(num_cpus=args.workers)
    init_s = time.perf_counter() - t
    t = time.perf_counter()
    dist = evaluate_batch(cases, "trace", engine="ray")
    ray_s = time.perf_counter() - t
    ray.shutdown()

    same = _comparable(dist) == _comparable(local)
    order = [r.case.id for r in dist.results] == [c.id for c in cases]
    fig = {
        "file": path.name, "cases": len(cases), "workers": args.workers,
        "encoder": embeddings.backend(),
        "local_s": round(local_s, 1), "local_cases_per_s": round(len(cases) / local_s, 2),
        "ray_init_s": round(init_s, 1), "ray_s": round(ray_s, 1),
        "ray_cases_per_s": round(len(cases) / ray_s, 2), "ray_over_local": round(ray_s / local_s, 2),
        "identical_results": same, "input_order": order,
        "driver_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "date": time.strftime("%Y-%m-%d"),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ray.json").write_text(json.dumps(fig, indent=2) + "\n")
    md = (f"# engine=\"ray\", {args.workers} local workers vs a local run (`bench/ray_bench.py`, {fig['date']})\n\n"
          f"{fig['cases']} cases of `{fig['file']}`, TRACE, one 2-core machine.\n\n"
          "| | wall | cases/s |\n|---|---|---|\n"
          f"| local (encoder on both cores) | {fig['local_s']} s | {fig['local_cases_per_s']} |\n"
          f"| ray, {args.workers} actors (incl. their model load) | {fig['ray_s']} s | {fig['ray_cases_per_s']} |\n"
          f"| starting Ray (`ray.init`) | {fig['ray_init_s']} s | |\n\n"
          f"Results identical to the local run: **{'yes' if same else 'NO'}**; in input order: "
          f"{'yes' if order else 'NO'}. Driver peak RSS {fig['driver_peak_rss_mb']} MB.\n\n"
          "Both runs share the same two cores, so Ray's figure is its overhead (actor start, one model "
          "per actor, pickling chunks), not a speed-up; the gain comes from workers on other machines.\n")
    (RESULTS / "ray.md").write_text(md)
    print(json.dumps(fig, indent=2))
    return 0 if same and order else 1


if __name__ == "__main__":
    raise SystemExit(main())

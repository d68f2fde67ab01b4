"""The job queue's worker process (``RAG_EVAL_WORKER=process``, ``evaluators/jobs_worker.py``): what
starting it costs, and how many cores it takes.

    .venv/bin/python -m bench.worker_process --cases 300 --write worker_process

* **Start**: a queue's first run (the 16 sample cases, ``trace``): the child's start until it
  answers (a fresh interpreter and the library's imports), the method's warm-up in it (the model's
  load), submit -> finished. Then the child is left idle past its idle time (1 s here) so it exits,
  and the next run pays the start again: the same three figures.
* **Cores**: ``--cases`` distinct real cases (the shared dev files' QA records, ``bench/big_inputs``;
  the embedding disk cache off so every text is encoded) with the child's encoder on 1 thread
  (the default on 2 cores: all but one) and on 2: the child's CPU seconds over the run's wall time
  (= cores it kept busy) and its cases per second. Method warmed up first, not counted.

Results: ``bench/results/<name>.json``; the CPU and the load average are in it.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import machine
from bench.results_file import write_result
from evaluators.datasets import cases_from_records, load_cases
from evaluators.jobs import JobQueue
from evaluators.options import EvalOptions
from evaluators.store import RunStore

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def sample_cases() -> list:
    got = load_cases(ROOT / "data" / "sample_rag.jsonl")
    return list(getattr(got, "cases", got))


def timed_run(q: JobQueue, cases: list, owner: str = "bench") -> float:
    t = time.perf_counter()
    job = q.submit(owner, cases, "trace", EvalOptions())
    status = q.wait(job.id, 900)
    if status != "finished":
        raise RuntimeError(f"run ended {status}: {q.get(job.id, owner)}")
    return round(time.perf_counter() - t, 3)


def start_costs(work: Path) -> dict[str, Any]:
    q = JobQueue(RunStore(work / "start.sqlite3"), backend="process")
    assert q.worker is not None
    q.worker.idle_s = 1.0
    out: dict[str, Any] = {}
    try:
        for name in ("first", "after_idle_exit"):
            if name == "after_idle_exit":
                end = time.time() + 30
                while q.worker.pid is not None and time.time() < end:  # it leaves after 1 s idle
                    time.sleep(0.1)
                q.worker.warm_up_seconds.clear()
            total = timed_run(q, sample_cases())
            out[name] = {"child_ready_s": q.worker.start_seconds[-1],
                         "warm_up_s": q.worker.warm_up_seconds.get("trace"),
                         "submit_to_finished_s_16_cases": total}
        out["warm_child_submit_to_finished_s_16_cases"] = timed_run(q, sample_cases())
        out["children_started"] = q.worker.starts
    finally:
        q.close()
    return out


def cores(work: Path, n: int, threads: int) -> dict[str, Any]:
    from bench.big_inputs import distinct_records

    recs = distinct_records(n)
    cases = list(cases_from_records([{**r, "id": f"{r.get('id', i)}-{i}"} for i, r in enumerate(recs)]).cases)
    q = JobQueue(RunStore(work / f"cores{threads}.sqlite3"), backend="process")
    assert q.worker is not None
    q.worker.threads = threads
    try:
        timed_run(q, sample_cases())  # start + warm-up, not counted
        pid = q.worker.pid
        assert pid is not None
        c0, t0, load0 = cpu_s(pid), time.perf_counter(), os.getloadavg()[0]
        timed_run(q, cases)
        wall, c1 = time.perf_counter() - t0, cpu_s(pid)
    finally:
        q.close()
    return {"encoder_threads": threads, "cases": len(cases), "wall_s": round(wall, 2),
            "cases_per_s": round(len(cases) / wall, 1), "child_cpu_s": round(c1 - c0, 2),
            "cores_busy": round((c1 - c0) / wall, 2), "load_avg_before": round(load0, 2),
            "load_avg_after": round(os.getloadavg()[0], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--write", default=None)
    args = ap.parse_args()
    os.environ["RAG_EVAL_EMBED_CACHE"] = "off"  # inherited by the children: every text encoded
    work = Path(tempfile.mkdtemp(prefix="worker_bench_"))
    rec: dict[str, Any] = {"cpu": machine.cpu_shared(),
                           "load_avg_start": [round(x, 2) for x in os.getloadavg()]}
    rec["start"] = start_costs(work)
    print(json.dumps(rec["start"]), flush=True)
    rec["cores"] = [cores(work, args.cases, t) for t in (1, 2)]
    rec["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(rec, indent=2), flush=True)
    if args.write:
        write_result(args.write, rec, indent=2)


if __name__ == "__main__":
    main()

"""100,000 cases file to file in bounded memory: the CLI on a generated file, timed per slice.

    .venv/bin/python -m bench.stream_bench [--cases 100000] [--engine local|ray] [--write stream_100k]

The input is ``bench/big_inputs.py``'s: the first 817 QA records of the shared dev files repeated
under new ids (the issue measured RAGTruth QA repeated this way; it is not among the shared files).
The embedding disk cache is filled first by one run of the 817 distinct records, so the timed run
costs everything but the encoder, as in the issue. The timed run is one fresh process,
``python -m evaluators evaluate FILE --out OUT.jsonl``; from its JSON Lines ``progress`` records
come the cases/s of every 10,000-case slice (flat = the time per case does not grow with the run),
from ``wait4`` its peak RSS, and a sampler reads its RSS and the machine's load every 2 s.
Results: ``bench/results/<name>.json``; the input, cache and output stay under ``bench/out/``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from bench import machine
from bench.big_inputs import DISTINCT, write_cases
from bench.results_file import write_result

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
PY = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable


def env(cache: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("RAG_EVAL_")}
    e.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "RAG_EVAL_EMBED_CACHE": str(cache),
              "RAG_EVAL_STORE": str(OUT / "stream_bench_runs.sqlite3"), "PYTHONPATH": str(ROOT)})
    return e


class Sampler(threading.Thread):
    """RSS of ``pid`` (VmRSS, MB) and the load average, every ``every`` seconds."""

    def __init__(self, pid: int, every: float = 2.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.stop = pid, every, threading.Event()
        self.t0 = time.perf_counter()
        self.samples: list[tuple[float, float, float]] = []

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                status = Path(f"/proc/{self.pid}/status").read_text()
                rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
                self.samples.append((round(time.perf_counter() - self.t0, 1), round(rss / 1024, 1),
                                     os.getloadavg()[0]))
            except (OSError, StopIteration):
                pass
            self.stop.wait(self.every)


def timed(cmd: list[str], e: dict[str, str]) -> dict[str, Any]:
    """Run ``cmd``; wall time, exit code, peak RSS (``wait4``), RSS / load samples, output tails."""
    t = time.perf_counter()
    err_path = OUT / "stream_bench.stderr"
    with err_path.open("wb") as err, (OUT / "stream_bench.stdout").open("wb") as out:
        proc = subprocess.Popen(cmd, env=e, cwd=ROOT, stdout=out, stderr=err)
        sampler = Sampler(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        sampler.stop.set()
    wall = time.perf_counter() - t
    return {"wall_s": round(wall, 1), "rc": proc.returncode, "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "stdout": (OUT / "stream_bench.stdout").read_text(errors="replace")[-2000:],
            "stderr": err_path.read_text(errors="replace")[-2000:], "samples": sampler.samples}


def slices(results: Path, size: int) -> list[dict[str, Any]]:
    """cases/s of each ``size``-case slice, from the ``progress`` records (done, elapsed_s)."""
    marks = [(0, 0.0)]
    with results.open(encoding="utf-8") as fh:
        for line in fh:
            if line.startswith('{"record": "progress"'):
                r = json.loads(line)
                marks.append((int(r["done"]), float(r["elapsed_s"])))
    out, start = [], marks[0]
    for done, t in marks[1:]:
        if done - start[0] >= size:
            out.append({"cases": f"{start[0] + 1}-{done}", "cases_per_s": round((done - start[0]) / (t - start[1]), 1)})
            start = (done, t)
    if marks[-1][0] > start[0]:
        done, t = marks[-1]
        rate = (done - start[0]) / max(1e-9, t - start[1])
        out.append({"cases": f"{start[0] + 1}-{done}", "cases_per_s": round(rate, 1)})
    return out


def _load_per_slice(samples: list[tuple[float, float, float]], sl: list[dict[str, Any]], results: Path) -> list:
    """The mean 1-minute load average while each slice ran (from the progress records' times)."""
    ends = [0.0]
    with results.open(encoding="utf-8") as fh:
        marks = {int(json.loads(line)["done"]): float(json.loads(line)["elapsed_s"]) for line in fh
                 if line.startswith('{"record": "progress"')}
    for s in sl:
        last = int(s["cases"].split("-")[1])
        ends.append(marks.get(last, ends[-1]))
    out = []
    for a, b in zip(ends, ends[1:]):
        xs = [x[2] for x in samples if a <= x[0] <= b]
        out.append(round(sum(xs) / len(xs), 2) if xs else None)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--engine", choices=("local", "ray"), default="local")
    ap.add_argument("--write", default=None, help="results name (bench/results/<name>.json)")
    ap.add_argument("--slice", type=int, default=10_000)
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    src = OUT / f"cases_{args.cases}.jsonl"
    if not src.exists():
        write_cases(args.cases, src)
    cache = OUT / "embcache" / "embeddings.sqlite3"
    cache.parent.mkdir(parents=True, exist_ok=True)
    distinct = OUT / f"cases_{DISTINCT}.jsonl"
    if not distinct.exists():
        write_cases(DISTINCT, distinct)
    warm = timed([PY, "-m", "evaluators", "evaluate", str(distinct), "--out", str(OUT / "warm.json"),
                  "--no-progress"], env(cache))
    if warm["rc"] != 0:
        raise SystemExit(warm["stderr"])
    res_path = OUT / f"stream_{args.cases}_{args.engine}.jsonl"
    res_path.unlink(missing_ok=True)
    load0 = os.getloadavg()
    run = timed([PY, "-m", "evaluators", "evaluate", str(src), "--out", str(res_path), "--no-progress",
                 "--engine", args.engine], env(cache))
    if run["rc"] not in (0, 1):
        raise SystemExit(run["stderr"])
    peak = run["peak_rss_mb"]
    rec = {
        "what": f"python -m evaluators evaluate <{args.cases:,} cases> --out results.jsonl --engine {args.engine}",
        "input": f"{src.name}: the first {DISTINCT} QA records of the shared dev files repeated under new ids "
                 f"({src.stat().st_size / 1e6:.0f} MB); embedding disk cache filled by one run of the {DISTINCT}",
        "cpu": machine.cpu_shared(),
        "load_avg_start": [round(x, 2) for x in load0], "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "cases": args.cases, "wall_s": run["wall_s"], "cases_per_s": round(args.cases / run["wall_s"], 1),
        "peak_rss_mb": peak, "results_file_mb": round(res_path.stat().st_size / 1e6, 1),
        # the evaluate process itself, sampled every 2 s (with --engine ray: the driver; Ray's workers
        # are other processes)
        "rss_max_sampled_mb": max((x[1] for x in run["samples"]), default=None),
        "slices": slices(res_path, args.slice),
        "load_avg_per_slice": _load_per_slice(run["samples"], slices(res_path, args.slice), res_path),
        "rss_every_60s_mb": [s[1] for s in run["samples"][::30]],
        "load_every_60s": [round(s[2], 2) for s in run["samples"][::30]],
        "summary": run["stdout"].splitlines()[:3],
    }
    print(json.dumps(rec, indent=2))
    if args.write:
        write_result(args.write, rec, indent=2)


if __name__ == "__main__":
    main()

"""Reading trace exports: how long 10,000 traces take to become test cases, and the memory it needs.

For each format (the Phoenix spans export as Parquet / CSV / JSONL, OTLP JSON as the Collector
writes it, LangSmith runs, Langfuse observations) a synthetic export of N traces
(``evaluators.testing.trace_exports``: a root chain, a retriever with 3 documents, a prompt and an
LLM call each) is written once, then read by ``evaluators.datasets.load_cases`` in a fresh Python
process: wall and CPU seconds of the read (imports excluded), and the process's peak RSS (the read
included, so its extra memory is ``peak_rss_mb - rss_before_mb``). The machine is shared: CPU
seconds are the steadier figure; the load average is recorded beside them.

    python -m bench.trace_read --traces 10000 --out bench/results/trace_read.json
    python -m bench.trace_read --agent --traces 10000 --out bench/results/agent_trace_read.json

``--agent``: agent traces instead (``trace_exports.agent_spans``: a LangGraph-shaped trace with three
tool calls — two searches, an order lookup — each asked for by an LLM span, and a final answer; 8
spans a trace), as the Collector's OTLP JSON lines: each case gets its tool calls and their passages.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import machine
from evaluators.testing.trace_exports import (
    agent_otlp_lines,
    langsmith_records,
    otlp_lines,
    phoenix_frame,
    synthetic_traces,
)

_CHILD = r"""
import json, sys, time
from evaluators.datasets import load_cases
from evaluators.traces import TraceOptions
def rss(field="VmRSS:"):  # VmHWM: this process's peak (ru_maxrss would carry the parent's across exec)
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
before = rss()
t0, c0 = time.perf_counter(), time.process_time()
res = load_cases(sys.argv[1])
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = rss("VmHWM:")
print(json.dumps({"cases": len(res.cases), "skipped": len(res.traces.skipped), "errors": len(res.errors),
                  "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "rss_before_mb": round(before),
                  "peak_rss_mb": round(peak)}))
"""


def _langfuse(traces: list) -> list[dict]:
    out = []
    for r in langsmith_records(traces):  # the same runs as Langfuse observations
        out.append({"id": r["id"], "traceId": r["trace_id"].replace("-", ""), "type": {
            "chain": "CHAIN", "retriever": "RETRIEVER", "llm": "GENERATION"}[r["run_type"]], "name": r["name"],
            "parentObservationId": r["parent_run_id"], "input": r["inputs"], "output": r["outputs"],
            "startTime": "2026-05-01T12:00:00Z", "tags": r["tags"],
            "sessionId": r["extra"]["metadata"]["session_id"]})
    return out


def write_files(n: int, folder: Path, agent: bool = False) -> dict[str, Path]:
    traces = synthetic_traces(n)
    if agent:
        path = folder / "agent_otlp.jsonl"
        path.write_text(agent_otlp_lines(traces), encoding="utf-8")
        return {"agent_otlp_jsonl": path}
    df = phoenix_frame(traces)
    files = {"phoenix_parquet": folder / "spans.parquet", "phoenix_csv": folder / "spans.csv",
             "phoenix_jsonl": folder / "spans.jsonl", "otlp_jsonl": folder / "otlp.jsonl",
             "langsmith_json": folder / "runs.json", "langfuse_json": folder / "observations.json"}
    df.to_parquet(files["phoenix_parquet"])
    df.to_csv(files["phoenix_csv"])
    df.to_json(files["phoenix_jsonl"], orient="records", lines=True, date_format="iso")
    files["otlp_jsonl"].write_text(otlp_lines(traces), encoding="utf-8")
    files["langsmith_json"].write_text(json.dumps(langsmith_records(traces)), encoding="utf-8")
    files["langfuse_json"].write_text(json.dumps(_langfuse(traces)), encoding="utf-8")
    return files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=2, help="reads per file (the best is kept)")
    ap.add_argument("--only", default="", help="comma-separated file kinds (default: all)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--agent", action="store_true", help="agent traces (tool calls) as OTLP JSON lines")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(args.traces, Path(tmp), agent=args.agent)
        kinds = [k for k in files if not args.only or k in args.only.split(",")]
        rows = {}
        for kind in kinds:
            runs = []
            for _ in range(args.repeat):
                load = os.getloadavg()[0]
                out = subprocess.run([sys.executable, "-c", _CHILD, str(files[kind])], capture_output=True,
                                     text=True, check=True, cwd=Path(__file__).resolve().parents[1])
                runs.append({**json.loads(out.stdout.strip().splitlines()[-1]), "load_1min": round(load, 2)})
            best = min(runs, key=lambda r: r["wall_s"])
            rows[kind] = {**best, "file_mb": round(files[kind].stat().st_size / 1e6, 1),
                          "all_wall_s": [r["wall_s"] for r in runs], "all_cpu_s": [r["cpu_s"] for r in runs]}
            print(f"{kind:16} {rows[kind]['file_mb']:6.1f} MB  {best['cases']} cases  wall {best['wall_s']:5.2f} s  "
                  f"cpu {best['cpu_s']:5.2f} s  peak RSS {best['peak_rss_mb']} MB (before {best['rss_before_mb']})"
                  f"  load {best['load_1min']}", flush=True)
    result = {"traces": args.traces, "agent": args.agent, "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
              "cpu": machine.cpu(), "python": platform.python_version(), "files": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""The dashboard as fast as the CLI: the same file run both ways, side by side (not part of the suite).

    .venv/bin/python -m bench.dash_vs_cli [--sizes 817,8170] [--rounds 2] [--write dash_vs_cli]

Input: ``bench/big_inputs.py``'s QA records of the shared dev files (the 817 first whose JSON line is
at most 8 KB, so 8,170 cases fit the dashboard's 50 MB upload limit), repeated under new ids — the
issue's RAGTruth QA is not among the shared files. The embedding disk cache is filled first by one
CLI run of the 817 distinct records (as the issue measured: embeddings cached, so this is the cost of
everything but the encoder).

* CLI: ``python -m evaluators evaluate FILE --out results.jsonl`` in a fresh process, timed from
  outside (start-up included): cases / wall seconds.
* Dashboard: a real server (``streamlit run app.py``), warmed by a 3-case run; a visitor
  (``bench/st_client.py``: Streamlit's protocol, no browser) uploads the file, clicks Run TRACE and
  stays on the page, its progress fragment re-run every 2 s as a browser does; timed from the click
  to the run being ``finished`` in the store: cases / those seconds.

Both alternate ``--rounds`` times per size; the machine's load average is recorded beside each.
Results: ``bench/results/<name>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import machine
from bench.big_inputs import DISTINCT, write_cases
from bench.results_file import write_result
from bench.st_client import Visitor
from evaluators.store import RunStore
from evaluators.testing.app_server import app_env, free_port, start_app, stop, wait_healthy

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
PY = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
MAX_LINE = 8000
CACHE = OUT / "embcache_dash" / "embeddings.sqlite3"


def _env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("RAG_EVAL_")}
    e.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "RAG_EVAL_EMBED_CACHE": str(CACHE),
              "PYTHONPATH": str(ROOT)})
    return e


def cli(path: Path, work: Path) -> dict[str, Any]:
    out = work / f"cli_{path.stem}.jsonl"
    out.unlink(missing_ok=True)
    e = {**_env(), "RAG_EVAL_STORE": str(work / "cli_runs.sqlite3")}
    load = os.getloadavg()[0]
    t = time.perf_counter()
    proc = subprocess.run([PY, "-m", "evaluators", "evaluate", str(path), "--out", str(out), "--no-progress"],
                          cwd=ROOT, env=e, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise RuntimeError(proc.stderr[-2000:])
    return {"wall_s": round(wall, 2), "load_avg": round(load, 2)}


class Dashboard:
    """A fresh server, warmed by a 3-case run."""

    def __init__(self, work: Path, small: Path) -> None:
        self.dir = work / f"app_{int(time.time() * 1000)}"
        self.dir.mkdir()
        env = {**app_env(self.dir), **{k: v for k, v in _env().items() if k.startswith("RAG_EVAL_")}}
        env["RAG_EVAL_STORE"] = str(self.dir / "runs.sqlite3")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = start_app(self.port, env, self.dir / "streamlit.log")
        wait_healthy(self.url, self.proc, timeout=180)
        self.store = RunStore(self.dir / "runs.sqlite3")
        self.run(small, 3)

    def run(self, path: Path, n: int) -> dict[str, Any]:
        v = Visitor(self.url, timeout=600)
        v.rerun()
        v.goto("upload")
        shown = v.upload("Drop a CSV", path.name, path.read_bytes())
        if shown.metrics.get("Cases ready") != str(n):
            raise RuntimeError(f"upload of {path.name}: {shown.metrics}")
        v.goto("evaluate")
        before = {s.id for s in self.store.list(owner=None)}
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        v.click("Run TRACE")
        next_tick = time.perf_counter() + 2.0
        while True:
            new = [s for s in self.store.list(owner=None) if s.id not in before]
            if new and new[0].status != "running":
                break
            if time.perf_counter() >= next_tick:
                v.tick_fragments(timeout=30)  # the browser re-runs the progress fragment every 2 s
                next_tick = time.perf_counter() + 2.0
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        s = new[0]
        v.close()
        if (s.status, s.num_done) != ("finished", n):
            raise RuntimeError(f"the dashboard run ended {s.status} with {s.num_done} of {n} cases")
        return {"wall_s": round(wall, 2), "store_wall_s": round(s.timings.get("wall_s", 0.0), 2),
                "load_avg": round(load, 2)}

    def close(self) -> None:
        stop(self.proc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="817,8170")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--write", default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dash_vs_cli_"))
    OUT.mkdir(parents=True, exist_ok=True)
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    distinct = write_cases(DISTINCT, OUT / "dash_cases_817.jsonl", max_bytes=MAX_LINE)
    cli(distinct, work)  # fills the embedding cache
    small = write_cases(3, work / "warm.jsonl", max_bytes=MAX_LINE)
    rows: list[dict[str, Any]] = []
    for n in [int(x) for x in args.sizes.split(",")]:
        path = write_cases(n, OUT / f"dash_cases_{n}.jsonl", max_bytes=MAX_LINE)
        for k in range(args.rounds):
            c = cli(path, work)
            dash = Dashboard(work, small)
            try:
                d = dash.run(path, n)
            finally:
                dash.close()
            row = {"cases": n, "round": k, "file_mb": round(path.stat().st_size / 1e6, 1),
                   "cli_s": c["wall_s"], "cli_cases_per_s": round(n / c["wall_s"], 1), "cli_load": c["load_avg"],
                   "dash_s": d["wall_s"], "dash_cases_per_s": round(n / d["wall_s"], 1), "dash_load": d["load_avg"],
                   "dash_store_wall_s": d["store_wall_s"], "ratio": round(c["wall_s"] / d["wall_s"], 3)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    rec = {"what": "the same file as a CLI run and as a dashboard run (click -> finished), side by side",
           "input": f"the first {DISTINCT} QA records of the shared dev files with a JSON line <= {MAX_LINE} bytes, "
                    "repeated under new ids; embedding disk cache filled first",
           "cpu": machine.cpu_shared(), "rows": rows}
    if args.write:
        write_result(args.write, rec, indent=2)


if __name__ == "__main__":
    main()

"""A 50,000-case run in the dashboard: how long Results takes to open, how long Inspect takes to switch
cases, and what a visitor's session holds (not part of the suite).

    .venv/bin/python -m bench.large_run_bench [--cases 50000] [--switches 40] [--write large_run]

The run: the first ``--cases`` cases of ``bench/stream_bench.py``'s 100,000-case results file
(``bench/out/stream_100000_local.jsonl``; made by that bench first) opened into a fresh run history
as the dashboard's "open a results file" does (``resultfiles.import_results``: case by case). Then a
real server (``streamlit run app.py``) and a visitor speaking Streamlit's protocol
(``bench/st_client.py``, the run's owner by its history token): Results opened (request ->
``script_finished``: the server's share; the first time builds the per-case table, later ones find
it in the process's cache), then Inspect, and ``--switches`` case switches by the "Go to case id"
box (random cases of the run). Sessions: five more visitors open Results and Inspect; the server's
RSS growth per session is what a visitor's session costs. Before any of it, another visitor opens
Results and Inspect on a 20-case run, so that the server's first pages (Python imports, once per
process) are not counted as the 50,000-case run's. Results: ``bench/results/<name>.json``.
"""

from __future__ import annotations

import argparse
import html as _html
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import machine
from bench.soak import rss_mb, write_result
from bench.st_client import Visitor
from evaluators.resultfiles import import_results
from evaluators.store import RunStore
from evaluators.testing.app_server import app_env, free_port, start_app, stop, wait_healthy

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "bench" / "out" / "stream_100000_local.jsonl"
RESULTS = ROOT / "bench" / "results"
TOKEN = "large-run-bench-visitor-01"
WARM = "large-run-bench-warm-up-01"


def first_cases(src: Path, n: int, dest: Path) -> Path:
    """The run record and the first ``n`` cases of a JSON Lines results file."""
    k = 0
    with src.open("rb") as fh, dest.open("wb") as out:
        for line in fh:
            if line.startswith(b'{"record": "run"'):
                out.write(line)
            elif not line.startswith(b'{"record"'):
                out.write(line)
                k += 1
                if k >= n:
                    break
    return dest


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(q * len(s)))], 3)


def timed(fn: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=50_000)
    ap.add_argument("--switches", type=int, default=40)
    ap.add_argument("--write", default=None)
    args = ap.parse_args()
    if not SOURCE.exists():
        raise SystemExit(f"{SOURCE} is missing: run python -m bench.stream_bench first")
    work = Path(tempfile.mkdtemp(prefix="large_run_"))
    src = first_cases(SOURCE, args.cases, work / "results.jsonl")
    store = RunStore(work / "runs.sqlite3")
    t_import, rid = timed(lambda: import_results(src, store, owner=TOKEN, name="50k"))
    import_results(first_cases(SOURCE, 20, work / "small.jsonl"), store, owner=WARM, name="20 cases")
    s = store.get(rid, owner=None)
    rec: dict[str, Any] = {"cases": s.num_done, "import_s": round(t_import, 1),
                           "store_mb": round((work / "runs.sqlite3").stat().st_size / 1e6, 1),
                           "cpu": machine.cpu_shared(),
                           "load_avg_start": [round(x, 2) for x in os.getloadavg()]}
    print("imported", json.dumps(rec), flush=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(work), work / "streamlit.log")
    try:
        wait_healthy(url, proc, timeout=180)
        w = Visitor(url, timeout=300, cookies={"rag_eval_u": WARM})  # the server's first pages (imports) on a small run
        w.rerun()
        w.goto("results")
        w.goto("inspect")
        w.close()
        v = Visitor(url, timeout=300, cookies={"rag_eval_u": TOKEN})
        v.rerun()
        rss0 = rss_mb(proc.pid)
        opens = [timed(lambda: v.goto("results"))[0] for _ in range(3)]
        shown = v.last
        rec["results_open_s"] = {"first": round(opens[0], 3), "again": [round(x, 3) for x in opens[1:]]}
        rec["results_cards"] = dict(list(shown.metrics.items())[:3])
        t_inspect, _ = timed(lambda: v.goto("inspect"))
        rec["inspect_open_s"] = round(t_inspect, 3)
        ids = [c for c in store.case_ids(rid, owner=None)]
        rng = random.Random(0)
        switches = []
        for _ in range(args.switches):
            cid = rng.choice(ids)
            dt, got = timed(lambda c=cid: v.set_text("Go to case id", c))
            question = store.case(rid, cid, owner=None).case.question
            if not any(_html.escape(question[:40]) in t for t in got.texts):
                raise RuntimeError(f"switch to {cid} did not show its question")
            switches.append(dt)
        rec["inspect_switch_s"] = {"p50": pct(switches, 0.5), "p95": pct(switches, 0.95),
                                   "max": round(max(switches), 3), "n": len(switches)}
        rss1 = rss_mb(proc.pid)
        others = []
        for _k in range(5):
            o = Visitor(url, timeout=300, cookies={"rag_eval_u": TOKEN})
            o.rerun()
            o.goto("results")
            o.goto("inspect")
            others.append(o)
        rss2 = rss_mb(proc.pid)
        rec["server_rss_mb"] = {"before": rss0, "after_one_visitor": rss1, "after_six_visitors": rss2}
        rec["rss_per_extra_session_mb"] = round(((rss2 or 0) - (rss1 or 0)) / 5, 1)
        for o in others:
            o.close()
        v.close()
    finally:
        stop(proc)
    rec["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    write_result(args.write, rec)


if __name__ == "__main__":
    main()

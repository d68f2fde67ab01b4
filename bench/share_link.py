"""How long a shared link takes to show its first metrics in a fresh browser (issue 47, item 9), beside
other pages opened the same way and beside the floor (not part of the test suite).

    .venv/bin/python -m bench.share_link [--rounds 6] [--cold 2] [--write share_link]

One ``streamlit run serve.py`` server (the dashboard as served) on a run store holding the 16 sample
cases evaluated with ``trace`` by one visitor. Each round opens, in a new browser context (no
cookie, no cache: a colleague clicking the link for the first time):

* ``share``: ``/results?share=<token>`` -> the shared run's first metrics visible: those the server
  wrote into the page's HTML (``ui/serving/share_paint.py``; ``first_*``), and Streamlit's own
  (``stMetricValue``, which then take their place);
* ``own results``: ``/results`` with the owner's cookie -> the first metric value visible;
* ``start``: ``/`` -> the Start page's title; ``glossary``: ``/glossary`` -> its title;
* ``floor``: a bare Streamlit page (a title and one ``st.metric``) from a second server: what any
  Streamlit page costs a fresh browser on this machine at this moment (its scripts, the websocket).

The time runs from ``page.goto`` to the element being visible (the browser's whole work included:
fetching and parsing Streamlit's scripts, the websocket, the script run, the render). For the shared
link's server-written figures also the moment the browser painted them (Element Timing,
``first_paint_s``: the same clock, no polling). Beside it, the CPU seconds the browser's processes used
for the visit (``/proc``, user + system: the page's own work, much less inflated by other people's
load than the wall time) and the server's.

``--cold N``: N fresh servers each, ``serve.py`` (which imports the pages in the background while it
starts, ``ui.serving.warm.in_background``) against ``app.py`` (the same pages, no warm-up); the first visit is
the shared link, opened as soon as the server answers its health check (a Space woken by the visit).

Figures: median and p90 per page, with the CPU (``bench/machine.py``) and the load averages before
and after, to ``bench/results/<name>.json``; for the shared link (``pages.share``,
``cold_first_visit``) Streamlit's metrics are ``median_s`` …, the server-written figures ``first``
(visible) and ``first_paint`` (painted), with the share of visits that had them. Wall times on this
machine's two shared cores depend on everyone else's load: compare pages within one run, and read
the CPU seconds. (Every page is timed from ``goto`` with ``wait_until="commit"``: the server-written
figures show before the page's load event.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.machine import cpu_shared
from bench.results_file import write_result
from evaluators.testing.app_server import CHROMIUM, CHROMIUM_ARGS, app_env, free_port, start_app, stop, wait_healthy

ROOT = Path(__file__).resolve().parents[1]
OWNER = "bench_share_owner_token_0001"
COOKIE = "rag_eval_u"
METRIC = "[data-testid=stMetricValue]"
#: The figures the server wrote into a shared link's page (``ui/serving/share_paint.py``).
FIRST = "#rag-first-paint .rag-fp-val"
#: When the browser first painted them (Element Timing: ``elementtiming="rag-fp-value"``), in epoch ms.
PAINT_JS = ("window.__ragPaint=null;try{new PerformanceObserver(function(l){l.getEntries().forEach(function(e){"
            "if(e.identifier!=='rag-fp-value')return;var t=performance.timeOrigin+(e.renderTime||e.loadTime);"
            "if(window.__ragPaint===null||t<window.__ragPaint)window.__ragPaint=t;});})"
            ".observe({type:'element',buffered:true});}catch(e){}")
FLOOR_PAGE = 'import streamlit as st\nst.title("Floor")\nst.metric("Adherence", "0.552")\n'
_TICK = os.sysconf("SC_CLK_TCK")


def seed(store: Path) -> str:
    """The 16 sample cases evaluated with trace, saved for :data:`OWNER`; the run's id."""
    from evaluators.datasets import load_cases
    from evaluators.pipeline import evaluate_batch
    from evaluators.store import RunStore

    cases = load_cases(ROOT / "data" / "sample_rag.jsonl").cases
    run = evaluate_batch(list(cases), "trace")
    return RunStore(store).save(run, "sample_rag", owner=OWNER)


def share_token(store: Path, run_id: str) -> str:
    os.environ["RAG_EVAL_STORE"] = str(store)  # the key beside the store, as the server finds it
    from ui import share

    return share.token(run_id)


def _procs() -> dict[int, tuple[int, float, str]]:
    """pid -> (parent pid, CPU seconds used, name) of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            raw = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        name, rest = raw[raw.index("(") + 1:raw.rindex(")")], raw[raw.rindex(")") + 2:].split()
        out[int(d)] = (int(rest[1]), (int(rest[11]) + int(rest[12])) / _TICK, name)
    return out


def cpu_s(root: int, only: str = "") -> float:
    """CPU seconds used so far by ``root``'s live descendants (those whose name starts with ``only``)."""
    procs = _procs()
    kids: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in procs.items():
        kids.setdefault(ppid, []).append(pid)
    total, todo = 0.0, list(kids.get(root, []))
    while todo:
        pid = todo.pop()
        _, used, name = procs[pid]
        total += used if name.startswith(only) else 0.0
        todo += kids.get(pid, [])
    return total


def timed(browser: Any, url: str, selector: str, server_pid: int, cookie: bool = False,
          first: str = "") -> dict[str, float]:
    """Seconds from navigation to ``selector`` visible in a fresh context, and the CPU seconds the
    browser (its processes: ``chrom…``) and the server used meanwhile. ``first``: also the seconds to
    that element visible (``first_s``; absent when the page showed ``selector`` without it) and to
    its paint (``first_paint_s``)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    if cookie:
        ctx.add_cookies([{"name": COOKIE, "value": OWNER, "url": url}])
    page = ctx.new_page()
    if first:
        page.add_init_script(PAINT_JS)
    b0, s0 = cpu_s(os.getpid(), "chrom"), cpu_s(server_pid) + _procs()[server_pid][1]
    t0, e0 = time.perf_counter(), time.time()
    page.goto(url, wait_until="commit")
    out: dict[str, float] = {}
    if first:
        page.locator(f"{first}, {selector}").first.wait_for(state="visible", timeout=60_000)
        if page.locator(first).count():
            out["first_s"] = time.perf_counter() - t0
    page.locator(selector).first.wait_for(state="visible", timeout=60_000)
    dt = time.perf_counter() - t0
    if first and "first_s" in out and (painted := page.evaluate("window.__ragPaint")):
        out["first_paint_s"] = painted / 1000 - e0
    b1, s1 = cpu_s(os.getpid(), "chrom"), cpu_s(server_pid) + _procs()[server_pid][1]
    ctx.close()
    return {"wall_s": dt, **out, "browser_cpu_s": b1 - b0, "server_cpu_s": s1 - s0}


def _floor_server(tmp: Path) -> tuple[str, subprocess.Popen]:
    (tmp / "floor.py").write_text(FLOOR_PAGE)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(tmp / "floor.py"), "--server.port",
                             str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false"], cwd=tmp, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)
    return f"http://127.0.0.1:{port}", proc


def _stats(values: list[float]) -> dict[str, Any]:
    v = sorted(values)
    return {"median_s": round(statistics.median(v), 3), "p90_s": round(v[int(0.9 * (len(v) - 1))], 3),
            "min_s": round(v[0], 3), "max_s": round(v[-1], 3), "all_s": [round(x, 3) for x in values]}


def _summary(runs: list[dict[str, float]]) -> dict[str, Any]:
    out = {**_stats([r["wall_s"] for r in runs]),
           "browser_cpu_median_s": round(statistics.median(r["browser_cpu_s"] for r in runs), 3),
           "server_cpu_median_s": round(statistics.median(r["server_cpu_s"] for r in runs), 3)}
    for key in ("first_s", "first_paint_s"):
        got = [r[key] for r in runs if key in r]
        if got:
            out[key.removesuffix("_s")] = {**_stats(got), "visits_with_it": f"{len(got)} of {len(runs)}"}
    return out


def cold(tmp: Path, tok: str, script: str, browser: Any) -> dict[str, float]:
    """A fresh server of ``script``; the shared link opened as soon as it answers its health check."""
    port = free_port()
    cmd_env = app_env(tmp)
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                            cwd=ROOT, env=cmd_env, stdout=(tmp / f"cold_{script}.log").open("wb"),
                            stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc, interval=0.05)
        return timed(browser, f"http://127.0.0.1:{port}/results?share={tok}", METRIC, proc.pid, first=FIRST)
    finally:
        stop(proc)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--cold", type=int, default=2, help="fresh servers each of serve.py and app.py (0: none)")
    ap.add_argument("--write", default="", help="name of bench/results/<name>.json")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="share_link_"))
    store = tmp / "runs.sqlite3"
    run_id = seed(store)
    tok = share_token(store, run_id)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    load_before = os.getloadavg()
    proc = start_app(port, app_env(tmp), tmp / "streamlit.log")
    floor_url, floor = _floor_server(tmp)
    pages = {
        "share": (f"{url}/results?share={tok}", METRIC, False, proc, FIRST),
        "own results": (f"{url}/results", METRIC, True, proc, ""),
        "start": (f"{url}/", "h1", False, proc, ""),
        "glossary": (f"{url}/glossary", "h1", False, proc, ""),
        "floor": (floor_url, METRIC, False, floor, ""),
    }
    times: dict[str, list[dict[str, float]]] = {k: [] for k in pages}
    first: dict[str, dict[str, float]] = {}
    cold_runs: dict[str, list[dict[str, float]]] = {"serve.py": [], "app.py": []}
    try:
        wait_healthy(url, proc)
        wait_healthy(floor_url, floor)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for r in range(args.rounds + 1):
                for name, (u, sel, cookie, server, fst) in pages.items():
                    got = timed(browser, u, sel, server.pid, cookie, fst)
                    (times[name].append(got) if r else first.__setitem__(name, got))
                shared = (times["share"][-1] if r else first["share"]).get("first_s", float("nan"))
                print(f"round {r}: share's first metrics {shared:.2f}s, " + ", ".join(
                    f"{k} {(v[-1] if r else first[k])['wall_s']:.2f}s" for k, v in times.items()),
                    f"load {os.getloadavg()[0]:.1f}", flush=True)
            stop(proc)
            stop(floor)
            for i in range(args.cold):
                for script in cold_runs:
                    cold_runs[script].append(cold(tmp, tok, script, browser))
                    got = cold_runs[script][-1]
                    print(f"cold {i} {script}: first metrics {got.get('first_s', float('nan')):.2f}s, Streamlit's "
                          f"{got['wall_s']:.2f}s", flush=True)
            browser.close()
    finally:
        stop(proc)
        stop(floor)
    out = {
        "cpu": cpu_shared(), "load_before": load_before, "load_after": os.getloadavg(), "rounds": args.rounds,
        "first_round": {k: {kk: round(vv, 3) for kk, vv in v.items()} for k, v in first.items()},
        "pages": {k: _summary(v) for k, v in times.items() if v},
        "cold_first_visit": {k: _summary(v) for k, v in cold_runs.items() if v},
    }
    print(json.dumps(out, indent=1))
    if args.write:
        write_result(args.write, out)


if __name__ == "__main__":
    main()

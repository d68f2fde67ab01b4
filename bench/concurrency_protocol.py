"""Several visitors at once with their browsers elsewhere: ``bench/concurrency.py``'s two phases,
driven over Streamlit's own websocket protocol instead of local Chromium (not part of the suite).

    .venv/bin/python -m bench.concurrency_protocol [--sessions 5] [--per-session 100] [--switch-every 5]

Why: on a Space each visitor's browser renders on the visitor's machine. In ``bench/concurrency.py``
five Chromium renderers share the server's two cores (0.7-1.0 of them), so its time ratio mixes the
server's work with rendering that a deployment never pays. Here every visitor is a
``bench.st_client.Visitor``: a real session on the real server (``streamlit run app.py``), which
uploads its file through the upload endpoint, clicks "Run TRACE", switches pages (timed: rerun
request -> ``script_finished``, the server's share of a switch) and runs the progress fragment's
auto-rerun every 2 s, as the browser does. Nothing is rendered, so the figures are the server's.

Same protocol as ``bench/concurrency.py``: two fresh servers (baseline: one visitor runs all
``sessions x per_session`` cases; concurrent: ``sessions`` visitors run their shares at once), the
same cases, warm-up run first, the same checks (every run finished with exactly its cases, in
order), CPU of the server and of this client process per phase, peak RSS (VmHWM). Results:
``bench/results/concurrency_protocol[_every<S>s].json``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.concurrency import CpuMeter, Server, check_runs, finish, load_rows, switch_stats, wait_runs
from bench.st_client import Visitor
from bench.ui_bench import make_cases

#: The pages a visitor cycles through (url paths of app.py's st.Page entries).
PAGES = ["results", "inspect", "compare", "evaluate", "upload"]
#: The progress fragment's refresh (ui/jobs.py: run_every=2 s); the browser reruns it on this timer.
FRAGMENT_EVERY_S = 2.0


def open_visitor(url: str, path: Path, n: int) -> Visitor:
    """A new visitor that uploaded ``path`` (``n`` cases ready) and is on Evaluate."""
    v = Visitor(url)
    v.rerun()
    v.goto("upload")
    shown = v.upload("Drop a CSV", path.name, path.read_bytes())
    if shown.metrics.get("Cases ready") != str(n):
        raise RuntimeError(f"upload of {path.name}: {shown.metrics} (expected {n} cases ready)")
    ev = v.goto("evaluate")
    if not any(label.startswith("Run TRACE") for label in ev.buttons):
        raise RuntimeError(f"no Run TRACE button on Evaluate: {sorted(ev.buttons)}")
    return v


class VisitorLoop(threading.Thread):
    """One visitor browsing while the runs go on: a page switch every ``every_s`` seconds (0: back
    to back), the progress fragment's auto-rerun every 2 s in between."""

    def __init__(self, v: Visitor, every_s: float, offset_s: float, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.v, self.every_s, self.stop = v, every_s, stop
        self.times: list[float] = []
        self.errors: list[str] = []
        self.next_switch = time.monotonic() + offset_s
        self.next_tick = time.monotonic() + FRAGMENT_EVERY_S
        self.turn = 0

    def run(self) -> None:
        while not self.stop.is_set():
            now = time.monotonic()
            try:
                if now >= self.next_switch:
                    page = PAGES[self.turn % len(PAGES)]
                    self.turn += 1
                    t = time.perf_counter()
                    self.v.goto(page)
                    self.times.append(time.perf_counter() - t)
                    self.next_switch = (now if self.every_s <= 0 else self.next_switch) + max(self.every_s, 0.2)
                elif now >= self.next_tick:
                    self.v.tick_fragments(timeout=10)
                    self.next_tick = now + FRAGMENT_EVERY_S
                else:
                    time.sleep(min(0.05, self.next_switch - now, self.next_tick - now))
            except Exception as exc:  # noqa: BLE001 - noted; the runs go on regardless
                self.errors.append(f"{type(exc).__name__}: {exc}")
                time.sleep(0.5)


def switch_figures(loops: list[VisitorLoop], every_s: float) -> dict[str, Any]:
    return {**switch_stats([x for lp in loops for x in lp.times], every_s, digits=3),
            "client_errors": [e for lp in loops for e in lp.errors][:10]}


def phase(tmp: Path, name: str, shares: list[list[str]], every_s: float) -> dict[str, Any]:
    """One server; one visitor per share, all clicking Run at once, browsing until every run ended."""
    server = Server(tmp, name)
    try:
        warm = open_visitor(server.url, make_cases(3, tmp / f"warm_{name}.jsonl", seed=1), 3)
        warm.click("Run TRACE")
        wait_runs(server, 1, 600)
        warm.close()
        for s in server.store.list(owner=None):
            server.store.delete(s.id, owner=None)
        visitors, expected = [], {}
        for k, share in enumerate(shares):
            path = tmp / f"{name}_{k}.jsonl"
            path.write_text("\n".join(share) + "\n", encoding="utf-8")
            visitors.append(open_visitor(server.url, path, len(share)))
            expected[f"s{k}"] = [json.loads(r).get("id") for r in share]
        meter = CpuMeter(server.proc.pid)
        cpu0 = os.times()
        starts = []
        for v in visitors:
            v.click("Run TRACE")
            starts.append(time.perf_counter())
        t0 = starts[0]
        stop = threading.Event()
        loops = [VisitorLoop(v, every_s, (every_s / len(visitors)) * k if every_s > 0 else 0.0, stop)
                 for k, v in enumerate(visitors)]
        for lp in loops:
            lp.start()

        def tick() -> None:
            meter.sample()
            time.sleep(0.25)

        ended = wait_runs(server, len(shares), 3600, on_tick=tick)
        wall = max(ended.values()) - t0
        stop.set()
        for lp in loops:
            lp.join(timeout=60)
        cpu1 = os.times()
        check = check_runs(server, expected)
        order = sorted(ended.values())
        for v in visitors:
            v.close()
    finally:
        rss = server.close()
    client_cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    return {"visitors": len(shares), "cases": sum(len(s) for s in shares), "wall_s": round(wall, 1),
            "clicks_spread_s": round(starts[-1] - starts[0], 2),
            "run_end_times_s": [round(t - t0, 1) for t in order],
            **switch_figures(loops, every_s), **meter.figures(wall),
            "client_cpu_s": round(client_cpu, 1), "peak_rss_mb": rss, **check}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=5)
    ap.add_argument("--per-session", type=int, default=100)
    ap.add_argument("--switch-every", type=float, default=5.0,
                    help="seconds between one visitor's page switches (0: back to back)")
    ap.add_argument("--source", choices=["shared", "samples"], default="shared")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="concurrency_protocol_"))
    n = args.sessions * args.per_session
    rows = load_rows(n, tmp, args.source)
    per = args.per_session
    figures: dict[str, Any] = {"load_avg_start": os.getloadavg(), "cpus": os.cpu_count(),
                               "clients": "streamlit websocket protocol (bench/st_client.py), no browser"}
    figures["baseline"] = phase(tmp, "baseline", [rows], args.switch_every)
    print("baseline:", figures["baseline"], flush=True)
    figures["concurrent"] = phase(tmp, "concurrent", [rows[k * per:(k + 1) * per] for k in range(args.sessions)],
                                  args.switch_every)
    print("concurrent:", figures["concurrent"], flush=True)
    name = "concurrency_protocol" + (f"_every{args.switch_every:g}s" if args.switch_every else "") + ".json"
    finish(figures, args.sessions, name)


if __name__ == "__main__":
    main()

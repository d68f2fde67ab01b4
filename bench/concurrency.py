"""Several visitors at once, in real headless Chromium (not part of the test suite).

    .venv/bin/python -m bench.concurrency [--sessions 5] [--per-session 100] [--chunk 25]
                                          [--switch-every 5] [--browser-nice 19]

Two fresh `streamlit run app.py` servers evaluate the SAME cases with the TRACE heuristic
(two processes, so neither profits from the other's embedding cache; each first loads the model
with a 3-case warm-up run):

1. baseline — one browser session runs all ``sessions x per_session`` cases as one run;
2. concurrent — ``sessions`` browser contexts (separate visitors) each upload their share and
   start it; while the runs go on, the sessions keep switching pages (timed: click -> the next
   page's heading is visible): back to back (default, a stress test) or, with ``--switch-every S``,
   each session every S seconds (then the baseline visitor browses at the same pace too).

Reported: both wall times (first click -> last run ``finished`` in the store) and their ratio,
whether every run finished with every case (none lost), the p50/p95/max page-switch times during
the concurrent phase, the order in which runs finished (fairness) and the peak RSS (VmHWM) of each
server, each session's own completion time (its click -> its run ended), and the CPU seconds the
server and the Chromium processes took in each phase (``CpuMeter``). Cases come from
../shared/data (``$RAG_EVAL_SHARED_DATA``; real RAGTruth / MTRAG / RAGBench rows) when present,
else from data/sample_rag.jsonl with varied ids. Figures go to bench/results/concurrency.json
(``concurrency_every<S>s[_nice<N>].json`` with those options; committed); the baseline is
checkpointed to bench/out/concurrency.baseline.json (git-ignored) and reused by ``--resume``.

The machine may be shared: compare the ratio (both phases run back to back on the same load),
not the absolute times; the load average is recorded with the figures.

The browsers stand in for visitors, whose browsers run on their own machines; here they share the
server's two cores (the five renderers took ~1.25 of the 2 cores). ``--browser-nice N`` starts
Chromium at that niceness in both phases, so it takes only CPU the server leaves idle; page-switch
times then include a starved browser's rendering (pessimistic). Default 0: as the server.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

from bench.shared_data import SHARED_DIR as SHARED  # noqa: E402
from bench.ui_bench import make_cases, vm_hwm_mb  # noqa: E402
from evaluators.store import RunStore  # noqa: E402
from evaluators.testing.app_server import CHROMIUM, CHROMIUM_ARGS, app_env, free_port, start_app, stop, wait_healthy  # noqa: E402

OUT = ROOT / "bench" / "out"
RESULTS = ROOT / "bench" / "results"
#: A page switch whose page has not shown after this many seconds is counted as stuck (and the
#: page reloaded); its time counts as this.
STUCK_S = 30
PAGES = [("Results", "Results"), ("Inspect", "Inspect a case"), ("Compare", "Compare"),
         ("Evaluate", "Evaluate"), ("Upload", "Upload test cases")]


_TICK = os.sysconf("SC_CLK_TCK")


def _proc_cpu(pid: str) -> tuple[str, float] | None:
    """(comm, CPU seconds of the process and its waited-for children) from /proc/<pid>/stat."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    comm = raw[raw.index("(") + 1:raw.rindex(")")]
    f = raw[raw.rindex(")") + 2:].split()
    return comm, sum(int(x) for x in f[11:15]) / _TICK  # utime stime cutime cstime


class CpuMeter:
    """CPU seconds spent by the server process and by every Chromium process during a phase.

    Sampled at every tick (a renderer that exits between samples keeps its last reading), so the
    split between the server and the browsers standing in for the visitors is measured, not
    guessed."""

    def __init__(self, server_pid: int) -> None:
        self.server_pid = str(server_pid)
        self.start: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.sample(first=True)

    def sample(self, first: bool = False) -> None:
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            got = _proc_cpu(d)
            if got is None:
                continue
            comm, cpu = got
            if d == self.server_pid or comm.startswith(("chrom", "headless_shell")):
                if first:
                    self.start[d] = cpu
                self.last[d] = cpu

    def figures(self, wall_s: float) -> dict[str, float]:
        self.sample()
        server = self.last.get(self.server_pid, 0.0) - self.start.get(self.server_pid, 0.0)
        browsers = sum(v - self.start.get(k, 0.0) for k, v in self.last.items() if k != self.server_pid)
        return {"server_cpu_s": round(server, 1), "browsers_cpu_s": round(browsers, 1),
                "server_cores": round(server / wall_s, 2), "browser_cores": round(browsers / wall_s, 2)}


SHARED_FILES = ("ragtruth_summary_dev.jsonl", "ragtruth_data2txt_dev.jsonl", "mtrag_human_dev.jsonl",
                "ragbench_validation_dev.jsonl")


def load_rows(n: int, tmp: Path, source: str) -> list[str]:
    rows: list[str] = []
    for name in SHARED_FILES if source == "shared" else ():
        path = SHARED / name
        if path.exists():
            rows.extend(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        if len(rows) >= n:
            break
    if len(rows) < n:
        rows = make_cases(n, tmp / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    random.Random(0).shuffle(rows)  # every share gets the same mix of sources
    return rows[:n]


class Server:
    def __init__(self, tmp: Path, name: str) -> None:
        self.dir = tmp / name
        self.dir.mkdir()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = start_app(self.port, app_env(self.dir), self.dir / "streamlit.log")
        wait_healthy(self.url, self.proc, timeout=120)
        self.store = RunStore(self.dir / "runs.sqlite3")

    def finished(self) -> list:
        return [s for s in self.store.list(owner=None) if s.status != "running"]

    def close(self) -> float | None:
        rss = vm_hwm_mb(self.proc.pid)
        stop(self.proc)
        return rss


def open_session(browser, url: str):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(url)
    from playwright.sync_api import expect

    expect(page.get_by_role("heading", name="RAG evaluation dashboard")).to_be_visible(timeout=60_000)
    return page


def upload(page, path: Path, n: int) -> None:
    from playwright.sync_api import expect

    page.get_by_role("link", name="Upload").first.click()
    with page.expect_file_chooser() as fc:
        page.get_by_test_id("stFileUploaderDropzone").click()
    fc.value.set_files(str(path))
    expect(page.get_by_test_id("stMetric").filter(has_text="Cases ready")).to_contain_text(
        str(n), timeout=120_000)
    page.get_by_role("link", name="Evaluate").first.click()
    expect(page.get_by_role("button", name="Run TRACE")).to_be_enabled(timeout=60_000)


def click_run(page) -> float:
    page.get_by_role("button", name="Run TRACE").click()
    return time.perf_counter()


def wait_runs(server: Server, n_runs: int, timeout: float, on_tick=None) -> dict[str, float]:
    """Poll the store until ``n_runs`` runs ended; id -> time it was first seen ended."""
    seen: dict[str, float] = {}
    end = time.perf_counter() + timeout
    while len(seen) < n_runs:
        if time.perf_counter() > end:
            raise TimeoutError(f"only {len(seen)} of {n_runs} runs ended after {timeout:.0f} s")
        for s in server.finished():
            seen.setdefault(s.id, time.perf_counter())
        if on_tick is not None:
            on_tick()
        else:
            time.sleep(0.25)
    return seen


def warm_up(browser, server: Server, tmp: Path) -> None:
    """Load the model in the server's worker (a 3-case run) so both phases start warm."""
    path = make_cases(3, tmp / f"warm_{server.port}.jsonl", seed=1)
    page = open_session(browser, server.url)
    upload(page, path, 3)
    click_run(page)
    wait_runs(server, 1, 600)
    page.context.close()
    for s in server.store.list(owner=None):
        server.store.delete(s.id, owner=None)


def check_runs(server: Server, expected: dict[str, list[str]]) -> dict[str, object]:
    """Every run finished with exactly its cases, in order (none lost, none doubled)."""
    got = {}
    for s in server.store.list(owner=None):
        run = server.store.load(s.id, owner=None)
        got[tuple(r.case.id for r in run.results)] = (s.status, len(run.scored))
    ok = all(tuple(ids) in got and got[tuple(ids)][0] == "finished" for ids in expected.values())
    return {"runs": len(got), "all_finished_with_every_case": ok,
            "scored": sum(v[1] for v in got.values()), "cases": sum(len(k) for k in got)}


class Switcher:
    """Timed page switches (click -> the next page's heading is visible), round robin over the
    sessions. ``every_s`` > 0: each session switches once every ``every_s`` seconds (a visitor
    browsing while the runs go on); 0: back to back, as fast as the pages come (a stress test)."""

    def __init__(self, pages: list, every_s: float, meter: CpuMeter) -> None:
        self.pages, self.every_s, self.meter = pages, every_s, meter
        self.times: list[float] = []
        self.stuck: list[dict[str, object]] = []
        self.turn = 0
        self.t0 = self.next_at = time.perf_counter()

    def tick(self) -> None:
        self.meter.sample()
        now = time.perf_counter()
        if self.every_s > 0:
            if now < self.next_at:
                time.sleep(min(0.25, self.next_at - now))
                return
            self.next_at += self.every_s / len(self.pages)
        elif not self.pages:
            time.sleep(0.25)
            return
        self.switch()
        if self.every_s <= 0:
            time.sleep(0.2)

    def switch(self) -> None:
        from playwright.sync_api import expect

        i, n = self.turn, len(self.pages)
        self.turn += 1
        page = self.pages[i % n]
        link, heading = PAGES[(i // n) % len(PAGES)]
        ts = time.perf_counter()
        page.get_by_role("link", name=link).first.click()
        # a run that ends while its session is on Evaluate opens Results (the app's rule)
        target = page.get_by_role("heading", name=heading, exact=True)
        try:
            expect(target.or_(page.get_by_role("heading", name="Results", exact=True))).to_be_visible(
                timeout=STUCK_S * 1000)
        except AssertionError:  # the page never came: counted at the time-out, then reloaded
            self.stuck.append({"session": i % n, "to": link, "after_s": round(ts - self.t0, 1)})
            try:
                page.reload(timeout=120_000)
            except Exception as exc:  # noqa: BLE001 - note it; the runs go on regardless
                self.stuck[-1]["reload"] = f"{type(exc).__name__}"
        self.times.append(time.perf_counter() - ts)

    def figures(self) -> dict[str, object]:
        return {**switch_stats(self.times, self.every_s), "page_switches_stuck": self.stuck}


def switch_stats(times: list[float], every_s: float, digits: int = 2) -> dict[str, object]:
    """Count, p50 / p95 / max of page-switch times (p95 = max below 20 switches)."""
    q = statistics.quantiles(times, n=20) if len(times) >= 20 else None
    return {"switch_every_s": every_s or "back to back",
            "page_switches": len(times),
            "page_switch_p50_s": round(statistics.median(times), digits) if times else None,
            "page_switch_p95_s": round(q[18], digits) if q else (round(max(times), digits) if times else None),
            "page_switch_max_s": round(max(times), digits) if times else None}


def finish(figures: dict[str, Any], sessions: int, name: str) -> None:
    """Ratios of the two phases, the issue's targets; write bench/results/<name> and print it."""
    b, c = figures["baseline"], figures["concurrent"]
    figures["time_ratio_concurrent_to_baseline"] = round(c["wall_s"] / b["wall_s"], 3)
    if b.get("server_cpu_s"):  # the server's own work, whatever the browsers took
        figures["server_cpu_ratio_concurrent_to_baseline"] = round(c["server_cpu_s"] / b["server_cpu_s"], 3)
    figures["load_avg_end"] = os.getloadavg()
    figures["targets"] = {
        "all_finish_none_lost": bool(c["all_finished_with_every_case"] and c["runs"] == sessions),
        "peak_rss_le_2gb": (c["peak_rss_mb"] or 0) <= 2048,
        "time_ratio_le_1.3": figures["time_ratio_concurrent_to_baseline"] <= 1.3,
        "page_switch_p95_le_2s": (c["page_switch_p95_s"] or 0) <= 2.0,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / name).write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))


def baseline(browser, tmp: Path, rows: list[str], chunk: int, every_s: float) -> dict[str, object]:
    """One visitor, one run of every case; with ``every_s`` > 0 the visitor switches pages at the
    same pace as each concurrent visitor does (so the two phases differ only in the visitor count)."""
    data = tmp / "all.jsonl"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    server = Server(tmp, "baseline")
    try:
        warm_up(browser, server, tmp)
        page = open_session(browser, server.url)
        upload(page, data, len(rows))
        meter = CpuMeter(server.proc.pid)
        switcher = Switcher([page] if every_s > 0 else [], every_s, meter)
        t0 = click_run(page)
        ended = wait_runs(server, 1, 3600, on_tick=switcher.tick)
        wall = max(ended.values()) - t0
        ids = [json.loads(r).get("id") for r in rows]
        check = check_runs(server, {"all": ids})
    finally:
        rss = server.close()
    return {"cases": len(rows), "chunk": chunk, "wall_s": round(wall, 1),
            "cases_per_s": round(len(rows) / wall, 2), "peak_rss_mb": rss, **meter.figures(wall),
            **(switcher.figures() if every_s > 0 else {"page_switches": 0}), **check}


def concurrent(browser, tmp: Path, rows: list[str], sessions: int, chunk: int,
               every_s: float) -> dict[str, object]:
    per = len(rows) // sessions
    server = Server(tmp, "concurrent")
    try:
        warm_up(browser, server, tmp)
        pages, expected = [], {}
        for k in range(sessions):
            share = rows[k * per:(k + 1) * per]
            path = tmp / f"session_{k}.jsonl"
            path.write_text("\n".join(share) + "\n", encoding="utf-8")
            page = open_session(browser, server.url)
            upload(page, path, per)
            pages.append(page)
            expected[f"s{k}"] = [json.loads(r).get("id") for r in share]
        meter = CpuMeter(server.proc.pid)
        starts = [click_run(p) for p in pages]
        t0 = starts[0]
        switcher = Switcher(pages, every_s, meter)
        ended = wait_runs(server, sessions, 3600, on_tick=switcher.tick)
        wall = max(ended.values()) - t0
        order = sorted(ended.values())
        check = check_runs(server, expected)
        session_of = {}
        for s in server.store.list(owner=None):
            first = server.store.load(s.id, owner=None).results[0].case.id
            session_of[s.id] = next(k for k, ids in enumerate(expected.values()) if ids[0] == first)
        per_session = sorted((session_of[rid], t - starts[session_of[rid]]) for rid, t in ended.items())
        done_s = [round(t, 1) for _, t in per_session]
    finally:
        rss = server.close()
    return {"sessions": sessions, "cases_per_session": per, "chunk": chunk, "wall_s": round(wall, 1),
            "clicks_spread_s": round(starts[-1] - starts[0], 1),
            "run_end_times_s": [round(t - t0, 1) for t in order],
            "per_session_completion_s": done_s,
            "fairness_min_over_max_completion": round(min(done_s) / max(done_s), 3),
            **switcher.figures(), **meter.figures(wall),
            "peak_rss_mb": rss, **check}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=5)
    ap.add_argument("--per-session", type=int, default=100)
    ap.add_argument("--chunk", type=int, default=25, help="cases per step (the dashboard default)")
    ap.add_argument("--resume", action="store_true", help="reuse a checkpointed baseline")
    ap.add_argument("--browser-nice", type=int, default=0,
                    help="niceness of the Chromium processes (the visitors' browsers; 0 = as the server)")
    ap.add_argument("--switch-every", type=float, default=0.0,
                    help="seconds between one visitor's page switches (0: back to back, a stress "
                         "test; > 0: the baseline visitor switches at the same pace)")
    ap.add_argument("--source", choices=["shared", "samples"], default="shared",
                    help="shared: real dev-set rows (long RAGTruth documents); samples: "
                         "data/sample_rag.jsonl variants (short, fast)")
    args = ap.parse_args()
    if args.chunk != 25:
        raise SystemExit("only the dashboard's default chunk (25) is driven through the UI here")
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="concurrency_"))
    n = args.sessions * args.per_session
    rows = load_rows(n, tmp, args.source)
    ckpt = OUT / "concurrency.baseline.json"
    figures: dict[str, Any] = {
        "load_avg_start": os.getloadavg(), "cpus": os.cpu_count(),
        "cases_from": "shared dev sets (RAGTruth)" if args.source == "shared"
        and (SHARED / "ragtruth_summary_dev.jsonl").exists() else "data/sample_rag.jsonl variants"}
    figures["browser_nice"] = args.browser_nice
    exe = CHROMIUM
    if args.browser_nice:
        exe = str(tmp / "chromium-niced")
        Path(exe).write_text(f'#!/bin/sh\nexec nice -n {args.browser_nice} {CHROMIUM} "$@"\n')
        os.chmod(exe, 0o755)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        try:
            old = json.loads(ckpt.read_text()) if args.resume and ckpt.exists() else {}
            if old.get("cases") == n and old.get("browser_nice", 0) == args.browser_nice \
                    and old.get("switch_every", 0.0) == args.switch_every:
                figures["baseline"] = old
            else:
                figures["baseline"] = {**baseline(browser, tmp, rows, args.chunk, args.switch_every),
                                       "browser_nice": args.browser_nice, "switch_every": args.switch_every}
                ckpt.write_text(json.dumps(figures["baseline"], indent=2))
            print("baseline:", figures["baseline"], flush=True)
            figures["concurrent"] = concurrent(browser, tmp, rows, args.sessions, args.chunk,
                                               args.switch_every)
            print("concurrent:", figures["concurrent"], flush=True)
        finally:
            browser.close()
    name = "concurrency" + (f"_every{args.switch_every:g}s" if args.switch_every else "") \
        + (f"_nice{args.browser_nice}" if args.browser_nice else "") + ".json"
    finish(figures, args.sessions, name)
    print(f"(artifacts in {tmp})")


if __name__ == "__main__":
    main()

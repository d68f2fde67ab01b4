"""What one visitor's browser costs, in real headless Chromium (not part of the test suite).

    .venv/bin/python -m bench.page_cost [--cases 100] [--seconds 20] [--rounds 2]

One `streamlit run app.py` server and one browser tab (helpers of ``bench/concurrency.py``):

1. CPU seconds of the server and of Chromium while the tab sits on Upload with no run, then while
   a run goes on (its progress fragment refreshes every ``ui.jobs.REFRESH_S``) on Upload and on
   Compare — ``--seconds`` each;
2. after the run finished: each page switch (click -> heading visible), its time and the CPU
   seconds it cost the server and Chromium (measured until 2.5 s after the click).

Explains the browsers' share of the CPU in ``bench/concurrency.py`` (the five visitors' browsers run
on the server's two cores there). Figures go to bench/results/page_cost.json. CPU times come from
/proc at the clock-tick resolution (0.01 s), summed over every Chromium process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.concurrency import PAGES, RESULTS, CpuMeter, Server, click_run, load_rows, open_session, upload, wait_runs


def idle(server: Server, seconds: float) -> dict[str, float]:
    meter = CpuMeter(server.proc.pid)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        meter.sample()
        time.sleep(0.25)
    return meter.figures(time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=2, help="page-switch rounds over the five pages")
    args = ap.parse_args()
    from playwright.sync_api import expect, sync_playwright

    from evaluators.testing.app_server import CHROMIUM, CHROMIUM_ARGS

    tmp = Path(tempfile.mkdtemp(prefix="page_cost_"))
    big = tmp / "big.jsonl"  # long enough to keep a run going through both progress phases
    big.write_text("\n".join(load_rows(max(500, args.cases), tmp, "shared")) + "\n", encoding="utf-8")
    small = tmp / "small.jsonl"
    small.write_text("\n".join(load_rows(args.cases, tmp, "shared")) + "\n", encoding="utf-8")
    out: dict[str, Any] = {"cases": args.cases, "seconds": args.seconds}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        server = Server(tmp, "server")
        try:
            page = open_session(browser, server.url)
            page.get_by_role("link", name="Upload").first.click()
            time.sleep(3)
            out["tab_idle_no_run"] = idle(server, args.seconds)
            upload(page, big, sum(1 for _ in big.open(encoding="utf-8")))
            click_run(page)
            time.sleep(8)  # the model loads
            for link in ("Upload", "Compare"):
                page.get_by_role("link", name=link).first.click()
                time.sleep(2)
                out[f"tab_on_{link.lower()}_run_going"] = idle(server, args.seconds)
            wait_runs(server, 1, 1800)
            for s in server.store.list(owner=None):
                server.store.delete(s.id, owner=None)
            upload(page, small, args.cases)
            click_run(page)
            wait_runs(server, 1, 1800)
            time.sleep(3)
            switches: dict[str, list[dict[str, float]]] = {}
            for _ in range(args.rounds + 1):  # the first round warms the pages up, not counted
                for link, heading in PAGES:
                    meter = CpuMeter(server.proc.pid)
                    t0 = time.perf_counter()
                    page.get_by_role("link", name=link).first.click()
                    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=30_000)
                    shown = time.perf_counter() - t0
                    time.sleep(2.5)
                    f = meter.figures(time.perf_counter() - t0)
                    switches.setdefault(link, []).append(
                        {"shown_s": shown, "browser_cpu_s": f["browsers_cpu_s"], "server_cpu_s": f["server_cpu_s"]})
            out["page_switch"] = {
                link: {k: round(statistics.mean(r[k] for r in rows[1:]), 2) for k in rows[0]}
                for link, rows in switches.items()}
        finally:
            server.close()
            browser.close()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "page_cost.json").write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

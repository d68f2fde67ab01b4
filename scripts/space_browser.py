"""A visitor in headless Chromium: open the dashboard at URL, load the 16-case sample, run `trace`,
and time the run from the click on Run to the Results page (``scripts/space_check.py`` step 5).

    python scripts/space_browser.py http://127.0.0.1:8501 SCREENSHOT_DIR

Prints one JSON line last: {"first_paint_s", "click_to_results_s", "cases"}. Uses Debian's
Chromium (never ``playwright install``)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
SAMPLE = "sample_rag.jsonl"


def main(url: str, shots: Path) -> dict[str, float | int]:
    from playwright.sync_api import expect, sync_playwright

    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        t0 = time.perf_counter()
        page.goto(f"{url}/upload")
        sample = page.get_by_role("button", name=SAMPLE).or_(page.get_by_role("button", name=f"Load {SAMPLE}"))
        expect(sample.first).to_be_visible(timeout=60_000)
        first_paint = time.perf_counter() - t0
        sample.first.click()
        expect(page.get_by_test_id("stMetric").filter(has_text="Cases ready")).to_contain_text("16", timeout=60_000)
        page.screenshot(path=str(shots / "1_sample_loaded.png"), full_page=True)
        page.get_by_role("link", name="Evaluate").first.click()
        run = page.get_by_role("button", name="Run TRACE")
        expect(run).to_be_enabled(timeout=60_000)
        t1 = time.perf_counter()
        run.click()
        expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=300_000)
        expect(page.get_by_text("16 of 16 cases scored").first).to_be_visible(timeout=60_000)
        took = time.perf_counter() - t1
        page.screenshot(path=str(shots / "2_results.png"), full_page=True)
        browser.close()
    return {"first_paint_s": round(first_paint, 2), "click_to_results_s": round(took, 2), "cases": 16}


if __name__ == "__main__":
    out = main(sys.argv[1], Path(sys.argv[2] if len(sys.argv) > 2 else "space-shots"))
    print(json.dumps(out))

"""Review mode in real headless Chromium (not part of the test suite): how fast a 50-document case
opens in Inspect and how fast a correction saves.

    .venv/bin/python -m bench.review_bench [--saves 40] [--out bench/results/review_bench.json]

The run history comes from ``bench.review_fixture`` (a hybrid run of the sample cases against the
loopback LLM, and one case with 50 documents labeled by the offline method). Timed in the page
(``performance.now()`` from the click until a MutationObserver sees the result; the URL load is
timed from Python):

1. **open**: picking the 50-document case in Inspect's case picker (coming from a small case of the
   same run) -> all 50 documents shown; and loading its URL -> all 50 shown, which also includes
   Streamlit's page start-up and websocket (``open_small_case_by_url``: the same for a 2-document
   case, the cost of any page load);
2. **save**: review mode on that case (the fragment re-renders all 50 documents), a response
   sentence in focus; click a support level -> the "Saved ✓ ... (correction N ...)" message shown
   and the fragment's last block (the 50 documents) re-rendered. The level alternates Not / Fully,
   so each click is a real new correction. Then the same for a document sentence's "relevant"
   checkbox.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.review_fixture import build
from evaluators.testing.app_server import CHROMIUM, CHROMIUM_ARGS, app_env, free_port, start_app, stop, wait_healthy
from ui.state import COOKIE

TOKEN = "review-bench-visitor-0001"
N_DOCS = 50


#: Click an element and time, in the page, until a condition holds (a MutationObserver: no polling).
_CLICK_UNTIL = """([el, cond]) => new Promise(resolve => {
    const done = new Function('return (' + cond + ');');
    const t0 = performance.now();
    const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); resolve(performance.now() - t0); } });
    obs.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
    el.click();
})"""


def click_until(locator, cond: str) -> float:
    """Seconds from clicking ``locator`` until the JavaScript expression ``cond`` is true (measured in
    the browser)."""
    return float(locator.page.evaluate(_CLICK_UNTIL, [locator.element_handle(), cond])) / 1000.0


def saved(n: int) -> tuple[str, str]:
    """(the "Saved" message of correction n is shown, and the fragment's last block, the documents,
    is re-rendered with it)."""
    msg = f"document.body.textContent.includes('(correction {n} of this case)')"
    return msg, msg + f" && document.querySelector('.rag-docs[data-version=\"{n}\"]') !== null"


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def summary(xs: list[float]) -> dict[str, float]:
    ms = [x * 1000 for x in xs]
    return {"n": len(ms), "p50_ms": round(statistics.median(ms), 1), "p95_ms": round(pct(ms, 0.95), 1),
            "max_ms": round(max(ms), 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--saves", type=int, default=40)
    ap.add_argument("--opens", type=int, default=10)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from playwright.sync_api import expect, sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="review_bench_"))
    ids = build(tmp / "runs.sqlite3", TOKEN)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(tmp), tmp / "streamlit.log")
    fig: dict[str, object] = {"cpus": os.cpu_count(), "documents": N_DOCS,
                              "load_average_at_start": round(os.getloadavg()[0], 2)}
    try:
        wait_healthy(url, proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.context.add_cookies([{"name": COOKIE, "value": TOKEN, "url": url}])  # the visitor's history
            try:
                big = f"big-{N_DOCS}-docs"
                docs = page.locator(".rag-doc")
                # ---- open by URL (fresh tab each time)
                url_opens = []
                for _ in range(args.opens + 1):
                    t = time.perf_counter()
                    page.goto(f"{url}/inspect?run={ids['big']}&case={big}")
                    expect(docs).to_have_count(N_DOCS, timeout=30_000)
                    url_opens.append(time.perf_counter() - t)
                fig["open_by_url"] = summary(url_opens[1:])  # the first warms the server's imports
                small_opens = []  # the same page with a 2-document case: what any page load costs
                for _ in range(args.opens):
                    t = time.perf_counter()
                    page.goto(f"{url}/inspect?run={ids['big']}&case=sci-photosynthesis")
                    expect(page.locator(".rag-docs")).to_be_visible(timeout=30_000)
                    small_opens.append(time.perf_counter() - t)
                fig["open_small_case_by_url"] = summary(small_opens)
                # ---- open by picking the case in Inspect's case picker (from a small case of the same run)
                small = page.get_by_test_id("stSelectbox").filter(has_text="Case").first
                picks = []
                for _ in range(args.opens):
                    small.click()
                    page.get_by_role("option").filter(has_text="sci-photosynthesis").click()
                    expect(docs).not_to_have_count(N_DOCS, timeout=30_000)
                    small.click()
                    picks.append(click_until(page.get_by_role("option").filter(has_text=big),
                                             f"document.querySelectorAll('.rag-doc').length === {N_DOCS}"))
                fig["open_by_picker"] = summary(picks)
                # ---- saves on the 50-document case
                page.get_by_text("✎ Review mode").click()
                page.get_by_role("textbox", name="Your name").fill("Bench")
                page.keyboard.press("Tab")
                expect(page.get_by_text("Type your name to review")).to_have_count(0, timeout=30_000)
                page.get_by_role("radiogroup", name="Response sentence").get_by_role("radio").first.focus()
                page.keyboard.press("Space")
                expect(page.locator('.rag-response[data-view=main] [data-key="a"]')).to_have_attribute(
                    "data-state", "focus", timeout=30_000)
                seg = page.get_by_test_id("stButtonGroup")
                expect(seg).to_be_visible(timeout=30_000)
                saves = []
                n0 = 0
                for i in range(args.saves):
                    level = "Not" if i % 2 == 0 else "Fully"
                    seen, whole = saved(n0 + i + 1)
                    saves.append(click_until(seg.get_by_text(level, exact=True), whole))
                    expect(docs).to_have_count(N_DOCS)
                fig["save_support_50_docs"] = summary(saves)
                box = page.get_by_test_id("stSelectbox").filter(has_text="Document sentence")
                box.click()
                page.keyboard.type("1a")
                page.keyboard.press("Enter")
                rel = page.get_by_role("checkbox", name="Relevant to the question")
                expect(rel).to_be_visible(timeout=30_000)
                flags = []
                for i in range(args.saves // 2):
                    flags.append(click_until(rel, saved(n0 + args.saves + i + 1)[1]))
                fig["save_flag_50_docs"] = summary(flags)
                all_saves = saves + flags
                fig["save_all"] = summary(all_saves)
            except Exception:
                page.screenshot(path=str(Path(__file__).parent / "out" / "review_bench_failure.png"))
                raise
            browser.close()
    finally:
        stop(proc)
    fig["load_average_at_end"] = round(os.getloadavg()[0], 2)  # other work on the machine (shared cores)
    print(json.dumps(fig, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(fig, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

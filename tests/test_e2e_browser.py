"""End-to-end in real headless Chromium: start `streamlit run app.py`, upload a file through the
file chooser, run the heuristic, see the charts, open Inspect on a case with an unsupported
sentence, and check that HTML in an uploaded document shows as text and never executes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.app_server import CHROMIUM, app_env, free_port, start_app, stop, wait_healthy
from tests.browser_fixtures import snap

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium"),
]

XSS = "<img src=x onerror=alert(1)>"
N_BIG = 1000
CASES = [
    {"id": "xss-case", "question": "What is the capital of France?",
     "response": "The capital of France is Paris. The city has exactly forty purple dragons living in the Louvre.",
     "documents": [f"Paris is the capital and largest city of France. {XSS} "
                   "<script>window.__xss = 1; alert(2)</script> "
                   "It is located on the Seine river."]},
    {"id": "berlin", "question": "When did the Berlin Wall fall?",
     "response": "The Berlin Wall fell on 9 November 1989.",
     "documents": ["The Berlin Wall fell on 9 November 1989, after weeks of protests.",
                   "Germany was reunified on 3 October 1990."]},
    {"id": "plants", "question": "What do plants release during photosynthesis?",
     "response": "Plants release oxygen during photosynthesis.",
     "documents": ["During photosynthesis, plants use light to turn water and carbon dioxide into "
                   "glucose, releasing oxygen as a by-product."]},
]


def test_upload_evaluate_results_inspect_in_chromium(tmp_path, chromium):
    from playwright.sync_api import expect, sync_playwright

    data = tmp_path / "cases.jsonl"
    data.write_text("\n".join(json.dumps(c) for c in CASES), encoding="utf-8")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(tmp_path), tmp_path / "streamlit.log")
    shots = tmp_path / "screenshots"
    shots.mkdir()
    dialogs: list[str] = []
    try:
        wait_healthy(url, proc)
        with sync_playwright() as p:
            browser = chromium(p)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(url)  # the Start page explains the app; Upload is one click away
            expect(page.get_by_role("heading", name="RAG evaluation dashboard")).to_be_visible(timeout=30_000)
            page.get_by_role("link", name="Upload").first.click()
            expect(page.get_by_role("heading", name="Upload test cases")).to_be_visible(timeout=30_000)

            # Upload through the real file chooser.
            with page.expect_file_chooser() as fc:
                page.get_by_test_id("stFileUploaderDropzone").click()
            fc.value.set_files(str(data))
            expect(page.get_by_test_id("stMetric").filter(has_text="Cases ready")).to_contain_text("3", timeout=30_000)
            snap(page, shots / "1_upload.png")

            # Evaluate with the offline heuristic.
            page.get_by_role("link", name="Evaluate").first.click()
            run_button = page.get_by_role("button", name="Run TRACE")
            expect(run_button).to_be_enabled(timeout=30_000)
            snap(page, shots / "2_evaluate.png")
            run_button.click()

            # Results open by themselves when the run finishes.
            expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=180_000)
            expect(page.get_by_test_id("stDataFrame")).to_be_visible(timeout=30_000)  # the cases first
            page.get_by_role("tab", name="Charts").click()
            expect(page.locator(".js-plotly-plot")).to_have_count(4, timeout=30_000)
            expect(page.get_by_test_id("stMetric").filter(has=page.get_by_text("Adherence", exact=True))
                   ).to_be_visible()
            expect(page.get_by_test_id("stMetric").filter(has=page.get_by_text("Expected adherence", exact=True))
                   ).to_be_visible()
            snap(page, shots / "3_results.png")
            # The exports are built when clicked: the JSON is the CLI format of this run.
            page.get_by_role("tab", name="Download").click()
            with page.expect_download(timeout=30_000) as dl:
                page.get_by_role("button", name="Download JSON (CLI format)").click()
            exported = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
            assert exported["num_samples"] == 3 and exported["method"] == "trace"
            assert {c["id"] for c in exported["detailed_results"]} == {c["id"] for c in CASES}
            with page.expect_download(timeout=30_000) as dl:
                page.get_by_role("button", name="Download CSV (one row per case)").click()
            assert len(Path(dl.value.path()).read_text(encoding="utf-8").strip().splitlines()) == 4
            page.get_by_role("tab", name="Charts").click()

            # Inspect the case with an unsupported sentence (a shareable URL: a fresh session
            # loads the run from the history).
            page.goto(f"{url}/inspect?case=xss-case")
            expect(page.get_by_role("heading", name="Inspect a case")).to_be_visible(timeout=30_000)
            response = page.locator(".rag-response")
            expect(response).to_be_visible(timeout=30_000)
            claim = response.locator('[data-key="b"]')  # "forty purple dragons": in no document
            expect(claim).to_contain_text("dragons")
            expect(claim).to_have_attribute("data-level", re.compile(r"^(none|partial)$"))
            expect(response.locator('[data-key="a"]')).to_have_attribute("data-level", "full")
            doc = page.locator(".rag-doc").first
            expect(doc).to_contain_text(XSS)  # shown as text ...
            expect(doc).to_contain_text("<script>window.__xss = 1; alert(2)</script>")
            assert page.locator(".rag-doc img").count() == 0  # ... never as an element
            assert page.locator(".rag-doc script").count() == 0
            snap(page, shots / "4_inspect.png")

            # Cancel keeps what finished: a bigger upload, cancel once the first chunk is done.
            big = tmp_path / "big.jsonl"
            # every case unique (no cache shortcut) with 20 unique archive sentences, so the run
            # (1000 short cases took 6 s) cannot finish before Cancel is clicked
            big.write_text("\n".join(json.dumps({
                **CASES[i % 3], "id": f"big-{i}",
                "response": f"{CASES[i % 3]['response']} Report {i} lists {i * 7 % 97} visitors.",
                "documents": [*CASES[i % 3]["documents"], " ".join(
                    f"Archive record {i}.{j} lists {(i * 13 + j * 7) % 89} entries from shelf {j}."
                    for j in range(20))],
            }) for i in range(N_BIG)))
            page.get_by_role("link", name="Upload").first.click()
            with page.expect_file_chooser() as fc:
                page.get_by_test_id("stFileUploaderDropzone").click()
            fc.value.set_files(str(big))
            ready = page.get_by_test_id("stMetric").filter(has_text="Cases ready")
            expect(ready).to_contain_text(str(N_BIG), timeout=30_000)
            page.get_by_role("link", name="Evaluate").first.click()
            page.get_by_role("button", name="Run TRACE").click()
            progress = page.get_by_test_id("stProgress")
            expect(progress).to_contain_text("ETA", timeout=60_000)
            # "0 / 1000" exactly, not "50 / 1000" (the progress shows every 2 s, so a fast machine only
            # ever shows multiples of 50, all ending in "0 / 1000")
            expect(progress).not_to_contain_text(re.compile(rf"(?<![0-9])0 / {N_BIG}"), timeout=60_000)
            page.get_by_role("button", name="Cancel").click()
            expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=60_000)
            notice = page.get_by_text("Cancelled: kept")
            expect(notice).to_be_visible(timeout=30_000)
            kept = int(notice.inner_text().split("kept ")[1].split(" ")[0])
            assert 0 < kept < N_BIG, kept  # whole chunks (sized by time) kept, the rest not evaluated
            expect(page.get_by_text("cancelled early")).to_be_visible()

            page.get_by_role("link", name="Compare").first.click()
            expect(page.get_by_role("heading", name="Compare")).to_be_visible(timeout=30_000)
            page.wait_for_timeout(500)
            snap(page, shots / "5_compare.png")

            assert page.evaluate("window.__xss") is None
            assert dialogs == []
            browser.close()
    finally:
        stop(proc)

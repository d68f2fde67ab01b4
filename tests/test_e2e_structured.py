"""Issue 46 in real headless Chromium: a JSON record and a table uploaded, judged with `trace`, and
Inspect drawing them as a tree and a table of keyed facts — the claim that contradicts a field
marked not supported with the field named, the facts that support a picked sentence lit up in the
tree and marked in the original text, and markup in a value shown as text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.app_server import CHROMIUM, app_env, free_port, start_app, stop, wait_healthy
from tests.browser_fixtures import tall_screenshot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium at /usr/bin/chromium"),
]

RECORD = {"name": "Blue Fin", "address": "12 Harbor Way", "city": "Goleta", "categories": "Seafood, Cafes",
          "hours": {"Monday": "8:0-14:0", "Tuesday": "8:0-14:0", "Wednesday": "8:0-14:0"},
          "attributes": {"WiFi": "no", "OutdoorSeating": True, "Music": None,
                         "BusinessParking": {"garage": False, "street": True}},
          "stars": 4.0,
          "reviews": [{"stars": 5.0, "text": "The fish tacos are <b>superb</b>. Staff were friendly and quick."},
                      {"stars": 3.0, "text": "Good chowder, but the line was long at noon."}]}
CASES = [
    {"id": "blue-fin", "question": "Write an overview of the business.",
     "response": ("Blue Fin is a seafood cafe in Goleta with outdoor seating. "
                  "It is open Monday through Wednesday from 8 am to 2 pm. It offers free WiFi."),
     "documents": [json.dumps(RECORD)]},
    {"id": "quarters", "question": "How did revenue change?",
     "response": "Revenue 2024 in Q2 was 1.3 bn. Revenue 2024 in Q3 was 1.4 bn.",
     "documents": ["| Quarter | Revenue 2023 | Revenue 2024 |\n|---|---|---|\n| Q1 | 1.0 bn | 1.1 bn |\n"
                   "| Q2 | 1.1 bn | 1.3 bn |\n| Q3 | 1.0 bn | 1.2 bn |\n"]},
]


def test_inspect_draws_a_record_as_a_tree_and_a_table_as_a_table(tmp_path, chromium):
    from playwright.sync_api import expect, sync_playwright

    data = tmp_path / "records.jsonl"
    data.write_text("\n".join(json.dumps(c) for c in CASES), encoding="utf-8")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_app(port, app_env(tmp_path), tmp_path / "streamlit.log")
    shots = Path(__import__("os").environ.get("RAG_EVAL_SHOTS") or tmp_path)
    try:
        wait_healthy(url, proc)
        with sync_playwright() as p:
            browser = chromium(p)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            expect(page.get_by_role("heading", name="RAG evaluation dashboard")).to_be_visible(timeout=30_000)
            page.get_by_role("link", name="Upload").first.click()
            expect(page.get_by_role("heading", name="Upload test cases")).to_be_visible(timeout=30_000)
            with page.expect_file_chooser() as fc:
                page.get_by_test_id("stFileUploaderDropzone").click()
            fc.value.set_files(str(data))
            expect(page.get_by_test_id("stMetric").filter(has_text="Cases ready")).to_contain_text("2", timeout=30_000)
            page.get_by_role("link", name="Evaluate").first.click()
            run_button = page.get_by_role("button", name="Run TRACE")
            expect(run_button).to_be_enabled(timeout=30_000)
            run_button.click()
            expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=180_000)

            page.goto(f"{url}/inspect?case=blue-fin")
            expect(page.get_by_role("heading", name="Inspect a case")).to_be_visible(timeout=30_000)
            response = page.locator(".rag-response[data-view=main]")
            expect(response).to_be_visible(timeout=30_000)
            wifi = response.locator('[data-key="c"]')
            expect(wifi).to_have_attribute("data-level", "none")
            expect(wifi).to_have_attribute("title", re.compile(r"the record says attributes › WiFi: no \(0\w+\)"))
            tree = page.locator(".rag-doc .rag-tree")
            expect(tree).to_be_visible()
            expect(tree).to_contain_text("WiFi: no")
            expect(tree).to_contain_text("Monday: 08:00–14:00")
            expect(tree).not_to_contain_text('{"')  # a tree, not raw JSON
            expect(tree).to_contain_text("The fish tacos are <b>superb</b>.")  # markup in a value is text
            assert page.locator(".rag-doc b").count() == 0

            # pick the opening-hours sentence: the hours it cites light up in the tree and in the original
            page.get_by_role("radiogroup", name="Response sentence").get_by_role("radio").nth(1).focus()
            page.keyboard.press("Space")
            expect(response.locator('[data-key="b"]')).to_have_attribute("data-state", "focus", timeout=30_000)
            lit = tree.locator('.rag-s[data-state="lit"]')
            expect(lit.first).to_be_visible(timeout=30_000)
            expect(lit.filter(has_text="Monday: 08:00–14:00")).to_have_count(1)
            original = page.locator(".rag-doc details.rag-original")
            original.locator("summary").click()
            expect(original.locator('mark.rag-raw[data-state="lit"]').first).to_contain_text('"Monday": "8:0-14:0"')
            tall_screenshot(page, shots / "inspect_record.png", height=2600)

            page.goto(f"{url}/inspect?case=quarters")
            expect(page.get_by_role("heading", name="Inspect a case")).to_be_visible(timeout=30_000)
            table = page.locator(".rag-doc table.rag-table")
            expect(table).to_be_visible(timeout=30_000)
            expect(table.locator("th")).to_have_text(["Quarter", "Revenue 2023", "Revenue 2024"])
            expect(table.locator('tr[data-key="0c"] td').nth(2)).to_have_text("1.2 bn")
            q3 = page.locator('.rag-response[data-view=main] [data-key="b"]')
            expect(q3).to_have_attribute("data-level", "none")
            expect(q3).to_have_attribute("title", re.compile(r'Revenue 2024 \(row "Q3"\): 1\.2 bn'))
            # pick the supported sentence: the Q2 row it cites lights up
            page.get_by_role("radiogroup", name="Response sentence").get_by_role("radio").first.focus()
            page.keyboard.press("Space")
            expect(table.locator('tr[data-key="0b"]')).to_have_attribute("data-state", "lit", timeout=30_000)
            tall_screenshot(page, shots / "inspect_table.png", height=1900)
            browser.close()
    finally:
        stop(proc)

"""Make the README's screenshot (docs/screenshot.png) from the real app in headless Chromium:
the sample set evaluated with `trace`, then Inspect on a case with invented claims, its first
response sentence picked so its supporting document sentences light up.

    .venv/bin/python scripts/screenshot.py [docs/screenshot.png]

Uses Debian's Chromium (never ``playwright install``) and a private run history."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluators.testing.app_server import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    app_env,
    free_port,
    start_app,
    stop,
    wait_healthy,
)

CASE = "hist-berlin-wall"


def main(dest: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with tempfile.TemporaryDirectory(prefix="screenshot-") as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        proc = start_app(port, app_env(Path(tmp)), Path(tmp) / "streamlit.log")
        try:
            wait_healthy(url, proc)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1000}, device_scale_factor=1)
                page.goto(url)
                page.get_by_role("button", name=re.compile("Load the sample")).click()
                run = page.get_by_role("button", name=re.compile(r"^Run TRACE"))
                expect(run).to_be_enabled(timeout=60_000)
                run.click()
                expect(page.get_by_role("heading", name="Results")).to_be_visible(timeout=180_000)
                page.goto(f"{url}/inspect?case={CASE}")  # the run comes from this browser's history
                expect(page.get_by_role("heading", name="Inspect a case")).to_be_visible(timeout=30_000)
                main_view = page.locator(".rag-response[data-view=main]")
                expect(main_view).to_contain_text("Berlin Wall", timeout=30_000)
                first = page.get_by_role("radiogroup", name="Response sentence").get_by_role("radio").first
                first.focus()
                page.keyboard.press("Space")
                expect(main_view.locator('[data-key="a"]')).to_have_attribute("data-state", "focus", timeout=30_000)
                page.wait_for_timeout(800)
                # from the question down: the scores, the response and the documents, lit up
                page.set_viewport_size({"width": 1400, "height": 1250})
                page.wait_for_timeout(500)
                top = page.get_by_text("Question:").first.bounding_box()["y"]
                page.mouse.move(800, 600)
                page.mouse.wheel(0, top - 20)
                page.wait_for_timeout(800)
                dest.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(dest))
                browser.close()
        finally:
            stop(proc)
    print(f"wrote {dest} from {CHROMIUM}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshot.png")

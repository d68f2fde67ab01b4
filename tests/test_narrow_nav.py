"""The script that closes the sidebar after a page is chosen on a narrow screen
(``ui/serving/narrow_nav.py``), without a browser: which responses get it (the app's pages, its root
included, below a base path too) and which pass untouched (static files, the server's routes, other
methods, non-HTML). What it does in Chromium: ``tests/test_e2e_narrow_nav.py``."""

from __future__ import annotations

import asyncio

from ui.serving import narrow_nav

PAGE = b"<html><head><title>x</title></head><body></body></html>"


def _serve(path: str, body: bytes = PAGE, ctype: bytes = b"text/html; charset=utf-8", method: str = "GET",
           base: str = "") -> tuple[dict, bytes]:
    async def inner(scope, receive, send):
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    sent: list = []

    async def send(m):
        sent.append(m)

    async def receive():
        return {"type": "http.request"}

    mw = narrow_nav.NarrowSidebarNav(inner, base=base)
    asyncio.run(mw({"type": "http", "method": method, "path": path, "headers": []}, receive, send))
    return dict(sent[0]["headers"]), b"".join(m.get("body", b"") for m in sent[1:])


def test_every_page_of_the_app_gets_the_script_once():
    for path, base in [("/", ""), ("/glossary", ""), ("/results/", ""), ("/app", "app"), ("/app/inspect", "app")]:
        head, out = _serve(path, base=base)
        assert out.startswith(b"<html><head><script>") and out.count(b"__ragNarrowNav=1") == 1, path
        assert out.endswith(PAGE[len(b"<html><head>"):])
        assert int(head[b"content-length"]) == len(out)


def test_anything_else_passes_untouched():
    for path, kw in [("/static/js/index.js", {}), ("/_stcore/health", {}), ("/favicon.png", {}),
                     ("/glossary", {"method": "POST"}), ("/glossary", {"ctype": b"application/json"}),
                     ("/elsewhere", {"base": "app"})]:
        _, out = _serve(path, **kw)  # type: ignore[arg-type]
        assert out == PAGE, (path, kw)


def test_the_script_acts_below_streamlits_breakpoint_on_sidebar_links_only():
    s = narrow_nav.SCRIPT
    assert "innerWidth>=768" in s and narrow_nav.NARROW_PX == 768
    assert '[data-testid="stSidebar"] a[href]' in s and "stSidebarCollapseButton" in s
    assert "aria-expanded')==='true'" in s  # never a second press where Streamlit closed it already
    assert narrow_nav.is_page("/") and narrow_nav.is_page("/app/", "app") and not narrow_nav.is_page("/x.css")

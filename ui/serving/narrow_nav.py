"""On a narrow screen, choosing a page in the sidebar closes the sidebar, so the chosen page shows.

Below Streamlit's ``md`` breakpoint (768 px) the open sidebar lies over the page. Streamlit closes it
after a choice in its page list only when the browser's user agent says "mobile" (its front end asks
``ua-parser``): a narrow desktop window, a tablet in portrait, or a phone browser asking for the
desktop site keep it open over the new page. This ASGI middleware (``serve.py`` wraps the app with it)
writes one script into the HTML of the app's pages (the root page and every page opened by its
address; never a static file or the server's own routes): a click on a link in the sidebar that opens
a page of the app in this tab — its page list, a ``st.page_link`` there — when the window is narrower
than 768 px, presses the sidebar's own "Collapse sidebar" button once Streamlit has handled the click
(Streamlit then remembers the sidebar as closed, as after the visitor's own press). Where Streamlit
closed it already (a phone's user agent) the button says so (``aria-expanded="false"``) and is left
alone; at 768 px and wider nothing changes. The script is installed once per document, whatever the
number of page changes after it.
"""

from __future__ import annotations

from .base_url import ASGIApp, Receive, Scope, Send, edit_html, page_depth, server_base

#: Streamlit's ``md`` breakpoint: below it, the open sidebar covers the page.
NARROW_PX = 768

SCRIPT = ("<script>(function(){if(window.__ragNarrowNav)return;window.__ragNarrowNav=1;"
          "document.addEventListener('click',function(e){"
          "var t=e.target;if(!(t instanceof Element)||window.innerWidth>=%d)return;"
          "var a=t.closest('[data-testid=\"stSidebar\"] a[href]');"
          "if(!a||a.target==='_blank'||a.origin!==location.origin)return;"
          "setTimeout(function(){"
          "var b=document.querySelector('[data-testid=\"stSidebarCollapseButton\"] button');"
          "if(b&&b.getAttribute('aria-expanded')==='true')b.click();},0);});})();</script>") % NARROW_PX


def is_page(path: str, base: str = "") -> bool:
    """Whether ``path`` asks for one of the app's pages (its root page included) below ``base``."""
    return path.strip("/") == base.strip("/") or page_depth(path, base) > 0


def inject(body: bytes) -> bytes:
    """``body`` (the app's HTML) with the script at the start of its ``<head>``."""
    return body.replace(b"<head>", b"<head>" + SCRIPT.encode(), 1)


class NarrowSidebarNav:
    """ASGI middleware: the app's pages close the sidebar after a page is chosen on a narrow screen."""

    def __init__(self, app: ASGIApp, base: str | None = None) -> None:
        self.app = app
        self.base = server_base() if base is None else base

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET" or not is_page(scope.get("path", ""), self.base):
            await self.app(scope, receive, send)
            return

        async def edit(body: bytes) -> bytes:
            return inject(body)

        await edit_html(self.app, scope, receive, send, edit)

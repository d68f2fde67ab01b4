"""Tell a page opened by its own address where the server is, so the browser asks nothing that 404s.

Streamlit's front end, loaded at a page's address (a reload of ``…/inspect``, an Inspect link opened
in a new tab, a share link to ``…/results``), first looks for the server one folder too deep —
``…/inspect/_stcore/health`` and ``…/inspect/_stcore/host-config``, two 404s in the browser console
(streamlit/streamlit#7074) — and only then at the root. Its front end reads the server's address from
``window.__streamlit.BACKEND_BASE_URL`` when set, so this ASGI middleware (``serve.py`` wraps the app
with it) writes that value into the HTML of such a page: the address with the page's own path
segments taken off, computed in the browser, so a proxy's path prefix is kept. Every other response
passes through untouched; the root page, whose guess is right, too. (:func:`edit_html` is the one way
this server's HTML is edited: ``ui/serving/share_paint.py`` uses it too.)
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable, Sequence

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: ``%d`` = how many path segments of the address are the page's (taken off to find the root).
SCRIPT = ("<script>(function(){var d=%d,p=location.pathname.replace(/\\/+$/,'').split('/');"
          "p.splice(p.length-d,d);window.__streamlit=Object.assign({},window.__streamlit,"
          "{BACKEND_BASE_URL:location.origin+p.join('/')+'/'});})();</script>")


def page_depth(path: str, base: str = "") -> int:
    """Path segments of a request for a page of the app below the server's base path (0 for the
    root page, for files and for the server's own routes: nothing to fix there)."""
    rest = path.strip("/")
    base = base.strip("/")
    if base:
        if rest != base and not rest.startswith(base + "/"):
            return 0
        rest = rest[len(base):].strip("/")
    segments = [s for s in rest.split("/") if s]
    if not segments or "_stcore" in segments or "static" in segments or "." in segments[-1]:
        return 0
    return len(segments)


def inject(body: bytes, depth: int) -> bytes:
    """``body`` (the app's HTML) with the script at the start of its ``<head>``."""
    return body.replace(b"<head>", b"<head>" + (SCRIPT % depth).encode(), 1)


#: Edits an HTML body: the new body; or its parts, sent as they come (the browser starts on the first
#: while a later one is still being made); or None to leave the response as it is.
Edit = Callable[[bytes], Awaitable["bytes | AsyncIterator[bytes] | None"]]


async def edit_html(app: ASGIApp, scope: Scope, receive: Receive, send: Send, edit: Edit,
                    headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Serve ``scope`` by ``app`` with its HTML response's body passed through ``edit`` (asked
    uncompressed: the page is a few kB); an edited response gets ``headers`` (replacing any of the
    same name) and its new length (none when sent in parts). Any other response passes through
    untouched."""
    scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k.lower() != b"accept-encoding"]}
    start: Message = {}
    chunks: list[bytes] = []

    async def edited(message: Message) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
            return
        if message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body"):
            return
        body = b"".join(chunks)
        out = list(start.get("headers", []))
        ctype = next((v for k, v in out if k.lower() == b"content-type"), b"")
        new = await edit(body) if ctype.startswith(b"text/html") and b"<head>" in body else None
        if new is None:
            await send({**start, "headers": out})
            await send({"type": "http.response.body", "body": body})
            return
        drop = {b"content-length", b"etag", *(k.lower() for k, _ in headers)}
        out = [(k, v) for k, v in out if k.lower() not in drop] + list(headers)
        if isinstance(new, bytes):
            await send({**start, "headers": [*out, (b"content-length", str(len(new)).encode())]})
            await send({"type": "http.response.body", "body": new})
            return
        await send({**start, "headers": out})
        async for part in new:
            await send({"type": "http.response.body", "body": part, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    await app(scope, receive, edited)


class PageBaseUrl:
    """ASGI middleware: GET of a page below the root → its HTML knows where the server is."""

    def __init__(self, app: ASGIApp, base: str | None = None) -> None:
        self.app = app
        self.base = server_base() if base is None else base

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        depth = page_depth(scope.get("path", ""), self.base) if scope["type"] == "http" else 0
        if depth == 0 or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return

        async def edit(body: bytes) -> bytes:
            return inject(body, depth)

        await edit_html(self.app, scope, receive, send, edit)


def server_base() -> str:
    """The server's base path (Streamlit's ``server.baseUrlPath``; "" at the root)."""
    from streamlit import config

    return str(config.get_option("server.baseUrlPath") or "")

"""The first paint of a shared link: ``…/results?share=<token>`` answers with the shared run's headline
figures already in its HTML, so a colleague who opens the link sees them at once instead of after
Streamlit's own page is ready (its scripts, the websocket, the script run: 2–3 s in a fresh browser
on a small machine for any Streamlit page, ``bench/share_link.py``). ``serve.py`` wraps the app with
this ASGI middleware (:class:`SharedFirstPaint`).

What it keeps:

* **The page's own figures.** The run is the one the Results page opens for this token
  (``share.resolve``: the same signature check, the same read of the run history), its per-case
  table comes from the same process-wide cache (``history.frame``), the figures from
  ``evaluators.headline`` and their words from ``ui.vocab``: the functions the page calls. The block
  is the page's first screen: the title (not a heading: the page's own comes while the block is
  still there), the run as its "Run" box names it, the run's line (method, cases scored, LLM calls),
  the run in one sentence, one card per metric with its interval, the offline method's caveat — and
  a line saying the rest of the page is loading.
* **No data without a valid link.** A token the server did not sign, more than one ``share`` value:
  Streamlit's HTML goes out untouched; a run deleted since, a run not ended (its figures still
  move), a run without metrics: no block (the head has the block's style, nothing of the run).
  Only a GET of the Results page's document is looked at — never the websocket, a static file,
  another page, nor ``/results`` without a token. Every text is HTML-escaped; an edited page is
  sent ``Cache-Control: no-store`` (no cache hands one visitor's page to another).
* **Never in Streamlit's way.** The figures are read in a thread while Streamlit prepares its page;
  the page is sent in two parts: up to its ``<body>`` at once — the browser starts fetching
  Streamlit's scripts — then the block and the rest, as soon as the figures are ready (tens of ms
  on a warm server) and after :data:`BUDGET_S` at the latest, without the block (the read goes on
  and leaves the table in the cache the page reads next). Streamlit's scripts run once the page is
  whole, so they wait only when the figures take longer than their download. A failure is logged,
  never shown.
* **Gone once the page is there.** A script removes the block as soon as Streamlit's main area shows
  a metric (or an error, an alert, a lost server, or the visitor went to another page; at the latest
  after :data:`GIVE_UP_S`): never two copies of the figures, never a blank between them. The block covers
  the main area only (the sidebar, past 768 px, and Streamlit's header show as soon as they are
  drawn), placed like the page's own title, run box, line and cards (Streamlit 1.67's wide layout:
  6rem above, 1rem beside — 5rem from 864 px — and the 300 px sidebar), in the theme Streamlit will
  show (:func:`theme_mode`).
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
from http.cookies import CookieError, SimpleCookie
from typing import Any, AsyncIterator, Awaitable, Mapping
from urllib.parse import parse_qs

from evaluators import trust
from evaluators.headline import Headline, headline, intervals_of
from evaluators.store import RunSummary

from .. import history, resources, share, tables, vocab
from ..state import COOKIE
from .base_url import ASGIApp, Receive, Scope, Send, edit_html, server_base

log = logging.getLogger(__name__)

#: Seconds the page waits for the figures before it goes on without them (the browser fetches
#: Streamlit's scripts meanwhile; past this the figures would no longer come first).
BUDGET_S = 1.5
#: Seconds after which the block goes even if the page never showed a metric (a Space woken by the
#: link can take tens of seconds; the end of a script run is no sign: Streamlit draws the metrics of a
#: finished run a second later, and the page runs twice on a first visit).
GIVE_UP_S = 60
BLOCK_ID = "rag-first-paint"
#: Streamlit 1.67's colours (background, text, the run box's background) by theme; the owner's
#: ``theme.backgroundColor`` / ``textColor`` / ``secondaryBackgroundColor`` replace them in their theme.
COLOURS = {"light": ("#ffffff", "rgb(47, 45, 43)", "rgb(248, 248, 247)"),
           "dark": ("rgb(23, 22, 20)", "rgb(237, 235, 232)", "rgb(33, 32, 29)")}
_CSS_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|rgba?\([0-9.,%\s]{5,40}\)")


def shared_token(scope: Scope, base: str = "") -> str | None:
    """The share token of a GET of the Results page's document (None for any other request, and for
    an address with no, or more than one, ``share`` value)."""
    if scope.get("type") != "http" or scope.get("method") != "GET":
        return None
    path = str(scope.get("path", "")).strip("/")
    base = base.strip("/")
    if path != "/".join(x for x in (base, share.PAGE) if x):
        return None
    query = scope.get("query_string", b"").decode("latin-1")
    values = parse_qs(query, keep_blank_values=True).get(share.PARAM, [])
    return values[0] if len(values) == 1 and values[0] else None


def visitor_token(scope: Scope) -> str | None:
    """The visitor's history token from the request's cookie (None without one)."""
    raw = b"; ".join(v for k, v in scope.get("headers", []) if k.lower() == b"cookie").decode("latin-1")
    try:
        found = SimpleCookie(raw).get(COOKIE)
    except CookieError:
        return None
    return found.value if found is not None and found.value else None


def run_label(summary: RunSummary, visitor: str | None) -> str:
    """The run as the page's "Run" box names it: its name for its owner (or everyone, with the
    owner's shared history on), else as shared with the visitor (``share.open_from_url``)."""
    everyone = resources.limits().shared_history
    if everyone or visitor:
        try:
            resources.store().get(summary.id, owner=None if everyone else visitor)
            return summary.name
        except KeyError:
            pass
    return share.shared_label(summary)


def figures(tok: str) -> tuple[Any, Headline] | None:
    """The shared run and its headline figures, as the Results page will show them (None: no block)."""
    summary = share.resolve(tok)
    if summary is None or not summary.ended or not summary.num_done:
        return None
    run = history.SharedRun(summary, tok)
    got = headline(history.frame(run), run.method, intervals_of(run))
    return (run, got) if got.cards else None


def _plain(markdown: str) -> str:
    """A help text without Markdown's emphasis and code marks (a native tooltip shows them as typed)."""
    return re.sub(r"\*\*|`", "", markdown)


def _bold(markdown: str) -> str:
    """Escaped text with Markdown's ``**bold**`` as <b> (the only Markdown the run's line uses)."""
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(markdown))


def block(label: str, run: Any, fig: Headline) -> str:
    """The first screen of the Results page for ``run`` as HTML, every text escaped."""
    e = html.escape
    line = vocab.run_line(run.method, fig.num_scored, fig.num_cases, run.cancelled,
                          tables.usage_text(run.usage.calls, run.usage.cost_usd, run.usage.retries, run.settings))
    said = vocab.support_words(fig.support, run.method)
    cards = "".join(
        f'<div class="rag-fp-card" title="{e(_plain(vocab.card_help(c)))}">'
        f'<div class="rag-fp-lbl">{e(vocab.nice(c.metric))}</div>'
        f'<div class="rag-fp-val" elementtiming="rag-fp-value">{e(vocab.card_value(c))}</div>'
        + (f'<div class="rag-fp-cap">{e(iv)}</div>' if (iv := vocab.card_interval(c)) else "") + "</div>"
        for c in fig.cards)
    caveat = trust.caveat(run.method)
    return (f'<div id="{BLOCK_ID}" class="rag-fp" role="region" aria-label="Results of the shared run" '
            'aria-busy="true"><div class="rag-fp-side"></div><div class="rag-fp-in">'
            '<p class="rag-fp-title">Results</p>'
            '<p class="rag-fp-wait">Loading the rest of the page…</p>'
            f'<div class="rag-fp-run"><div class="rag-fp-lbl">Run</div><div class="rag-fp-box">{e(label)}</div></div>'
            f'<p class="rag-fp-cap">{_bold(line)}</p>'
            + (f'<p class="rag-fp-said"><b>{e(said)}</b></p>' if said else "")
            + f'<div class="rag-fp-cards">{cards}</div>'
            + (f'<p class="rag-fp-cap">ℹ {e(caveat)}</p>' if caveat else "")
            + f"</div></div>{GONE_SCRIPT}")


#: Removes the block once Streamlit's page is there (see the module docstring).
GONE_SCRIPT = (
    "<script>(function(){var b=document.getElementById('" + BLOCK_ID + "');if(!b)return;var p=location.pathname,"
    "q='[data-testid=\"stMain\"] [data-testid=\"stMetricValue\"],[data-testid=\"stMain\"] [data-testid=\"stAlert\"],"
    "[data-testid=\"stException\"],[data-testid=\"stToast\"],[data-test-connection-state=\"DISCONNECTED_FOREVER\"]',"
    "o=new MutationObserver(function(){"
    "if(document.querySelector(q)||location.pathname!==p)gone();});function gone(){o.disconnect();b.remove();}"
    "o.observe(document.documentElement,{childList:true,subtree:true});setTimeout(gone," + str(GIVE_UP_S * 1000)
    + ");})();</script>")


def theme_mode(options: Mapping[str, Any]) -> str:
    """The theme Streamlit 1.67 shows: with any ``[theme]`` option set (a custom theme, as this app's
    ``primaryColor``) always its ``base``, light by default, whatever the visitor picked or their
    system says; with none, "auto": the theme the visitor picked in Streamlit's settings (kept in
    the browser), else their system's (measured in Chromium for every combination)."""
    base = str(options.get("base") or "").lower()
    if base in ("light", "dark"):
        return base
    return "light" if any(v is not None for k, v in options.items() if k != "base") else "auto"


def style(options: Mapping[str, Any]) -> str:
    """The block's ``<style>`` and the script choosing its theme (in the page's ``<head>``)."""
    mode = theme_mode(options)
    own = mode if mode != "auto" else None
    vars_ = {}
    for theme, (bg, fg, box) in COLOURS.items():
        if theme == own:
            bg, fg, box = (_colour(options.get(k), d) for k, d in (("backgroundColor", bg), ("textColor", fg),
                                                                   ("secondaryBackgroundColor", box)))
        vars_[theme] = f"--rag-fp-bg:{bg};--rag-fp-fg:{fg};--rag-fp-box:{box}"
    pick = ("<script>(function(){var m=" + json.dumps(mode) + ";if(m==='auto'){try{var v=JSON.parse(localStorage"
            ".getItem('stActiveTheme-'+location.pathname+'-v2')||'null');if(v==='Dark')m='dark';else if(v==='Light')"
            "m='light';}catch(e){}}if(m==='auto')m=matchMedia('(prefers-color-scheme: dark)').matches?'dark':'light';"
            "document.documentElement.setAttribute('data-rag-theme',m);})();</script>")
    return pick + "<style>" + CSS.replace("LIGHT_VARS", vars_["light"]).replace("DARK_VARS", vars_["dark"]) + "</style>"


def _colour(value: Any, default: str) -> str:
    return str(value) if isinstance(value, str) and _CSS_COLOUR.fullmatch(value.strip()) else default


CSS = """
:root{LIGHT_VARS}
:root[data-rag-theme=dark]{DARK_VARS}
.rag-fp{position:fixed;top:0;right:0;bottom:0;left:0;z-index:999989;overflow-y:auto;background:var(--rag-fp-bg);
 color:var(--rag-fp-fg);font-family:"Source Sans",sans-serif;font-size:16px;line-height:1.6}
.rag-fp-side{display:none;position:fixed;top:0;bottom:0;left:0;width:300px;background:var(--rag-fp-box)}
.rag-fp-in{display:flex;flex-direction:column;gap:16px;padding:96px 16px 160px;box-sizing:border-box}
.rag-fp p{margin:0}
.rag-fp .rag-fp-title{margin:0 0 -16px;padding:20px 0 16px;font-size:44px;font-weight:700;line-height:1.2}
.rag-fp-wait{min-height:40px;display:flex;align-items:center;font-size:14px;opacity:.6}
.rag-fp-lbl{font-size:14px;line-height:1.6;min-height:24px;overflow-wrap:anywhere}
.rag-fp-run .rag-fp-lbl{margin-bottom:4px}
.rag-fp-box{height:40px;box-sizing:border-box;padding:0 8px;line-height:40px;border-radius:8px;
 background:var(--rag-fp-box);font-size:14px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.rag-fp-cap{font-size:14px;line-height:1.6;opacity:.6;overflow-wrap:anywhere}
.rag-fp-cards{display:flex;flex-wrap:wrap;gap:16px 32px;margin-bottom:-16px}
.rag-fp-card{width:150px}
.rag-fp-card .rag-fp-cap{padding-bottom:16px}
.rag-fp-val{font-size:36px;line-height:52px;white-space:nowrap}
@media (max-width:420px){.rag-fp-wait{min-height:55px}}
@media (min-width:769px){.rag-fp{left:300px}.rag-fp-side{display:block}}
@media (min-width:864px){.rag-fp-in{padding-left:80px;padding-right:80px}}
"""


class SharedFirstPaint:
    """ASGI middleware: a shared link's page comes with the shared run's headline figures in it."""

    def __init__(self, app: ASGIApp, base: str | None = None, theme: Mapping[str, Any] | None = None) -> None:
        self.app = app
        self.base = server_base() if base is None else base
        if theme is None:
            from streamlit import config

            theme = config.get_options_for_section("theme")
        self.head = style(theme)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        tok = shared_token(scope, self.base)
        if tok is None or share.run_id_of(tok) is None:  # a link the server did not sign: Streamlit's page
            await self.app(scope, receive, send)
            return
        work = asyncio.ensure_future(asyncio.to_thread(self.render, tok, visitor_token(scope)))
        work.add_done_callback(_logged)

        async def block_html() -> bytes:
            try:
                got = await asyncio.wait_for(asyncio.shield(work), BUDGET_S)
            except Exception:  # noqa: BLE001 - too slow, or failed (logged): the page goes out as Streamlit's
                return b""
            return got.encode() if got else b""

        async def edit(body: bytes) -> AsyncIterator[bytes] | None:
            got = split(body, self.head)
            return None if got is None else _parts(got[0], block_html(), got[1])

        await edit_html(self.app, scope, receive, send, edit, headers=[(b"cache-control", b"no-store")])

    @staticmethod
    def render(tok: str, visitor: str | None) -> str | None:
        got = figures(tok)
        if got is None:
            return None
        run, fig = got
        return block(run_label(run.summary, visitor), run, fig)


async def _parts(first: bytes, block_html: Awaitable[bytes], rest: bytes) -> AsyncIterator[bytes]:
    """The page up to its ``<body>`` at once (the browser fetches Streamlit's scripts meanwhile), then
    the block when it is ready (or nothing, past the budget) and the rest."""
    yield first
    yield await block_html + rest


def _logged(work: asyncio.Future) -> None:
    if not work.cancelled() and (exc := work.exception()) is not None:
        log.warning("the first paint of a shared link failed: %r", exc)


#: Streamlit's stylesheet (render-blocking: nothing paints before it is in).
_STYLESHEET = re.compile(rb'<link rel="stylesheet"[^>]*href="([^"]+\.css)"[^>]*>')


def split(body: bytes, head: str) -> tuple[bytes, bytes] | None:
    """Streamlit's page in two: up to and including ``<body>`` and the rest (None for a page without
    them); the block goes between. ``head`` (the block's theme script and style) goes first in the
    ``<head>``, where no stylesheet holds its script up, with a preload of Streamlit's stylesheet:
    fetched first rather than behind the page's sixty script preloads (the block paints once it is
    in, like anything on the page)."""
    first, sep, rest = body.partition(b"<body>")
    if not sep or b"<head>" not in first:
        return None
    css = _STYLESHEET.search(first)
    preload = b'<link rel="preload" as="style" crossorigin href="%s">' % css.group(1) if css else b""
    return first.replace(b"<head>", b"<head>" + preload + head.encode(), 1) + sep, rest

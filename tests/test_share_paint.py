"""The first paint of a shared link (issue 47, item 9; ``ui/serving/share_paint.py``), without a browser: the
middleware run on a page like Streamlit's. The figures it writes are the Results page's own (AppTest
renders the page for the same link); no valid link, no data; everything escaped; the page sent in
two parts, never cached, never held past the budget; the theme Streamlit will show. In Chromium:
``tests/test_e2e_share_paint.py``."""

from __future__ import annotations

import asyncio
import time
from html.parser import HTMLParser

import pytest
from streamlit.testing.v1 import AppTest

from evaluators.headline import Card
from evaluators.store import RunStore
from tests import ui_fixtures as fx
from ui import share, state, vocab
from ui.serving import share_paint

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")
ALICE, BOB = "alice-token-000000000001", "bob-token-00000000000001"
NAME = '<script>window.__xss=1</script> "Q3" & <b>launch</b>'
#: A page like Streamlit's index.html (its stylesheet after the script preloads).
PAGE = (b'<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8" /><title>Streamlit</title>'
        b'<link rel="modulepreload" crossorigin href="./static/js/a.js">'
        b'<link rel="stylesheet" crossorigin href="./static/css/index.C1JORDN2.css"></head>'
        b'<body><noscript>JS</noscript><div id="root"></div></body></html>')


def serve(path: str = "/results", query: str = "", cookie: str | None = None, method: str = "GET",
          kind: str = "http") -> tuple[dict, list[bytes], float]:
    """The middleware's answer for one request: its headers, its body parts, the seconds until the
    page was sent whole."""
    async def inner(scope, receive, send):
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/html"), (b"content-length", str(len(PAGE)).encode()),
                                (b"etag", b"x"), (b"cache-control", b"no-cache")]})
        await send({"type": "http.response.body", "body": PAGE})

    sent: list = []
    done: list[float] = []

    async def send(m):
        sent.append(m)
        if m["type"] == "http.response.body" and not m.get("more_body"):
            done.append(time.perf_counter())

    async def receive():
        return {"type": "http.request"}

    headers = [(b"accept-encoding", b"gzip")] + ([(b"cookie", f"{state.COOKIE}={cookie}".encode())] if cookie else [])
    scope = {"type": kind, "method": method, "path": path, "query_string": query.encode(), "headers": headers}
    t = time.perf_counter()
    asyncio.run(share_paint.SharedFirstPaint(inner, base="", theme={})(scope, receive, send))
    return dict(sent[0]["headers"]), [m.get("body", b"") for m in sent[1:]], done[0] - t


class Block(HTMLParser):
    """The texts of the block: by class, in order."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.texts: dict[str, list[str]] = {}
        self.titles: list[str] = []
        self._open: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("title"):
            self.titles.append(a["title"])
        self._open.append(next((c for c in (a.get("class") or "").split() if c.startswith("rag-fp-")), tag))

    def handle_endtag(self, tag):
        if self._open:
            self._open.pop()

    def handle_data(self, data):
        cls = next((c for c in reversed(self._open) if c.startswith("rag-fp-")), None)
        if cls and self._open and (self._open[-1] == cls or self._open[-1] == "b"):
            self.texts.setdefault(cls, []).append(data)


def test_a_shared_link_carries_the_results_pages_own_figures():
    """The figures, names, lines and the run's label in the HTML are those the Results page shows
    for the same link (its metrics, their interval lines, the run in one sentence, the "Run" box)."""
    rid = RunStore().save(fx.fake_run(), NAME, owner=ALICE)
    tok = share.token(rid)
    head, parts, _ = serve(query=f"share={tok}", cookie=BOB)
    html = b"".join(parts).decode()
    assert html.count('id="rag-first-paint"') == 1
    got = Block(html[html.index('<div id="rag-first-paint"'):])
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.session_state[state._OWNER] = BOB
    at.query_params.update(share=tok)
    at.run()
    at.switch_page("pages/3_results.py").run()
    assert not at.exception, at.exception
    assert got.texts["rag-fp-box"] == [at.selectbox(key="results.run").value] == [
        share.shared_label(RunStore().get(rid, owner=None))]
    metrics = at.metric
    assert got.texts["rag-fp-val"] == [m.value for m in metrics] and len(metrics) >= 6
    labels = got.texts["rag-fp-lbl"][1:]  # the first: "Run"
    assert labels == [m.label for m in metrics]
    captions = [c.value for c in at.caption]
    intervals = [c for c in captions if c.startswith(("95 % interval", "± "))]
    assert got.texts["rag-fp-cap"][-len(intervals):] == intervals
    line = next(c for c in captions if c.startswith("Method "))
    assert "".join(got.texts["rag-fp-cap"][:3]) == line.replace("**", "")  # "Method ", "ui_fake", " · 3 of 4 …"
    said = next(m.value for m in at.markdown if m.value.startswith("**") and "answers" in m.value)
    assert said == f"**{got.texts['rag-fp-said'][0]}**"
    assert len(got.titles) == len(metrics)  # the cards explain themselves on hover, as the page's do
    assert head[b"cache-control"] == b"no-store"


def test_no_data_without_a_valid_link():
    store = RunStore()
    rid = store.save(fx.fake_run(), NAME, owner=ALICE)
    tok = share.token(rid)
    untouched = [("/results", f"share={rid}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "GET", "http"),  # forged
                 ("/results", "share=", "GET", "http"), ("/results", "", "GET", "http"),
                 ("/results", f"share={tok}&share={tok}", "GET", "http"),  # which one?
                 ("/", f"share={tok}", "GET", "http"), ("/inspect", f"share={tok}", "GET", "http"),
                 ("/results", f"share={tok}", "POST", "http"), ("/results", f"share={tok}", "GET", "websocket"),
                 ("/static/js/a.js", f"share={tok}", "GET", "http")]
    for path, query, method, kind in untouched:
        head, parts, _ = serve(path, query, method=method, kind=kind)
        assert b"".join(parts) == PAGE and head[b"cache-control"] == b"no-cache", (path, query, method, kind)
    running = store.start("ui_fake", fx.sample_cases(), name="still going", owner=ALICE)
    store.delete(rid, owner=ALICE)  # a deleted run ends its link
    for gone in (tok, share.token(running)):
        _, parts, _ = serve(query=f"share={gone}")
        html = b"".join(parts)
        assert b'id="rag-first-paint"' not in html and b'class="rag-fp-val"' not in html
        assert b"launch" not in html and b"still going" not in html
        assert html.replace(html[html.index(b"<head>") + 6:html.index(b"<meta")], b"") == PAGE  # only the style


def test_the_owner_sees_the_run_by_its_own_name():
    rid = RunStore().save(fx.fake_run(), "mine", owner=ALICE)
    _, parts, _ = serve(query=f"share={share.token(rid)}", cookie=ALICE)
    assert Block(b"".join(parts).decode()).texts["rag-fp-box"] == ["mine"]
    _, parts, _ = serve(query=f"share={share.token(rid)}", cookie="someone-else-token-00001")
    assert Block(b"".join(parts).decode()).texts["rag-fp-box"] == [share.shared_label(RunStore().get(rid, owner=None))]


def test_everything_is_escaped():
    rid = RunStore().save(fx.fake_run(), NAME, owner=ALICE)
    _, parts, _ = serve(query=f"share={share.token(rid)}")
    body = b"".join(parts).decode().split("<body>")[1]
    block = body[:body.index('<div id="root">')]
    assert "__xss" in block and "<script>window.__xss" not in block and "<b>launch" not in block
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt; &quot;Q3&quot; &amp; &lt;b&gt;launch&lt;/b&gt;" in block
    assert block.count("<script>") == 1  # the one that removes the block
    assert "<h1" not in block  # one "Results" heading: the page's own


def test_the_page_goes_out_in_two_parts_and_never_waits_past_the_budget(monkeypatch):
    rid = RunStore().save(fx.fake_run(), "r", owner=ALICE)
    tok = share.token(rid)
    head, parts, _ = serve(query=f"share={tok}")
    first = parts[0]
    assert first.endswith(b"<body>") and b'class="rag-fp-val"' not in first  # Streamlit's head at once…
    assert first.index(b'rel="preload" as="style"') < first.index(b"modulepreload")  # its stylesheet first
    assert b'href="./static/css/index.C1JORDN2.css"' in first and b"data-rag-theme" in first
    assert b'class="rag-fp-val"' in b"".join(parts[1:])  # … the figures after
    assert b"content-length" not in head and b"etag" not in head

    def slow(tok, visitor):
        time.sleep(1.0)
        return "<p>late</p>"

    monkeypatch.setattr(share_paint, "BUDGET_S", 0.1)
    monkeypatch.setattr(share_paint.SharedFirstPaint, "render", staticmethod(slow))
    _, parts, took = serve(query=f"share={tok}")
    assert b"late" not in b"".join(parts) and took < 0.9  # the page went on without the figures


def test_the_block_takes_the_theme_streamlit_will_show():
    assert share_paint.theme_mode({}) == "auto"  # no [theme]: the visitor's system setting
    assert share_paint.theme_mode({"base": None, "primaryColor": "#4c78a8"}) == "light"  # a custom theme: light
    assert share_paint.theme_mode({"base": "dark", "primaryColor": None}) == "dark"
    css = share_paint.style({"base": "dark", "backgroundColor": "#101010", "textColor": "red;}</style><script>x"})
    assert "--rag-fp-bg:#101010" in css and "</style><script>x" not in css
    assert "--rag-fp-fg:rgb(237, 235, 232)" in css  # an invalid colour: Streamlit's own
    assert '"dark"' in css and "prefers-color-scheme: dark" in css and "stActiveTheme-" in css
    assert "if(m==='auto'){" in css  # the visitor's pick counts only where Streamlit offers one: no custom theme


def test_the_cards_words():
    card = Card("adherence", 0.5521, 0.2, 16, 0.41, 0.69)
    assert (vocab.card_value(card), vocab.card_interval(card)) == ("0.552", "95 % interval 0.410–0.690 · n=16")
    bare = Card("adherence", None, None, 0)
    assert (vocab.card_value(bare), vocab.card_interval(bare)) == ("n/a", "")
    assert vocab.card_interval(Card("x", 0.5, 0.25, 3)) == "± 0.250 (std) · n=3"
    assert "spread of the cases ± 0.200" in vocab.card_help(card)


def test_only_the_results_page_with_one_share_value_is_a_shared_link():
    scope = {"type": "http", "method": "GET", "path": "/app/results", "query_string": b"share=a.b"}
    assert share_paint.shared_token(scope, base="app") == "a.b"
    assert share_paint.shared_token({**scope, "path": "/results"}, base="app") is None
    assert share_paint.shared_token({**scope, "path": "/results/"}) == "a.b"
    assert share_paint.visitor_token({"headers": [(b"cookie", b'a=1; rag_eval_u=tok-1; "bad')]}) in ("tok-1", None)
    assert share_paint.visitor_token({"headers": [(b"cookie", b"a=1; rag_eval_u=tok-1")]}) == "tok-1"
    assert share_paint.visitor_token({"headers": []}) is None

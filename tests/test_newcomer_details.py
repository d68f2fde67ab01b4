"""Issue 35 through the dashboard's pages (AppTest) and the server's middleware: review mode's
details (the greyed box, the queue in run order, which cases the export takes, the sidebar after a
reload), a run shared on purpose — the only way a link opens someone's run — and the page HTML that
tells the browser where the server is (no 404 for a page opened by its own address). The same in
Chromium: ``tests/test_e2e_first_impression.py``."""

from __future__ import annotations

import asyncio
import re

import pytest
from streamlit.testing.v1 import AppTest

from evaluators.review import ReviewStore
from evaluators.store import RunStore
from tests import ui_fixtures as fx
from ui import share, state
from ui.serving import base_url

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")
TOKEN = "details-visitor-token-0001"


def app(token: str = TOKEN, **query) -> AppTest:
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.session_state[state._OWNER] = token
    at.query_params.update(query)
    return at


def goto(at: AppTest, page: str) -> AppTest:
    at.run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, at.exception
    return at


def test_not_supported_empties_the_supporting_sentences_box():
    rid = RunStore().save(fx.fake_run(), "r", owner=TOKEN)
    at = goto(app(run=rid, case="c2"), "4_inspect")
    at.toggle(key="inspect.review").set_value(True).run()
    at.text_input(key="review.name_input").set_value("Ann").run()
    at.radio(key="inspect.fr.c2").set_value("a").run()
    keys = at.multiselect(key=f"rv.keys.{rid}.c2.a")
    assert keys.value == ["0a"]
    at.button_group(key=f"rv.lvl.{rid}.c2.a").set_value("none").run()
    assert any("Saved ✓ a: not supported" in s.value for s in at.success)
    assert at.multiselect(key=f"rv.keys.{rid}.c2.a").value == []  # was still "0a", greyed out


def test_the_queue_in_run_order_has_no_empty_priority_and_the_export_takes_this_run():
    run = fx.fake_run()
    store = RunStore()
    rid = store.save(run, "r", owner=TOKEN)
    other = store.save(run, "older copy", owner=TOKEN)
    ReviewStore().mark(other, run.results[0], reviewer="Ann", owner=TOKEN)  # a review of ANOTHER run
    at = goto(app(run=rid, case="c1"), "4_inspect")
    assert not [b for b in at.get("download_button") if b.proto.label.startswith("Export")]  # built when opened
    at = fx.open_expander(at, "inspect.queue_box")
    queue = at.dataframe[0].value
    assert list(queue.columns) == ["#", "case", "status", "open"]  # run order ranks nothing
    export = next(b for b in at.get("download_button") if b.proto.label.startswith("Export"))
    assert "Export 0 reviewed cases of this run" in export.proto.label and export.proto.disabled
    at.selectbox(key="inspect.order").set_value("uncertainty").run()
    at = fx.open_expander(at, "inspect.queue_box")  # AppTest does not keep an expander open as a browser does
    assert {"priority", "why"} <= set(at.dataframe[0].value.columns)
    goto(at, "5_compare")
    export = next(b for b in at.get("download_button") if b.proto.label.startswith("Export"))
    assert "Export 1 reviewed case · all your runs" in export.proto.label


def test_after_a_reload_the_sidebar_names_the_runs_cases():
    rid = RunStore().save(fx.fake_run(), "my run", owner=TOKEN)
    at = goto(app(run=rid, case="c1"), "4_inspect")  # a fresh session: nothing uploaded in it
    captions = [c.value for c in at.sidebar.caption]
    assert "Dataset: none loaded" not in captions
    assert any(c.startswith("Dataset: the 4 cases of the current run") for c in captions), captions


def test_the_privacy_text_says_how_history_is_kept_and_shared():
    at = app().run()
    text = " ".join(c.value for c in at.sidebar.caption)
    assert "private to this browser" in text and "page addresses carry none of it" in text
    assert "Share this run" in text


def test_a_share_link_opens_that_one_run_read_only_for_anyone():
    run = fx.fake_run()
    rid = RunStore().save(run, "alice's run", owner="alice-token-000000001")
    RunStore().save(fx.fake_run(), "alice's other run", owner="alice-token-000000001")
    tok = share.token(rid)
    assert share.run_id_of(tok) == rid
    assert share.run_id_of(rid + ".forged-signature-000000000000000") is None
    assert share.run_id_of(tok[:-1] + ("A" if tok[-1] != "A" else "B")) is None
    at = goto(app("bob-token-00000000000001", share=tok), "3_results")
    choices = at.selectbox(key="results.run").options
    # not Alice's other run; named with its method and start time, not only "alice's run" (issue 57 item 4)
    assert choices == [share.shared_label(RunStore().get(rid, owner=None))]
    assert re.fullmatch(r"alice's run \(shared with you, read-only\) · ui_fake · \d{4}-\d\d-\d\d \d\d:\d\d", choices[0])
    assert not [p for p in at.get("popover") if "Share this run" in p.proto.popover.label]  # not Bob's to share
    assert RunStore().list(owner="bob-token-00000000000001") == []  # never copied into Bob's history
    goto(at, "4_inspect")
    assert at.toggle(key="inspect.review").proto.disabled
    links = fx.open_expander(at, "inspect.queue_box").dataframe[0].value["open"]
    assert all(f"share={tok}" in v for v in links)  # a new tab opens the same run
    forged = goto(app("bob-token-00000000000001", share=rid + ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), "3_results")
    assert any("No finished run yet" in i.value for i in forged.info)
    assert RunStore().list(owner="bob-token-00000000000001") == []
    own = goto(app("alice-token-000000001", share=tok), "3_results")  # the owner's own link: her run
    assert own.selectbox(key="results.run").value == "alice's run"
    assert [p for p in own.get("popover") if "Share this run" in p.proto.popover.label]
    RunStore().delete(rid, owner="alice-token-000000001")  # deleting the run ends the link
    gone = goto(app("bob-token-00000000000001", share=tok), "3_results")
    assert any("No finished run yet" in i.value for i in gone.info)


def test_the_owner_gets_the_share_link_of_their_own_run():
    rid = RunStore().save(fx.fake_run(), "mine", owner=TOKEN)
    at = goto(app(), "3_results")
    assert [p for p in at.get("popover") if "Share this run" in p.proto.popover.label]
    code = [c.proto.code_text for c in at.get("code")]
    assert code == [f"results?share={share.token(rid)}"]  # AppTest has no page address: relative
    assert share.link(rid, "https://x.hf.space/prefix/results?u=1") == \
        f"https://x.hf.space/prefix/results?share={share.token(rid)}"


# ---- the page HTML tells the browser where the server is ---------------------------------------
def test_page_depth():
    assert base_url.page_depth("/") == 0
    assert base_url.page_depth("/inspect") == 1
    assert base_url.page_depth("/inspect/") == 1
    assert base_url.page_depth("/favicon.png") == 0
    assert base_url.page_depth("/_stcore/health") == 0
    assert base_url.page_depth("/static/js/index.js") == 0
    assert base_url.page_depth("/app/inspect", base="app") == 1
    assert base_url.page_depth("/app", base="app") == 0


def _serve(path: str, body: bytes, ctype: bytes = b"text/html", method: str = "GET"):
    seen: dict = {}

    async def inner(scope, receive, send):
        seen["headers"] = dict(scope["headers"])
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode()),
                                (b"etag", b"x")]})
        await send({"type": "http.response.body", "body": body[:5], "more_body": True})
        await send({"type": "http.response.body", "body": body[5:]})

    sent: list = []

    async def send(m):
        sent.append(m)

    async def receive():
        return {"type": "http.request"}

    mw = base_url.PageBaseUrl(inner, base="")
    asyncio.run(mw({"type": "http", "method": method, "path": path,
                    "headers": [(b"accept-encoding", b"gzip")]}, receive, send))
    head = dict(sent[0]["headers"])
    out = b"".join(m.get("body", b"") for m in sent[1:])
    return seen["headers"], head, out


def test_a_page_opened_by_its_address_learns_the_root():
    page = b"<html><head><title>x</title></head></html>"
    req, head, out = _serve("/inspect", page)
    assert b"accept-encoding" not in req  # uncompressed, to be edited
    assert out.startswith(b"<html><head><script>") and b"BACKEND_BASE_URL" in out and b"d=1," in out
    assert int(head[b"content-length"]) == len(out) and b"etag" not in head
    _, _, root = _serve("/", page)
    assert root == page  # the root page's own guess is right
    _, _, js = _serve("/inspect", b"<head>", ctype=b"application/javascript")
    assert js == b"<head>"


def test_the_signing_key_is_never_short_and_one_key_wins_a_race(tmp_path):
    """A key file cut short (a crash or a full disk while it was written) is not a key: an empty HMAC
    key would let anyone sign a link to any run. Threads starting at once all get the one key."""
    import os
    import stat
    from concurrent.futures import ThreadPoolExecutor

    cut = tmp_path / "cut" / "share_key"
    cut.parent.mkdir()
    cut.write_bytes(b"")
    key = share._key(str(cut))
    assert len(key) == share.KEY_BYTES and cut.read_bytes() == key
    assert stat.S_IMODE(os.stat(cut).st_mode) == 0o600
    fresh = tmp_path / "fresh" / "share_key"
    fresh.parent.mkdir()
    with ThreadPoolExecutor(8) as ex:
        keys = set(ex.map(lambda _: share._key.__wrapped__(str(fresh)), range(16)))
    assert keys == {fresh.read_bytes()} and len(fresh.read_bytes()) == share.KEY_BYTES
    assert sorted(p.name for p in fresh.parent.iterdir()) == ["share_key"]  # no temporary file left

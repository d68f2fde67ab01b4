"""Share ONE run, read-only: "Share this run" on Results gives a link ``…/results?share=<run id>.<signature>``.

The visitor's history token lives in a cookie and never in the address (``ui/state.py``), so an
ordinary page address opens no history; this link is the deliberate exception, and it opens exactly
the one run it names. The signature is an HMAC of the run id with the server's secret
(``evaluators.paths.share_key_path``, created on first use, readable by the server only), so a link
cannot be made for another run, and it stops working when the run is deleted. The run opens in the
session of whoever follows the link, read-only: it is not added to their history, review mode is
off, and Inspect links of its cases carry the same signature (:func:`case_link`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import streamlit as st

from evaluators.paths import share_key_path
from evaluators.store import RunSummary

from . import history, resources, state

PARAM = "share"
#: The page a share link opens (its ``url_path`` in ``app.py``).
PAGE = "results"


#: Bytes of the signing key; a key file holding fewer (cut short by a crash or a full disk while
#: it was written) is replaced: a short or empty HMAC key would let anyone sign a link.
KEY_BYTES = 32
_key_lock = threading.Lock()


@lru_cache(maxsize=4)
def _key(path: str) -> bytes:
    """The server's signing key, created on first use: written whole to a temporary file and only
    then linked into place (so no process ever reads a key file written part way), readable by the
    server only."""
    p = Path(path)
    with _key_lock:
        for _ in range(3):
            try:
                key = p.read_bytes()
            except FileNotFoundError:
                key = b""
            if len(key) >= KEY_BYTES:
                return key
            if key or p.exists():  # a key file cut short: not a key
                p.unlink(missing_ok=True)
            tmp = p.with_name(f".{p.name}.{os.getpid()}.{secrets.token_hex(4)}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(KEY_BYTES))
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, p)  # fails if another process put its key first: read that one
            except FileExistsError:
                pass
            finally:
                tmp.unlink(missing_ok=True)
    raise RuntimeError(f"cannot keep a signing key in {p}")


def _signature(run_id: str) -> str:
    mac = hmac.new(_key(str(share_key_path())), b"share-run:" + run_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode()[:32]


def token(run_id: str) -> str:
    """The share token of a run: its id and the server's signature of it."""
    return f"{run_id}.{_signature(run_id)}"


def run_id_of(tok: str | None) -> str | None:
    """The run a share token opens (None for a token the server did not sign)."""
    if not tok or "." not in tok:
        return None
    run_id, _, sig = tok.rpartition(".")
    return run_id if run_id and hmac.compare_digest(sig, _signature(run_id)) else None


def link(run_id: str, results_url: str | None = None) -> str:
    """The read-only link to a run; absolute when the address of the Results page it is made on is
    known (the link keeps its scheme, host and any path prefix, never its query)."""
    q = f"{PAGE}?" + urlencode({PARAM: token(run_id)})
    if not results_url:
        return q
    u = urlsplit(results_url)
    root = u.path.rstrip("/").removesuffix(PAGE).rstrip("/")
    return f"{u.scheme}://{u.netloc}{root}/{q}"


def resolve(tok: str | None) -> RunSummary | None:
    """The run a share token opens, as the run history has it now: None for a token the server did
    not sign, or a run deleted since. (Every reader of a share link asks this: the Results page, and
    the first paint of a shared link, ``ui/serving/share_paint.py``.)"""
    run_id = run_id_of(tok)
    if run_id is None:
        return None
    try:
        return resources.store().get(run_id, owner=None)
    except KeyError:
        return None


def shared_label(summary: RunSummary) -> str:
    """How a run shared with a visitor is named in their session (the Results page's "Run" box): its
    name, then that it is shared, then its method and start time, as the history tells apart runs of
    one name (a bare "v2" said nothing of which run of v2 it is): "v2 on the sample's questions (shared
    with you, read-only) · trace · 2026-11-28 15:01" — a phone's box shows the start of it."""
    when = str(summary.created_at or "")[:16].replace("T", " ")
    return " · ".join(x for x in (f"{summary.name} (shared with you, read-only)", summary.method, when) if x)


def open_from_url() -> None:
    """A ``?share=`` in the address opens that run as the current run: read-only for anyone but its
    owner (who gets it as the run of their history it is). It is read from the store once per
    session; while the address keeps the link, the shared run stays the current one."""
    tok = st.query_params.get(PARAM)
    if not tok:
        return
    label = next((lbl for lbl, t in state.shared_runs().items() if t == tok), None)
    if label is not None:
        state.set_current_run(label)
        return
    summary = resolve(tok)
    if summary is None:
        st.toast("This share link opens no run: it is incomplete, or the run was deleted.", icon=":material/warning:")
        return
    try:
        history.get(summary.id)  # the visitor's own run
    except KeyError:
        state.add_shared_run(shared_label(summary), summary.id, tok)
    else:
        state.add_run(summary.name, None, summary.id)


def shared_token(run: Any) -> str | None:
    """The share token of ``run`` when it is a run shared with this session (None for one's own)."""
    return run.share_token if isinstance(run, history.SharedRun) else None


def button(run_id: str | None) -> None:
    """"Share this run": the read-only link of one of the visitor's own runs, ready to copy."""
    if not run_id:
        return
    with st.popover("Share this run", icon=":material/link:",
                    help="A link that opens this one run, read-only, for anyone who has it."):
        st.markdown("Anyone with this link can open **this run only**, read-only — not your other runs, "
                    "and they cannot change it. Deleting the run (Compare → Run history) ends the link.")
        try:
            here = st.context.url
        except Exception:  # noqa: BLE001 - no browser connection
            here = None
        st.code(link(run_id, here), language=None, wrap_lines=True)


def run_params(run_id: str | None, label: str | None = None) -> dict[str, str]:
    """The query parameters that name a run on another page: its history id when it has one, else
    the share token of the run shared with this session under ``label`` (the current run when not
    given), so the address opens the same run in a fresh browser; {} for neither. A token opens only
    the one run it was signed for."""
    if run_id:
        return {"run": run_id}
    shared = state.shared_runs().get(label or state.current_run_label() or "")
    return {PARAM: shared} if shared else {}


def case_params(case_id: str, run_id: str | None, compare: bool = False,
                label: str | None = None) -> dict[str, str]:
    """Inspect's query parameters for one case (see :func:`run_params`; ``compare``: the labelings
    of a hybrid run side by side) — for ``st.page_link(..., query_params=...)``."""
    return {**run_params(run_id, label), "case": case_id, **({"compare": "1"} if compare else {})}


def case_link(case_id: str, run_id: str | None, compare: bool = False) -> str:
    """A relative link to Inspect one case (of the history run ``run_id`` when it has one);
    ``compare``: open with the labelings of a hybrid run side by side. A run shared with this
    session is named by its share link instead (the link opens it in the new tab too)."""
    return "inspect?" + urlencode(case_params(case_id, run_id, compare))

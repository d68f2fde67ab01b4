"""Review mode on Inspect: the reviewer's name, the correction controls of the sentence in focus
(saved by widget callbacks inside the case fragment: no full-page rerun), the "reviewed" mark, the
review queue (the export of reviewed labels is ``ui/reviews.py``, shared with Compare).

Reviews are kept with a run of the history (``evaluators.review.ReviewStore``, the run history's
SQLite file): every dashboard run is stored as it runs, so this is the normal case; a run that is
not in the history (e.g. opened from an older session) is saved to it first, on request.
Reads and writes are scoped like the history (:func:`ui.history.reader`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Sequence

import pandas as pd
import streamlit as st

from evaluators.review import ReviewedCase, apply, next_case, order
from evaluators.review.labels import LEVELS
from evaluators.review.queue import QueueItem, order_signals
from evaluators.sentencize import SentencizedCase
from evaluators.types import CaseResult, RunResult, SentenceLabels

from .. import cookies, history, reviews, state, vocab
from .. import highlight as hl

#: Session keys (not widgets) of this module.
NAME = "review.name"
_NAME_SENT = "review.name_sent"
#: The cookie that keeps the reviewer's name in this browser.
NAME_COOKIE = "rag_eval_reviewer"
_MSG = "review.msg"
NEXT = "inspect.next_case"
LEVEL_NAMES = {"full": "Fully", "partial": "Partially", "none": "Not"}
ORDER_NAMES = {"run": "run order", "uncertainty": "most uncertain first (the method's own doubt)",
               "variants": "the two labelers disagree most", "runs": "disagreement with another run"}


def reviewer() -> str:
    return str(st.session_state.get(NAME, "")).strip()


def run_id_of(run: Any) -> str | None:
    """The history id of ``run`` (every run the dashboard shows is a run of the history)."""
    if isinstance(run, history.SharedRun):  # read-only: not a run of this visitor's history
        return None
    rid = getattr(run, "id", None)
    if rid is not None:
        return rid
    label = next((lbl for lbl, r in history.get_runs().items() if r is run), None)
    return state.saved_ids().get(label) if label else None


def visible_run(run_id: str | None) -> str | None:
    """``run_id`` when it names a run of this visitor's history (a run still going, shown from the
    history without entering the session), else None."""
    if not run_id:
        return None
    try:
        history.get(run_id)
    except KeyError:
        return None
    return run_id


def save_to_history(run: Any) -> None:
    """Keep a run that is not in the history there (reviews belong to a stored run)."""
    if getattr(run, "id", None) is None:
        state.add_run(run.method, run)


def case_review(run_id: str | None, case_id: str) -> ReviewedCase | None:
    return reviews.store().get(run_id, case_id, owner=history.reader()) if run_id else None


def current_labels(r: CaseResult, rc: ReviewedCase | None) -> SentenceLabels | None:
    """The labels review mode shows and edits: the reviewed labels (method's + corrections)."""
    if rc is not None:
        return rc.labels
    return apply(r.labels, []) if r.labels is not None else None


# ---------------------------------------------------------------------------------------- saving
def _say(kind: str, text: str) -> None:
    st.session_state[_MSG] = (kind, text)


def _describe(field: str, key: str, value: Any) -> str:
    if value is None:
        return f"{key}: back to the method's label"
    if field == "support":
        keys = ", ".join(value.get("keys") or []) or "no supporting sentence"
        return f"{key}: {LEVEL_NAMES[value['level']].lower()} supported ({keys})"
    return f"{key}: {'' if value else 'not '}{field}"


def save(run_id: str, r: CaseResult, field: str, key: str, value: Any) -> None:
    """Save one correction (a widget callback); the outcome is shown by :func:`message`."""
    try:
        rc = reviews.store().correct(run_id, r, field, key, value, reviewer=reviewer(), owner=history.reader())
    except (ValueError, KeyError) as exc:
        _say("error", str(exc).strip("'\""))
        return
    at = datetime.now().strftime("%H:%M:%S")
    _say("ok", f"Saved ✓ {_describe(field, key, value)} — by {reviewer()} at {at} "
               f"(correction {len(rc.corrections)} of this case)")


def _on_support(run_id: str, r: CaseResult, key: str, lk: str, kk: str) -> None:
    level = st.session_state.get(lk)
    keys = list(st.session_state.get(kk) or [])
    if level == "partial" and not keys:
        _say("warn", f"{key}: pick the document sentences that partly support it, then it is saved.")
        return
    if level == "none":
        st.session_state[kk] = []  # the greyed box shows what is saved: no supporting sentence
    save(run_id, r, "support", key, {"level": level, "keys": [] if level == "none" else keys})


def _on_flag(run_id: str, r: CaseResult, field: str, key: str, wk: str) -> None:
    save(run_id, r, field, key, bool(st.session_state.get(wk)))


def _on_reset(run_id: str, r: CaseResult, fields: Sequence[str], key: str, widget_keys: Sequence[str]) -> None:
    for f in fields:
        save(run_id, r, f, key, None)
    for wk in widget_keys:
        st.session_state.pop(wk, None)


def message() -> None:
    """The outcome of the last save (kept until the next one)."""
    got = st.session_state.get(_MSG)
    if got:
        kind, text = got
        (st.success if kind == "ok" else st.warning if kind == "warn" else st.error)(text)


# ---------------------------------------------------------------------------------------- controls
def _wkey(*parts: str) -> str:
    return "rv." + ".".join(parts)


def _init(key: str, value: Any) -> None:
    if key not in st.session_state:
        st.session_state[key] = value


def editor(run_id: str, r: CaseResult, sc: SentencizedCase, labels: SentenceLabels, focus: hl.Focus,
           rc: ReviewedCase | None) -> None:
    """Correction controls of the sentence in focus (saved as soon as they change)."""
    kind, key = focus
    off = not reviewer()
    corrected = {(c.field, c.key) for c in rc.corrections} if rc else set()
    if kind == "response":
        cur = next((s for s in labels.sentences if s.key == key), None)
        if cur is None:
            st.caption("This sentence has no label to correct.")
            return
        lk, kk = _wkey("lvl", run_id, r.case.id, key), _wkey("keys", run_id, r.case.id, key)
        texts = {s.key: s.text for s in sc.doc_sentences}
        options = list(dict.fromkeys([*texts, *cur.supporting_keys]))
        _init(lk, cur.level)  # current values go in as state, not defaults: the widgets keep their identity
        _init(kk, list(cur.supporting_keys))  # (and the keyboard focus) when a save changes the labels
        c1, c2 = st.columns([2, 3])
        c1.segmented_control("Is it supported?", LEVELS, format_func=lambda v: LEVEL_NAMES[v], required=True,
                             key=lk, on_change=_on_support, args=(run_id, r, key, lk, kk), disabled=off,
                             help="Fully: every claim of the sentence is in the documents. Partially: some of "
                                  "it (name the sentences). Not: none of it.")
        c2.multiselect("Supporting document sentences", options, key=kk,
                       format_func=lambda k: f"{k} · {vocab.clip(texts.get(str(k), str(k)))}", on_change=_on_support,
                       args=(run_id, r, key, lk, kk), disabled=off or st.session_state.get(lk) == "none")
        widgets, fields = [lk, kk], ["support"]
    else:
        rk, uk = _wkey("rel", run_id, r.case.id, key), _wkey("use", run_id, r.case.id, key)
        _init(rk, key in labels.relevant_keys)
        _init(uk, key in labels.utilized_keys)
        c1, c2 = st.columns(2)
        c1.checkbox("Relevant to the question", key=rk, disabled=off,
                    on_change=_on_flag, args=(run_id, r, "relevant", key, rk))
        c2.checkbox("Used by the response", key=uk, disabled=off,
                    on_change=_on_flag, args=(run_id, r, "utilized", key, uk))
        widgets, fields = [rk, uk], ["relevant", "utilized"]
    if any((f, key) in corrected for f in fields):
        st.button("↺ Back to the method's label", key=_wkey("reset", run_id, r.case.id, key), disabled=off,
                  on_click=_on_reset, args=(run_id, r, fields, key, widgets))


def name_input() -> None:
    """The reviewer's name: kept by this browser (a cookie), so a reload or a new tab still has it."""
    if NAME not in st.session_state:
        st.session_state[NAME] = (cookies.get(NAME_COOKIE) or "").strip()[:80]
    name = st.text_input(
        "Your name", value=reviewer(), key="review.name_input", max_chars=80, placeholder="saved with each correction",
        help="Every correction is saved with your name and the time, in this run's history; this browser "
             "remembers the name.").strip()
    st.session_state[NAME] = name
    if name and cookies.get(NAME_COOKIE) != name and st.session_state.get(_NAME_SENT) != name:
        cookies.put(NAME_COOKIE, name)
        st.session_state[_NAME_SENT] = name


def review_bar(run_id: str, r: CaseResult, rc: ReviewedCase | None, queue: Sequence[QueueItem]) -> None:
    """Name, the case's review status, and the 'reviewed' mark (with 'next in the queue')."""
    c1, c2, c3, c4 = st.columns([2, 3, 2, 2], vertical_alignment="bottom")
    with c1:
        name_input()
    n = len(rc.corrections) if rc else 0
    if rc is not None and rc.reviewed:
        status = f"✓ Reviewed by {rc.reviewer} ({(rc.reviewed_at or '')[:16].replace('T', ' ')} UTC)"
    else:
        status = "Not marked reviewed yet"
    c2.markdown(f"**{status}** · {n} correction{'s' * (n != 1)} saved"
                + (f", {rc.n_changes} label{'s differ' if rc.n_changes != 1 else ' differs'} from the method's"
                   if rc else ""))
    off = not reviewer()
    if rc is not None and rc.reviewed:
        c3.button("Undo “reviewed”", key="rv.unmark", disabled=off, on_click=_on_mark, args=(run_id, r, False))
    else:
        c3.button("✓ Mark reviewed", key="rv.mark", disabled=off, type="primary", on_click=_on_mark,
                  args=(run_id, r, True), help="The case's labels, with your corrections, become gold labels "
                                               "(Compare scores every method against them).")
    nxt = next_case(queue, after=r.case.id)
    if c4.button("✓ Reviewed, next →", key="rv.next", disabled=off or nxt is None,
                 help="Mark this case reviewed and open the next unreviewed case of the queue."):
        if _mark(run_id, r, True):
            st.session_state[NEXT] = nxt
            st.rerun()
    if off:
        st.info("Type your name to review: every correction is saved with it.")


def _on_mark(run_id: str, r: CaseResult, reviewed: bool) -> None:
    _mark(run_id, r, reviewed)


def _mark(run_id: str, r: CaseResult, reviewed: bool) -> bool:
    try:
        reviews.store().mark(run_id, r, reviewer=reviewer(), owner=history.reader(), reviewed=reviewed)
    except (ValueError, KeyError) as exc:
        _say("error", str(exc).strip("'\""))
        return False
    _say("ok", f"{r.case.id}: {'marked reviewed — its labels are gold now' if reviewed else 'no longer reviewed'}")
    return True


# ---------------------------------------------------------------------------------------- queue
def queue(run: Any, run_id: str | None, how: str, other: Any) -> list[QueueItem]:
    """The review queue of a run: in run order, or by the signals kept with each stored case
    (uncertainty, the two labelings' disagreement), or against another run's labels (runs read whole:
    up to ``history.FULL_RUN_MAX`` cases)."""
    status = reviews.store().status(run_id, owner=history.reader()) if run_id else {}
    done = frozenset(c for c, (_, rev) in status.items() if rev)
    if isinstance(run, RunResult):
        if how == "run":
            return [QueueItem(r.case.id, None, "", r.case.id in done) for r in run.results]
        other_whole = history.whole(other) if other is not None else None
        return state.memo(("review.queue", id(run), how, id(other), done),
                          lambda: order(run, how, other=other_whole, reviewed=done))
    if how == "run":
        return [QueueItem(cid, None, "", cid in done) for cid in history.frame(run)["id"].astype(str)]
    key = ("review.queue", run.id, len(run), how, getattr(other, "id", None), done)
    if how in ("uncertainty", "variants"):
        return state.memo(key, lambda: order_signals(run.store.aux(run.id, owner=run.owner), how, done), max_items=8)
    mine, theirs = history.whole(run), history.whole(other) if other is not None else None
    if mine is None or theirs is None:
        st.info(history.too_big(run if mine is None else other, "Ordering by two runs' disagreement"))
        return [QueueItem(cid, None, "", cid in done) for cid in history.frame(run)["id"].astype(str)]
    return state.memo(key, lambda: order(mine, how, other=theirs, reviewed=done), max_items=8)


#: Rows of the review queue's table (the whole queue orders the picker and Next).
QUEUE_ROWS = 500


def queue_table(items: Sequence[QueueItem], run_id: str | None, link) -> None:
    status = reviews.store().status(run_id, owner=history.reader()) if run_id else {}
    if len(items) > QUEUE_ROWS:
        st.caption(f"The first {QUEUE_ROWS} of {len(items):,} cases in this order.")
        items = items[:QUEUE_ROWS]
    ranked = any(q.priority is not None for q in items)  # run order ranks nothing: no empty columns
    rows = [{"#": i + 1, "case": q.case_id,
             "status": "✓ reviewed" if q.reviewed else (f"✎ {status[q.case_id][0]} corrections"
                                                        if q.case_id in status else ""),
             **({"priority": None if q.priority is None else round(q.priority, 3), "why": q.why} if ranked else {}),
             "open": link(q.case_id)} for i, q in enumerate(items)]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=min(400, 38 + 35 * len(rows)),
                 placeholder="", column_config={"open": st.column_config.LinkColumn("open", display_text="inspect ↗")})

"""Upload, for a trace file: what the traces gave (cases ready, skipped traces and why, unreadable
records), a preview of each trace, filters (time range, span name, session, tag, a seeded sample)
and a mapping by hand when the app's spans differ — each previewed before it is applied."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone

import pandas as pd
import streamlit as st

from evaluators.traces import FORMAT_NAMES, MAP_FIELDS, Pick, TraceFilter, TraceMapping, parse_time

from .. import data as ud
from .. import state, vocab

#: "Read the file as" choices of the Upload page.
READ_AS = ("auto", "rows", *FORMAT_NAMES)
_USUAL = "— the usual rule —"
_PARTS = {"question": "input", "documents": "output", "response": "output"}
_RULES = {
    "question": "the root span's input (the user's last message of a chat)",
    "documents": "what the retriever spans returned (a reranker's output when one ran)",
    "response": "the root span's output",
}


def read_as_name(choice: str) -> str:
    return {"auto": "Detect from the file", "rows": "Rows (a test set)"}.get(choice) or FORMAT_NAMES[choice]


def _when(t: float | None) -> str:
    return "" if t is None else datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _rebuild(data: state.LoadedData, mapping: TraceMapping | None = None, flt: TraceFilter | None = None) -> None:
    tr = data.traces.redo(mapping=mapping, filter=flt)
    from evaluators.datasets import Input, trace_result

    base = data.source_id.split("|")[0]
    res = trace_result(Input(data.filename, None, tr))
    state.set_data(ud.from_traces(res, data.filename, base))


def show(data: state.LoadedData) -> None:
    tr = data.traces
    st.subheader(data.filename)
    c1, c2, c3 = st.columns(3)
    c1.metric("Traces in the file", len(tr.traces))
    c2.metric("Cases ready", len(tr.cases), help="One test case per trace: question, retrieved documents, answer.")
    c3.metric("Traces skipped", len(tr.skipped), help="Traces without a retriever span, a question or an "
                                                      "answer, or cut short: the table below says why.")
    notes = [f"Read as {tr.format_name}"]
    if tr.filtered_out:
        notes.append(f"{vocab.count(tr.filtered_out, 'trace')} left out by the filter ({tr.options.filter.describe()})")
    if tr.options.mapping:
        notes.append("fields mapped by hand: " + ", ".join(f"{k} ← {v}" for k, v in tr.options.mapping.pairs().items()))
    if notes:
        st.caption(" · ".join(notes))
    if tr.cases:
        st.page_link("pages/2_evaluate.py", label=f"Evaluate these {len(tr.cases)} cases →",
                     icon=":material/play_circle:")
    else:
        st.warning("No trace gave a test case yet: see why below, then filter or map the fields by hand.")
    if data.errors:
        unread = vocab.count(len(data.errors), "record")
        with st.expander(f"{unread} of the file could not be read — the other traces are read",
                         expanded=not tr.cases, icon=":material/warning:"):
            st.dataframe(pd.DataFrame(ud.error_rows(data.errors)), hide_index=True, width="stretch")
    if data.warnings:
        with st.expander(f"{vocab.count(len(data.warnings), 'note')} on cases that are kept"):
            st.dataframe(pd.DataFrame(ud.error_rows(data.warnings)), hide_index=True, width="stretch")
    if tr.skipped:
        with st.expander(f"{vocab.count(len(tr.skipped), 'trace')} skipped — why", expanded=not tr.cases):
            kinds = Counter(s.reason.split(":")[0].split(" (")[0] for s in tr.skipped)
            st.markdown("\n".join(f"- **{n}** × {ud.md_escape(k)}" for k, n in kinds.most_common()))
            st.dataframe(pd.DataFrame([{"trace id": s.trace_id, "root span": s.root_name or "",
                                        "reason": s.reason} for s in tr.skipped]),
                         hide_index=True, width="stretch",
                         column_config={"reason": st.column_config.TextColumn("reason", width="large")})
    st.write("**What each trace gave**")
    preview_table(tr.preview(200))
    _filters(data)
    _mapping(data)


def preview_table(rows: list[dict], height: int = 260) -> None:
    """What each trace gave: status, question, number of documents, answer, or why it was skipped."""
    df = pd.DataFrame(rows)
    for c in ("documents", "retriever_spans"):  # blank (not "None") for a skipped trace
        if c in df:
            df[c] = [("" if v is None or v != v else str(int(v))) for v in df[c]]
    st.dataframe(df, hide_index=True, width="stretch", height=min(height, 35 * (len(df) + 1) + 3), column_config={
        "trace_id": "trace id", "root_span": "root span", "response": "answer",
        "retriever_spans": "retriever spans",
        "reason": st.column_config.TextColumn("why skipped", width="large")})


def _filters(data: state.LoadedData) -> None:
    tr = data.traces
    flt = tr.options.filter
    starts = [s for t in tr.traces if (s := t.start_time()) is not None]
    with st.expander("Filter traces (time range, span name, session, tag, a sample)", expanded=bool(flt)):
        if starts:
            st.caption(f"The traces started between {_when(min(starts))} and {_when(max(starts))}.")
        with st.form("upload.trace_filter", border=False):
            a, b = st.columns(2)
            since = a.text_input("Started at or after", value=_iso(flt.since), placeholder="2026-05-01T12:00Z",
                                 key="upload.tf.since")
            until = b.text_input("Started before", value=_iso(flt.until), placeholder="2026-05-02",
                                 key="upload.tf.until")
            names = ["— any —", *tr.span_names()]
            span = a.selectbox("With a span named", names, key="upload.tf.span",
                               index=names.index(flt.span_name) if flt.span_name in names else 0)
            sessions = sorted({x for t in tr.traces for x in t.sessions()})
            session = b.selectbox("Session", ["— any —", *sessions], key="upload.tf.session",
                                  index=(sessions.index(flt.session) + 1) if flt.session in sessions else 0)
            tags = sorted({x for t in tr.traces for x in t.all_tags()})
            tag = a.selectbox("Tag", ["— any —", *tags], key="upload.tf.tag",
                              index=(tags.index(flt.tag) + 1) if flt.tag in tags else 0)
            sample = b.number_input("Then a random sample of (0 = all)", min_value=0, step=10,
                                    value=flt.sample or 0, key="upload.tf.sample")
            seed = b.number_input("Sample seed", min_value=0, step=1, value=flt.seed, key="upload.tf.seed",
                                  help="The same seed draws the same traces.")
            if st.form_submit_button("Apply filter", type="primary"):
                try:
                    new = TraceFilter(since=parse_time(since) if since.strip() else None,
                                      until=parse_time(until) if until.strip() else None,
                                      span_name=None if span == names[0] else span,
                                      session=None if session == "— any —" else session,
                                      tag=None if tag == "— any —" else tag,
                                      sample=int(sample) or None, seed=int(seed))
                except ValueError as exc:
                    st.error(f"Filter not applied: {exc}")
                else:
                    _rebuild(data, flt=new)
                    st.rerun()


def _iso(t: float | None) -> str:
    return "" if t is None else datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _mapping(data: state.LoadedData) -> None:
    tr = data.traces
    cur = tr.options.mapping
    names = tr.span_names()
    with st.expander("Map fields by hand (when your app's spans are named or typed differently)",
                     expanded=bool(cur) or not tr.cases):
        st.caption("By default: " + "; ".join(f"**{f}** = {_RULES[f]}" for f in MAP_FIELDS)
                   + ". Pick a span name to take a field from that span instead "
                     "(documents: every span of that name, joined in order).")
        picks: dict[str, Pick | None] = {}
        cols = st.columns(3)
        for col, f in zip(cols, MAP_FIELDS):
            p = getattr(cur, f)
            opts = [_USUAL, "(the root span)", *names]
            at = opts.index(p.span) if p is not None and p.span in opts else (1 if p is not None else 0)
            with col:
                span = st.selectbox(f, opts, index=at, key=f"upload.tm.{f}.span")
                part = st.selectbox(f"{f}: part of the span", ["input", "output", "attributes"],
                                    index=["input", "output", "attributes"].index(p.part if p and p.part
                                                                                  else _PARTS[f]),
                                    key=f"upload.tm.{f}.part", disabled=span == _USUAL)
                key = st.text_input(f"{f}: key inside it (optional)", value=p.key if p else "",
                                    key=f"upload.tm.{f}.key", disabled=span == _USUAL,
                                    placeholder="answer  or  0.text  or  my.attribute")
            usual = part == _PARTS[f] and not key.strip()  # the field's usual part: not spelled out
            picks[f] = None if span == _USUAL else Pick("" if span == "(the root span)" else span,
                                                        "" if usual else part, key.strip())
        mapping = TraceMapping(**picks)
        if mapping != cur:
            trial = tr.redo(mapping=mapping)
            made = vocab.count(len(trial.cases), "case")
            st.write(f"**Preview with this mapping:** {made}, {len(trial.skipped)} skipped")
            preview_table(trial.preview(20), height=220)
        b1, b2 = st.columns(2)
        if b1.button("Apply mapping", key="upload.tm.apply", type="primary", disabled=mapping == cur):
            _rebuild(data, mapping=mapping)
            st.rerun()
        if cur and b2.button("Back to the usual rules", key="upload.tm.reset"):
            for f in MAP_FIELDS:
                for k in ("span", "part", "key"):
                    st.session_state.pop(f"upload.tm.{f}.{k}", None)
            _rebuild(data, mapping=TraceMapping())
            st.rerun()

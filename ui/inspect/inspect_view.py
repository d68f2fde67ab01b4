"""Inspect's views: which run it shows, the case header (and, for a case from a trace, its trace and
spans), the labelings side by side (hybrid), and the case fragment — cross-highlighting and review
mode, which rerun only the fragment.

Which run: the current run of the session, or — for a link opened in a new tab
(``inspect?run=<history id>&case=<id>[&compare=1]``) — a run of this visitor's history (another
visitor's run is "not found")."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from evaluators import trust
from evaluators.review import differences
from evaluators.review.queue import QueueItem
from evaluators.review.transfer import labels_from_case
from evaluators.traces import FORMAT_NAMES
from evaluators.types import TRACE_METRICS, CaseResult, SentenceLabels, SentencizedCase, TestCase, earlier_turn_of

from .. import charts, history, share, state, vocab
from .. import highlight as hl
from ..data import md_escape
from . import answer_view, conversation_view, review_view, trajectory_view

ICON = {"full": "✓", "partial": "◐", "none": "✗", "unlabeled": "·"}
FOCUS = "inspect.focus"


def overall_note(r: CaseResult, labels: SentenceLabels) -> str:
    """The "Overall" note under the response: the labeler's, unless the answer declines — a declining
    sentence claims nothing, so "the response's one sentence is supported by the documents" would read
    as a grounded answer where there may be no document at all (issue 53)."""
    text = labels.overall_explanation or ""
    mv = r.metrics.get("declined")
    if mv is None or mv.value != 1.0:
        return text
    keys = [str(k) for k in (mv.details or {}).get("sentences") or []]
    which = f" (sentence{'s' if len(keys) > 1 else ''} {', '.join(keys)})" if keys else ""
    if not keys or not [s for s in labels.sentences if s.key not in keys]:
        return f"the response declines{which}: it makes no claim, so there is nothing for the documents to support"
    return f"the response declines{which}; {text}"


def run_from_url(run_id: str | None) -> Any:
    """The run to inspect (a run of the history, read as needed). ``run_id`` (a history id from the
    URL) wins when given; a fresh session without a run falls back to the newest finished run of
    this visitor's history."""
    if run_id:
        label = next((lbl for lbl, sid in state.saved_ids().items() if sid == run_id), None)
        if label is None:
            try:
                summary = history.get(run_id)
            except KeyError:
                st.warning(history.NOT_FOUND.format(rid=run_id))
                return history.get_current_run()
            if summary.status != "finished" and summary.status != "cancelled":
                st.caption(f"{history.live_tag(summary).capitalize()}: showing the {summary.num_done} "
                           f"of {summary.num_cases} cases finished so far.")
                live = f"{history.live_tag(summary)} {summary.num_done}/{summary.num_cases}"
                state.show_on_screen(history.label_of(summary.id, summary.name), summary.num_scored,  # (sidebar)
                                     summary.num_done, live)
                return history.load_memo(summary)
            label = state.add_run(summary.name, None, run_id)
        state.set_current_run(label)
    run = history.get_current_run()
    if run is None:
        latest = history.summaries(status=("finished", "cancelled"))[:1]
        if latest:
            h = latest[0]
            label = state.add_run(h.name, None, h.id)
            st.caption(f"Showing the latest saved run, “{label}”.")
            run = history.get_current_run()
    return run


#: Most cases the case picker lists at once (a run of 50,000 is browsed by its window, Next and ids).
PICKER_MAX = 300
GOTO = "inspect.goto"


def picker_window(ids: list[str], at: int, size: int = PICKER_MAX) -> list[str]:
    """The ``size`` ids around position ``at`` (all of them for a short list)."""
    if len(ids) <= size:
        return ids
    start = max(0, min(at - size // 2, len(ids) - size))
    return ids[start:start + size]


def _goto(ids_pos: dict[str, int]) -> None:
    want = str(st.session_state.get(GOTO) or "").strip()
    if want in ids_pos:
        st.session_state["inspect.case"] = want
        st.session_state[GOTO] = ""
    elif want:
        st.session_state["inspect.goto_missing"] = want


def goto_case(ids: list[str], position: dict[str, int]) -> None:
    """A box to jump to any case by its id (the picker lists a window of a long run)."""
    st.text_input("Go to case id", key=GOTO, on_change=_goto, args=(position,),
                  placeholder=f"one of the {len(ids):,} case ids, e.g. {ids[-1]}")
    missing = st.session_state.pop("inspect.goto_missing", None)
    if missing:
        st.warning(f"No case with id {missing!r} in this order (check the filter above).")


def _short(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v)
    return str(v)


def trace_panel(case: TestCase) -> None:
    """One line under Inspect's question: which trace and spans this case came from."""
    m = case.metadata
    if not m.get("trace_id"):
        return
    parts = [f"trace `{md_escape(str(m['trace_id']))}`"]
    if m.get("root_span_id"):
        parts.append(f"root span {md_escape(str(m.get('root_span') or ''))} `{md_escape(str(m['root_span_id']))}`")
    if m.get("retriever_span_ids"):
        parts.append("retriever span" + ("s" if len(m["retriever_span_ids"]) > 1 else "") + " "
                     + ", ".join(f"`{md_escape(str(s))}`" for s in m["retriever_span_ids"]))
    for key, label in (("model", "model"), ("session_id", "session"), ("user_id", "user"), ("tags", "tags"),
                       ("start_time", "started")):
        if m.get(key):
            parts.append(f"{label} {md_escape(_short(m[key]))}")
    fmt = FORMAT_NAMES.get(str(m.get("trace_format")), str(m.get("trace_format") or "a trace"))
    st.caption(f"From {md_escape(fmt)}: " + " · ".join(parts))
    if m.get("trace_metadata"):
        with st.expander("The trace's metadata"):
            st.json(m["trace_metadata"], expanded=False)


def header(r: CaseResult) -> None:
    st.html(hl.stylesheet())  # the sentence markup's look, for the whole page (the fragment reruns keep it)
    conversation_view.show(r)  # a turn of a chat: the turns before it, the earliest collapsed
    st.html(f'<div style="font-size:1.05em"><b>Question:</b> {hl.e(r.case.question)}</div>'
            + conversation_view.standalone_html(r))
    trajectory_view.show(r)  # an agent's tool calls, above the sentence view
    answer_view.show(r)  # the reference answer, each fact stated or missing; a declined answer's verdict
    plain = {k: v for k, v in r.case.labels.items() if not isinstance(v, (list, dict))}
    if plain:
        st.html(hl.note_html("Human labels: " + ", ".join(f"{k} = {v}" for k, v in plain.items())))
    if r.spans is None and r.labels is not None:
        st.html(hl.note_html("This run was stored before sentence spans were kept: its texts were split again "
                             "with today's splitter, so a key may point at a different sentence than when labeled."))
    if r.error:
        st.html(hl.note_html(f"This case was not scored: {r.error}", error=True))


def scores_row(r: CaseResult, labels: SentenceLabels | None, which: str) -> None:
    from evaluators import trace_metrics

    scores = trace_metrics.compute(labels) if labels is not None and which != "final" else r.scores
    if scores is None:
        return
    cols = st.columns(5)
    for i, m in enumerate(TRACE_METRICS):
        cols[i].metric(charts.nice(m), f"{getattr(scores, m):.2f}", help=(vocab.help_text(m) or "") + (
            f"\n\nThis case's expected adherence: {scores.expected_adherence:.2f}, the mean P(supported) of "
            "its sentences." if m == "adherence" else ""))
    cols[4].metric("Not fully supported", scores.partially_supported_sentences + scores.unsupported_sentences,
                   help=f"{scores.fully_supported_sentences} fully, {scores.partially_supported_sentences}"
                        f" partially, {scores.unsupported_sentences} not supported")
    shown = labels if labels is not None else r.labels
    labeler = (shown.method if shown is not None else r.labeled_by) or ""
    if which != "your review" and (words := trust.caveat(labeler)):
        st.caption(f":material/info: {words}")  # beside an offline labeler's absolute figures


def labelings(r: CaseResult, review: SentenceLabels | None) -> dict[str, SentenceLabels | None]:
    """Every labeling of a case: the final labels, each hybrid labeler's, human labels of the upload,
    the review."""
    out: dict[str, SentenceLabels | None] = {"final": r.labels, **r.variants}
    human = labels_from_case(r.case) if "sentence_support_information" in r.case.labels else None
    if human is not None:
        out["human (from the file)"] = human[0]
    if review is not None:
        out["your review"] = review
    return out


def variant_diff(r: CaseResult) -> set[str]:
    """Keys of the sentences the first two labelings of a hybrid case disagree on (support level,
    relevant, utilized)."""
    names = list(r.variants)[:2]
    if len(names) < 2:
        return set()
    d = differences(r.variants[names[0]], r.variants[names[1]], keys=False)
    return d["support"] | d["relevant"] | d["utilized"]


def compare_section(r: CaseResult, sc: SentencizedCase, expanded: bool) -> None:
    """The two labelings of a hybrid case side by side, differences marked ≠ and listed."""
    names = list(r.variants)[:2]
    if len(names) < 2:
        if expanded:
            st.info("This case has one labeling only: side by side needs a hybrid run (two labelers).")
        return
    a, b = (r.variants[n] for n in names)
    d = differences(a, b, keys=False)
    with st.expander(f"Both labelings side by side: {names[0]} vs {names[1]} — "
                     f"{len(d['support'])} response and {len(d['relevant'] | d['utilized'])} document "
                     "sentences differ", expanded=expanded):
        st.caption(f"The final labels (what the metrics use) are {r.labeled_by or 'the first'}'s. "
                   "≠ marks a sentence the two labelers disagree on.")
        for col, name, lab in zip(st.columns(2), names, (a, b)):
            with col:
                s = r.variant_scores.get(name)
                st.markdown(f"**{name}**" + (" (final)" if name == r.labeled_by else ""))
                if s is not None:
                    st.caption(" · ".join(f"{charts.nice(m)} {getattr(s, m):.2f}" for m in TRACE_METRICS))
                st.html(hl.response_html(sc, lab, diff=d["support"], view=name))
        rows = [{"sentence": s.key, "text": s.text[:90], names[0]: ICON[x.level] + " " + x.level,
                 names[1]: ICON[y.level] + " " + y.level}
                for s in sc.response_sentences if s.key in d["support"]
                for x in a.sentences if x.key == s.key for y in b.sentences if y.key == s.key]

        def flags(lab: SentenceLabels, k: str) -> str:
            return ", ".join(f for f, on in (("relevant", k in lab.relevant_keys),
                                             ("utilized", k in lab.utilized_keys)) if on) or "neither"
        rows += [{"sentence": s.key, "text": s.text[:90], names[0]: flags(a, s.key), names[1]: flags(b, s.key)}
                 for s in sc.doc_sentences if s.key in d["relevant"] | d["utilized"]]
        if rows:
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


# ---------------------------------------------------------------------------------------- focus
def _pick(kind: str, key: str, other: str, case_id: str) -> None:
    v = st.session_state.get(key)
    st.session_state[FOCUS] = (case_id, kind, v) if v else None
    st.session_state[other] = None


def focus_picker(sc: SentencizedCase) -> hl.Focus | None:
    """A response sentence (radio: arrow keys move along them) or a document sentence (searchable
    select); the last one picked is the focus."""
    cid = sc.case.id
    rk, dk = f"inspect.fr.{cid}", f"inspect.fd.{cid}"
    texts = {s.key: s.text for s in sc.doc_sentences}
    c1, c2 = st.columns([3, 2])
    c1.radio("Response sentence", [s.key for s in sc.response_sentences], index=None, horizontal=True, key=rk,
             on_change=_pick,  # keys only: labels that change with a save would make it a new widget
             args=("response", rk, dk, cid),
             help="Pick a sentence (arrow keys move along them): its supporting document sentences light up.")
    c2.selectbox("Document sentence", list(texts), index=None, key=dk, placeholder="pick one (type to search)",
                 format_func=lambda k: f"{k} · {vocab.clip(texts[k])}", on_change=_pick, args=("document", dk, rk, cid),
                 help="The response sentences that name it as support light up.")
    got = st.session_state.get(FOCUS)
    return (got[1], got[2]) if got and got[0] == cid else None


def focus_panel(sc: SentencizedCase, labels: SentenceLabels | None, focus: hl.Focus | None, lit: set[str]) -> None:
    if focus is None:
        st.caption("Pick a response sentence to light up the document sentences that support it, or a document "
                   "sentence to light up the response sentences it supports.")
        return
    kind, key = focus
    sents = {s.key: s for s in (sc.response_sentences if kind == "response" else sc.doc_sentences)}
    s = sents.get(key)
    if s is None:
        return
    why = ""
    if kind == "response":
        sup = next((x for x in labels.sentences if x.key == key), None) if labels else None
        what = hl.RESPONSE_COLORS[sup.level if sup else "unlabeled"][1]
        why = hl.explained_html("Why", sup.explanation) if sup is not None and sup.explanation else ""
        linked = [f"<li><b>{hl.e(k)}</b> {hl.e(t.text)}</li>" for t in sc.doc_sentences for k in [t.key] if k in lit]
        special = [k for k in (sup.supporting_keys if sup else ()) if k not in {t.key for t in sc.doc_sentences}]
        title = "Supported by"
    else:
        rel = labels is not None and key in labels.relevant_keys
        use = labels is not None and key in labels.utilized_keys
        what = f"{'relevant' if rel else 'not relevant'}, {'used by the response' if use else 'not used'}"
        linked = [f"<li><b>{hl.e(t.key)}</b> {hl.e(t.text)}</li>" for t in sc.response_sentences if t.key in lit]
        special, title = [], "Cited as support by"
    turns = conversation_view.support_html(special, sc.case)  # an earlier agent turn, named and quoted
    special = [k for k in special if earlier_turn_of(k) is None]
    linked += [turns] if turns else []
    extra = f" (and: {hl.e(', '.join(special))})" if special else ""
    st.html(f'<div class="rag-focus"><b>{hl.e(key)}</b> “{hl.e(s.text)}” — {hl.e(what)}{why}'
            f'<div style="margin-top:4px">{title}: {"none" if not linked else ""}{extra}</div>'
            f'<ul style="margin:2px 0 0 0">{"".join(linked)}</ul></div>')


# ---------------------------------------------------------------------------------------- the case
@st.fragment
def case_view(run: Any, run_id: str | None, r: CaseResult, sc: SentencizedCase,
              queue: list[QueueItem]) -> None:
    """Labels, cross-highlighting and review mode of one case (reruns alone when a sentence is picked
    or a correction saved)."""
    shared = share.shared_token(run) is not None
    reviewing = st.toggle("✎ Review mode: correct the labels", key="inspect.review",
                          disabled=r.labels is None or shared,
                          help="This run was shared with you: it is read-only." if shared else
                          "Correct any label; corrections are saved with your name and the time.")
    rc = review_view.case_review(run_id, r.case.id)
    if reviewing and run_id is None:
        st.info("Reviews are kept with a run of your history, and this run is not in it.")
        if st.button("Save this run to my history", key="inspect.save_run"):
            review_view.save_to_history(run)
            st.rerun()
        reviewing = False
    if reviewing and run_id is not None:
        review_view.review_bar(run_id, r, rc, queue)
        labels, which = review_view.current_labels(r, rc), "your review"
        changed = (lambda d: d["support"] | d["relevant"] | d["utilized"])(
            differences(r.labels, labels)) if labels is not None and r.labels is not None else set()
    else:
        options = labelings(r, rc.labels if rc else None)
        which = "final"
        if len(options) > 1:
            which = st.radio("Labels", list(options), horizontal=True, key="inspect.variant",
                             help="Hybrid runs keep each labeler's labels; 'final' is what the metrics use.")
        labels, changed = options.get(which, r.labels), set()
    scores_row(r, labels, which)
    diff = variant_diff(r) if which in ("final", "your review", *list(r.variants)[:2]) else set()
    st.subheader("Response")
    focus = focus_picker(sc)
    lit = hl.related(labels, focus)
    st.html(hl.legend_html("response") + hl.legend_html("focus"))
    st.html(hl.response_html(sc, labels, focus, lit, changed, diff))
    with st.container(border=True):
        focus_panel(sc, labels, focus, lit)
        if reviewing and run_id is not None and focus is not None and labels is not None:
            review_view.editor(run_id, r, sc, labels, focus, rc)
        review_view.message()
    if labels is not None and labels.overall_explanation:
        st.html(hl.explained_html("Overall", overall_note(r, labels)))
    st.subheader(f"Documents ({len(r.case.documents)})")
    st.html(hl.legend_html("documents"))
    if labels is not None:
        st.caption(f"{len(labels.relevant_keys)} relevant, {len(labels.utilized_keys)} utilized of "
                   f"{len(labels.document_keys)} document sentences")
    version = len(rc.corrections) if rc is not None else 0  # (lets a bench see this render finish)
    st.html(f'<div class="rag-docs" data-version="{version}">'
            + "".join(hl.documents_html(sc, labels, focus, lit, changed, diff)) + "</div>")
    if labels is not None and labels.relevance_explanation:
        st.html(hl.explained_html("Relevance", labels.relevance_explanation))
    if labels is not None and labels.notes:
        with st.expander(f"Labeler notes ({len(labels.notes)})"):
            for n in labels.notes:
                st.text(n)

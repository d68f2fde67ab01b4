"""Which run Inspect shows: the current run of the session, or — for a link opened in a new tab
(``inspect?run=<history id>&case=<id>``) — a run of this visitor's history (another visitor's run
is "not found")."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from evaluators.types import RunResult

from . import history, state


def run_from_url(run_id: str | None) -> RunResult | None:
    """The run to inspect. ``run_id`` (a history id from the URL) wins when given; a fresh session
    without a run falls back to the newest finished run of this visitor's history."""
    if run_id:
        label = next((lbl for lbl, sid in state.saved_ids().items() if sid == run_id), None)
        if label is None:
            try:
                summary = history.get(run_id)
            except KeyError:
                st.warning(history.NOT_FOUND.format(rid=run_id))
                return state.get_current_run()
            if summary.status != "finished" and summary.status != "cancelled":
                st.caption(f"{history.live_tag(summary).capitalize()}: showing the {summary.num_done} "
                           f"of {summary.num_cases} cases finished so far.")
                return history.load_memo(summary)
            label = state.add_run(summary.name, history.load(run_id), run_id)
        state.set_current_run(label)
    run = state.get_current_run()
    if run is None:
        latest = history.summaries(status=("finished", "cancelled"))[:1]
        if latest:
            h = latest[0]
            label = state.add_run(h.name, history.load(h.id), h.id)
            st.caption(f"Showing the latest saved run, “{label}”.")
            run = state.get_current_run()
    return run


def case_link(case_id: str, run_id: str | None) -> str:
    """A relative link to Inspect one case (of the history run ``run_id`` when it has one)."""
    return "inspect?" + urlencode({**({"run": run_id} if run_id else {}), "case": case_id})

"""Which run Inspect shows: the current run of the session, or — for a link opened in a new tab
(``inspect?run=<history id>&case=<id>``) — a run from the run history."""

from __future__ import annotations

import streamlit as st

from evaluators.types import RunResult

from . import resources, state


def run_from_url(run_id: str | None) -> RunResult | None:
    """The run to inspect. ``run_id`` (a history id from the URL) wins when given; a fresh session
    without a run falls back to the newest run in the history."""
    saved = state.saved_ids()
    if run_id:
        label = next((lbl for lbl, sid in saved.items() if sid == run_id), None)
        if label is None:
            try:
                run = resources.store().load(run_id)
            except KeyError:
                st.warning(f"No run {run_id!r} in the run history; showing the current run.")
            else:
                entry = next((h for h in resources.store().list() if h["id"] == run_id), None)
                label = state.add_run(entry["name"] if entry else run_id, run, run_id)
        if label is not None:
            state.set_current_run(label)
    run = state.get_current_run()
    if run is None:
        latest = resources.store().list()[:1]
        if latest:
            h = latest[0]
            label = state.add_run(h["name"], resources.store().load(h["id"]), h["id"])
            st.caption(f"Showing the latest saved run, “{label}”.")
            run = state.get_current_run()
    return run


def case_link(case_id: str, run_label: str | None) -> str:
    """A relative link to Inspect one case (with the history id of the run when it was saved)."""
    from urllib.parse import urlencode

    sid = state.saved_ids().get(run_label or "")
    return "inspect?" + urlencode({**({"run": sid} if sid else {}), "case": case_id})

"""Evaluate's interrupted runs (a server restart, a crash): each with Resume — only the missing cases
are queued, under the owner's limits, with the key it used typed again if it was typed — and
Keep as is (the run closed with the cases finished so far)."""

from __future__ import annotations

import streamlit as st

from evaluators.jobs import QueueFull, options_from_settings
from evaluators.limits import owner_pays
from evaluators.llm.settings import settings_credentials
from evaluators.methods import get_method
from evaluators.store import RunSummary

from .. import jobs, resources, state


def resume(summary: RunSummary) -> str | None:
    """Queue the missing cases of an interrupted run; returns why it cannot, or reruns the app."""
    key = state.typed_key() if summary.needs_key else None
    if summary.needs_key and not key:
        return ("This run used an API key typed in the sidebar, which is never stored: enter it "
                "again in the sidebar to resume.")
    options = options_from_settings(summary.settings, api_key=key)
    pays = options.llm is not None and owner_pays(settings_credentials(options.llm))
    lim = resources.limits()
    llm_run = get_method(summary.method).needs_llm or bool(options.metrics and options.llm)
    left = summary.num_cases - summary.num_done
    if pays and llm_run and (why := lim.check_llm_run(cases=summary.num_cases, calls=left,
                                                      used=jobs.calls_used())):
        return why
    try:
        view = resources.queue().resume(summary.id, state.owner_token(), options,
                                        max_calls=lim.max_llm_calls if pays and llm_run else None)
    except (QueueFull, KeyError, ValueError) as exc:
        return f"Not resumed: {exc}"
    state.watch_job(view.id, started_here=True)
    st.rerun()
    return None


def interrupted_area() -> None:
    """Interrupted runs of this visitor, each with Resume and Keep-as-is."""
    runs = resources.store().list(owner=state.owner_token(), status=("interrupted",))
    for s in runs[:3]:
        with st.container(border=True):
            st.warning(f"**{s.name}** stopped at {s.num_done} of {s.num_cases} cases"
                       + (f": {s.error}" if s.error else "") + ". The finished cases are kept.")
            c1, c2, _ = st.columns([1, 1, 3])
            if c1.button("Resume", key=f"jobs.resume.{s.id}", type="primary",
                         help="Evaluate only the missing cases"):
                if why := resume(s):
                    st.error(why)
            if c2.button("Keep as is", key=f"jobs.keep.{s.id}",
                         help="Close the run with the cases finished so far"):
                resources.store().finish(s.id, "cancelled", error=s.error)
                st.rerun()
            if s.needs_key and not state.typed_key():
                st.caption("Resuming needs the API key this run used: type it in the sidebar.")

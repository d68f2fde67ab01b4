"""The Evaluate page's job control: start a job, advance it one chunk per script run with a
progress bar (count + ETA) and a Cancel button, and file the finished run (session + history)."""

from __future__ import annotations

import time
from datetime import datetime

import streamlit as st

from evaluators.options import EvalOptions
from evaluators.types import RunResult, TestCase

from . import resources, runner, state


def start(cases: tuple[TestCase, ...], method: str, options: EvalOptions, name: str = "",
          chunk_size: int = 25) -> None:
    state.set_job(state.Job(cases=cases, method=method, options=options, name=name,
                            chunk_size=chunk_size))
    st.rerun()


def complete(job: state.Job, *, cancelled: bool = False) -> tuple[str, RunResult]:
    run = runner.finish(job, cancelled=cancelled)
    label = job.name.strip() or f"{job.method} · {datetime.now().strftime('%H:%M:%S')}"
    store_id = None
    try:
        store_id = resources.store().save(run, label)
    except Exception as exc:  # noqa: BLE001 - history is a convenience; the run itself is kept
        state.push_notice(f"Run kept in this session, but not saved to history: {exc}")
    label = state.add_run(label, run, store_id)
    state.set_job(None)
    if not state.get_case_id():
        first = next((r.case.id for r in run.results), None)
        state.set_case_id(first)
    return label, run


def drive(job: state.Job) -> None:
    """Render progress for the running job and evaluate its next chunk (one per script run)."""
    elapsed = time.time() - job.started
    st.progress(job.done / max(1, job.total), text=runner.progress_text(job.done, job.total, elapsed))
    st.caption(f"Method: {job.method} · chunks of {job.chunk_size} cases. Cancel keeps every "
               "finished case.")
    if st.button("Cancel", key="evaluate.cancel", type="secondary"):
        label, run = complete(job, cancelled=True)
        state.push_notice(f"Cancelled: kept {len(run.results)} of {job.total} cases as “{label}”.")
        st.switch_page("pages/3_results.py")
    if job.done == 0:
        resources.warm_up(job.method)
    # The chunk's result goes into the job (session state) before any further widget call, so a
    # rerun triggered meanwhile (e.g. by Cancel) keeps it and never recomputes it.
    try:
        runner.run_next_chunk(job)
    except Exception as exc:  # noqa: BLE001 - keep what finished, say why it stopped
        label, run = complete(job, cancelled=True)
        state.push_notice(f"The run stopped after {len(run.results)} of {job.total} cases "
                          f"({type(exc).__name__}: {exc}); the finished cases are kept as “{label}”.")
        st.switch_page("pages/3_results.py")
    if job.done >= job.total:
        label, run = complete(job)
        state.push_notice(f"Finished “{label}”: {len(run.scored)} of {len(run.results)} cases scored "
                          f"in {runner.fmt_seconds(run.timings.get('wall_s', 0.0))}.")
        st.switch_page("pages/3_results.py")
    st.rerun()

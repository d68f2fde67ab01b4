"""Inspect's run picker: which run of the session or the history the page shows. Picking a run puts
its history id in the address (``?run=``), the one way Inspect is told which run to show, so a link
copied afterwards opens the same run; the case shown stays when the new run has it."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evaluators.store import RunSummary

from .. import history, state

KEY = "inspect.run"


def _label_of(run: Any, run_id: str | None, choices: dict[str, Any]) -> str | None:
    for label, c in choices.items():
        if c is run or (run_id and isinstance(c, RunSummary) and c.id == run_id):
            return label
    return next((lbl for lbl in choices if history.store_id(lbl, choices[lbl]) == run_id), None) if run_id else None


def _switch(choices: dict[str, Any]) -> None:
    label = st.session_state.get(KEY)
    choice = choices.get(label) if isinstance(label, str) else None
    if choice is None or not isinstance(label, str):
        return
    sid = history.store_id(label, choice)
    if sid:
        st.query_params["run"] = sid
    else:  # a run of this session that is not in the history
        state.set_current_run(label)
        st.query_params.pop("run", None)
    st.query_params.pop("case", None)


def run_picker(run: Any, run_id: str | None) -> None:
    """A selectbox of every run the visitor can inspect, showing ``run``."""
    choices = history.choices()
    current = _label_of(run, run_id, choices)
    if current is None or len(choices) < 2:
        return
    st.session_state[KEY] = current
    st.selectbox("Run", list(choices), key=KEY, on_change=_switch, args=(choices,),
                 help="The run whose cases this page shows: any run of this session or of your run history.")

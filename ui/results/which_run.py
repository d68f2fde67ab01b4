"""Which run Results shows (issue 57 item 10): the run the visitor just started, with its progress and
then its results — not the run the page showed before.

Before, the "Run" picker kept the run it showed last: a visitor who ran GPT labeling (Results opened
on it), went back to Evaluate, started a ``trace`` run and opened Results at once kept seeing the GPT
labeling run, however often they opened Results again — and the page made the older run current
again each time, undoing the filing of the new one. The rule now, applied before the picker is drawn
(:func:`decide`, pure):

1. a run this session started that is **going on** and that Results has not shown yet is shown (its
   cases finished so far, the progress bar above);
2. when the session's **current run changed elsewhere** since Results last drew — a run that ended
   was filed (``ui.jobs``), "Run your app", Compare or a share link opened one — the picker moves to it;
3. otherwise the picker keeps what the visitor picked (or, the first time, the current run).

What the page shows is told to the sidebar (``state.show_on_screen``), so its "Current run" is the run
on screen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import streamlit as st

from evaluators.store import RunSummary

from .. import history, state

KEY = "results.run"
_SYNCED = "results.synced"  # the session's current run when Results last drew
_SHOWN_LIVE = "results.shown_live"  # ids of the runs going on that Results has shown
_PICKED_ID = "results.picked_id"  # the run of the label shown (a run going on changes its label)


@dataclass(frozen=True)
class Choice:
    """What the rule needs of one entry of the picker."""

    label: str
    run_id: str | None
    running: bool
    started_here: bool


def decide(choices: list[Choice], picked: str | None, current: str | None, synced: str | None,
           shown_live: frozenset[str], picked_id: str | None = None) -> str:
    """The label the picker shows (see the module doc); ``picked``: what it shows now (None: nothing
    yet) and ``picked_id`` its run (a run going on is relabelled as it counts: "x (running 3/16)"),
    ``current``: the session's current run, ``synced``: the current run when Results last drew,
    ``shown_live``: the runs going on already shown."""
    labels = [c.label for c in choices]
    fresh = next((c for c in choices if c.running and c.started_here and c.run_id not in shown_live), None)
    if fresh is not None:
        return fresh.label
    if current in labels and current != synced:
        return str(current)
    if picked in labels:
        return str(picked)
    same = next((c.label for c in choices if picked_id and c.run_id == picked_id), None)
    if same is not None:  # the run shown, under its new label (more cases counted, or filed when it ended)
        return same
    live = next((c.label for c in choices if c.running), None)
    return str(current if current in labels else live or labels[0])


def _choice(label: str, c: Any) -> Choice:
    rid = history.store_id(label, c)
    running = isinstance(c, RunSummary) and c.status == "running"
    return Choice(label, rid, running, bool(rid) and state.started_here(str(rid)))


def select(choices: Mapping[str, Any]) -> None:
    """Set the picker (``KEY``) before it is drawn, by :func:`decide`."""
    items = [_choice(label, c) for label, c in choices.items()]
    shown = frozenset(st.session_state.get(_SHOWN_LIVE) or ())
    label = decide(items, st.session_state.get(KEY), state.current_run_label(), st.session_state.get(_SYNCED),
                   shown, st.session_state.get(_PICKED_ID))
    st.session_state[KEY] = label
    got = next(c for c in items if c.label == label)
    if got.running and got.run_id:
        st.session_state[_SHOWN_LIVE] = sorted(shown | {got.run_id})


def shown(label: str, run: Any) -> None:
    """The picked run is on screen: a run of the session becomes current (and the sidebar names it)."""
    if not isinstance(run, RunSummary):
        state.set_current_run(label)
    summary = run if isinstance(run, RunSummary) else run.summary
    note = f"{history.live_tag(summary)} {summary.num_done}/{summary.num_cases}" if history.live_tag(summary) else ""
    state.show_on_screen(label, summary.num_scored, summary.num_done, note)
    st.session_state[_SYNCED] = state.current_run_label()
    st.session_state[_PICKED_ID] = history.store_id(label, run)

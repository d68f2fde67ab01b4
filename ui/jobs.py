"""Background runs in the dashboard: start a run on the server's one job queue, show its progress
(count, ETA) with Cancel on every page (an ``st.fragment`` that refreshes itself while a run goes
on), and announce and file a run when it ends. (Resuming an interrupted run is Evaluate's:
``ui/evaluate/resume.py``.)

The queue (``evaluators.jobs``) evaluates the run whatever page is shown — or with no page at all:
a closed tab or a reload loses nothing, and a later session of the same visitor picks it up.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import streamlit as st

from evaluators.jobs import JobView, QueueFull
from evaluators.limits import owner_pays
from evaluators.methods import get_method
from evaluators.options import EvalOptions
from evaluators.store import default_name
from evaluators.types import TestCase

from . import history, resources, state

#: Seconds between progress refreshes of the fragment. Each refresh is a script run on the server
#: and a render in the browser, for every visitor with a run going on: every 2 s keeps the count and
#: ETA current without taking the cores the evaluation needs.
REFRESH_S = 2.0


def fmt_seconds(s: float) -> str:
    """'1m 05s', '12s', '0.4s' (under a second: one decimal, never "0s")."""
    if 0 < s < 0.95:
        return f"{s:.1f}s"
    s = max(0, int(round(s)))
    return f"{s // 60}m {s % 60:02d}s" if s >= 60 else f"{s}s"


def progress_text(done: int, total: int, elapsed: float, eta: float | None = None) -> str:
    """'12 / 50 cases · 3s elapsed · ETA 10s' (ETA once something finished)."""
    text = f"{done} / {total} cases · {fmt_seconds(elapsed)} elapsed"
    if done >= total and total:
        return text + " · done"
    if eta is None and 0 < done < total and elapsed > 0:
        eta = elapsed / done * (total - done)
    return text + (f" · ETA {fmt_seconds(eta)}" if eta is not None and done else " · ETA: measuring…")


# ---- limits ------------------------------------------------------------------------------------
#: The parts of an estimate whose calls come on top of the method's.
EXTRA_CALLS = ("family_metrics", "answer_correctness", "goal_accuracy")


def metric_llm(estimate: dict[str, Any] | None) -> dict[str, Any]:
    """The LLM calls an estimate counts apart from the method's: the family metrics', answer correctness
    (one call per case with a reference answer) and an agent's goal accuracy (one call per agent case),
    added up (calls, tokens, cost, whether every price is known)."""
    parts = [p for k in EXTRA_CALLS if isinstance(p := (estimate or {}).get(k), dict)]
    out: dict[str, Any] = {k: sum(p.get(k) or 0 for p in parts)
                           for k in ("calls", "prompt_tokens", "completion_tokens")}
    out["cost_usd"] = sum(float(p.get("cost_usd") or 0.0) for p in parts)
    out["price_known"] = all(p.get("price_known") is not False for p in parts)
    return out


def uses_llm(method: str, estimate: dict[str, Any] | None) -> bool:
    return get_method(method).needs_llm or bool(metric_llm(estimate)["calls"])


def estimated_calls(estimate: dict[str, Any] | None) -> int:
    e = estimate or {}
    return int(e.get("calls") or 0) + int(metric_llm(e)["calls"])


#: What each part of an estimate's calls does, in words (beside the method's own calls).
_CALL_WORDS = {"family_metrics": "score the metric families", "answer_correctness":
               "check the answers against their reference answers", "goal_accuracy": "judge the agents' goals"}


def calls_words(estimate: dict[str, Any] | None) -> str | None:
    """How an estimate's calls split when more than the method's own are made ("16 label the sentences, 16
    check the answers against their reference answers"): "1 LLM call/case" beside
    "LLM calls 32" read as a contradiction. None when only the method calls."""
    e = estimate or {}
    extra = [(int(p.get("calls") or 0), _CALL_WORDS[k]) for k in EXTRA_CALLS
             if isinstance(p := e.get(k), dict) and p.get("calls")]
    if not extra:
        return None
    own = int(e.get("calls") or 0)
    parts = ([f"{own:,} label the sentences"] if own else []) + [f"{n:,} {w}" for n, w in extra]
    return ", ".join(parts)


def cost_text(estimate: dict[str, Any] | None) -> str:
    """The estimated cost for people: "$0.0107", or "unknown" when a model has no price (the
    library then counts it as $0, which is not the real cost)."""
    e = estimate or {}
    fam = metric_llm(e)
    if e.get("cost_usd") is None or e.get("price_known") is False or fam.get("price_known") is False:
        return "unknown"
    return f"${e['cost_usd'] + fam['cost_usd']:,.4f}"


def default_run_name(method: str, filename: str) -> str:
    """The name a run gets when the visitor types none (the Run name field's placeholder): the file's
    stem (``sample_rag_version2``), the word people use for that version."""
    return default_name(filename, method)


def going() -> list[JobView]:
    """This visitor's runs that are queued or going on (followed by this session)."""
    return [v for v in _active() if v.active]


def calls_used() -> int:
    return resources.queue().ledger.used(state.owner_token())


def limits_text() -> str | None:
    """What the owner's limits leave this visitor (None when there are none)."""
    lim = resources.limits()
    parts = []
    if lim.max_llm_cases is not None:
        parts.append(f"at most {lim.max_llm_cases:,} cases per LLM run")
    if lim.max_llm_calls is not None:
        parts.append(f"{lim.calls_left(calls_used()):,} of {lim.max_llm_calls:,} LLM calls left for you")
    return ("Limits of this deployment (on the server's key): " + " · ".join(parts)) if parts else None


def refusal(n_cases: int, method: str, options: EvalOptions, estimate: dict[str, Any] | None,
            pays: bool) -> str | None:
    """Why this run may not start under the owner's limits (None: it may)."""
    if not pays or not uses_llm(method, estimate) or options.llm is None:
        return None
    return resources.limits().check_llm_run(cases=n_cases, calls=estimated_calls(estimate),
                                            used=calls_used())


# ---- start ----------------------------------------------------------------------------------
def start(cases: tuple[TestCase, ...], method: str, options: EvalOptions, *, name: str = "",
          chunk_size: int | None = None, estimate: dict[str, Any] | None = None) -> str | None:
    """Queue a run for this visitor; returns why it was refused, or reruns the app."""
    creds = state.credentials() if options.llm is not None else None
    pays = owner_pays(creds)
    if (why := refusal(len(cases), method, options, estimate, pays)) is not None:
        return why
    lim = resources.limits()
    label = name.strip() or f"{method} · {datetime.now().strftime('%H:%M:%S')}"
    try:
        view = resources.queue().submit(
            state.owner_token(), cases, method, options, name=label, chunk_size=chunk_size,
            max_calls=lim.max_llm_calls if pays and uses_llm(method, estimate) else None,
            needs_key=creds is not None and creds.key_source == "password field")
    except QueueFull as exc:
        return f"Not started: {exc}."
    state.watch_job(view.id, started_here=True)
    st.rerun()
    return None


# ---- announcing ended runs ------------------------------------------------------------------------
def _file(v: JobView) -> str:
    """Add an ended run to the session; the notice to show."""
    if v.status == "interrupted":
        return (f"“{v.name}” stopped after {v.done} of {v.total} cases ({v.error}). The finished "
                "cases are kept: resume it on the Evaluate page.")
    if v.done == 0:
        return f"Cancelled “{v.name}” before any case finished."
    try:
        s = history.get(v.id)
    except KeyError:
        return f"“{v.name}” ended, but it is no longer in the run history."
    # named as every picker names it: a name other runs share is told apart by method or start time
    label = state.add_run(history.label_of(v.id, v.name), None, v.id)
    if not state.get_case_id():
        first = history.frame(history.load_memo(s))["id"]
        state.set_case_id(str(first.iloc[0]) if len(first) else None)
    if v.status == "cancelled":
        why = f" ({v.error})" if v.error else ""
        return f"Cancelled{why}: kept {s.num_done} of {v.total} cases as “{label}”."
    # the whole run: every session of it (a run resumed after a restart counts its earlier part too)
    return (f"Finished “{label}”: {s.num_scored} of {s.num_done} cases scored in "
            f"{fmt_seconds(s.timings.get('wall_s', 0.0))}.")


def file_finished(on_evaluate: bool) -> None:
    """Follow this visitor's runs that are going on, and file those that ended since the last run
    of the script (once per session). A run started from the Evaluate page opens Results."""
    switch = False
    for v in resources.queue().jobs(state.owner_token()):
        if v.active:
            state.watch_job(v.id)
        elif v.id in state.watched_jobs() and state.mark_filed(v.id):
            state.push_notice(_file(v))
            switch |= state.started_here(v.id) and v.status != "interrupted"
    if switch and on_evaluate:
        st.switch_page("pages/3_results.py")


# ---- progress on every page ---------------------------------------------------------------------
def _active() -> list[JobView]:
    watched = state.watched_jobs()
    return [v for v in resources.queue().jobs(state.owner_token()) if v.id in watched]


def _caption(v: JobView) -> str:
    bits = [f"{v.method}"]
    if v.waiting_for:
        bits.append(f"starts after your {v.waiting_for} earlier run{'s' if v.waiting_for > 1 else ''}")
    if v.sharing > 1:
        bits.append(f"sharing the server with {v.sharing - 1} other visitor"
                    f"{'s' if v.sharing > 2 else ''}' runs")
    if v.usage.calls or v.usage.retries:
        bits.append(f"{v.usage.calls} LLM calls billed, {v.usage.retries} retries")
    bits.append("runs in the background: switch pages or close the tab, nothing is lost")
    return " · ".join(bits)


@st.fragment(run_every=REFRESH_S)
def _progress() -> None:
    views = _active()
    if any(not v.active and not state.is_filed(v.id) for v in views):
        st.rerun()  # a run ended: the whole app files it (and may open Results)
    for v in views:
        if not v.active:
            continue
        st.progress(v.labeled / max(1, v.total),
                    text=f"**{v.name}** · " + progress_text(v.labeled, v.total, v.elapsed_s, v.eta_s))
        c1, c2 = st.columns([5, 1])
        c1.caption(_caption(v))
        if v.cancel_requested:
            c2.caption("Cancelling after the current chunk…")
        elif c2.button("Cancel", key=f"jobs.cancel.{v.id}", help="Stop after the current chunk; "
                       "every finished case is kept."):
            resources.queue().cancel(v.id, state.owner_token())
            st.rerun(scope="fragment")


def progress_area() -> None:
    """Progress bars (with Cancel) of this visitor's runs, refreshed every REFRESH_S seconds while any runs."""
    if any(v.active for v in _active()):
        _progress()

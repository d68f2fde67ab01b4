"""The run sections of "Run your app": what a run will do (calls, the evaluation method, the visitor's
limits), starting it, its progress per target with Cancel (a fragment that refreshes itself while
the run goes on), its outcome (failed questions with their errors, stopped targets, downloads) and
Results / Compare opened on its runs; a run a restart cut short is offered again (Resume).

Limits: calls to this deployment's own app (the owner's targets) count against the visitor's
billed-call limit (``RAG_EVAL_MAX_LLM_CALLS``; questions per run: ``RAG_EVAL_MAX_LLM_CASES``) — the
owner's app is the owner's spend; calls to the sample app or to the visitor's own app do not. An
LLM method for the evaluation is limited as on Evaluate."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from evaluators.datasets import DatasetError, QuestionSet, load_questions
from evaluators.limits import MAX_LLM_CALLS_ENV, MAX_LLM_CASES_ENV, Limits
from evaluators.methods import get_method
from evaluators.options import EvalOptions
from evaluators.targets import Target, TargetError, owner_environ, scan, target_from_dict

from .. import data as ud
from .. import history, jobs, resources, state, vocab
from . import choices, runner, sample
from . import folder as run_folder

METHODS = ("trace", "gpt_labeling", "hybrid")
_WATCHING = "run_app.watching"  # the id of the run this session saw going (opened when it ends)
_OPENED = "run_app.opened"


# ------------------------------------------------------------------------------------------ the plan
def owner_calls_refusal(lim: Limits, questions: int, calls: int, used: int) -> str | None:
    """Why calls to the deployment's own app may not start under the owner's limits (None: they may)."""
    if lim.max_llm_cases is not None and questions > lim.max_llm_cases:
        return (f"This run asks {questions:,} questions; this deployment's own app takes at most "
                f"{lim.max_llm_cases:,} per run (owner setting {MAX_LLM_CASES_ENV}). Ask fewer questions, or run "
                "the sample app or your own.")
    left = lim.calls_left(used)
    if left is not None and calls > left:
        return (f"This run makes {calls:,} calls to this deployment's own app, which count against your "
                f"{lim.max_llm_calls:,} billed calls (owner setting {MAX_LLM_CALLS_ENV}): {left:,} are left. "
                "Ask fewer questions, or run the sample app or your own.")
    return None


def plan(qs: QuestionSet, picked: list[choices.Choice]) -> dict[str, Any] | None:
    """What the run will do, and whether it may start (None: it may not; the reason is shown)."""
    if not picked:
        st.info("Pick at least one version of the app to run.")
        return None
    twice = [n for n, k in Counter(c.name for c in picked).items() if k > 1]
    if twice:
        st.error(f"Two targets are named “{ud.md_escape(twice[0])}”: a run is named after its target, so pick "
                 "one of them (or add yours under another name).")
        return None
    method = st.radio("Evaluate the answers with", METHODS, key="run_app.method", horizontal=True,
                      format_func=lambda m: get_method(m).name,
                      help="TRACE needs no key and no LLM call. The LLM methods use the sidebar's LLM settings "
                           "(one call per case).")
    spec = get_method(method)
    llm = None
    if spec.needs_llm:
        llm, status = state.llm_settings()
        if llm is None:
            st.warning(f"{spec.name} needs an LLM: {status} Set it in the sidebar, or evaluate with TRACE.")
            return None
    n, k = len(qs.rows), len(picked)
    calls = n * k
    if (note := sample.off_map_note(qs.rows, any(c.kind == "sample" for c in picked))):  # off the sample's map
        st.warning(note, icon=":material/travel_explore:")
    st.markdown(f"**{calls:,} call{'s' if calls != 1 else ''} to the app** ({n:,} question{'s' if n != 1 else ''} × "
                f"{k} version{'s' if k != 1 else ''}, one version after the other), then **{calls:,} cases "
                f"evaluated** with {spec.name}. It runs in the background: switch pages or close the tab, nothing "
                "is lost.")
    lim = resources.limits()
    owners = sum(c.kind == "owner" for c in picked)
    if owners:
        if why := owner_calls_refusal(lim, n, n * owners, jobs.calls_used()):
            st.error(why)
            return None
        if lim.max_llm_calls is not None:
            st.caption(f"Calls to this deployment's own app count against your limit: "
                       f"{lim.calls_left(jobs.calls_used()):,} of {lim.max_llm_calls:,} left.")
    options = EvalOptions(llm=llm)
    pays = llm is not None and jobs.owner_pays(state.credentials())
    if why := jobs.refusal(n, method, options, {"calls": calls} if llm is not None else None, pays):
        st.error(why)
        return None
    return {"qs": qs, "picked": picked, "method": method, "options": options, "pays": pays}


def _plan(method: str, options: EvalOptions, pays: bool) -> runner.Plan:
    owner = state.owner_token()
    queue = resources.queue()
    creds = state.credentials() if options.llm is not None else None
    llm_run = get_method(method).needs_llm
    submit = {"max_calls": resources.limits().max_llm_calls if pays and llm_run else None,
              "needs_key": creds is not None and creds.key_source == "password field"}

    def charge(kind: str, calls: int) -> None:
        if kind == "owner":  # the owner's app: the owner's spend (see the module doc)
            queue.ledger.add(owner, calls)
    return runner.Plan(queue, options, submit, {"owner": owner_environ(resources.secrets()), "sample": {},
                                                "typed": {}}, charge)


# ------------------------------------------------------------------------------------------ start
def start(p: dict[str, Any]) -> None:
    owner = state.owner_token()
    run_folder.purge(resources.limits().keep_days)
    qs: QuestionSet = p["qs"]
    try:
        where = run_folder.new_run(owner, ({**q.row, "id": q.id, "question": q.question} for q in qs.rows))
    except OSError as exc:
        st.error(f"Not started: the run's files cannot be kept ({exc}).")
        return
    picked: list[choices.Choice] = p["picked"]
    live = sample.running_targets() if any(c.kind == "sample" for c in picked) else {}  # starts the sample app
    targets = [runner.TargetRun(c.name, c.kind, where / f"{i}.jsonl", live.get(c.name, c.target)
                                if c.kind == "sample" else c.target) for i, c in enumerate(picked, 1)]
    run = runner.AppRun(owner, where, qs.name, len(qs.rows), p["method"], targets)
    _launch(run, qs, _plan(p["method"], p["options"], p["pays"]))


def _launch(run: runner.AppRun, qs: QuestionSet, plan_: runner.Plan) -> None:
    got = runner.start(run, qs, plan_)
    if isinstance(got, str):
        st.error(got)
        return
    st.session_state[_WATCHING] = run.id
    st.rerun()


def resume(where: Path, manifest: dict[str, Any], owner: list[choices.Choice],
           previous: runner.AppRun | None = None) -> None:
    """Start again a run that did not end (a restart, Cancel, an app that could not be reached): the
    questions not yet answered (or answered with an error) are asked, the rest evaluated."""
    try:
        qs = load_questions(where / run_folder.QUESTIONS)
    except DatasetError as exc:
        st.error(f"Cannot resume: its questions cannot be read ({exc}).")
        return
    method = str(manifest.get("method") or "trace")
    llm = None
    if get_method(method).needs_llm:
        llm, status = state.llm_settings()
        if llm is None:
            st.error(f"Cannot resume: {get_method(method).name} needs an LLM: {status}")
            return
    known = {t.name: t.target for t in previous.targets if t.target is not None} if previous else {}
    live = sample.running_targets() if any(t.get("kind") == "sample" for t in manifest["targets"]) else {}
    mine = {c.name: c.target for c in owner}
    typed = {c.name: c.target for c in choices.typed_choices()}
    targets = []
    for t in manifest["targets"]:
        target, why = _rebuild(t, known, live, mine, typed)
        answered = t.get("status") == "answered"
        tr = runner.TargetRun(str(t["name"]), str(t["kind"]), where / str(t["cases"]), target,
                              status="answered" if answered else "waiting", run_id=t.get("run_id"),
                              eval_status=t.get("eval_status"))
        if answered:  # its counts, from its cases file (not "0 of 0 answered" while the others go on)
            _answered_counts(tr, len(qs.rows))
        if target is None and not (answered and t.get("run_id")):
            tr.status, tr.stopped = "refused", why
        targets.append(tr)
    run = runner.AppRun(state.owner_token(), where, str(manifest.get("questions") or qs.name), len(qs.rows),
                        method, targets)
    options = EvalOptions(llm=llm)
    _launch(run, qs, _plan(method, options, llm is not None and jobs.owner_pays(state.credentials())))


def _answered_counts(t: runner.TargetRun, total: int) -> None:
    """The counts of a target answered in an earlier session of the run, read from its cases file."""
    t.done = t.total = total
    try:
        found = scan(t.cases)
    except (OSError, ValueError):
        return
    t.done = t.total = max(total, len(found.done))
    t.failures = [(i, str(e)) for i, e in found.done.items() if e is not None]


def _rebuild(t: dict[str, Any], known: dict[str, Target], live: dict[str, Target], mine: dict[str, Target],
             typed: dict[str, Target]) -> tuple[Target | None, str]:
    name, kind = str(t.get("name")), t.get("kind")
    if kind == "sample":
        return live.get(name), "the sample app has no such version"
    if kind == "owner":
        return mine.get(name), "no longer among this deployment's targets"
    if name in known:
        return known[name], ""
    if name in typed:
        return typed[name], ""
    if t.get("has_headers"):
        return None, ("it sent a header, whose value is never stored: add it again (same name) under “Add your "
                      "own app”, then Resume")
    try:
        return target_from_dict(t.get("spec"), choices.SOURCE, choices.visitor_policy()), ""
    except TargetError as exc:
        return None, str(exc)


# ------------------------------------------------------------------------------------------ progress
def target_line(t: runner.TargetRun, view: Any = None, ended: bool = False, cancelled: bool = False) -> str:
    """One target's state in words (the calls, then the evaluation); ``ended``: the run is over
    (``cancelled``: by Cancel), so what did not happen will not happen before Resume."""
    failed = f", {len(t.failures)} failed" if t.failures else ""
    if t.status == "waiting":
        return f"**{t.name}** · waits for the versions before it"
    if t.status == "calling":
        return f"**{t.name}** · asking: {t.done} / {t.total} questions"
    if t.status == "refused":
        return f"**{t.name}** · not called: {t.stopped}"
    if t.status in ("stopped", "cancelled"):
        why = "cancelled" if t.status == "cancelled" else f"the run stopped: {t.stopped}"
        return f"**{t.name}** · {why} — {t.done} of {t.total} questions asked{failed}; Resume asks the others"
    if t.status == "skipped":
        return f"**{t.name}** · not called (the run ended first)"
    lat = t.latency or {}
    speed = (f" · latency p50 {lat['p50_s']:.2f} s, p95 {lat['p95_s']:.2f} s"
             if lat.get("p50_s") is not None and lat.get("p95_s") is not None else "")
    text = f"**{t.name}** · {t.total - len(t.failures)} of {t.total} answered{failed}{speed}"
    ev = t.eval_status
    if view is not None and view.active:
        return text + f" · evaluating: {view.labeled} / {view.total} cases"
    if ev in ("queued", "running"):
        return text + " · evaluation queued"
    if ev == "finished":
        return text + " · evaluated"
    if ev == "cancelled":
        return text + " · evaluation cancelled part way — Resume evaluates it again"
    if ev in ("interrupted", "not started"):
        return text + f" · evaluation {ev}" + (f" ({t.eval_note})" if t.eval_note else "")
    if ended:
        return text + (" · not evaluated: cancelled first — Resume evaluates it" if cancelled else
                       " · not evaluated — Resume evaluates it")
    return text + " · evaluation next"


def _fraction(t: runner.TargetRun, view: Any) -> float:
    if t.status == "calling" and t.total:
        return min(1.0, t.done / t.total)
    if view is not None and view.total:
        return min(1.0, view.labeled / view.total)
    return 1.0 if t.status in runner.CALL_DONE and t.status != "waiting" else 0.0


@st.fragment(run_every=1.0)
def _progress() -> None:
    owner = state.owner_token()
    run = runner.get(owner)
    if run is None:
        return
    if run.finished:
        st.rerun(scope="app")  # the outcome (and Results / Compare) is drawn by the whole page
    st.session_state[_WATCHING] = run.id
    queue = resources.queue()
    st.markdown(f"**{'Asking your app' if run.phase == 'calling' else 'Evaluating the answers'}** · "
                f"{jobs.fmt_seconds(run.elapsed)} elapsed")
    for t in run.targets:
        view = queue.get(t.run_id, owner) if t.run_id else None
        st.progress(_fraction(t, view), text=target_line(t, view, cancelled=run.cancel.is_set()))
    if run.cancel.is_set():
        st.caption("Cancelling: no other question is asked, no other evaluation started…")
    elif st.button("Cancel", key="run_app.cancel", help="Stop calling the app and cancel the evaluations; "
                                                          "every answer so far is kept (Resume goes on)."):
        runner.cancel(run, queue)
        st.rerun(scope="fragment")


def going() -> bool:
    """A run of this visitor is going on."""
    run = runner.get(state.owner_token())
    return run is not None and not run.finished


def progress() -> None:
    """The run going on, refreshed every second while it goes on."""
    run = runner.get(state.owner_token())
    if run is not None and not run.finished:
        _progress()


# ------------------------------------------------------------------------------------------ outcome
def resume_area(owner: list[choices.Choice]) -> None:
    """A run of this visitor that a restart cut short (its manifest on disk, no thread): Resume or drop."""
    me = state.owner_token()
    if runner.get(me) is not None:
        return
    found = run_folder.latest(me)
    if found is None or found[1].get("complete"):
        return
    where, manifest = found
    names = ", ".join(str(t.get("name")) for t in manifest["targets"])
    with st.container(border=True):
        st.warning(f"Your run of **{ud.md_escape(names)}** on {ud.md_escape(str(manifest.get('questions')))} did not "
                   "end (the server restarted?). Every answer so far is kept: Resume asks the other questions "
                   "and evaluates the answers.")
        c1, c2, _ = st.columns([1, 1, 3])
        if c1.button("Resume", key="run_app.resume_saved", type="primary"):
            resume(where, manifest, owner)
        if c2.button("Drop it", key="run_app.drop_saved"):
            shutil.rmtree(where, ignore_errors=True)
            st.rerun()


def id_words(t: runner.TargetRun) -> str:
    """What the app's unmatched ids mean for this target: the sample app's ids cannot be pointed anywhere,
    so for it the cause is said instead of how to map ids (``sample.SAMPLE_ID_NOTE``)."""
    note = t.id_note or ""
    if t.kind == "sample" and "text matches a reference passage either" in note:
        return sample.SAMPLE_ID_NOTE
    return note


def outcome(owner: list[choices.Choice]) -> None:
    """The ended run: each target's outcome, failed questions with their errors, downloads, Resume,
    and Results / Compare (opened by themselves when this session saw the run end)."""
    run = runner.get(state.owner_token())
    if run is None or not run.finished:
        return
    st.subheader("Outcome")
    asked = sum(t.done for t in run.targets)
    cancelled = run.cancel.is_set()
    st.caption(f"Questions: {ud.md_escape(run.questions_name)} · {asked:,} of {run.calls:,} calls made · "
               f"{'cancelled' if cancelled else 'ended'} after {jobs.fmt_seconds(run.elapsed)}")
    if cancelled:
        st.info("You cancelled this run: every answer and every case evaluated so far is kept. Resume asks "
                "the questions not yet answered and evaluates what was not evaluated.",
                icon=":material/cancel:")
    if run.error:
        st.error(f"The run stopped on an error: {ud.md_escape(run.error)}")
    for t in run.targets:
        with st.container(border=True):
            st.markdown(target_line(t, ended=True, cancelled=cancelled))
            if t.id_note:  # the app's ids mean nothing to the test set: said before anyone reads a 0
                st.warning(f"Retrieval: {ud.md_escape(id_words(t))}", icon=":material/link_off:")
            if t.failures:
                with st.expander(f"{vocab.count(len(t.failures), 'question')} the app did not answer — with the error"):
                    st.dataframe(pd.DataFrame(t.failures, columns=["question id", "error"]), hide_index=True,
                                 width="stretch")
            if t.cases.exists():
                # none answered: the file holds every question with its error, no answers
                what = "answers" if t.answered or t.already else "cases file: every question with its error"
                st.download_button(f"Download {t.name}'s {what} (JSONL)", t.cases.read_bytes,
                                   file_name=f"{t.name}.jsonl", mime="application/jsonl",
                                   key=f"run_app.dl.{t.name}", on_click="ignore")
    done = [t for t in run.targets if t.run_id and t.eval_status in ("finished", "cancelled")]
    if not run.complete:
        manifest = run_folder.read_manifest(run.folder)
        if manifest is not None and st.button("Resume", key="run_app.resume", type="primary",
                                               help="Ask the questions not yet answered (and those that failed), "
                                                    "then evaluate"):
            resume(run.folder, manifest, owner, run)
    if not done:
        return
    if st.session_state.get(_WATCHING) == run.id and st.session_state.get(_OPENED) != run.id and not cancelled:
        _open(run, done)  # this session saw it going: open the verdict now (not after Cancel: it stays here)
    c1, c2 = st.columns(2)
    if len(done) >= 2 and c1.button(f"Compare {done[0].name} with {', '.join(t.name for t in done[1:])}",
                                    key="run_app.compare", type="primary"):
        _open(run, done)
    if c2.button("Open in Results", key="run_app.results"):
        _open(run, done, results=True)


def _open(run: runner.AppRun, done: list[runner.TargetRun], results: bool = False) -> None:
    st.session_state[_OPENED] = run.id
    st.session_state.pop(_WATCHING, None)
    labels = []
    for t in done:
        assert t.run_id is not None
        state.mark_filed(t.run_id)  # (announced here, not again by the job's end)
        labels.append(state.add_run(history.label_of(t.run_id, run.run_name(t)), None, t.run_id))
    state.set_current_run(labels[-1] if results else labels[0])  # (before switching: a switch ends the script)
    if len(done) >= 2 and not results:
        state.ask_comparison(done[0].run_id or "", [t.run_id or "" for t in done[1:]])
        st.switch_page("pages/5_compare.py")
    st.switch_page("pages/3_results.py")

"""Evaluate: pick a method (and metric families), see LLM cost and limits, start a background run."""

import json

import streamlit as st

from evaluators.families import list_metrics
from evaluators.llm.settings import LLMSettings
from evaluators.methods import METHODS
from evaluators.options import EvalOptions
from evaluators.pipeline import estimate
from ui import history, jobs, layout, state
from ui.evaluate import resume

#: How often a run saves its finished cases (its step): by time (fastest), or every N cases.
STEPS = {"auto": "about every 2 seconds of work (fastest)", 5: "every 5 cases", 10: "every 10 cases",
         25: "every 25 cases", 50: "every 50 cases", 100: "every 100 cases"}

st.title("Evaluate")
if notice := state.pop_notice():
    st.info(notice)
resume.interrupted_area()

cases = state.get_cases()
if not cases:
    st.info("No cases loaded yet.")
    st.page_link("pages/1_upload.py", label="Upload a file or load a sample set", icon=":material/upload_file:")
    layout.stop()
st.caption(f"{len(cases)} cases from {state.get_data().filename}")

specs = dict(METHODS.items())
method = st.radio(
    "Method", list(specs), key="evaluate.method", format_func=lambda m: specs[m].name,
    captions=[s.description for s in specs.values()],
)
spec = specs[method]
llm, llm_status = state.llm_settings()

extra: dict = {}
if method == "hybrid":
    mode = st.radio("Hybrid mode", ["every case", "selective (LLM only where least sure)"],
                    key="evaluate.hybrid_mode", horizontal=True)
    if mode.startswith("selective"):
        extra["selective_share"] = st.slider("Share of cases sent to the LLM", 0.05, 1.0, 0.3, 0.05,
                                             key="evaluate.share")
if method == "jury":
    models = st.text_input("Jury models (comma-separated, same provider and key)",
                           key="evaluate.jury", placeholder="llama-3.3-70b-versatile, qwen/qwen3-32b")
    names = [m.strip() for m in models.split(",") if m.strip()]
    if llm is not None and names:
        extra["jury"] = tuple(llm.model_copy(update={"model": m}) for m in names)

by_name = {d["name"]: d for d in list_metrics()}
picked = st.multiselect(
    "Add metric families (ragas / Tonic style)", list(by_name), key="evaluate.metrics",
    format_func=lambda n: f"{n} · {by_name[n]['family']}" + (" · needs LLM" if by_name[n]["needs_llm"] else ""),
    help="Computed next to the TRACE metrics. LLM metrics are skipped (with the reason) "
         "when no LLM is configured.",
)
if any(by_name[n]["needs_llm"] for n in picked) and llm is None:
    st.caption(":material/info: Some selected metrics need an LLM; without a key they are reported as skipped.")
params: dict = {}
with_params = {n: by_name[n]["params"] for n in picked if by_name[n].get("params")}
if with_params:
    hint = "; ".join(f"{n}: {', '.join(p)}" for n, p in with_params.items())
    raw = st.text_area("Metric parameters (JSON, by metric)", key="evaluate.params", height=90,
                       placeholder='{"regex": {"pattern": "\\d+"}, "response_length": {"min": 10, "max": 400}}',
                       help=f"Parameters these metrics accept — {hint}. Missing required ones are "
                            "reported as skipped.")
    try:
        params = json.loads(raw) if raw.strip() else {}
    except ValueError:
        params = None
    if not isinstance(params, dict) or not all(isinstance(v, dict) for v in params.values()):
        st.error('Metric parameters must be a JSON object like {"regex": {"pattern": "…"}}.')
        params = {}
default_name = jobs.default_run_name(method, state.get_data().filename)
name = st.text_input("Run name", key="evaluate.name", placeholder=default_name,
                     help="What every page calls this run (Results, Compare, Inspect). Empty: the file's name, "
                          "the grey text shown. Rename it later in Compare → Run history.")

options = EvalOptions(metrics=tuple(picked), metric_params=params, llm=llm, **extra)
llm_metrics = any(by_name[n]["needs_llm"] for n in picked)
pays = llm is not None and jobs.owner_pays(state.credentials())  # the owner's limits apply

est = None
if spec.needs_llm or llm_metrics:
    if llm is None and spec.needs_llm:
        st.warning(f"**{spec.name} needs an LLM.** {llm_status}  \n"
                   "Without a key you can still run the offline TRACE heuristic; the estimate "
                   "below is priced for the default model.")
    elif llm is not None:
        st.success(f"LLM: {llm_status}")
    dry = options if llm is not None else options.model_copy(update={"llm": LLMSettings(**state.llm_choice())})
    key = ("estimate", state.get_data().source_id, len(cases), method, json.dumps(dry.public_dict(), sort_keys=True))
    try:
        est = state.memo(key, lambda: estimate(list(cases), method, dry))
    except Exception as exc:  # noqa: BLE001 - e.g. bad metric parameters: say so, keep the page
        st.error(f"Could not estimate: {exc}")
    if est is not None:
        fam = jobs.metric_llm(est)  # the family metrics', answer correctness's and an agent's goal accuracy calls
        st.write("**Before you run** (estimate, no LLM call made)")
        c = st.columns(4)
        c[0].metric("LLM calls", f"{jobs.estimated_calls(est):,}")
        c[1].metric("Prompt tokens", f"{est.get('prompt_tokens', 0) + fam.get('prompt_tokens', 0):,}")
        c[2].metric("Completion tokens", f"{est.get('completion_tokens', 0) + fam.get('completion_tokens', 0):,}")
        c[3].metric("Cost (USD)", jobs.cost_text(est), help=None if jobs.cost_text(est) != "unknown" else
                    f"No price is known for {est.get('model') or 'this model'} (e.g. a local server): "
                    "the estimate counts its tokens only. The server's owner can add prices (docs/deploy.md).")
        if (split := jobs.calls_words(est)):
            st.caption(f"LLM calls: {split}.")
    if pays and (lim := jobs.limits_text()):
        st.caption(lim)

why = jobs.refusal(len(cases), method, options, est, pays)
if why:
    st.error(why)
can_run = (not spec.needs_llm or llm is not None) and not why
with st.expander("How often the run saves its progress"):
    chunk = st.radio("Save finished cases", list(STEPS), key="evaluate.chunk", format_func=STEPS.__getitem__,
                     help="Finished cases are saved after each step, and Cancel stops after the current step. "
                          "Smaller steps: Cancel acts sooner, but the run is slower.")
going = jobs.going()
if st.button(f"Run {spec.name} on {len(cases)} cases", key="evaluate.run", type="primary",
             disabled=not can_run or bool(going)):
    step = None if chunk == "auto" else int(chunk)  # None: steps sized by time
    if refused := jobs.start(cases, method, options, name=name.strip() or default_name, chunk_size=step,
                             estimate=est):
        st.error(refused)
if going:
    st.caption(f":material/hourglass_top: Your run “{going[0].name}” is going on (progress at the top): Run is available "
               "again when it ends or is cancelled.")

if (run := history.get_current_run()) is not None:
    st.divider()
    st.caption(f"Latest run: {state.current_run_label()} · {run.summary.num_scored}/{run.summary.num_done} scored"
               + (" · cancelled" if run.cancelled else ""))
    st.page_link("pages/3_results.py", label="See results →", icon=":material/bar_chart:")

"""Evaluate: pick a method (and metric families), estimate LLM cost, run with progress + cancel."""

import json

import streamlit as st

from evaluators.llm.settings import LLMSettings
from evaluators.methods import METHODS
from evaluators.options import EvalOptions
from ui import evaluation, optional, state

st.title("Evaluate")
if notice := state.pop_notice():
    st.info(notice)

job = state.get_job()
if job is not None:
    st.subheader(f"Running {job.name or job.method}…")
    evaluation.drive(job)
    st.stop()

cases = state.get_cases()
if not cases:
    st.info("No cases loaded yet.")
    st.page_link("pages/1_upload.py", label="Upload a file or load a sample set", icon="📤")
    st.stop()
st.caption(f"{len(cases)} cases from {state.get_data().filename}")

specs = dict(METHODS.items())
method = st.radio(
    "Method", list(specs), key="evaluate.method", format_func=lambda m: specs[m].name,
    captions=[s.description for s in specs.values()],
)
spec = specs[method]
llm, llm_status = state.llm_settings()
needs_llm = spec.needs_llm

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

decls = optional.metric_declarations()
by_name = {optional.field(d, "name"): d for d in decls}
picked = st.multiselect(
    "Add metric families (ragas / Tonic style)", list(by_name), key="evaluate.metrics",
    format_func=lambda n: f"{n} · {optional.field(by_name[n], 'family', '')}"
                          + (" · needs LLM" if optional.field(by_name[n], "needs_llm") else ""),
    help="Computed next to the TRACE metrics. LLM metrics are skipped (with the reason) "
         "when no LLM is configured." if decls else "Metric families are not installed.",
)
if any(optional.field(by_name[n], "needs_llm") for n in picked) and llm is None:
    st.caption("ℹ️ Some selected metrics need an LLM; without a key they are reported as skipped.")
params: dict = {}
with_params = {n: optional.field(by_name[n], "params") for n in picked if optional.field(by_name[n], "params")}
if with_params:
    hint = "; ".join(f"{n}: {', '.join(p)}" for n, p in with_params.items())
    raw = st.text_area("Metric parameters (JSON, by metric)", key="evaluate.params", height=90,
                       placeholder='{"regex": {"pattern": "\\d+"}, "response_length": {"min": 10, "max": 400}}',
                       help=f"Parameters these metrics accept — {hint}. Missing required ones are "
                            "reported as skipped.")
    try:
        params = json.loads(raw) if raw.strip() else {}
        assert isinstance(params, dict) and all(isinstance(v, dict) for v in params.values())
    except (ValueError, AssertionError):
        st.error('Metric parameters must be a JSON object like {"regex": {"pattern": "…"}}.')
        params = {}
name = st.text_input("Run name (optional)", key="evaluate.name",
                     placeholder=f"{method} on {state.get_data().filename}")

options = EvalOptions(metrics=tuple(picked), metric_params=params, llm=llm, **extra)

if needs_llm:
    if llm is None:
        st.warning(f"**{spec.name} needs an LLM.** {llm_status}  \n"
                   "Without a key you can still run the offline TRACE heuristic, or estimate the "
                   "cost of this method below.")
    else:
        st.success(f"LLM: {llm_status}")
    est = optional.estimate()
    if st.button("Estimate calls, tokens and cost (no LLM call)", key="evaluate.estimate"):
        if est is None:
            st.error("Cost estimates are not available in this installation "
                     "(evaluators.pipeline.estimate is missing).")
        else:
            dry = options if llm is not None else options.model_copy(
                update={"llm": LLMSettings(**state.llm_choice())})
            try:
                e = est(list(cases), method, dry)
                c = st.columns(4)
                c[0].metric("LLM calls", f"{e.get('calls', 0):,}")
                c[1].metric("Prompt tokens", f"{e.get('prompt_tokens', 0):,}")
                c[2].metric("Completion tokens", f"{e.get('completion_tokens', 0):,}")
                cost = e.get("cost_usd")
                c[3].metric("Cost (USD)", "unknown" if cost is None else f"${cost:,.4f}")
            except Exception as exc:  # noqa: BLE001
                st.error(f"Could not estimate: {exc}")

can_run = not needs_llm or llm is not None
chunk = st.select_slider("Cases per step (smaller = finer progress and cancel)",
                         [5, 10, 25, 50, 100], value=25, key="evaluate.chunk")
if st.button(f"Run {spec.name} on {len(cases)} cases", key="evaluate.run", type="primary",
             disabled=not can_run):
    evaluation.start(cases, method, options, name=name, chunk_size=chunk)

if (run := state.get_current_run()) is not None:
    st.divider()
    st.caption(f"Latest run: {state.current_run_label()} · {len(run.scored)}/{len(run.results)} scored"
               + (" · cancelled" if run.cancelled else ""))
    st.page_link("pages/3_results.py", label="See results →", icon="📊")

"""The shared sidebar (rendered by app.py on every page): LLM provider, model, base URL and key
before the page; the dataset / run status after it (so it shows what the page just did)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evaluators.llm.settings import KEY_ENV
from evaluators.paths import store_is_temporary
from evaluators.types import RunResult

from .. import history, resources, share, state


def _reset_model() -> None:
    st.session_state[state.MODEL] = state.DEFAULT_MODELS[st.session_state[state.PROVIDER]]


def base_url_label(provider: str) -> str:
    """The base URL field's label: required for an OpenAI-compatible server, optional otherwise."""
    return "Base URL (required)" if provider == "openai_compatible" else "Base URL (optional)"


def render() -> None:
    """The LLM settings (widgets: drawn before the page, which reads them)."""
    state.restore_sidebar()
    share.open_from_url()
    with st.sidebar:
        state.send_owner_cookie()
        if store_is_temporary():
            st.warning("Run history is kept in a temporary folder on this server: it is lost when the "
                       "server (the Space) restarts. Download what you want to keep.", icon=":material/warning:")
        st.subheader("LLM (for GPT labeling / hybrid)")
        st.selectbox("Provider", state.PROVIDERS, key=state.PROVIDER, on_change=_reset_model,
                     help="groq and openai use their official SDKs; openai_compatible needs a base URL.")
        if state.MODEL not in st.session_state:
            st.session_state[state.MODEL] = state.DEFAULT_MODELS[st.session_state[state.PROVIDER]]
        st.text_input("Model", key=state.MODEL)
        provider = st.session_state[state.PROVIDER]
        st.text_input(base_url_label(provider), key=state.BASE_URL,
                      placeholder="https://…/v1 for an OpenAI-compatible server",
                      help=("An OpenAI-compatible server (vLLM, Ollama, LM Studio, …) is reached only "
                            "through this URL. " if provider == "openai_compatible" else
                            "Leave empty for the provider's official endpoint. ")
                      + "A base URL typed here receives only a key typed below in this "
                        "session (or none): the server's own keys never go to it.")
        st.text_input("API key", key=state.API_KEY, type="password",
                      help="Kept in memory for this browser session only: never saved to run "
                           "history, exports or logs (a background run holds it in memory until "
                           "it ends). Without one, the server's key for the provider "
                           f"({', '.join(KEY_ENV.values())} in the environment or Streamlit "
                           "secrets) is used, and only for its official endpoint.")
        state.keep_sidebar()
        settings, status = state.llm_settings()
        st.caption((":material/check_circle: " if settings else ":material/info: ") + status)
        st.divider()


def render_status() -> None:
    """Dataset, current run and runs going on: drawn after the page (inside the sidebar container
    app.py reserved), so an upload or a finished run shows in the same script run."""
    data, run = state.get_data(), history.get_current_run()
    st.caption(dataset_text(data, run))
    if (line := current_run_line(state.on_screen(), state.current_run_label(), run)):
        st.caption(line)
    going = [v for v in resources.queue().jobs(state.owner_token()) if v.active]
    if going:
        # no count here: the sidebar is drawn with the page, the progress bar refreshes on its own
        st.caption(":material/hourglass_top: Running: " + " · ".join(f"{v.name} ({v.total} cases)" for v in going)
                   + " — progress at the top of the page")
    lim = resources.limits()
    st.caption(PRIVATE if not lim.shared_history else SHARED)
    for problem in lim.problems:
        st.warning(f"Owner setting ignored: {problem}")
    state.drop_token_from_url()


def current_run_line(shown: tuple[str, int, int, str] | None, label: str | None, run: Any) -> str | None:
    """The sidebar's "Current run" line: the run the page shows (``state.on_screen``) when it named one,
    else the session's current run (None: neither)."""
    if shown is not None:
        name, scored, done, note = shown
        return f"Current run: {name} · {scored}/{done} scored" + (f" ({note})" if note else "")
    if run is None or label is None:
        return None
    return f"Current run: {label} · {run.summary.num_scored}/{run.summary.num_done} scored"


PRIVATE = (":material/lock: Your run history is private to this browser: a cookie keeps it, page addresses carry none "
           "of it. To show someone one run, use “Share this run” on Results.")
SHARED = ":material/group: The run history is shared by everyone using this server."


def dataset_text(data: state.LoadedData | None, run) -> str:
    """The sidebar's dataset line. A run opened after a reload (or from a link) brings its own cases:
    say so rather than "none loaded"."""
    if data is not None:
        return f"Dataset: {data.filename} · {len(data.cases)} cases"
    if run is not None:  # a stored run counts its cases without reading them
        n = len(run.results) if isinstance(run, RunResult) else len(run)
        return (f"Dataset: the {n} cases of the current run "
                "(no file loaded in this tab: Upload to run others)")
    return "Dataset: none loaded"

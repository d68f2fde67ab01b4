"""Results, for runs of cases that came from traces: where the trace columns are, and sending the
scores back — annotation files to download, or straight to a Phoenix server. (Where one case came
from — its trace and spans — is Inspect's: ``inspect_view.trace_panel``.)

Keys: the Phoenix API key is a password field of this form, sent only to the address typed beside
it, held for the one request and never stored; no key from the environment or the secrets is
ever sent to a typed address."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evaluators.net import check_typed_url
from evaluators.traces import DEFAULT_TARGETS, TARGETS, PhoenixSendError, send_to_phoenix
from evaluators.traces.annotations import annotation_files, formats_of, traced
from evaluators.types import RunResult

from .. import history, vocab

_FILES = {
    "phoenix": ("Phoenix span annotations (.parquet)", "application/octet-stream",
                "pd.read_parquet(f) → Client().spans.log_span_annotations_dataframe(dataframe=…): one "
                "annotation per metric on each trace's root span, the unsupported sentences as explanation."),
    "phoenix_documents": ("Phoenix document annotations (.parquet)", "application/octet-stream",
                          "→ log_document_annotations_dataframe: each retrieved document's relevance and use "
                          "(share of its sentences) on the retriever span."),
    "langsmith": ("LangSmith feedback (.jsonl)", "application/jsonl",
                  "Client().create_feedback(**row) for each line: run id (the root run), key, score, comment."),
    "langfuse": ("Langfuse scores (.jsonl)", "application/jsonl",
                 "Langfuse().create_score(**row) for each line: trace id, observation id, name, value, comment."),
}


def _is_traced(run: Any) -> bool:
    """The run's cases came from a trace export (its first case tells: a file is one or the other)."""
    first = next(iter(run.iter_results() if hasattr(run, "iter_results") else run.results), None)
    return bool(first is not None and first.case.metadata.get("trace_id"))


def cases_note(run: Any) -> None:
    """Above the cases table of a run read from traces: where the trace columns are."""
    if _is_traced(run):
        st.caption("These cases came from traces: each id is its trace id; the root span, session, model "
                   "and tags are the last columns. Download → send the scores back to the same spans.")


def send_back(stored: Any, key: str) -> None:
    """The Download tab's part for traced runs: annotation files, and sending to Phoenix."""
    if not _is_traced(stored):
        return
    st.divider()
    run = history.whole(stored)
    if run is None:
        st.write("**Send the scores back to your traces**")
        st.caption(f"This run has {len(stored):,} cases, more than the {history.FULL_RUN_MAX:,} the dashboard "
                   "reads at once: write the annotation files with `python -m evaluators evaluate FILE "
                   "--annotations-out DIR` (or send them with `--to-phoenix URL`).")
        return
    cases = traced(run)
    st.write(f"**Send the scores back to your traces** — {vocab.count(len(cases), 'scored case')} came from traces")
    if not cases:
        st.caption("No case that came from a trace was scored: nothing to send.")
        return
    fmts = formats_of(run)
    first = list(dict.fromkeys(t for f in fmts for t in DEFAULT_TARGETS.get(f, ())))
    for t in first:
        _download(run, t, key)
    with st.expander("Files for the other tools"):
        for t in (t for t in TARGETS if t not in first):
            _download(run, t, key)
    with st.form(f"{key}.phoenix", border=True):
        st.write("**Send to a Phoenix server**")
        st.caption("The annotations land on the same spans (sending again updates them). The address is "
                   "reached from the server running this dashboard: a hosted copy cannot reach your "
                   "laptop's localhost — download the files above instead.")
        url = st.text_input("Phoenix address", placeholder="http://127.0.0.1:6006", key=f"{key}.phoenix.url")
        api_key = st.text_input("API key (only if your Phoenix requires one)", type="password",
                                key=f"{key}.phoenix.key",
                                help="Sent only to the address above, for this request; never stored.")
        if st.form_submit_button("Send to Phoenix", type="primary"):
            if not url.strip():
                st.error("Type the Phoenix address first.")
            else:
                try:
                    check_typed_url(url, "Phoenix address")  # the server makes the request: not to its cloud
                    report = send_to_phoenix(url, run, api_key=api_key or None)
                except (PhoenixSendError, ValueError) as exc:
                    st.error(f"Not sent: {exc}")
                else:
                    (st.warning if report.unknown_spans or report.problems else st.success)(
                        report.text().capitalize())


def _download(run: RunResult, target: str, key: str) -> None:
    label, mime, how = _FILES[target]

    def build() -> bytes:  # on click, not on every render
        return annotation_files(run, [target])[TARGETS[target]]

    st.download_button(label, build, file_name=TARGETS[target], mime=mime, key=f"{key}.{target}",
                       on_click="ignore", help=how)

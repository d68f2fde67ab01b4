"""The sections of "Make a test set": documents, settings (with the LLM estimate and the visitor's
limits), the run's progress with Cancel, the review table (accept, edit, delete; the passage of
the picked question with its answer highlighted) and saving (session state + a JSONL download)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd
import streamlit as st

from evaluators.documents import Corpus, DocumentsError, read_documents, read_uploaded
from evaluators.limits import owner_pays
from evaluators.store import testset_name
from evaluators.testset import GENERATORS, QUESTION_TYPES, TYPE_HELP, estimate, to_jsonl

from .. import data as ud
from .. import jobs, resources, state
from . import passage, runner

SAMPLE_DOCS = Path(__file__).resolve().parents[2] / "data" / "sample_docs"
KINDS = ["txt", "md", "markdown", "html", "htm", "pdf", "docx"]
_CORPUS = CORPUS_KEY = "testset.corpus"  # (source id — "sample" for the sample's documents — , Corpus)
_ROWS = "testset.rows"


# ---------------------------------------------------------------------------------------- documents
def _take(ident: Any, corpus: Corpus | None) -> None:
    """Hold these documents; another set of documents clears the review of the old one."""
    held = st.session_state.get(_CORPUS)
    if held is None or held[0] != ident:
        for key in (_ROWS, "testset.summary", "testset.skipped", "testset.table", "testset.pick", "testset.name"):
            st.session_state.pop(key, None)
    st.session_state[_CORPUS] = (ident, corpus) if corpus is not None else None


def documents() -> Corpus | None:
    """The documents of this session: dropped files, or the sample's in one click. Other documents
    than the ones the questions were made of clear the review (its table and its Save button)."""
    left, right = st.columns([3, 2])
    with left:
        ups = st.file_uploader("Drop documents: .txt .md .html .pdf .docx", type=KINDS, accept_multiple_files=True,
                               key="testset.files", help=f"Up to {ud.MAX_UPLOAD_MB} MB per file. Files that cannot "
                               "be read (a scan without text, an encrypted PDF, a page that is only a menu) are "
                               "named with the reason.")
    with right:
        st.write("**Or use the sample's documents**")
        st.caption("15 short Markdown files, the passages the sample test cases retrieved.")
        if st.button("Use the sample's documents", key="testset.sample", width="stretch"):
            _take("sample", read_documents([SAMPLE_DOCS]))
    held = st.session_state.get(_CORPUS)
    if ups:
        ident = tuple((u.file_id, u.name) for u in ups)
        if held is None or held[0] != ident:
            try:
                _take(ident, read_uploaded([(u.name, u.getvalue()) for u in ups],
                                           max_bytes=ud.MAX_UPLOAD_MB * 1024 * 1024))
            except DocumentsError as exc:
                _take(ident, None)
                st.error(f"No document could be read: {exc}")
    elif held is not None and held[0] == st.session_state.get("testset.up_ident"):
        _take(None, None)  # the dropped files were removed
    st.session_state["testset.up_ident"] = tuple((u.file_id, u.name) for u in ups) if ups else None
    held = st.session_state.get(_CORPUS)
    if not held:
        st.info("Drop documents, or use the sample's, to begin.")
        return None
    corpus: Corpus = held[1]
    st.success(f"Read {corpus.summary()}.")
    if corpus.skipped:
        with st.expander(f"{len(corpus.skipped)} file(s) not read", expanded=True):
            for s in corpus.skipped:
                st.markdown(f"- **{ud.md_escape(s.name)}**: {ud.md_escape(s.reason)}")
    dropped = sum(len(d.dropped) for d in corpus.documents)
    if dropped:
        st.caption(f"{dropped:,} lines of the pages' menus, breadcrumbs, footers and banners left out of the "
                   "passages.")
    return corpus


def is_sample() -> bool:
    held = st.session_state.get(_CORPUS)
    return held is not None and held[0] == "sample"


# ---------------------------------------------------------------------------------------- settings
def settings(corpus: Corpus) -> dict[str, Any] | None:
    """Generator, count, types, seed; the LLM estimate and the visitor's limits. None: cannot start."""
    names = list(GENERATORS)
    c1, c2, c3 = st.columns([2, 1, 1])
    gen = c1.radio("Generator", names, key="testset.generator", horizontal=True,
                   format_func=lambda g: GENERATORS.get(g).name, help=GENERATORS.get("offline").description
                   + "\n\n" + GENERATORS.get("llm").description)
    n = int(c2.number_input("Questions", 1, 500, value=min(10, 5 * len(corpus.documents)), key="testset.n"))
    seed = int(c3.number_input("Seed", 0, 10_000, value=0, key="testset.seed"))
    spec = GENERATORS.get(gen)
    types: list[str] = list(spec.default_types)
    if len(spec.types) > 1:
        types = st.multiselect("Question types", list(spec.types), default=list(spec.default_types),
                               key="testset.types", format_func=lambda t: f"{t} — {TYPE_HELP[t]}")
        if not types:
            st.warning("Pick at least one question type.")
            return None
    out: dict[str, Any] = {"generator": gen, "n": n, "seed": seed, "types": types, "llm": None, "max_calls": None}
    if not spec.needs_llm:
        st.caption("No key, no model download: English documents; " + ", ".join(QUESTION_TYPES[:1]) + " questions.")
        return out
    llm, status = state.llm_settings()
    if llm is None:
        st.warning(f"The LLM generator needs an LLM: {status} Set it in the sidebar.")
        return None
    st.caption(f"LLM: {status}")
    est = estimate(corpus, n, generator=gen, types=types, llm=llm)
    st.info(f"Estimate: about **{est['calls']:,} LLM calls**, {est['prompt_tokens']:,} prompt + "
            f"{est['completion_tokens']:,} completion tokens, **{jobs.cost_text(est)}** ({est['model']}). "
            f"{est['note']}.")
    if owner_pays(state.credentials()):
        lim = resources.limits()
        why = lim.check_llm_run(cases=n, calls=int(est["calls"]), used=jobs.calls_used())
        if why:
            st.error(why)
            return None
        out["max_calls"] = lim.calls_left(jobs.calls_used())
        if text := jobs.limits_text():
            st.caption(text)
    out["llm"] = llm
    return out


# ---------------------------------------------------------------------------------------- the run
def start(corpus: Corpus, choice: dict[str, Any]) -> None:
    owner = state.owner_token()
    pays = choice["llm"] is not None and owner_pays(state.credentials())

    def charge(result: Any) -> None:
        if pays and result.usage.calls:
            resources.queue().ledger.add(owner, result.usage.calls)

    got = runner.start(owner, corpus, choice["n"], choice["generator"], types=choice["types"], seed=choice["seed"],
                       llm=choice["llm"], max_llm_calls=choice["max_calls"], on_done=charge)
    if isinstance(got, str):
        st.error(got)
    else:
        st.session_state.pop(_ROWS, None)
        held = st.session_state.get(_CORPUS)
        st.session_state["testset.made_for"] = held[0] if held else None
        st.rerun()


@st.fragment(run_every=1.0)
def progress() -> None:
    """The run's progress (refreshed every second while it goes on), then the whole page once."""
    run = runner.get(state.owner_token())
    if run is None:
        return
    if not run.finished:
        frac = run.done / run.total if run.total else 0.0
        st.progress(min(1.0, frac), text=f"{run.message} · {jobs.fmt_seconds(run.elapsed)} elapsed")
        if st.button("Cancel", key="testset.cancel"):
            run.cancel.set()
        return
    if st.session_state.get("testset.shown") is not run:
        st.session_state["testset.shown"] = run
        st.rerun(scope="app")


def result_rows() -> list[dict[str, Any]] | None:
    """The rows of the finished run (kept in the session for the review), None before one."""
    run = runner.get(state.owner_token())
    held = st.session_state.get(_CORPUS)
    if held is None or st.session_state.get("testset.made_for", held[0]) != held[0]:
        return None  # made of other documents than the ones now held
    if run is not None and run.finished and st.session_state.get("testset.taken") is not run:
        st.session_state["testset.taken"] = run
        if run.error:
            st.error(f"No test set: {run.error}")
        elif run.result is not None:
            st.session_state[_ROWS] = [dict(r) for r in run.result.rows]
            st.session_state["testset.summary"] = (run.result.summary(), run.result.complete)
            # the documents that gave no question (the files not read are listed with the documents)
            st.session_state["testset.skipped"] = [str(s) for s in run.result.no_question]
    return st.session_state.get(_ROWS)


# ---------------------------------------------------------------------------------------- review
def review(rows: list[dict[str, Any]], corpus: Corpus | None) -> list[dict[str, Any]]:
    """The table to accept, edit and delete questions; returns the rows as edited and kept."""
    summary, complete = st.session_state.get("testset.summary", ("", True))
    (st.success if complete else st.warning)(ud.md_escape(summary))
    none = st.session_state.get("testset.skipped", [])
    if none:
        with st.expander(f"{len(none)} document{'s' if len(none) != 1 else ''} gave no question",
                         expanded=not complete):
            for s in none[:50]:
                st.markdown(f"- {ud.md_escape(s)}")
    df = pd.DataFrame([{"keep": True, "question": r["question"], "answer": r["ground_truth"],
                        "type": r["metadata"]["question_type"], "source": r["metadata"]["source"],
                        "id": r["id"]} for r in rows])
    edited = st.data_editor(
        df, key="testset.table", hide_index=True, width="stretch", num_rows="dynamic",
        disabled=["type", "source", "id"],
        column_config={"keep": st.column_config.CheckboxColumn("keep", help="untick to leave it out"),
                       "question": st.column_config.TextColumn("question", width="large"),
                       "answer": st.column_config.TextColumn("reference answer", width="medium")})
    by_id = {r["id"]: r for r in rows}
    kept: list[dict[str, Any]] = []
    for rec in edited.to_dict("records"):
        base = by_id.get(rec.get("id"))
        if base is None or not rec.get("keep") or not str(rec.get("question") or "").strip():
            continue
        kept.append({**base, "question": str(rec["question"]).strip(), "ground_truth": str(rec["answer"] or "")})
    if kept:
        pick = st.selectbox("Passage of", range(len(kept)), key="testset.pick",
                            format_func=lambda i: f"{kept[i]['id']} · {kept[i]['question']}")
        row = kept[pick]
        for text, cid in zip(row["reference_contexts"], row["reference_context_ids"]):
            st.html(passage.passage_html(text, row["ground_truth"], row["metadata"].get("evidence", ""), cid))
        if not row["reference_contexts"]:
            st.caption("Unanswerable: no passage holds the answer; the reference is a refusal.")
        for turn in row.get("history") or []:
            st.caption(f"Earlier turn ({turn['role']}): {ud.md_escape(turn['content'])}")
    return kept


def default_name(corpus: Corpus | None, kept: Sequence[Mapping[str, Any]] = ()) -> str:
    """The name a test set gets unless the visitor types one: the names of the documents its questions
    come from ("test set from faq, pricing and refunds"; "test set from the sample's documents"; a file
    that gave no question does not name it) — the words runs of an app on it carry ("v1 on test set
    from faq, pricing and refunds")."""
    if corpus is None:
        return "test set"
    if is_sample():
        return "test set from the sample's documents"
    sources = {str(s) for q in kept for m in [q.get("metadata") or {}]
               for s in [m.get("source"), *(m.get("also_from") or ())] if s}
    named = [d.name for d in corpus.documents if d.name in sources] or [d.name for d in corpus.documents]
    return f"test set from {testset_name(named)}"


def save(kept: list[dict[str, Any]], corpus: Corpus | None) -> None:
    """Name the test set (its documents' names unless typed), save it to the visitor's history (it is
    kept like a run: across reloads, in "Run your app"), or download it as JSONL."""
    fallback = default_name(corpus, kept)
    name = st.text_input("Name of the test set", value=fallback, key="testset.name", max_chars=120,
                         help="Runs of your app on it are named after it: “v1 on <this name>”.").strip() or fallback
    c1, c2 = st.columns(2)
    if c1.button(f"Save these {len(kept)} questions as the test set", type="primary", key="testset.save",
                 disabled=not kept):
        docs = [d.name for d in corpus.documents] if corpus is not None else []
        state.set_testset(name, kept, docs, str(kept[0]["metadata"].get("generator", "")) if kept else "")
        st.success(f"Saved {len(kept)} questions as the test set “{name}” (the “Run your app” step takes it).")
    c2.download_button("Download as JSONL", to_jsonl(kept), file_name=f"{_file_stem(name)}.jsonl",
                       mime="application/jsonl", key="testset.download", disabled=not kept)


def _file_stem(name: str) -> str:
    return re.sub(r"[^\w.-]+", "-", name).strip("-.") or "testset"


def saved_sets() -> None:
    """The visitor's saved test sets (kept in their history): which one is in use, pick another, delete."""
    owner = state.owner_token()
    try:
        store = resources.testset_store()
        kept = store.list(owner=owner)
    except Exception as exc:  # noqa: BLE001 - no history store: say so, the page goes on
        st.caption(f"Saved test sets are not available here ({type(exc).__name__}).")
        return
    current = state.get_testset()
    if not kept:
        return
    st.subheader("Your saved test sets")
    ids = [k.id for k in kept]
    label = {k.id: f"{k.name} · {k.num_questions} questions · saved {k.saved_at.replace('T', ' ')[:16]} UTC"
             for k in kept}
    at = ids.index(current["id"]) if current and current.get("id") in ids else 0
    pick = st.selectbox("In use", ids, index=at, format_func=label.__getitem__, key="testset.saved_pick",
                        help="The test set “Run your app” asks your app; kept with your runs.")
    if not current or current.get("id") != pick:
        state.use_testset(store.get(pick, owner=owner))
    c1, c2 = st.columns([1, 3])
    if c1.button("Delete it", key="testset.saved_delete"):
        store.delete(pick, owner=owner)
        state.use_testset(None)
        st.rerun()
    c2.page_link("pages/1_run_app.py", label="Ask these questions of your app: Run your app →")

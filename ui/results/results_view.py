"""The Results page's parts beyond the page itself: metric help on cards and columns (the cards'
figures and words: ``evaluators.headline``, ``ui.vocab``), renaming the run, the retrieval metrics as
one table (kind × K), the per-case table (the id pinned, then the scores — every one of a run's in
view at 1280 px — the Inspect link, the question wrapped on up to three lines; filters, pages of
:data:`PAGE_ROWS` rows, row selection that opens Inspect in this session), the agreement panel of
hybrid runs (trace vs the LLM, from ``evaluators.agreement.labeler_agreement``) and the downloads. A
run is read from the store as the page needs it: its per-case table (``history.frame``), the texts
of the rows shown, the whole cases only for what needs every label at once (small runs)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from evaluators.agreement import labeler_agreement
from evaluators.answers.names import REFUSAL_METRICS
from evaluators.appcost import summarize
from evaluators.appcost import words as app_summary_words
from evaluators.retrieval import split
from evaluators.retrieval.idcheck import UNMATCHED
from evaluators.types import OVERALL_SUPPORTED, RunResult

from .. import history, share, state, tables, vocab
from ..data import md_escape
from . import exports

INSPECT_PAGE = "pages/4_inspect.py"
#: Width of a metric card (they flow in a wrapping row: two a row on a phone, in order).
CARD_PX = 150
#: Width of the question column, and the characters a line of it holds (the browser test measures
#: the real text against it); a row is as tall as its longest question needs, up to :data:`MAX_LINES`.
QUESTION_PX = 420
CHARS_PER_LINE = 52
MAX_LINES = 3
#: Height of a row of 1, 2, 3 lines (Streamlit's default row is 35 px; its grid wraps a cell's text
#: only in rows taller than 4rem, 64 px).
ROW_PX = {1: 35, 2: 68, 3: 88}
#: Bootstrap resamples of the interactive agreement panel (the CLI uses the library default).
N_BOOT = 400


def rename_button(run_id: str | None, run: Any) -> None:
    """Rename one of the visitor's own runs (its name is what every page shows)."""
    if not run_id:
        return
    current = str(getattr(run, "name", "") or "")
    with st.popover("Rename", icon=":material/edit:", help="The name every page shows for this run."):
        with st.form("results.rename_form", border=False):
            new = st.text_input("Name", value=current, key=f"results.rename.{run_id}", max_chars=120)
            if st.form_submit_button("Rename") and new.strip() and new.strip() != current:
                history.rename(run_id, new.strip())
                st.rerun()


def question_lines(questions: Any) -> int:
    """Lines the longest question needs in the question column (1 to :data:`MAX_LINES`)."""
    longest = max((len(str(q)) for q in questions), default=0)
    return max(1, min(MAX_LINES, -(-longest // CHARS_PER_LINE)))


def retrieval_table(stats: pd.DataFrame, ivs: dict[str, Any] | None) -> tuple[pd.DataFrame, str]:
    """The run's retrieval metrics as one table — a row per kind (hit, precision, recall, map, ndcg),
    a column per cutoff K, each cell "mean [95 % interval]" — and the line for ``mrr`` (no cutoff).
    Empty when the run has none."""
    texts: dict[str, str] = {}
    for _, row in stats.iterrows():
        got = split(str(row["metric"]))
        if got is None or pd.isna(row["mean"]):
            continue
        iv = (ivs or {}).get(row["metric"]) or {}
        ci = (f" [{iv['low']:.2f}–{iv['high']:.2f}]" if iv.get("low") is not None and iv.get("high") is not None
              else "")
        texts[str(row["metric"])] = f"{row['mean']:.3f}{ci}" + (f", n={row['n']}" if got[1] is None else "")
    df, mrr = vocab.retrieval_grid(texts)
    return df, (f"MRR (mean reciprocal rank of the first relevant passage): {mrr}" if mrr else "")


def matching_note(settings: dict[str, Any] | None) -> str | None:
    """The run's words (Markdown-escaped) when its app's passage ids matched no reference id (the
    retrieval reason ``evaluators.retrieval.idcheck`` wrote), else None."""
    reason = str(((settings or {}).get("retrieval_run") or {}).get("reason") or "")
    return md_escape(reason.removeprefix("auto: ")) if UNMATCHED in reason else None


def column_config(metrics: list[str], columns: list[str]) -> dict[str, Any]:
    """Headers in plain words with the metric's definition as help (a score's header in few words,
    ``vocab.column_name``: the scores read side by side at 1280 px); 3 decimals for scores; the id
    pinned, so a case's row stays named while the table scrolls to its texts."""
    cfg: dict[str, Any] = {
        "id": st.column_config.TextColumn("id", pinned=True, help="The case's id in your file"),
        "inspect": st.column_config.LinkColumn(
            "inspect", display_text="open ↗", help="Open the case in Inspect (a new tab; or select the "
                                                  "row to open it here)")}
    for c in columns:
        h = vocab.column_help(c)
        if c == "question":
            cfg[c] = st.column_config.TextColumn("question", width=QUESTION_PX, help="The question of the case")
        elif c in metrics and c != OVERALL_SUPPORTED and c not in REFUSAL_METRICS:  # those read yes / no
            cfg[c] = st.column_config.NumberColumn(vocab.column_name(c), help=h, format="%.3f")
        elif h:
            if c == OVERALL_SUPPORTED:
                h += "\n\n“declined”: the answer declines — it claims nothing for the documents to support."
            cfg[c] = st.column_config.Column(vocab.column_name(c), help=h)
    return cfg


def _selected_help(key: str, default: str | None = None) -> str | None:
    """The definition of the metric a selectbox currently shows (its help follows the choice)."""
    return vocab.help_text(str(st.session_state.get(key) or default or ""))


#: Rows of the per-case table shown at once (the rest: the page number).
PAGE_ROWS = 200


def errors_of(df: pd.DataFrame) -> pd.DataFrame:
    """(id, reason) of the cases that could not be scored."""
    if df.empty or "error" not in df:
        return pd.DataFrame(columns=["id", "reason"])
    has = df["error"].notna().to_numpy(dtype=bool)
    ids, errs = df["id"].to_numpy()[has], df["error"].to_numpy()[has]  # few rows: a loop over them
    return pd.DataFrame([(str(i), str(e)) for i, e in zip(ids, errs) if str(e)], columns=["id", "reason"])


class _Means:
    """What ``charts.radar`` reads of a run: its means (from the per-case table's summary)."""

    def __init__(self, stats: pd.DataFrame) -> None:
        self._m = {r["metric"]: (None if pd.isna(r["mean"]) else float(r["mean"])) for _, r in stats.iterrows()}

    def means(self) -> dict[str, float | None]:
        return self._m


def means_of(run: Any, stats: pd.DataFrame) -> Any:
    return run if isinstance(run, RunResult) else _Means(stats)


def _texts(run: Any, ids: list[str]) -> dict[str, tuple[str, str]]:
    """(question, response) of the cases shown (read from the store for these rows only)."""
    if hasattr(run, "texts_of"):  # a stored run: the two texts only, not whole cases
        return dict(run.texts_of(ids))
    return {r.case.id: (r.case.question, r.case.response) for r in history.cases(run, ids)}


def cases_tab(df: pd.DataFrame, metrics: list[str], run_id: str | None, run: Any = None) -> None:
    """Filters, sort, the per-case table (a page of it) and an in-session link to the selected case."""
    f1, f2, f3, f4 = st.columns([2, 2, 1, 1])
    preset = f1.selectbox("Show", list(tables.PRESETS), key="results.preset",
                          help="A partially supported sentence counts as a possible hallucination: "
                               "part of its claim is in no document.")
    numeric = tables.numeric_columns(df, skip=("id", "question", "response", "method", "labeled_by", "error"))
    col = f2.selectbox("or filter column", ["—", *numeric], key="results.col",
                       format_func=lambda c: c if c == "—" else vocab.nice(c),
                       help=_selected_help("results.col") or "Pick a score to filter on.")
    op = f3.selectbox("op", list(tables.OPS), key="results.op")
    val = f4.number_input("value", value=0.0, step=0.1, key="results.val")
    view = df
    try:
        view = tables.apply_preset(view, preset)
        if col != "—":
            view = tables.filter_frame(view, col, op, val)
    except (KeyError, ValueError) as exc:
        st.error(str(exc))
    s1, s2 = st.columns([3, 1])
    sort = s1.selectbox("Sort by", ["(file order)", *numeric], key="results.sort",
                        format_func=lambda c: c if c == "(file order)" else vocab.nice(c),
                        help=_selected_help("results.sort") or "Expected adherence, ascending: the likeliest "
                                                                "hallucinations first.")
    if sort != "(file order)":
        desc = s2.toggle("Descending", key="results.desc")
        view = view.sort_values(sort, ascending=not desc, kind="stable")
    n_match = len(view)
    pages = max(1, -(-n_match // PAGE_ROWS))
    page = 1
    if pages > 1:
        p1, p2 = st.columns([1, 4], vertical_alignment="bottom")
        page = int(p1.number_input(f"Page (of {pages:,})", min_value=1, max_value=pages, value=1, step=1,
                                   key="results.page"))
        p2.caption(f"{PAGE_ROWS} cases a page: filter or sort to bring the cases you want first.")
    view = tables.page_of(view, page, PAGE_ROWS)
    if run is not None and not isinstance(run, RunResult):  # the texts of the rows shown, from the store
        texts = _texts(run, [str(i) for i in view["id"]])
        view = view.assign(question=[texts.get(str(i), ("", ""))[0] for i in view["id"]],
                           response=[texts.get(str(i), ("", ""))[1] for i in view["id"]])
    links = [share.case_link(str(i), run_id) for i in view["id"]]
    shown = tables.display_frame(view, metrics, links)
    first = (page - 1) * PAGE_ROWS
    span = f" · showing {first + 1:,}–{first + len(view):,}" if pages > 1 else ""
    st.caption(f"{n_match:,} of {len(df):,} cases{span} · hover a header for what it means, click it to "
               "sort · select a row for a link to it on Inspect")
    lines = question_lines(shown["question"]) if "question" in shown else 1
    picked = st.dataframe(shown, hide_index=True, width="stretch", key="results.table", placeholder="",
                          column_config=column_config(metrics, list(shown.columns)), row_height=ROW_PX[lines],
                          on_select="rerun", selection_mode="single-row")
    rows = picked.selection.rows if picked is not None else []
    if rows:
        cid = str(shown.iloc[rows[0]]["id"])
        st.page_link(INSPECT_PAGE, label=f"Inspect case {cid} →", icon=":material/manage_search:",
                     query_params=share.case_params(cid, run_id))  # a shared run: its token too


def _iv(d: dict[str, Any] | None) -> str:
    """'0.12 [0.08, 0.17]' (blank when undefined, the reason when there is one)."""
    if not d or d.get("value", d.get("mean")) is None:
        return (d or {}).get("note", "")
    v = d.get("value", d.get("mean"))
    lo, hi = d.get("low"), d.get("high")
    return f"{v:.2f}" + (f" [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else "")


def agreement_rows(out: dict[str, Any]) -> pd.DataFrame:
    """The per-metric table of the panel, in words."""
    rows = []
    for r in out["metrics"]:
        rows.append({"metric": vocab.nice(r["metric"]),
                     "trace mean": r["mean_a"], "LLM mean": r["mean_b"],
                     "mean |difference| [95% CI]": _iv(r["mean_abs_diff"]),
                     "same verdict [95% CI]": _iv(r.get("agreement")),
                     "rank correlation [95% CI]": _iv(r["spearman"]),
                     "cases": r["n"]})
    return pd.DataFrame(rows)


def agreement_tab(run: Any, run_id: str | None, key: tuple) -> None:
    """Agreement between the two labelers of a hybrid run, and the cases they disagree on most."""
    whole = history.whole(run)
    if whole is None:
        st.info(history.too_big(run, "The agreement of the two labelers"))
        return
    try:
        out = state.memo(key + ("labelers",), lambda: labeler_agreement(whole, top=10, n_boot=N_BOOT))
    except ValueError as exc:
        st.info(str(exc))
        return
    st.write(f"**trace (offline) vs the LLM** on the {out['n']} of {out['cases']} cases both labeled"
             + (" (selective mode sends only the least certain cases to the LLM)" if out["n"] < out["cases"]
                else "") + ". The final scores use the LLM's labels.")
    sent = out["sentences"]
    c1, c2 = st.columns(2)
    c1.metric("Sentence verdicts that agree", _iv(sent["support_agreement"]) or "n/a",
              help="Share of response sentences both call fully supported, or both not "
                   "(mean over cases, 95% bootstrap interval).")
    kappa = sent["support_kappa"]
    c2.metric("Cohen's kappa (sentence verdicts)", "n/a" if kappa is None else f"{kappa:.2f}",
              help="Agreement beyond chance over every compared sentence: 1 = always agree, 0 = no "
                   f"better than chance ({sent['sentences_compared']} sentences).")
    st.dataframe(agreement_rows(out), hide_index=True, width="stretch", placeholder="",
                 column_config={"trace mean": st.column_config.NumberColumn(format="%.3f"),
                                "LLM mean": st.column_config.NumberColumn(format="%.3f")})
    st.caption("mean |difference|: how far apart the two scores of a case are, on average (0 = identical). "
               "Rank correlation (Spearman): do they order the cases the same way (1 = same order). "
               "Same verdict: share of cases with the same yes/no.")
    st.write("**Cases where they disagree most** — open one to see both labelings side by side")
    if not out["disagreements"]:
        st.caption("They agree on every case.")
    for d in out["disagreements"]:
        a, b = d.get("adherence_trace"), d.get("adherence_gpt_labeling")
        s = d["support_agreement"]
        text = (f"{d['id']} · adherence trace {a:.2f} vs LLM {b:.2f}"
                + ("" if s is None else f" · {s:.0%} of sentence verdicts agree"))
        st.page_link(INSPECT_PAGE, label=text, icon=":material/manage_search:",
                     query_params={"case": d["id"], "compare": "1", **({"run": run_id} if run_id else {})},
                     help=d["question"])


def downloads(run: Any, df: pd.DataFrame) -> None:
    """The run as a results file (the CLI's JSON; JSON Lines, gzip-compressed, past
    ``exports.BIG`` cases) and as CSV (one row per case), each built when clicked, case by case."""
    name = exports.file_stem(run)
    big = len(df) > exports.BIG
    if big:
        st.download_button("Download results (JSON Lines, gzip; the CLI's format)", lambda: exports.jsonl_gz(run),
                           file_name=f"{name}.jsonl.gz", mime="application/gzip", key="results.json",
                           on_click="ignore")
        st.download_button("Download CSV (one row per case, gzip)", lambda: exports.csv_bytes(run, df, gz=True),
                           file_name=f"{name}.csv.gz", mime="application/gzip", key="results.csv",
                           on_click="ignore")
        st.caption(f"{len(df):,} cases: the files are compressed (open them with any unzip tool, or read the "
                   "JSON Lines with `python -m evaluators` / `evaluators.resultfiles.iter_cases`).")
    else:
        st.download_button("Download JSON (CLI format)", lambda: exports.json_bytes(run),
                           file_name=f"{name}.json", mime="application/json", key="results.json",
                           on_click="ignore")
        st.download_button("Download CSV (one row per case)", lambda: exports.csv_bytes(run, df),
                           file_name=f"{name}.csv", mime="text/csv", key="results.csv", on_click="ignore")
    st.caption("Exports never contain an API key.")


APP_HELP = ("What calling the app took, read from each case's own call (the target runner's latency, tokens and "
            "error): latency over the answered calls (p50 / p95), the questions it failed, its own token counts. "
            "Compare puts two versions side by side, paired by question.")


def app_words(run: Any) -> str:
    """The app's own calls of a run in one line ("16 calls, latency p50 0.07 s, p95 0.10 s, none failed,
    1,746 tokens (109 per case)"); "" when its cases record none, or the run is too big to read whole."""
    full = history.whole(run)
    if full is None:
        return ""
    return app_summary_words(summarize((r.case.id, r.case.metadata) for r in full.results))

"""Helpers of the Compare page: which runs can be compared (and which two to show first), calls
into ``evaluators.agreement`` (the statistics module) that turn a statistic that cannot be computed
into a message, and the statistics in plain words. Runs are labelled by their names
(``evaluators.store.labels``); agreement rows and ROC curves carry the run's label, so two runs of
one method are told apart."""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

import pandas as pd

from evaluators.agreement import agreement_table, method_vs_method, roc_points
from evaluators.store import RunSummary
from evaluators.store import labels as run_labels
from evaluators.types import EXPECTED_ADHERENCE, OVERALL_SUPPORTED, TRACE_METRICS, RunResult

#: Bootstrap resamples for interactive intervals (the CLI/bench use the library default).
N_BOOT = 400


def run_sources(session: Mapping[str, Any], saved_ids: Mapping[str, str],
                history: list[RunSummary]) -> dict[str, Any]:
    """Display name -> a session RunResult or a history id (newest first; no duplicates): a run's
    name, told apart from others of the same name by method, then time (``store.labels``)."""
    out: dict[str, Any] = {}
    for label in reversed(list(session)):
        out[label] = session[label]
    in_session = set(saved_ids.values())
    labels = run_labels(history)
    for h in history:
        if h.id not in in_session:
            label = labels[h.id]
            out[label if label not in out else f"{label} (saved {h.created_at[:16].replace('T', ' ')})"] = h.id
    return out


def default_pair(names: list[str], case_ids: Callable[[str], frozenset[str]], method: Callable[[str], str],
                 look_at: int = 8) -> tuple[str, str]:
    """(Run A, Run B) to show first: the newest two runs of the same cases with different methods;
    else of the same cases; else sharing most cases; else the two newest. ``names`` are newest
    first; A is the older of the two."""
    top = names[:look_at]
    best: tuple[tuple[int, float], str, str] | None = None
    for i, newer in enumerate(top):
        for older in top[i + 1:]:
            ia, ib = case_ids(older), case_ids(newer)
            overlap = len(ia & ib) / max(1, len(ia | ib))
            same = overlap == 1.0
            rank = (2 if same and method(older) != method(newer) else 1 if same else 0, overlap)
            if best is None or rank > best[0]:
                best = (rank, older, newer)
    if best is None or best[0][1] == 0.0:
        return names[1], names[0]
    return best[1], best[2]


def history_id(source: Any, label: str, saved_ids: Mapping[str, str]) -> str | None:
    """The run-history id of a run (a session run's saved id, or the history id itself)."""
    return source if isinstance(source, str) else saved_ids.get(label)


#: Statistics in plain words: name -> (what to call it, what it means).
STAT_WORDS: dict[str, tuple[str, str]] = {
    "pearson": ("linear correlation (Pearson)", "1 = the two scores rise together, 0 = unrelated"),
    "spearman": ("rank correlation (Spearman)", "1 = both put the cases in the same order"),
    "kendall": ("rank agreement (Kendall's tau)", "like Spearman, from pairs of cases ordered alike"),
    "mean_abs_diff": ("mean |difference|", "average gap between the two scores of a case (0 = identical)"),
    "cohen_kappa": ("Cohen's kappa", "agreement beyond chance: 1 = same verdicts, 0 = no better than chance"),
    "agreement": ("same verdict", "share of cases with the same yes/no"),
    "auroc": ("AUROC", "how well the score separates the cases a person flagged: 0.5 = coin flip, 1 = perfectly"),
    "best_f1": ("best F1", "F1 at the best cut-off of the score (cut-off in the note)"),
    "f1": ("F1 of its yes/no", "balance of precision and recall of the method's own yes/no"),
    "precision": ("precision", "of the cases the method flags, the share a person flagged too"),
    "recall": ("recall", "of the cases a person flagged, the share the method flags too"),
    "rmse": ("RMSE", "typical gap to the human grade, both on 0–1 (0 = identical)"),
    "kendall_tau": ("rank agreement (Kendall's tau)", "pairs of cases ordered alike"),
}


#: The Glossary term (and so the tooltip) of each statistic.
_CORR = "correlation (Pearson, Spearman, Kendall)"
STAT_TERMS = {"auroc": "AUROC", "best_f1": "F1", "f1": "F1", "precision": "F1", "recall": "F1",
              "cohen_kappa": "Cohen's kappa (κ)", "rmse": "RMSE", "pearson": _CORR, "spearman": _CORR,
              "kendall": _CORR, "kendall_tau": _CORR}


def legend(statistics: Any) -> str:
    """What each statistic of a table means, one line each (the table keeps short names, so no
    cell is cut)."""
    names = list(dict.fromkeys(str(x) for x in statistics))
    lines = [f"**{STAT_WORDS[n][0]}**: {STAT_WORDS[n][1]}" for n in names if n in STAT_WORDS]
    return "  \n".join(lines + ["More on each term: Glossary → other terms."])


def columns(frame: pd.DataFrame, statistics: Any = ()) -> dict[str, Any]:
    """Column settings of a statistics table: widths that show every name whole, the value with
    three decimals, and a tooltip on each column that is not plain words."""
    import streamlit as st

    from .. import vocab

    terms = list(dict.fromkeys(STAT_TERMS[s] for s in map(str, statistics) if s in STAT_TERMS))
    metrics = [m for m in dict.fromkeys(frame.get("metric", [])) if vocab.help_text(str(m))]
    cc = st.column_config
    out: dict[str, Any] = {  # widths in pixels: every header and name whole (the notes scroll)
        "value": cc.NumberColumn(format="%.3f", width=70),
        "95% interval": cc.TextColumn(width=110, help=vocab.term_help("95 % interval")),
        "n": cc.NumberColumn(width=50, help="cases the figure is computed on"),
        "note": cc.TextColumn(width=520),
        "label": cc.TextColumn(width=110, help="the human label column of your file"),
        "run": cc.TextColumn(width=170, help="the run, by its name (Compare → Run history renames it)"),
    }
    for col in ("statistic", "measure"):
        out[col] = cc.TextColumn(width=200 if col == "measure" else 150,
                                 help="\n\n".join(vocab.term_help(t) for t in terms) or None)
    if metrics:
        out["metric"] = cc.TextColumn(width=170, help="\n\n".join(
            f"**{m}**: {(vocab.help_text(str(m)) or '').split(chr(10))[0]}" for m in metrics))
    return {k: v for k, v in out.items() if k in frame.columns}


def method_words(method: str) -> str:
    """'hybrid:gpt_labeling' -> 'hybrid (its gpt_labeling labels)': one labeler of a hybrid run."""
    run, _, variant = str(method).partition(":")
    return f"{run} (its {variant} labels)" if variant else run


def plain_note(note: Any) -> str:
    """A statistics note without jargon."""
    text = "" if note is None or (isinstance(note, float) and pd.isna(note)) else str(note)
    text = re.sub(r"(\d+) of (\d+) resamples undefined, left out",
                  lambda m: f"interval from the {int(m[2]) - int(m[1])} of {m[2]} bootstrap samples where "
                            "it is defined", text)
    text = re.sub(r"score = 1 − (\w+)", r"low \1 = flagged", text)
    text = re.sub(r"score = (\w+)", r"high \1 = flagged", text)
    text = re.sub(r"positives = (\w+) \((\d+ of \d+)\)", r"\1: \2", text)
    text = re.sub(r"default decision = (\w+)", r"its yes/no: \1", text)
    text = text.replace("threshold ", "cut-off ")
    return text.replace("resamples", "bootstrap samples")


def _interval(low: Any, high: Any) -> str:
    ok = all(isinstance(x, (int, float)) and not pd.isna(x) for x in (low, high))
    return f"{low:.2f} – {high:.2f}" if ok else ""


def correlation_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Correlation rows of :func:`correlations` as a table in words."""
    out = []
    for r in rows:
        name = str(r.get("statistic") or "")
        words = STAT_WORDS.get(name, (name, ""))[0]
        v = r.get("value")
        out.append({"measure": words, "value": v if isinstance(v, (int, float)) else None,
                    "95% interval": _interval(r.get("low"), r.get("high")),
                    "note": plain_note(r.get("note") or (v if isinstance(v, str) else ""))})
    return pd.DataFrame(out, columns=["measure", "value", "95% interval", "note"])


def human_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The human-agreement table in words: the run (two runs of one method apart), statistic named,
    interval as text, notes plain."""
    if table is None or table.empty:
        return table
    t = table.copy()
    if "run" not in t:
        t["run"] = ""
    t["method"] = t["method"].map(method_words)
    t["statistic"] = t["statistic"].map(lambda s: STAT_WORDS.get(s, (s, ""))[0])
    t["95% interval"] = [_interval(lo, hi) for lo, hi in zip(t["ci_low"], t["ci_high"])]
    t["note"] = t["note"].map(plain_note)
    return t[["run", "method", "metric", "label", "statistic", "value", "95% interval", "n", "note"]]


def correlations(a: RunResult | None, b: RunResult | None, metric: str, paired: pd.DataFrame
                 ) -> tuple[list[dict[str, Any]], str]:
    """Correlation rows (with bootstrap intervals) from ``evaluators.agreement.method_vs_method``; plain pandas
    correlations, with the reason, when the statistics cannot be computed for these runs (or a run is
    too large to read whole: None)."""
    if a is None or b is None:
        why = "runs this large are compared from their scores alone"
    else:
        try:
            res = method_vs_method(a, b, metric, top=15, n_boot=N_BOOT)
            corr = res.get("correlations")
            if isinstance(corr, dict):
                corr = [{"statistic": k, **(v if isinstance(v, dict) else {"value": v})} for k, v in corr.items()]
            return list(corr or []), "95% bootstrap intervals over the cases"
        except ValueError as exc:
            why = str(exc)
    rows = []
    if len(paired) >= 3:
        for how in ("pearson", "spearman"):
            v = paired["a"].corr(paired["b"], method=how)
            rows.append({"statistic": how, "value": None if pd.isna(v) else float(v), "n": len(paired)})
    return rows, f"no intervals ({why})"


#: The scatter's title names each coefficient as its table does ("pearson r=-0.61" read as a typo).
_COEFFICIENT = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ"}


def corr_text(rows: list[dict[str, Any]]) -> str:
    """The scatter's title: "Pearson r = 0.61, Spearman ρ = 0.76" (a minus sign, not a hyphen)."""
    parts = []
    for r in rows:
        v = r.get("value")
        name = str(r.get("statistic") or r.get("name") or "")
        if isinstance(v, (int, float)):
            parts.append(f"{_COEFFICIENT.get(name, name)} = {v:.2f}".replace("-", "−"))
    return ", ".join(parts[:2])


def history_frame(saved: list[RunSummary]) -> pd.DataFrame:
    rows = [{"id": h.id, "name": h.name, "method": h.method, "created": h.created_at,
             "cases": h.num_cases, "scored": h.num_scored, "status": h.status,
             **{k: h.means.get(k) for k in TRACE_METRICS}} for h in saved]
    return pd.DataFrame(rows)


def history_label(saved: list[RunSummary], run_id: str) -> str:
    """The label of a run of the history: its name, told apart from runs of the same name."""
    return run_labels(saved).get(run_id, run_id)


#: The metrics of the run-history bars, in order.
HISTORY_METRICS = (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED)


def means_table(saved: list[RunSummary], ids: list[str],
                intervals: Mapping[str, Mapping[str, Any] | None] | None = None) -> pd.DataFrame:
    """run, metric, mean, low, high of the picked runs: the means and 95 % intervals of
    ``intervals`` (run id -> ``run_intervals``) where given, else the stored means (no interval)."""
    rows = []
    for h in saved:
        if h.id not in ids:
            continue
        iv = (intervals or {}).get(h.id) or {}
        for k in HISTORY_METRICS:
            d = iv.get(k) or {}
            mean = d.get("mean", h.means.get(k))
            if mean is not None:
                rows.append({"run": history_label(saved, h.id), "metric": k, "mean": mean, "low": d.get("low"),
                             "high": d.get("high")})
    return pd.DataFrame(rows, columns=["run", "metric", "mean", "low", "high"])


def agreement(runs: Mapping[str, RunResult]) -> tuple[pd.DataFrame | None, str | None]:
    """The agreement table of every run (by its label: column ``run``), one block of rows each."""
    try:
        frames = [agreement_table(r, with_expected=True).assign(run=name) for name, r in runs.items()]
        return pd.concat(frames, ignore_index=True) if frames else None, None
    except Exception as exc:  # noqa: BLE001
        return None, f"Could not compute agreement: {exc}"


def roc(runs: Mapping[str, RunResult], label: str) -> tuple[list[dict[str, Any]], str | None]:
    """ROC points of every run (by its label: key ``run``), each method and metric."""
    try:
        return [{**p, "run": name, "method": method_words(p["method"])} for name, r in runs.items()
                for p in roc_points(r, label, with_expected=True)], None
    except Exception as exc:  # noqa: BLE001
        return [], f"No ROC for {label!r}: {exc}"

"""Helpers of the Compare page: which runs can be compared (and which two to show first), calls
into ``evaluators.agreement`` (the statistics module) that turn a statistic that cannot be computed
into a message, and the statistics in plain words."""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

import pandas as pd

from evaluators.agreement import agreement_table, method_vs_method, roc_points
from evaluators.store import RunSummary
from evaluators.types import OVERALL_SUPPORTED, TRACE_METRICS, RunResult

#: Bootstrap resamples for interactive intervals (the CLI/bench use the library default).
N_BOOT = 400


def run_sources(session: Mapping[str, Any], saved_ids: Mapping[str, str],
                history: list[RunSummary]) -> dict[str, Any]:
    """Display name -> a session RunResult or a history id (newest first; no duplicates)."""
    out: dict[str, Any] = {}
    for label in reversed(list(session)):
        out[label] = session[label]
    in_session = set(saved_ids.values())
    for h in history:
        if h.id not in in_session:
            out[f"{h.name} (saved {h.created_at[:16]})"] = h.id
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
    "cohen_kappa": ("agreement beyond chance (Cohen's kappa)", "1 = same verdicts, 0 = no better than chance"),
    "agreement": ("same verdict", "share of cases with the same yes/no"),
    "auroc": ("AUROC", "how well the score separates the cases a person flagged: 0.5 = coin flip, 1 = perfectly"),
    "best_f1": ("best F1", "F1 at the best cut-off of the score (cut-off in the note)"),
    "f1": ("F1 at the method's verdict", "balance of precision and recall of the method's own yes/no"),
    "precision": ("precision", "of the cases the method flags, the share a person flagged too"),
    "recall": ("recall", "of the cases a person flagged, the share the method flags too"),
    "rmse": ("RMSE", "typical gap to the human grade, both on 0–1 (0 = identical)"),
    "kendall_tau": ("rank agreement (Kendall's tau)", "pairs of cases ordered alike"),
}


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
    text = re.sub(r"score = 1 − (\w+)", r"scored as 1 − \1 (low \1 = likely flagged)", text)
    text = re.sub(r"score = (\w+)", r"scored as \1", text)
    return text.replace("resamples", "bootstrap samples")


def _interval(low: Any, high: Any) -> str:
    ok = all(isinstance(x, (int, float)) and not pd.isna(x) for x in (low, high))
    return f"{low:.2f} – {high:.2f}" if ok else ""


def correlation_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Correlation rows of :func:`correlations` as a table in words."""
    out = []
    for r in rows:
        name = str(r.get("statistic") or "")
        words, meaning = STAT_WORDS.get(name, (name, ""))
        v = r.get("value")
        out.append({"measure": words, "value": v if isinstance(v, (int, float)) else None,
                    "95% interval": _interval(r.get("low"), r.get("high")), "what it means": meaning,
                    "note": plain_note(r.get("note") or (v if isinstance(v, str) else ""))})
    return pd.DataFrame(out, columns=["measure", "value", "95% interval", "what it means", "note"])


def human_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The human-agreement table in words: statistic named, interval as text, notes plain."""
    if table is None or table.empty:
        return table
    t = table.copy()
    t["method"] = t["method"].map(method_words)
    t["what it means"] = t["statistic"].map(lambda s: STAT_WORDS.get(s, (s, ""))[1])
    t["statistic"] = t["statistic"].map(lambda s: STAT_WORDS.get(s, (s, ""))[0])
    t["95% interval"] = [_interval(lo, hi) for lo, hi in zip(t["ci_low"], t["ci_high"])]
    t["note"] = t["note"].map(plain_note)
    return t[["method", "metric", "label", "statistic", "value", "95% interval", "n", "what it means", "note"]]


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


def corr_text(rows: list[dict[str, Any]]) -> str:
    parts = []
    for r in rows:
        v = r.get("value")
        name = r.get("statistic") or r.get("name") or ""
        if isinstance(v, (int, float)):
            parts.append(f"{name} r={v:.2f}")
    return ", ".join(parts[:2])


def history_frame(saved: list[RunSummary]) -> pd.DataFrame:
    rows = [{"id": h.id, "name": h.name, "method": h.method, "created": h.created_at,
             "cases": h.num_cases, "scored": h.num_scored, "status": h.status,
             **{k: h.means.get(k) for k in TRACE_METRICS}} for h in saved]
    return pd.DataFrame(rows)


def history_label(saved: list[RunSummary], run_id: str) -> str:
    h = next((h for h in saved if h.id == run_id), None)
    return h.label if h else run_id


def means_table(saved: list[RunSummary], ids: list[str]) -> pd.DataFrame:
    rows = [{"run": h.label, "metric": k, "mean": h.means[k]}
            for h in saved if h.id in ids
            for k in (*TRACE_METRICS, OVERALL_SUPPORTED) if h.means.get(k) is not None]
    return pd.DataFrame(rows, columns=["run", "metric", "mean"])


def agreement(run: RunResult | list[RunResult]) -> tuple[pd.DataFrame | None, str | None]:
    try:
        return agreement_table(run, with_expected=True), None
    except Exception as exc:  # noqa: BLE001
        return None, f"Could not compute agreement: {exc}"


def roc(run: RunResult | list[RunResult], label: str) -> tuple[list[dict[str, Any]], str | None]:
    try:
        return [{**p, "method": method_words(p["method"])} for p in roc_points(run, label, with_expected=True)], None
    except Exception as exc:  # noqa: BLE001
        return [], f"No ROC for {label!r}: {exc}"

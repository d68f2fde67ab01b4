"""The ``agreement`` report: the table as text and JSON-safe records, ROC points, prediction-powered
estimates, each run's intervals and method-vs-method agreement."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..stats import N_BOOT
from ..types import RunResult
from .humans import agreement_table, ppi_estimates, roc_points, runs_of
from .intervals import run_intervals
from .labels import resolve_label_columns
from .methods import method_vs_method


def format_table(df, digits: int = 3) -> str:
    """Plain-text rendering of an agreement table (value [low, high])."""
    if df is None or len(df) == 0:
        return "(no human labels to compare with)"

    def fmt(row: Any) -> str:
        if row["value"] is None or (isinstance(row["value"], float) and math.isnan(row["value"])):
            return "n/a"
        s = f"{row['value']:.{digits}f}"
        if row["ci_low"] is not None and not (isinstance(row["ci_low"], float) and math.isnan(row["ci_low"])):
            s += f" [{row['ci_low']:.{digits}f}, {row['ci_high']:.{digits}f}]"
        return s

    head = ["method", "metric", "label", "statistic", "value [95% CI]", "n", "note"]
    body = [[str(r["method"]), str(r["metric"]), str(r["label"]), str(r["statistic"]), fmt(r),
             str(r["n"]), str(r["note"] or "")] for _, r in df.iterrows()]
    widths = [max(len(h), *(len(b[i]) for b in body)) if i < 6 else 0 for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip()]
    lines.append("  ".join("-" * w if w else "----" for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(b, widths)).rstrip() for b in body]
    return "\n".join(lines)


def table_records(df) -> list[dict[str, Any]]:
    """JSON-safe rows of an agreement table (NaN -> None)."""
    recs = []
    for rec in df.to_dict(orient="records"):
        recs.append({k: (None if isinstance(v, float) and not math.isfinite(v) else
                         (v.item() if isinstance(v, np.generic) else v)) for k, v in rec.items()})
    return recs


def agreement_report(runs: RunResult | Sequence[RunResult], label_columns: Sequence[str] | None = None,
                     group_column: str | None = None, *, n_boot: int = N_BOOT, seed: int = 0) -> dict[str, Any]:
    """Everything the ``agreement`` command prints and writes: the table (records and text), ROC
    points per binary label, prediction-powered estimates, the intervals of each run's means and,
    for several runs, method-vs-method agreement on adherence."""
    rl = runs_of(runs)
    df = agreement_table(rl, label_columns, group_column, n_boot=n_boot, seed=seed)
    labels: dict[str, str] = {}
    for rn in rl:
        for label, _metric, kind in resolve_label_columns(rn, label_columns):
            labels.setdefault(label, kind)
    roc = {lab: roc_points(rl, lab) for lab, kind in labels.items() if kind == "binary"}
    text = [format_table(df)]
    ppi = {rn.method: ppi_estimates(rn, label_columns) for rn in rl}
    for meth, rows in ppi.items():
        for r in rows:
            if r["n_labeled"] < r["n_total"] and r["estimate"] is not None:
                text.append(f"{meth}: prediction-powered mean of {r['label']}: {r['estimate']:.3f} "
                            f"[{r['low']:.3f}, {r['high']:.3f}] ({r['n_labeled']} labeled of {r['n_total']})")
    mvm = []
    for i in range(len(rl)):
        for j in range(i + 1, len(rl)):
            m = method_vs_method(rl[i], rl[j], "adherence", n_boot=n_boot, seed=seed, group_column=group_column)
            mvm.append(m)
            sp = m["correlations"]["spearman"]
            text.append(f"{m['method_a']} vs {m['method_b']} (adherence, n={m['n']}): Spearman "
                        + (f"{sp['mean']:.3f} [{sp['low']:.3f}, {sp['high']:.3f}]"
                           if sp["mean"] is not None and sp["low"] is not None
                           else str(sp.get("note") or "n/a")))
    return {
        "methods": [rn.method for rn in rl],
        "label_columns": labels,
        "group_column": group_column,
        "n_boot": n_boot,
        "seed": seed,
        "num_cases": {rn.method: len(rn.results) for rn in rl},
        "num_scored": {rn.method: len(rn.scored) for rn in rl},
        "table": table_records(df),
        "roc": roc,
        "ppi": ppi,
        "method_vs_method": mvm,
        "intervals": {rn.method: run_intervals(rn, group_column, n_boot=n_boot, seed=seed) for rn in rl},
        "text": "\n".join(text),
    }


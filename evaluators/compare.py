"""Former home of the agreement statistics, kept as an import path: everything now lives in
``evaluators.agreement`` (one module per job)."""

from __future__ import annotations

from .agreement import (
    COLUMNS,
    agreement_report,
    agreement_table,
    detect_label_columns,
    format_table,
    infer_scale,
    label_kind,
    label_target,
    method_vs_method,
    ppi_estimates,
    roc_points,
    run_intervals,
    table_records,
)

__all__ = [
    "COLUMNS", "agreement_report", "agreement_table", "detect_label_columns", "format_table", "infer_scale",
    "label_kind", "label_target", "method_vs_method", "ppi_estimates", "roc_points", "run_intervals",
    "table_records",
]

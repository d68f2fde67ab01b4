"""Review mode: a person corrects sentence labels, and the corrected labels become gold.

* ``labels`` — corrections (support of a response sentence, relevant / utilized of a document
  sentence) and the reviewed labels they make; a case's fingerprint (its texts);
* ``store`` — :class:`ReviewStore`: corrections (with time and reviewer) and "reviewed" marks in
  the run history's SQLite file, scoped to the run's owner like the runs themselves;
* ``queue`` — which cases to review first (the method's uncertainty, or two labelings' disagreement);
* ``gold`` — gold labels (reviewed cases; human sentence labels of an upload) and every method's
  agreement with them (AUROC, kappa, RMSE with intervals), prediction-powered estimates;
* ``transfer`` — reviewed labels exported in the upload schema, and read back from an upload;
* ``calibrate`` — the offline method recalibrated on the gold (cross-validated before / after),
  applied to a copy of a run only when asked.

UI-free: the dashboard's Inspect and Compare pages call these.
"""

from __future__ import annotations

from .gold import GOLD_LABELS, Gold, collect, gold_table, ppi, with_gold
from .labels import Correction, ReviewedCase, apply, changed_keys, check, differences, fingerprint
from .queue import QueueItem, by_disagreement, by_uncertainty, next_case, order
from .store import ReviewStore
from .transfer import export_rows, label_columns, labels_from_case, to_jsonl

__all__ = [
    "GOLD_LABELS", "Correction", "Gold", "QueueItem", "ReviewStore", "ReviewedCase", "apply", "by_disagreement",
    "by_uncertainty", "changed_keys", "check", "collect", "differences", "export_rows", "fingerprint", "gold_table",
    "label_columns", "labels_from_case", "next_case", "order", "ppi", "to_jsonl", "with_gold",
]

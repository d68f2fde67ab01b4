"""Agreement of every offline method with the human labels of the shared dev sets.

    .venv/bin/python -m bench.agreement [--n-boot 2000] [--limit N] [--files mtrag,summary] [--full]
                                        [--out agreement.json]

For each file in ../shared/data: evaluate with each offline method (``trace``), then print AUROC,
best-F1 and F1 at the method's default decision against ``hallucinated`` (95 % bootstrap intervals
resampling whole sources: RAGTruth ``source_id`` — several responses per article —, MTRAG
``conversation_id``), and for MTRAG the Spearman correlation with the graded human faithfulness
(Likert 1–4 mean). MTRAG records without documents are left out (they measure chit-chat, not
groundedness). The published MTRAG RAGAS-faithfulness baseline (−rl_f) is shown for reference.
Skips when ../shared/data is absent.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from evaluators import evaluate_batch  # noqa: E402
from evaluators.agreement import agreement_table, format_table, table_records  # noqa: E402
from evaluators.methods import METHODS  # noqa: E402
from evaluators.stats import bootstrap_stat  # noqa: E402

try:
    from bench.shared_data import load_shared, shared_files
except ImportError:  # the detector helper's loader is missing: a minimal private one
    SHARED = ROOT.parent / "shared" / "data"

    def shared_files() -> list[Path]:  # type: ignore[misc]
        return sorted(SHARED.glob("*.jsonl")) if SHARED.is_dir() else []

    def load_shared(path):  # type: ignore[no-untyped-def]
        from evaluators.types import TestCase

        out = []
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                docs = r.get("documents") or []
                out.append(TestCase(id=r["id"], question=r["question"], response=r["response"],
                                    documents=tuple([docs] if isinstance(docs, str) else docs),
                                    ground_truth=r.get("ground_truth"), labels=r.get("labels") or {},
                                    metadata={**(r.get("meta") or {}), "source": r.get("source")}))
        return out


OFFLINE = [name for name, spec in METHODS.items() if not spec.needs_llm]
SUMMARY = {"auroc", "best_f1", "f1", "spearman"}


def plan(path: Path) -> tuple[list[str], str]:
    """(label columns, group column) of a shared file."""
    if "mtrag" in path.name:
        return ["hallucinated", "faithfulness"], "conversation_id"
    return ["hallucinated"], "source_id"


def baseline_mtrag(cases, group_column: str, n_boot: int):
    """AUROC of the published RAGAS faithfulness (−rl_f) on the same cases, same resampling."""
    from sklearn.metrics import roc_auc_score

    rows = [(c.labels.get("hallucinated"), (c.metadata.get("upstream_auto_metrics") or {}).get("rl_f"),
             c.metadata.get(group_column)) for c in cases]
    rows = [r for r in rows if r[0] is not None and r[1] is not None]
    if not rows:
        return None
    y = [int(bool(r[0])) for r in rows]
    s = [-float(r[1]) for r in rows]
    g = [r[2] for r in rows]

    def auc(yy, ss):
        return roc_auc_score(yy, ss) if len(set(yy)) > 1 else None

    return bootstrap_stat(auc, y, s, groups=g, n_boot=n_boot)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=None, help="first N cases of each file (quick look)")
    ap.add_argument("--full", action="store_true", help="print every statistic, not only the summary")
    ap.add_argument("--out", default=None, help="write all tables as JSON")
    ap.add_argument("--files", default=None, help="only files whose name contains one of these "
                                                  "comma-separated words (e.g. mtrag,summary)")
    args = ap.parse_args(argv)
    files = shared_files()
    if not files:
        print("skipped: ../shared/data is absent")
        return 0
    if args.files:
        words = [w.strip() for w in args.files.split(",") if w.strip()]
        files = [f for f in files if any(w in f.name for w in words)]
        if not files:
            print(f"no shared file matches --files {args.files}")
            return 2
    report: dict[str, object] = {}
    for path in files:
        cases = load_shared(path)
        if "mtrag" in path.name:
            before = len(cases)
            cases = [c for c in cases if c.documents]
            print(f"\n== {path.name}: {len(cases)} cases ({before - len(cases)} without documents left out)")
        else:
            print(f"\n== {path.name}: {len(cases)} cases")
        if args.limit:
            cases = cases[: args.limit]
        labels, group = plan(path)
        for method in OFFLINE:
            t0 = time.perf_counter()
            run = evaluate_batch(cases, method)
            t_eval = time.perf_counter() - t0
            t0 = time.perf_counter()
            df = agreement_table(run, labels, group, n_boot=args.n_boot)
            t_stats = time.perf_counter() - t0
            groups = len({c.metadata.get(group) for c in cases})
            print(f"-- method {method}: scored {len(run.scored)}/{len(run.results)} in {t_eval:.0f}s; "
                  f"statistics in {t_stats:.0f}s; resampled by {group} ({groups} groups)")
            shown = df if args.full else df[df["statistic"].isin(SUMMARY)]
            shown = shown.assign(note=[n.split("; resampled")[0] for n in shown["note"]])
            print(format_table(shown))
            report[f"{path.name}:{method}"] = table_records(df)
        if "mtrag" in path.name:
            b = baseline_mtrag(cases, group, args.n_boot)
            if b is not None:
                print(f"-- published baseline: AUROC of −rl_f (RAGAS faithfulness) vs hallucinated: {b}")
                report[f"{path.name}:baseline_rl_f"] = b.as_dict()
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
        print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

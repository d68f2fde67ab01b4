"""``agreement``: evaluate a labelled file and compare each method's scores with the human labels
(AUROC / F1 for yes-no labels, RMSE / Spearman / Kendall for graded ones, each with a 95 %
bootstrap interval). Exit codes: 0 ok, 2 bad input or no labels."""

from __future__ import annotations

import argparse
from typing import Any

from .common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    UsageError,
    add_llm_options,
    add_map_option,
    build_options,
    eprint,
    get_method_or_usage_error,
    load_input,
    progress_bar,
    split_names,
    write_json,
)


def add_parser(sub: Any) -> None:
    ag = sub.add_parser(
        "agreement", help="agreement of a method's scores with human labels in a data file",
        description="Evaluate INPUT and compare each method's scores with the human label columns "
                    "(AUROC / F1 for yes-no labels, RMSE / Spearman / Kendall for graded ones), each "
                    "with a 95% bootstrap interval. Exit codes: 0 ok, 2 bad input or no labels.",
    )
    ag.add_argument("input", metavar="INPUT", help="data file with human label columns")
    ag.add_argument("--method", default="trace",
                    help="method, or several comma-separated (trace,hybrid) to compare them too")
    ag.add_argument("--label-column", action="append", default=None, metavar="LABEL[:METRIC]",
                    help="human label to compare with (repeatable; default: every recognised label)")
    ag.add_argument("--group-column", default=None, metavar="COLUMN",
                    help="resample whole groups sharing this value (e.g. source_id)")
    ag.add_argument("--out", default=None, metavar="PATH", help="write the agreement JSON here")
    ag.add_argument("--n-boot", type=int, default=2000, metavar="N", help="bootstrap resamples")
    ag.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    ag.add_argument("--metrics", default=None, metavar="NAME,NAME",
                    help="family metrics to compute and compare as well")
    add_map_option(ag, "map a column explicitly (as for evaluate)")
    ag.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_llm_options(ag)
    ag.set_defaults(func=cmd_agreement)


def cmd_agreement(args: argparse.Namespace) -> int:
    """Evaluate with each method, then compare with the human labels."""
    from ..agreement import agreement_report
    from ..datasets import DatasetError
    from ..pipeline import evaluate_batch

    methods = split_names(args.method) or ["trace"]
    specs = [get_method_or_usage_error(m) for m in methods]
    if args.n_boot < 0:
        raise UsageError("--n-boot must be >= 0")
    if args.dry_run:
        raise UsageError("--dry-run: agreement needs real scores; use evaluate --dry-run for an estimate")
    options = build_options(args, any(s.needs_llm for s in specs))
    try:
        loaded = load_input(args.input, args.map)
    except DatasetError as exc:
        eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    for e in loaded.errors[:20]:
        eprint(f"input error: {e}")
    if not any(c.labels for c in loaded.cases):
        eprint(f"error: {args.input}: no human label columns found (e.g. hallucinated, "
               f"adherence_score, a 'labels' object, or human_* / label_* columns)")
        return EXIT_BAD_INPUT
    runs = []
    for m in methods:
        progress, bar = progress_bar(len(loaded.cases), not args.no_progress)
        try:
            runs.append(evaluate_batch(loaded.cases, m, options=options, progress=progress))
        finally:
            if bar is not None:
                bar.close()
    try:
        report = agreement_report(runs, args.label_column, args.group_column,
                                          n_boot=args.n_boot, seed=args.seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(report["text"])
    report.pop("text")
    report["input_file"] = str(args.input)
    report["input_errors"] = loaded.error_dicts()
    if args.out:
        write_json(args.out, report)
    if not report["table"]:
        eprint("error: no label column could be compared with a metric")
        return EXIT_BAD_INPUT
    return EXIT_BAD_INPUT if loaded.errors else EXIT_OK

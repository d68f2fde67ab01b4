"""``evaluate``: score a data file, write the results JSON / CSV, gate on thresholds.

Exit codes: 0 success; 1 a ``--fail-under`` threshold failed (each failed metric is printed);
2 bad input (unreadable file, unknown method or metric, bad option syntax, missing API key) —
also when some rows of the input were invalid: the valid rows are still evaluated and written,
with the invalid ones listed under ``input_errors``. Thresholds are checked by
``evaluators.gate`` (the library's one threshold implementation).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ..types import SUMMARY_METRICS
from .common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_THRESHOLD,
    UsageError,
    add_llm_options,
    add_map_option,
    build_options,
    eprint,
    get_method_or_usage_error,
    load_input,
    progress_bar,
    write_json,
)
from .traces import add_trace_arguments, check_send_flags, report_input, send_back, trace_options

if TYPE_CHECKING:
    from ..options import EvalOptions
    from ..types import RunResult, TestCase

#: Metrics of the JSON top level that ``--fail-under`` accepts besides requested family metrics.
CORE_THRESHOLD_METRICS = SUMMARY_METRICS


def add_parser(sub: Any) -> None:
    ev = sub.add_parser(
        "evaluate", help="evaluate a data file",
        description="Evaluate a CSV / JSON / JSONL / Parquet file, or a trace export (one case per trace). "
                    "Exit codes: 0 ok, 1 a threshold failed, 2 bad input or scores not sent back "
                    "(still writes results for the valid rows).",
    )
    ev.add_argument("input", metavar="INPUT", help="data file (.csv .tsv .json .jsonl .parquet)")
    ev.add_argument("--method", default="trace", help="evaluation method (default: trace)")
    ev.add_argument("--out", default=None, metavar="PATH", help="write results JSON here")
    ev.add_argument("--csv", default=None, metavar="PATH", help="write one row per case here")
    ev.add_argument("--fail-under", action="append", default=[], metavar="METRIC=VALUE",
                    help="exit 1 when the mean of METRIC is below VALUE (repeatable, or "
                         "comma-separated: adherence=0.8,completeness=0.7)")
    ev.add_argument("--metrics", default=None, metavar="NAME,NAME",
                    help="ragas / Tonic family metrics to compute next to TRACE")
    ev.add_argument("--metric-param", action="append", default=[], metavar="METRIC.KEY=VALUE",
                    help="a metric parameter, e.g. regex.pattern='\\d+' or response_length.max=400 "
                         "(VALUE is read as JSON when it parses, else as text); repeatable")
    ev.add_argument("--metric-params", default=None, metavar="FILE.json",
                    help='metric parameters as a JSON object {"metric": {"key": value}}')
    add_map_option(ev, "map a column explicitly (fields: question, response, documents, "
                       "ground_truth, id); repeatable")
    ev.add_argument("--max-errors-shown", type=int, default=20, metavar="N",
                    help="print at most N input errors (all are written to --out)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument("--engine", choices=("local", "ray"), default="local",
                    help="ray: label chunks on Ray workers (offline methods; pip install -r requirements-ray.txt)")
    ev.add_argument("--ray-address", default=None, metavar="ADDR", help="an existing Ray cluster (--engine ray)")
    add_llm_options(ev)
    add_gate_arguments(ev)
    add_trace_arguments(ev)
    ev.set_defaults(func=cmd_evaluate)


def add_gate_arguments(parser: Any) -> None:
    """The gate / report flags of ``evaluate``."""
    from ..gate import GATE_ON

    g = parser.add_argument_group("CI gate and reports")
    g.add_argument("--gate-on", choices=GATE_ON, default="mean",
                   help="check --fail-under on the mean (default) or on the lower bound of its 95%% "
                        "interval (a small or noisy run cannot pass by luck)")
    g.add_argument("--group-column", default=None, metavar="COLUMN",
                   help="intervals resample whole groups of cases sharing this metadata/label value "
                        "(e.g. source_id: several answers to one question)")
    g.add_argument("--junit", default=None, metavar="PATH", help="write a JUnit XML report of the gate")
    g.add_argument("--markdown", default=None, metavar="PATH",
                   help="write a Markdown summary (also appended to $GITHUB_STEP_SUMMARY when set)")


def parse_fail_under(items: list[str]) -> dict[str, float]:
    """``--fail-under`` values through ``gate.parse_thresholds``; a usage error names the bad one."""
    from ..gate import parse_thresholds

    try:
        return parse_thresholds(items)
    except ValueError as exc:
        raise UsageError(f"--fail-under: {exc}") from None


def check_threshold_names(thresholds: Mapping[str, float], options: EvalOptions) -> None:
    allowed = set(CORE_THRESHOLD_METRICS) | set(options.metrics)
    bad = [n for n in thresholds if n not in allowed]
    if bad:
        raise UsageError(f"--fail-under: unknown metric(s) {', '.join(bad)}; valid: "
                         f"{', '.join(sorted(allowed))} (family metrics must also be in --metrics)")


def apply_gate(args: argparse.Namespace, run: RunResult, out: dict[str, Any],
               thresholds: Mapping[str, float]) -> list[str]:
    """Gate an evaluation: regroup the intervals if asked, write the JUnit / Markdown reports,
    return one message per failed metric (empty = passed)."""
    from ..gate import evaluate_gate, markdown_summary, write_junit, write_markdown

    group_column = getattr(args, "group_column", None)
    if group_column:
        from ..agreement import run_intervals

        out["intervals"] = run_intervals(run, group_column)
        out["intervals_group_column"] = group_column
    gate = evaluate_gate(out, thresholds, getattr(args, "gate_on", "mean") or "mean")
    if getattr(args, "junit", None):
        write_junit(gate, args.junit)
    md_path = getattr(args, "markdown", None)
    if md_path or os.environ.get("GITHUB_STEP_SUMMARY"):
        write_markdown(markdown_summary(gate, out), md_path)
    return [f"{c.metric}: {c.reason}" for c in gate.failures]


def print_summary(d: dict[str, Any]) -> None:
    print(f"method: {d.get('method')}  cases: {d.get('num_samples')}  scored: {d.get('num_scored')}  "
          f"errors: {d.get('num_errors')}")
    skip = {"num_samples", "num_scored", "num_errors", "schema_version"}
    intervals = d.get("intervals") or {}
    for k, v in d.items():
        if k not in skip and isinstance(v, (int, float)) and not isinstance(v, bool):
            iv = intervals.get(k) or {}  # 95% interval
            ci = (f"  [{iv['low']:.4f}, {iv['high']:.4f}]"
                  if iv.get("low") is not None and iv.get("high") is not None else "")
            print(f"  {k:<28} {v:.4f}{ci}")
        elif v is None and k in CORE_THRESHOLD_METRICS:
            print(f"  {k:<28} n/a")


def _write_outputs(args: argparse.Namespace, run: RunResult, out: dict[str, Any]) -> None:
    if args.out:
        write_json(args.out, out)
    if args.csv:
        from ..export import to_csv, to_rows

        p = Path(args.csv)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(to_csv(to_rows(run)), encoding="utf-8")
        eprint(f"wrote {p}")


def _dry_run(cases: list[TestCase], method: str, options: EvalOptions) -> int:
    from ..pipeline import estimate

    data = estimate(cases, method, options)
    print(f"dry run of {method!r} on {len(cases)} cases (no LLM call made):")
    for k, v in data.items():
        print(f"  {k}: {json.dumps(v, default=str) if isinstance(v, (dict, list)) else v}")
    return EXIT_OK


def cmd_evaluate(args: argparse.Namespace) -> int:
    from ..datasets import DatasetError
    from ..export import to_json_dict
    from ..pipeline import evaluate_batch

    spec = get_method_or_usage_error(args.method)
    thresholds = parse_fail_under(args.fail_under)
    options = build_options(args, spec.needs_llm)
    check_threshold_names(thresholds, options)
    check_send_flags(args)
    try:
        loaded = load_input(args.input, args.map, trace_options(args))
    except DatasetError as exc:
        eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    report_input(loaded)
    for e in loaded.errors[: max(0, args.max_errors_shown)]:
        eprint(f"input error: {e}")
    if len(loaded.errors) > args.max_errors_shown:
        eprint(f"... and {len(loaded.errors) - args.max_errors_shown} more input errors")
    for w in loaded.warnings[: max(0, args.max_errors_shown)]:  # rows kept after a fix-up (renamed id)
        eprint(f"input warning: {w}")
    if options.dry_run:
        code = _dry_run(loaded.cases, args.method, options)
        return EXIT_BAD_INPUT if loaded.errors else code
    progress, bar = progress_bar(len(loaded.cases), not args.no_progress)
    try:
        run = evaluate_batch(loaded.cases, args.method, options=options, progress=progress,
                             engine=args.engine, ray_address=args.ray_address)
    finally:
        if bar is not None:
            bar.close()
    out = to_json_dict(run)
    from ..encoder.embeddings import info as encoder_info

    enc = encoder_info()
    if enc["chosen"]:  # which encoder ran, and why (measured on this machine, or forced)
        out["encoder"] = {k: v for k, v in enc["decision"].items() if k != "measured"}
        eprint(f"encoder: {enc['backend']} ({enc['decision'].get('reason')})"
               + ("" if enc["loaded"] else "; every vector came from the disk cache: no model loaded"))
    out["input_file"] = str(args.input)
    out["input_mapping"] = loaded.mapping.model_dump() if loaded.mapping else None
    out["input_errors"] = loaded.error_dicts()
    out["input_warnings"] = loaded.warning_dicts()
    failures = apply_gate(args, run, out, thresholds)  # reports; regrouped intervals
    sent = send_back(args, run, out, loaded)  # annotation files / Phoenix, for a trace file
    _write_outputs(args, run, out)
    print_summary(out)
    if run.errors:
        eprint(f"warning: {len(run.errors)} case(s) could not be scored, e.g. "
               f"{run.errors[0][0]}: {run.errors[0][1]}")
    for f in failures:
        print(f"FAILED {f}")
    for p in sent:
        eprint(f"error: {p}")
    if loaded.errors:
        eprint(f"error: {len(loaded.errors)} invalid input row(s); the other "
               f"{len(loaded.cases)} were evaluated")
        return EXIT_BAD_INPUT
    if sent:
        return EXIT_BAD_INPUT
    return EXIT_THRESHOLD if failures else EXIT_OK

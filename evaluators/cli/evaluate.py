"""``evaluate``: score a data file, write the results JSON / CSV, gate on thresholds.

Exit codes: 0 success; 1 a ``--fail-under`` threshold failed (each failed metric is printed);
2 bad input (unreadable file, unknown method or metric, bad option syntax, missing API key) —
also when some rows of the input were invalid: the valid rows are still evaluated and written,
with the invalid ones listed under ``input_errors``. Thresholds are checked by
``evaluators.gate`` (the library's one threshold implementation).

``--target TARGET.yaml``: INPUT is a question file; the app is called first (``cli.run.run_step``:
the cases file is written beside ``--out`` as ``NAME.cases.jsonl``, or at ``--cases``, and named in
the results under ``target``), then its answers are evaluated. A run that cannot call the app (or
a bad target / question file) exits 2 before evaluating; questions the app did not answer are
evaluated as cases flagged with its error, and the exit code is then at least 1.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ..answers.names import METRICS as ANSWER_METRICS
from ..types import SUMMARY_METRICS, CaseResult, RunResult
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
    open_input,
    progress_bar,
)
from .run import add_run_arguments, run_step
from .traces import (
    add_trace_arguments,
    check_send_flags,
    nothing_readable,
    report_input,
    send_back,
    trace_options,
)

if TYPE_CHECKING:
    from ..options import EvalOptions
    from ..types import TestCase

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
    ev.add_argument("--out", default=None, metavar="PATH",
                    help="write the results here: .jsonl = JSON Lines, one case per line as it finishes (any "
                         "size); .json = one JSON document (cases kept in PATH.partial.jsonl until the end)")
    ev.add_argument("--resume", action="store_true",
                    help="continue the run an interrupted --out file holds: only the cases not in it are evaluated")
    ev.add_argument("--chunk-rows", type=int, default=None, metavar="N",
                    help="input rows read, evaluated and written per step (default 1000)")
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
    add_retrieval_arguments(ev)
    ev.add_argument("--max-errors-shown", type=int, default=20, metavar="N",
                    help="print at most N input errors (all are written to --out)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument("--engine", choices=("local", "ray"), default="local",
                    help="ray: label chunks on Ray workers (offline methods; pip install -r requirements-ray.txt)")
    ev.add_argument("--ray-address", default=None, metavar="ADDR", help="an existing Ray cluster (--engine ray)")
    add_llm_options(ev)
    add_gate_arguments(ev)
    add_trace_arguments(ev)
    add_run_arguments(ev, out_required=False)
    ev.set_defaults(func=cmd_evaluate)


def add_retrieval_arguments(parser: Any) -> None:
    """The retrieval metrics' flags (cases with reference passages get hit@K, precision@K, ...) and the answer
    metrics' (--answer-correctness)."""
    g = parser.add_argument_group("retrieval metrics (cases with reference_context_ids / reference_contexts)")
    g.add_argument("--k", default=None, metavar="K,K",
                   help="cutoffs of hit@K, precision@K, recall@K, map@K, ndcg@K (default 1,3,5,10)")
    g.add_argument("--match", choices=("auto", "id", "text"), default="auto",
                   help="match retrieved passages to the references by id, by text, or auto (default: ids when "
                        "any retrieved id of the run is a reference id, else text)")
    parser.add_argument("--no-goal-accuracy", action="store_true",
                        help="agents: no LLM call for goal accuracy (did the agent achieve what was asked: one call "
                             "per case with tool calls, in runs with an LLM; offline it is not available)")
    parser.add_argument("--tool-order", choices=("strict", "any"), default="strict",
                        help="tool-call metrics (cases with reference_tool_calls): must the agent's calls follow "
                             "the reference's order (strict, default) or not (any); a case's own "
                             "tool_call_order column overrides it")
    a = parser.add_argument_group("answer metrics (declined, over_refusal; answer_correctness with a ground_truth)")
    a.add_argument("--answer-correctness", choices=("auto", "offline", "llm", "off"), default="auto",
                   help="judge answers against their reference answer (ground_truth): offline with the trace "
                        "labeler, with one LLM call per case, or off; auto (default) = the LLM with an LLM method, "
                        "else offline")


def retrieval_options(args: argparse.Namespace, options: EvalOptions) -> EvalOptions:
    """``options`` with ``--k`` / ``--match`` (a usage error names a bad cutoff)."""
    from ..retrieval import parse_k

    update: dict[str, Any] = {"retrieval_match": getattr(args, "match", None) or "auto",
                              "tool_call_order": getattr(args, "tool_order", None) or "strict",
                              "answer_correctness": getattr(args, "answer_correctness", None) or "auto",
                              "goal_accuracy": not getattr(args, "no_goal_accuracy", False)}
    if getattr(args, "k", None):
        try:
            update["retrieval_k"] = parse_k(args.k)
        except ValueError as exc:
            raise UsageError(f"--k {args.k!r}: {exc}") from None
    return options.model_copy(update=update)


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
    from ..retrieval import is_retrieval_metric, metric_names
    from ..toolcalls import NAMES as TOOL_METRICS

    retrieval = metric_names(options.retrieval_k)
    allowed = (set(CORE_THRESHOLD_METRICS) | set(options.metrics) | set(retrieval) | set(TOOL_METRICS)
               | set(ANSWER_METRICS))
    bad = [n for n in thresholds if n not in allowed]
    if bad:
        other_k = [n for n in bad if is_retrieval_metric(n)]
        hint = (f"; {', '.join(other_k)}: a cutoff not in --k {','.join(map(str, options.retrieval_k))} (add it)"
                if other_k else "")
        raise UsageError(f"--fail-under: unknown metric(s) {', '.join(bad)}; valid: "
                         f"{', '.join(sorted({*CORE_THRESHOLD_METRICS, *options.metrics, *ANSWER_METRICS}))}, "
                         f"the retrieval metrics {retrieval[0]} … {retrieval[-1]}, the tool-call metrics "
                         f"{', '.join(TOOL_METRICS)} (family metrics must also be in --metrics)"
                         + hint)


def apply_gate(args: argparse.Namespace, out: dict[str, Any], thresholds: Mapping[str, float]) -> list[str]:
    """Gate an evaluation on its results' top level (``out``: means and intervals, grouped by
    ``--group-column`` when given), write the JUnit / Markdown reports, return one message per failed
    metric (empty = passed)."""
    from ..gate import evaluate_gate, markdown_summary, write_junit, write_markdown

    if getattr(args, "group_column", None):
        out["intervals_group_column"] = args.group_column
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
    from ..retrieval import is_retrieval_metric
    from ..toolcalls import GOAL

    skip = {"num_samples", "num_scored", "num_errors", "schema_version"}
    intervals = d.get("intervals") or {}
    for k, v in d.items():
        if is_retrieval_metric(k):
            continue  # one table below
        if k not in skip and isinstance(v, (int, float)) and not isinstance(v, bool):
            iv = intervals.get(k) or {}  # 95% interval
            ci = (f"  [{iv['low']:.4f}, {iv['high']:.4f}]"
                  if iv.get("low") is not None and iv.get("high") is not None else "")
            print(f"  {k:<28} {v:.4f}{ci}")
        elif v is None and k in CORE_THRESHOLD_METRICS:
            print(f"  {k:<28} n/a")
        elif v is None and k == GOAL:  # an agent's goal accuracy without an LLM: said, not guessed
            why = next((w.split(": ", 1)[1] for w in d.get("warnings") or () if w.startswith(f"{GOAL}: ")), "")
            print(f"  {k:<28} n/a" + (f" — {why}" if why else ""))
    if d.get("conversations"):  # a run of turns of chats: by turn, and the worst conversations
        from ..conversations.grouping import summary_lines

        print("\n".join(summary_lines(d["conversations"])))
    rr = (d.get("settings") or {}).get("retrieval_run") or {}
    if rr.get("match") in ("id", "text"):
        print(f"retrieval: matched by {rr['match']} ({rr.get('reason')}); means (their 95 % intervals: the "
              "results file's intervals)")
        for line in retrieval_lines(d):
            print(line)
    if d.get("app"):
        from ..appcost import words

        print(f"app: {words(d['app'])}")


def retrieval_lines(d: dict[str, Any]) -> list[str]:
    """The run's retrieval means as a small table: a row per kind, a column per cutoff (mrr apart)."""
    from ..retrieval import split

    rows: dict[str, dict[int, float | None]] = {}
    mrr = None
    for k, v in d.items():
        got = split(k)
        if got is None:
            continue
        if got[1] is None:
            mrr = v
        else:
            rows.setdefault(got[0], {})[got[1]] = v
    if not rows:
        return []
    ks = sorted({k for r in rows.values() for k in r})
    out = ["  " + f"{'':<12}" + "".join(f"{'@' + str(k):>9}" for k in ks)]
    for kind, vals in rows.items():
        out.append(f"  {kind:<12}" + "".join(f"{'n/a' if vals.get(k) is None else format(vals[k], '.4f'):>9}"
                                             for k in ks))
    if mrr is not None:
        out.append(f"  {'mrr':<12}{mrr:>9.4f}")
    return out


def _dry_run(cases: list[TestCase], method: str, options: EvalOptions) -> int:
    from ..pipeline import estimate

    data = estimate(cases, method, options)
    print(f"dry run of {method!r} on {len(cases)} cases (no LLM call made):")
    for k, v in data.items():
        print(f"  {k}: {json.dumps(v, default=str) if isinstance(v, (dict, list)) else v}")
    return EXIT_OK


def _encoder_note(out: dict[str, Any]) -> None:
    from ..encoder.embeddings import info as encoder_info

    enc = encoder_info()
    if enc["chosen"]:  # which encoder ran, and why (measured on this machine, or forced)
        out["encoder"] = {k: v for k, v in enc["decision"].items() if k != "measured"}
        eprint(f"encoder: {enc['backend']} ({enc['decision'].get('reason')})"
               + ("" if enc["loaded"] else "; every vector came from the disk cache: no model loaded"))


def _input_problems(args: argparse.Namespace, errors: list[Any], warnings: list[Any]) -> None:
    for e in errors[: max(0, args.max_errors_shown)]:
        eprint(f"input error: {e}")
    if len(errors) > args.max_errors_shown:
        eprint(f"... and {len(errors) - args.max_errors_shown} more input errors")
    for w in warnings[: max(0, args.max_errors_shown)]:  # rows kept after a fix-up (renamed id)
        eprint(f"input warning: {w}")


def cases_path(args: argparse.Namespace) -> str:
    """Where ``evaluate --target`` writes the app's answers: ``--cases``, else beside ``--out``."""
    if args.cases:
        return str(args.cases)
    if not args.out:
        raise UsageError("--target writes the app's answers beside --out: give --out (or --cases)")
    out = Path(args.out)
    return str(out.with_name(f"{out.stem}.cases.jsonl"))


def cmd_evaluate(args: argparse.Namespace) -> int:
    """With ``--target``: call the app first (``run_step``); then evaluate."""
    if not args.target:
        return evaluate_input(args)
    cases = cases_path(args)
    if not cases.lower().endswith((".jsonl", ".ndjson")):
        raise UsageError(f"--cases {cases}: the cases file is JSON Lines: give a .jsonl name")
    if args.out and Path(cases).resolve() == Path(args.out).resolve():
        raise UsageError("--cases and --out name the same file")
    code, report = run_step(args, args.input, cases, None, args.max_errors_shown)
    if report is None or report.fatal or code == EXIT_BAD_INPUT or not report.complete:
        return EXIT_BAD_INPUT  # never a score of a subset of the questions: what is missing was said
    eprint(f"evaluating the app's answers: {cases}")
    target_info = {"name": report.target, "questions": str(args.input), "cases": cases,
                   "answered": report.answered, "failed": len(report.failed), **report.latency_summary()}
    args.input, args.map, args.target_info = cases, [], target_info
    return max(evaluate_input(args), code)


def evaluate_input(args: argparse.Namespace) -> int:
    """Read the input in chunks, write each finished case as it goes (``resultfiles.evaluate_file``),
    gate on the summary of the per-case values."""
    from ..datasets import DatasetError
    from ..resultfiles import JournalError, evaluate_file
    from ..resultfiles.run import journal_path

    spec = get_method_or_usage_error(args.method)
    thresholds = parse_fail_under(args.fail_under)
    options = retrieval_options(args, build_options(args, spec.needs_llm))
    check_threshold_names(thresholds, options)
    check_send_flags(args)
    topts = trace_options(args)
    if options.dry_run:
        try:
            loaded = load_input(args.input, args.map, topts)
        except DatasetError as exc:
            eprint(f"error: {exc}")
            return EXIT_BAD_INPUT
        report_input(loaded)
        _input_problems(args, loaded.errors, loaded.warnings)
        empty = nothing_readable(loaded)
        if empty:
            eprint(f"error: {empty}")
            return EXIT_BAD_INPUT
        code = _dry_run(loaded.cases, args.method, options)
        return EXIT_BAD_INPUT if loaded.errors else code
    if args.resume and not args.out:
        raise UsageError("--resume continues the results file of --out: give --out")
    try:
        stream = open_input(args.input, args.map, args.chunk_rows, topts)
    except DatasetError as exc:
        eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    traced = getattr(stream, "loaded", None)  # a trace export, read whole: its scores may go back
    kept: list[CaseResult] = []
    if traced is not None:
        report_input(traced)
        if args.engine == "ray":
            raise UsageError("--engine ray reads rows in blocks; a trace export is read whole: evaluate it "
                             "with the local engine")
    progress, bar = progress_bar(stream.total_hint, not args.no_progress)
    failures: list[str] = []

    def decorate(top: dict[str, Any], _tally: Any) -> None:
        _encoder_note(top)
        if getattr(args, "target_info", None):
            top["target"] = args.target_info
        if traced is not None and traced.traces is not None:
            top["traces"] = traced.traces.summary()
        failures.extend(apply_gate(args, top, thresholds))  # reports

    try:
        fr = evaluate_file(args.input, args.method, options=options, out=args.out, csv=args.csv,
                           resume=args.resume, stream=stream, engine=args.engine, ray_address=args.ray_address,
                           group_column=getattr(args, "group_column", None), progress=progress, decorate=decorate,
                           on_case=kept.append if traced is not None else None)
    except JournalError as exc:
        eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        if args.out:
            eprint(f"interrupted: every finished case is in {journal_path(args.out)}; the same command with "
                   "--resume continues the run")
        raise
    finally:
        if bar is not None:
            bar.close()
    out = fr.top
    for p in fr.written:
        eprint(f"wrote {p}")
    if fr.resumed:
        eprint(f"resumed: {fr.resumed} cases were already in {journal_path(args.out)}, {fr.evaluated} evaluated now")
    _input_problems(args, stream.errors, stream.warnings)
    sent: list[str] = []
    if traced is not None:  # annotation files / Phoenix: the cases of this session
        sent = send_back(args, RunResult(method=args.method, results=tuple(kept)), out, traced)
    print_summary(out)
    for w in (out.get("warnings") or [])[: max(0, args.max_errors_shown)]:  # the run's: unknown tools …
        eprint(f"warning: {w}")
    errors = fr.tally.errors
    if errors:
        eprint(f"warning: {len(errors)} case(s) could not be scored, e.g. {errors[0][0]}: {errors[0][1]}")
    for f in failures:
        print(f"FAILED {f}")
    for problem in sent:
        eprint(f"error: {problem}")
    empty = nothing_readable(traced) if traced is not None else None
    if empty:  # the results file is written (its 'traces' lists every skipped trace), but nothing passed
        eprint(f"error: {empty}")
        return EXIT_BAD_INPUT
    if stream.errors:
        eprint(f"error: {len(stream.errors)} invalid input row(s); the other {fr.tally.num_cases} were evaluated"
               if fr.tally.num_cases else
               f"error: every input row is invalid ({len(stream.errors)}, listed above); nothing was evaluated")
        return EXIT_BAD_INPUT
    if sent:
        return EXIT_BAD_INPUT
    return EXIT_THRESHOLD if failures else EXIT_OK

"""Command line: ``python -m evaluators evaluate INPUT --method trace --out results.json``.

Exit codes: 0 success; 1 a ``--fail-under`` threshold failed (each failed metric is printed);
2 bad input (unreadable file, unknown method or metric, bad option syntax, missing API key) —
also when some rows of the input were invalid: the valid rows are still evaluated and written,
with the invalid ones listed under ``input_errors``.

API keys come only from the environment (the names in ``evaluators.llm.settings.KEY_ENV``) and
go only where ``evaluators.llm.settings`` allows (the official endpoint, or RAG_EVAL_BASE_URL);
they are never flags and never printed or written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

EXIT_OK = 0
EXIT_THRESHOLD = 1
EXIT_BAD_INPUT = 2


#: Metrics of the JSON top level that ``--fail-under`` accepts besides requested family metrics.
CORE_THRESHOLD_METRICS = ("context_relevance", "context_utilization", "completeness", "adherence",
                          "overall_supported", "average")


class UsageError(Exception):
    """Bad command-line input: printed, exit code 2."""


def _eprint(*a: Any) -> None:
    print(*a, file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------------------------


def _add_llm_options(p: argparse.ArgumentParser) -> None:
    from .llm.settings import KEY_ENV, OWNER_BASE_URL_ENV, PROVIDERS

    g = p.add_argument_group("LLM (for gpt_labeling / hybrid / jury and LLM metrics; key from env)")
    g.add_argument("--provider", choices=PROVIDERS, default=None,
                   help="LLM provider (default groq); key from " + " / ".join(KEY_ENV.values()))
    g.add_argument("--base-url", default=None,
                   help=f"base URL of an OpenAI-compatible server (default ${OWNER_BASE_URL_ENV}); "
                        f"environment keys are sent only to ${OWNER_BASE_URL_ENV} or the official "
                        "endpoint, any other URL is called without a key")
    g.add_argument("--model", default=None, help="model name")
    g.add_argument("--concurrency", type=int, default=None, help="parallel LLM calls")
    g.add_argument("--rpm", type=int, default=None, help="requests per minute limit")
    g.add_argument("--tpm", type=int, default=None, help="tokens per minute limit")
    g.add_argument("--cache", default=None, metavar="PATH",
                   help="SQLite cache file of LLM replies ('' disables the cache)")
    g.add_argument("--timeout", type=float, default=None, metavar="S", help="seconds per LLM call")
    g.add_argument("--dry-run", action="store_true",
                   help="only estimate LLM calls / tokens / cost; evaluate nothing")
    g.add_argument("--selective-budget", type=int, default=None, metavar="N",
                   help="hybrid: at most N LLM-labeled cases (the least certain first)")
    g.add_argument("--selective-share", type=float, default=None, metavar="F",
                   help="hybrid: LLM-label this share (0-1) of cases, the least certain first")
    g.add_argument("--jury-models", default=None, metavar="M1,M2,...",
                   help="jury: comma-separated models ('provider:model' to mix providers)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluators",
        description="Sentence-level RAG evaluation (TRACE metrics and the ragas / Tonic families).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    ev = sub.add_parser(
        "evaluate", help="evaluate a data file",
        description="Evaluate a CSV / JSON / JSONL / Parquet file. Exit codes: 0 ok, 1 a threshold "
                    "failed, 2 bad input (still writes results for the valid rows).",
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
    ev.add_argument("--map", action="append", default=[], metavar="FIELD=COLUMN",
                    help="map a column explicitly (fields: question, response, documents, "
                         "ground_truth, id); repeatable")
    ev.add_argument("--max-errors-shown", type=int, default=20, metavar="N",
                    help="print at most N input errors (all are written to --out)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar")
    ev.add_argument("--engine", choices=("local", "ray"), default="local",
                    help="ray: label chunks on Ray workers (offline methods; pip install -r requirements-ray.txt)")
    ev.add_argument("--ray-address", default=None, metavar="ADDR", help="an existing Ray cluster (--engine ray)")
    _add_llm_options(ev)
    from .gate import add_gate_arguments  # stats helper: --gate-on / --group-column / --junit / --markdown

    add_gate_arguments(ev)
    ev.set_defaults(func=cmd_evaluate)
    _add_agreement_parser(sub)
    from .embed_cache import add_cache_parser  # `cache info` / `cache clear`

    add_cache_parser(sub)
    return parser


# ---------------------------------------------------------------------------------------------
# Helpers (small, so other subcommands and flags can reuse them)
# ---------------------------------------------------------------------------------------------


def parse_thresholds(items: Sequence[str]) -> dict[str, float]:
    """['adherence=0.8', 'completeness=0.7,average=0.6'] -> {name: value}; UsageError on bad syntax."""
    out: dict[str, float] = {}
    for item in items:
        for part in item.split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, value = part.partition("=")
            name = name.strip()
            if not sep or not name or not value.strip():
                raise UsageError(f"--fail-under {part!r}: expected METRIC=VALUE, e.g. adherence=0.8")
            try:
                v = float(value)
            except ValueError:
                raise UsageError(f"--fail-under {part!r}: {value.strip()!r} is not a number") from None
            if math.isnan(v):
                raise UsageError(f"--fail-under {part!r}: value is not a number")
            out[name] = v
    return out


def check_thresholds(json_dict: dict[str, Any], thresholds: dict[str, float]) -> list[str]:
    """One message per failed threshold (a metric with no value fails too)."""
    failures: list[str] = []
    for name, minimum in thresholds.items():
        value = json_dict.get(name)
        if isinstance(value, bool):
            value = float(value)
        if not isinstance(value, (int, float)) or math.isnan(value):
            failures.append(f"{name}: no value (no case scored, or the metric was skipped for every case) "
                            f"< required {minimum:g}")
        elif value < minimum:
            failures.append(f"{name}: {value:.4f} < required {minimum:g}")
    return failures


def _split_names(s: str | None) -> list[str]:
    return [x.strip() for x in (s or "").split(",") if x.strip()]


def _family_metric_names() -> list[str]:
    try:
        import evaluators.families  # noqa: F401 - registers the metrics
        from evaluators.families.base import METRICS
    except ImportError as exc:
        raise UsageError(f"--metrics: the metric families are not available ({exc})") from exc
    return list(METRICS.names())


def _validate_metrics(names: list[str]) -> None:
    if not names:
        return
    known = _family_metric_names()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown metric(s) {', '.join(unknown)}; valid: {', '.join(sorted(known)) or '(none)'}")


def _check_credentials(provider: str, base_url: str | None, what: str, dry_run: bool) -> None:
    """Fail early, naming the variable to set, when ``provider`` has no key it may use; say on
    stderr when an environment key is withheld from a custom base URL (the library's one rule)."""
    from .llm.settings import key_help, resolve_credentials

    creds = resolve_credentials(provider, base_url)
    if creds.withheld:
        print(f"note: {creds.withheld}", file=sys.stderr)
    if provider == "openai_compatible" and creds.base_url is None:
        raise UsageError("--provider openai_compatible needs --base-url (or RAG_EVAL_BASE_URL)")
    if not creds.key and creds.url_source != "typed" and provider != "openai_compatible" and not dry_run:
        raise UsageError(f"{what} needs an LLM: {key_help(provider)} "
                         "(or use --provider openai_compatible --base-url URL)")


def build_llm_settings(args: argparse.Namespace, needs_llm: bool):
    """LLMSettings from the flags (None when no LLM is needed nor configured). Keys are never
    flags: the client takes them from the environment by the rule of ``evaluators.llm.settings``."""
    from .llm.settings import LLMSettings

    flags = {
        "provider": args.provider, "base_url": args.base_url, "model": args.model,
        "concurrency": args.concurrency, "rpm": args.rpm, "tpm": args.tpm,
        "cache_path": args.cache, "timeout_s": args.timeout,
    }
    given = {k: v for k, v in flags.items() if v is not None}
    if not given and not needs_llm and not args.jury_models:
        return None
    for k in ("concurrency", "rpm", "tpm"):
        if k in given and given[k] < 1:
            raise UsageError(f"--{k} must be at least 1")
    if "timeout_s" in given and given["timeout_s"] <= 0:
        raise UsageError("--timeout must be positive")
    settings = LLMSettings(**given)
    if needs_llm or "provider" in given:
        _check_credentials(settings.provider, settings.base_url, f"method {args.method!r}", args.dry_run)
    return settings


def build_jury(args: argparse.Namespace, base) -> tuple:
    from .llm.settings import PROVIDERS, LLMSettings

    models = _split_names(args.jury_models)
    if not models:
        return ()
    base = base or LLMSettings()
    jurors = []
    for m in models:
        provider, sep, model = m.partition(":")
        if sep and provider in PROVIDERS:
            juror = base.model_copy(update={"provider": provider, "model": model})
            _check_credentials(provider, juror.base_url, f"juror {m!r}", args.dry_run)
            jurors.append(juror)
        else:
            jurors.append(base.model_copy(update={"model": m}))
    return tuple(jurors)


def build_options(args: argparse.Namespace, needs_llm: bool):
    from .options import EvalOptions

    metrics = _split_names(args.metrics)
    _validate_metrics(metrics)
    if args.selective_share is not None and not 0 < args.selective_share <= 1:
        raise UsageError("--selective-share must be in (0, 1]")
    if args.selective_budget is not None and args.selective_budget < 0:
        raise UsageError("--selective-budget must be >= 0")
    llm = build_llm_settings(args, needs_llm)
    return EvalOptions(
        metrics=tuple(metrics), metric_params=parse_metric_params(args), llm=llm,
        jury=build_jury(args, llm),
        selective_budget=args.selective_budget, selective_share=args.selective_share,
        dry_run=bool(args.dry_run),
    )


def parse_metric_params(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """--metric-params FILE.json, then each --metric-param METRIC.KEY=VALUE on top."""
    params: dict[str, dict[str, Any]] = {}
    path = getattr(args, "metric_params", None)
    if path:
        try:
            loaded = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"--metric-params {path}: {exc}") from None
        if not isinstance(loaded, dict) or not all(isinstance(v, dict) for v in loaded.values()):
            raise UsageError(f'--metric-params {path}: expected {{"metric": {{"key": value}}}}')
        params = {k: dict(v) for k, v in loaded.items()}
    for item in getattr(args, "metric_param", None) or []:
        name, eq, raw = item.partition("=")
        metric, dot, key = name.strip().partition(".")
        if not eq or not dot or not metric or not key:
            raise UsageError(f"--metric-param {item!r}: expected METRIC.KEY=VALUE")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        params.setdefault(metric, {})[key.strip()] = value
    return params


_MAP_FIELDS = ("question", "response", "documents", "ground_truth", "id")


def load_input(path: str, overrides: Sequence[str]):
    """LoadResult of the input file (DatasetError for file/column problems)."""
    from .datasets import guess_mapping, read_table, to_cases

    name = Path(path).name
    mapped: dict[str, str] = {}
    for item in overrides:
        fld, sep, col = item.partition("=")
        if not sep or fld.strip() not in _MAP_FIELDS or not col.strip():
            raise UsageError(f"--map {item!r}: expected FIELD=COLUMN with FIELD one of {', '.join(_MAP_FIELDS)}")
        mapped[fld.strip()] = col.strip()
    df = read_table(path)
    m = guess_mapping(list(df.columns), filename=name, overrides=mapped)
    return to_cases(df, m, name)


def _progress_bar(total_hint: int, enabled: bool) -> tuple[Callable[[int, int], None] | None, Any]:
    if not enabled:
        return None, None
    from tqdm import tqdm

    bar = tqdm(total=total_hint, desc="evaluating", unit="case", file=sys.stderr, leave=True)

    def progress(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.update(max(0, done - bar.n))

    return progress, bar


def _print_summary(d: dict[str, Any]) -> None:
    print(f"method: {d.get('method')}  cases: {d.get('num_samples')}  scored: {d.get('num_scored')}  "
          f"errors: {d.get('num_errors')}")
    skip = {"num_samples", "num_scored", "num_errors"}
    intervals = d.get("intervals") or {}
    for k, v in d.items():
        if k not in skip and isinstance(v, (int, float)) and not isinstance(v, bool):
            iv = intervals.get(k) or {}  # 95% interval (stats helper)
            ci = (f"  [{iv['low']:.4f}, {iv['high']:.4f}]"
                  if iv.get("low") is not None and iv.get("high") is not None else "")
            print(f"  {k:<28} {v:.4f}{ci}")
        elif v is None and k in CORE_THRESHOLD_METRICS:
            print(f"  {k:<28} n/a")


def _write_outputs(args: argparse.Namespace, run, out: dict[str, Any]) -> None:
    if args.out:
        p = Path(args.out)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(out, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
        _eprint(f"wrote {p}")
    if args.csv:
        import pandas as pd

        from .export import to_rows

        p = Path(args.csv)
        p.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(to_rows(run)).to_csv(p, index=False)
        _eprint(f"wrote {p}")


def _dry_run(cases, method: str, options) -> int:
    from . import pipeline

    estimate = getattr(pipeline, "estimate", None)
    if estimate is None:
        raise UsageError("--dry-run is not available: evaluators.pipeline.estimate is missing")
    est = estimate(cases, method, options)
    data = est.model_dump(mode="json") if hasattr(est, "model_dump") else est
    if isinstance(data, dict):
        print(f"dry run of {method!r} on {len(cases)} cases (no LLM call made):")
        for k, v in data.items():
            print(f"  {k}: {json.dumps(v, default=str) if isinstance(v, (dict, list)) else v}")
    else:
        print(data)
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# Subcommands
# ---------------------------------------------------------------------------------------------


def cmd_evaluate(args: argparse.Namespace) -> int:
    from .datasets import DatasetError
    from .export import to_json_dict
    from .methods import get_method
    from .pipeline import evaluate_batch
    from .registry import RegistryError

    try:
        spec = get_method(args.method)
    except RegistryError as exc:
        raise UsageError(str(exc)) from None
    thresholds = parse_thresholds(args.fail_under)
    options = build_options(args, spec.needs_llm)
    allowed = set(CORE_THRESHOLD_METRICS) | set(options.metrics)
    bad = [n for n in thresholds if n not in allowed]
    if bad:
        raise UsageError(f"--fail-under: unknown metric(s) {', '.join(bad)}; valid: "
                         f"{', '.join(sorted(allowed))} (family metrics must also be in --metrics)")
    try:
        loaded = load_input(args.input, args.map)
    except DatasetError as exc:
        _eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    for e in loaded.errors[: max(0, args.max_errors_shown)]:
        _eprint(f"input error: {e}")
    if len(loaded.errors) > args.max_errors_shown:
        _eprint(f"... and {len(loaded.errors) - args.max_errors_shown} more input errors")
    for w in loaded.warnings[: max(0, args.max_errors_shown)]:  # rows kept after a fix-up (renamed id)
        _eprint(f"input warning: {w}")
    if options.dry_run:
        code = _dry_run(loaded.cases, args.method, options)
        return EXIT_BAD_INPUT if loaded.errors else code
    progress, bar = _progress_bar(len(loaded.cases), not args.no_progress)
    try:
        run = evaluate_batch(loaded.cases, args.method, options=options, progress=progress,
                             engine=args.engine, ray_address=args.ray_address)
    finally:
        if bar is not None:
            bar.close()
    out = to_json_dict(run)
    from .embeddings import info as encoder_info

    if encoder_info()["loaded"]:  # which encoder ran, and why (int8 / bf16 / fp32)
        out["encoder"] = encoder_info()["decision"]
        _eprint(f"encoder: {out['encoder'].get('backend')} ({out['encoder'].get('reason')})")
    out["input_file"] = str(args.input)
    out["input_mapping"] = loaded.mapping.model_dump() if loaded.mapping else None
    out["input_errors"] = loaded.error_dicts()
    out["input_warnings"] = loaded.warning_dicts()
    from .gate import apply_gate

    gate_failures = apply_gate(args, run, out, thresholds)  # reports; regrouped intervals
    _write_outputs(args, run, out)
    _print_summary(out)
    if run.errors:
        _eprint(f"warning: {len(run.errors)} case(s) could not be scored, e.g. "
                f"{run.errors[0][0]}: {run.errors[0][1]}")
    failures = check_thresholds(out, thresholds) if args.gate_on == "mean" else gate_failures
    for f in failures:
        print(f"FAILED {f}")
    if loaded.errors:
        _eprint(f"error: {len(loaded.errors)} invalid input row(s); the other "
                f"{len(loaded.cases)} were evaluated")
        return EXIT_BAD_INPUT
    return EXIT_THRESHOLD if failures else EXIT_OK


def _add_agreement_parser(sub: Any) -> None:
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
    ag.add_argument("--map", action="append", default=[], metavar="FIELD=COLUMN",
                    help="map a column explicitly (as for evaluate)")
    ag.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_llm_options(ag)
    ag.set_defaults(func=cmd_agreement)


def cmd_agreement(args: argparse.Namespace) -> int:
    """``agreement`` subcommand (stats helper): evaluate, then compare with the human labels."""
    from . import compare
    from .datasets import DatasetError
    from .methods import get_method
    from .pipeline import evaluate_batch
    from .registry import RegistryError

    methods = _split_names(args.method) or ["trace"]
    try:
        specs = [get_method(m) for m in methods]
    except RegistryError as exc:
        raise UsageError(str(exc)) from None
    if args.n_boot < 0:
        raise UsageError("--n-boot must be >= 0")
    if args.dry_run:
        raise UsageError("--dry-run: agreement needs real scores; use evaluate --dry-run for an estimate")
    options = build_options(args, any(s.needs_llm for s in specs))
    try:
        loaded = load_input(args.input, args.map)
    except DatasetError as exc:
        _eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    for e in loaded.errors[:20]:
        _eprint(f"input error: {e}")
    if not any(c.labels for c in loaded.cases):
        _eprint(f"error: {args.input}: no human label columns found (e.g. hallucinated, "
                f"adherence_score, a 'labels' object, or human_* / label_* columns)")
        return EXIT_BAD_INPUT
    runs = []
    for m in methods:
        progress, bar = _progress_bar(len(loaded.cases), not args.no_progress)
        try:
            runs.append(evaluate_batch(loaded.cases, m, options=options, progress=progress))
        finally:
            if bar is not None:
                bar.close()
    try:
        report = compare.agreement_report(runs, args.label_column, args.group_column,
                                          n_boot=args.n_boot, seed=args.seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(report["text"])
    report.pop("text")
    report["input_file"] = str(args.input)
    report["input_errors"] = loaded.error_dicts()
    if args.out:
        p = Path(args.out)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
        _eprint(f"wrote {p}")
    if not report["table"]:
        _eprint("error: no label column could be compared with a metric")
        return EXIT_BAD_INPUT
    return EXIT_BAD_INPUT if loaded.errors else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 0 for --help, 2 for bad syntax
        return int(exc.code or 0)
    try:
        return int(args.func(args))
    except UsageError as exc:
        _eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    except ValueError as exc:  # DatasetError, LLMSettings / EvalOptions validation
        from .datasets import DatasetError

        if not isinstance(exc, DatasetError) and type(exc).__name__ != "ValidationError":
            raise
        _eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    except OSError as exc:  # e.g. --out in a directory that cannot be written
        _eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _eprint("interrupted")
        return 130

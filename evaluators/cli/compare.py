"""``compare``: which of several runs of the same questions is better, with paired statistics.

    python -m evaluators compare main.json branch.json [MORE.json ...] [--metric NAME ...]
        [--json OUT] [--fail-on-regression METRIC=DELTA ...]

Runs are results files written by ``evaluate --out`` (JSON, JSON Lines, either gzip-compressed), the
first the baseline, each named by the app target its cases name (the answers of ``run --target``:
"v2", not the output file's "answers_0712") when no other file names it, else by the file's stem.
Exit codes: 0 ok (an identical rerun is never a regression), 1 ``--fail-on-regression``: the last
run is worse than the first by more than DELTA with 95 % confidence, 2 bad input: a file that is not
a readable results file (missing, empty, binary, cut short, nested 5,000 deep, another tool's file —
whatever the bytes, never a traceback and never exit 1, which a CI gate reads as a regression), the
file of a run that did not finish (unless ``--allow-unfinished``), files that share no case, a
metric no run has, one file only. Values that are not numbers (NaN, a text) are left out of the
figures and counted in the words and the JSON (``left_out``).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from .common import EXIT_OK, EXIT_THRESHOLD, UsageError, eprint, split_names, write_json


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "compare", help="which run is better: paired statistics over the questions the runs share",
        description="Compare results files of the same questions (written by `evaluate --out`), the first "
                    "as the baseline: per metric the mean difference with its 95%% interval and p-value, both from "
                    "one paired sign-flip test (exact McNemar for 0/1 metrics; Holm-corrected with three or "
                    "more runs), higher/same/lower counts and a verdict; "
                    "the regressions, worst first. Exit codes: 0 ok, 1 --fail-on-regression tripped, "
                    "2 bad input.",
    )
    p.add_argument("files", nargs="+", metavar="RESULTS.json", help="results files; the first is the baseline")
    p.add_argument("--metric", action="append", default=None, metavar="NAME",
                   help="metric to compare (repeatable or comma-separated; the first is the headline). "
                        "Default: expected_adherence for trace runs, else adherence, then every other "
                        "metric all runs have")
    p.add_argument("--json", default=None, metavar="OUT", help="write the comparison as JSON here")
    p.add_argument("--fail-on-regression", action="append", default=None, metavar="METRIC=DELTA",
                   help="exit 1 when the last run is worse than the first on METRIC by more than DELTA with "
                        "95%% confidence (repeatable)")
    p.add_argument("--top", type=int, default=10, metavar="N", help="regressions / improvements listed per pair")
    p.add_argument("--n-boot", type=int, default=2000, metavar="N",
                   help="bootstrap resamples of the leaderboard's intervals (three or more runs)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random sign flips (above 16 changed "
                   "questions) and of the leaderboard's resamples")
    p.add_argument("--allow-unfinished", action="store_true",
                   help="compare the cases a results file of an interrupted run holds (default: exit 2; "
                        "finish it with `evaluate ... --resume`)")
    p.set_defaults(func=cmd_compare)


def parse_gates(items: list[str] | None) -> dict[str, float]:
    """``METRIC=DELTA`` items -> {metric: delta}; UsageError naming a malformed one."""
    gates: dict[str, float] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        try:
            delta = float(value)
        except ValueError:
            delta = math.nan
        if not sep or not name.strip() or not math.isfinite(delta) or delta < 0:
            raise UsageError(f"--fail-on-regression {item!r}: expected METRIC=DELTA with DELTA a number >= 0 "
                             "(e.g. adherence=0.02)")
        gates[name.strip()] = delta
    return gates


def read_tables(files: list[str], allow_unfinished: bool = False) -> list[Any]:
    """The comparison table of each results file, read one case at a time; UsageError naming the
    file for anything that makes it unreadable (whatever the bytes: never a traceback)."""
    from ..comparison import table_from_file
    from ..export import ResultsFileError

    tables = []
    for f in files:
        try:
            t = table_from_file(Path(f))
        except ResultsFileError as exc:
            msg = str(exc)
            hint = "" if "cannot read" in msg or "evaluate" in msg else \
                " (compare reads the results files `evaluate --out` writes)"
            raise UsageError(f"{msg}{hint}") from None
        except Exception as exc:  # noqa: BLE001 - any other failure on a file is still that file's: exit 2
            raise UsageError(f"{f}: cannot be read as a results file ({type(exc).__name__}: {exc})") from None
        if t.unfinished and not allow_unfinished:
            raise UsageError(f"{f}: the run did not finish (the file holds {len(t)} case(s) and no summary): "
                             "finish it with the same `evaluate ... --out` command and --resume, or pass "
                             "--allow-unfinished to compare the cases it holds")
        if t.unfinished:
            eprint(f"note: {f} is of a run that did not finish: its {len(t)} case(s) are compared")
        tables.append(t)
    return named(tables)


def named(tables: list[Any]) -> list[Any]:
    """Each table named by its app target where its cases name one that no other file names, else by
    its file's stem (as read: two files of one target — main and a branch — are told apart by it)."""
    from dataclasses import replace

    targets = [t.target for t in tables]
    return [replace(t, name=t.target) if t.target and targets.count(t.target) == 1 else t for t in tables]


def cmd_compare(args: argparse.Namespace) -> int:
    from ..comparison import ComparisonError, compare_runs, comparison_text
    from ..export import ResultsFileError

    if len(args.files) < 2:
        raise UsageError(f"compare needs at least two results files (got {len(args.files)}: {args.files[0]}); "
                         "the first is the baseline, e.g. `compare main.json branch.json`")
    if args.n_boot < 0 or args.top < 0:
        raise UsageError("--n-boot and --top must be >= 0")
    gates = parse_gates(args.fail_on_regression)
    metrics = [m for item in (args.metric or []) for m in split_names(item)]
    metrics += [m for m in gates if m not in metrics] if metrics else []
    tables = read_tables(args.files, args.allow_unfinished)
    try:
        result = compare_runs(tables, metrics or None, top=args.top, n_boot=args.n_boot, seed=args.seed)
        missing = [m for m in gates if m not in result.metrics]
        if missing:  # a gate on a metric outside the default list: compare it too
            result = compare_runs(result.tables, [*result.metrics, *missing], top=args.top,
                                  n_boot=args.n_boot, seed=args.seed)
    except (ComparisonError, ResultsFileError) as exc:  # ResultsFileError: a case's sentences, read when listed
        raise UsageError(str(exc)) from None
    print(comparison_text(result))
    if args.json:
        write_json(args.json, {**result.to_dict(), "files": [str(f) for f in args.files]})
    failed = [msg for m, delta in gates.items() if (msg := result.worse_than(m, delta))]
    for msg in failed:
        eprint(f"REGRESSION: {msg}")
    if gates and not failed:
        eprint("no regression beyond the thresholds: " + ", ".join(f"{m} (delta {d:g})" for m, d in gates.items()))
    return EXIT_THRESHOLD if failed else EXIT_OK

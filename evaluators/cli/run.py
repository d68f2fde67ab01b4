"""``run``: call an app on every question of a question file and write what it answered.

    python -m evaluators run QUESTIONS --target TARGET.yaml --out CASES.jsonl
        [--concurrency N] [--repeat N] [--resume [--retry-failed]] [--overwrite]

The cases file holds one JSON line per question as it finishes (``evaluators.targets.casefile``);
``evaluate CASES.jsonl`` reads it as it is, and ``evaluate QUESTIONS --target TARGET.yaml --out R.json``
does both steps (:func:`run_step`). Exit codes: 0 every question answered; 1 some questions still
failed after their retries (each written with its error and listed); 2 bad input — a target file or
question file that cannot be used (named with the field / row), a ``${VAR}`` not set, an existing
output without ``--resume`` — or a run stopped because the app cannot be called at all (unreachable,
401 / 403, no such endpoint, or the first calls all failing with the same cause and none answered:
what was written is kept, ``--resume`` continues); 130 interrupted (the same: ``--resume``
continues). Every question asked is in the file, answered or with its error; a run that stopped
before asking them all says how many were not asked and exits 2. Header values and ``${VAR}`` values are never printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .common import EXIT_BAD_INPUT, EXIT_OK, EXIT_THRESHOLD, UsageError, add_map_option, eprint, map_overrides


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "run", help="call your app on every question of a question file; write the cases it answered",
        description="Call one version of your app (a target file: HTTP or a Python function) on every question "
                    "of a question file, concurrently, with retries; write one JSON line per question as it "
                    "finishes (a test-case file `evaluate` reads). Exit codes: 0 all answered, 1 some "
                    "questions failed (written with their error), 2 bad input or the app cannot be called.",
    )
    p.add_argument("questions", metavar="QUESTIONS", help="question file (.csv .tsv .json .jsonl .parquet; a "
                                                          "'question' column, optional id / ground_truth / "
                                                          "reference_context_ids / history ...)")
    add_run_arguments(p, out_required=True)
    p.add_argument("--concurrency", type=int, default=None, metavar="N",
                   help="questions in flight at once (default: the target file's, else 8)")
    add_map_option(p, "map a column of the question file explicitly (fields: question, id, ground_truth); "
                      "repeatable")
    p.set_defaults(func=cmd_run)


def add_run_arguments(p: argparse.ArgumentParser, out_required: bool) -> None:
    """The flags ``run`` and ``evaluate --target`` share."""
    g = p.add_argument_group("calling your app")
    g.add_argument("--target", required=out_required, default=None, metavar="TARGET.yaml",
                   help="how to call the app (YAML or JSON; see docs/targets.md)")
    if out_required:
        g.add_argument("--out", required=True, metavar="CASES.jsonl", help="write the cases here (JSON Lines)")
    else:
        g.add_argument("--cases", default=None, metavar="CASES.jsonl",
                       help="with --target: where the app's answers go (default: beside --out, NAME.cases.jsonl)")
    g.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="ask every question N times, every answer kept (ids ID#r1 … ID#rN)")
    if out_required:
        g.add_argument("--resume", action="store_true",
                       help="continue the cases file --out holds: only the questions not in it are asked")
    g.add_argument("--retry-failed", action="store_true",
                   help="with --resume: ask again the questions written with an error (their lines replaced)")
    g.add_argument("--overwrite", action="store_true", help="replace an existing cases file")
    if out_required:  # evaluate has its own
        g.add_argument("--no-progress", action="store_true", help="no progress bar")


def _bar(total: int, name: str, enabled: bool) -> Any:
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=f"asking {name}", unit="question", file=sys.stderr, leave=True)


def run_step(args: argparse.Namespace, questions_path: str, out: str, concurrency: int | None,
             max_shown: int = 20) -> tuple[int, Any]:
    """Run the target of ``args`` on ``questions_path`` into ``out``; (exit code, RunReport or None).
    Prints what was written, the failed questions and the input problems."""
    from ..datasets import DatasetError, load_questions
    from ..retrieval import IdCheck
    from ..targets import TargetError, load_target, run_target

    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    if concurrency is not None and concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.retry_failed and not args.resume:
        raise UsageError("--retry-failed asks again the failed questions of a file being continued: add --resume")
    try:
        target = load_target(args.target)
        questions = load_questions(questions_path, overrides=map_overrides(args.map))
    except (TargetError, DatasetError) as exc:
        eprint(f"error: {exc}")
        return EXIT_BAD_INPUT, None
    for e in questions.errors[:max_shown]:
        eprint(f"input error: {e}")
    if len(questions.errors) > max_shown:
        eprint(f"... and {len(questions.errors) - max_shown} more input errors")
    for w in questions.warnings[:max_shown]:
        eprint(f"input warning: {w}")
    bar = None
    failed_now = 0

    def progress(done: int, total: int) -> None:
        if bar is not None:
            if bar.total != total:  # resumed: only the questions not in the file
                bar.total = total
            bar.update(done - bar.n)

    ids = IdCheck()

    def on_record(line: dict[str, Any]) -> None:
        nonlocal failed_now
        ids.add_record(line)
        if line["metadata"]["error"] is not None and bar is not None:
            failed_now += 1
            bar.set_postfix(failed=failed_now, refresh=False)

    planned = len(questions.rows) * args.repeat
    bar = _bar(planned, target.name, not args.no_progress)
    try:
        report = run_target(target, questions, out, repeat=args.repeat, resume=args.resume,
                            retry_failed=args.retry_failed, overwrite=args.overwrite, concurrency=concurrency,
                            progress=progress, on_record=on_record)
    except TargetError as exc:
        if bar is not None:
            bar.close()
        eprint(f"error: {exc}")
        return EXIT_BAD_INPUT, None
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        eprint(f"interrupted: every finished question is in {out}; the same command with --resume asks the others")
        raise
    if bar is not None:
        bar.close()
    _report(report, out, max_shown)
    if (said := ids.message()):
        eprint(f"note: {said}")
    if questions.errors or report.fatal or not report.complete:
        return EXIT_BAD_INPUT, report
    return (EXIT_THRESHOLD if report.failed else EXIT_OK), report


def _report(report: Any, out: str, max_shown: int) -> None:
    lat = report.latency_summary()
    timing = (f"; latency p50 {lat['p50_s']:.3f} s, p95 {lat['p95_s']:.3f} s" if lat["p50_s"] is not None else "")
    already = f", {report.already} already there" if report.already else ""
    eprint(f"wrote {out}: {report.answered} answered, {len(report.failed)} failed{already} "
           f"(target {report.target}, {report.seconds:.1f} s{timing})")
    for ident, error in report.failed[:max_shown]:
        eprint(f"failed: {ident}: {error}")
    if len(report.failed) > max_shown:
        eprint(f"... and {len(report.failed) - max_shown} more failed questions (their errors are in {out})")
    if report.kept_failed:
        eprint(f"note: {report.kept_failed} questions in the file failed earlier and were not asked again "
               "(--resume --retry-failed asks them)")
    if report.stopped:
        eprint(f"error: the run stopped: {report.stopped}")
    if report.not_called:
        again = " (add --retry-failed to ask again those written with an error)" if report.failed else ""
        eprint(f"{report.not_called} questions were not asked; the same command with --resume asks them{again}")


def cmd_run(args: argparse.Namespace) -> int:
    if Path(args.out).suffix.lower() not in (".jsonl", ".ndjson"):
        raise UsageError(f"--out {args.out}: the cases file is JSON Lines: give a .jsonl name")
    code, _ = run_step(args, args.questions, args.out, args.concurrency)
    return code

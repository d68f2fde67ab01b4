"""``testset``: questions, reference answers and reference passages from your documents.

    python -m evaluators testset DOCS... --n 40 [--generator offline|llm] [--types T,T] [--seed S]
        --out QUESTIONS.jsonl

DOCS are files and folders of .txt .md .html .pdf .docx (folders read recursively). One JSON line per
question (``id``, ``question``, ``ground_truth``, ``reference_contexts``, ``reference_context_ids``,
``history`` where conversational, ``metadata``): the file ``run --target`` and Upload read. Exit
codes: 0 the file was written (with exactly N questions, or fewer and the reason on stderr), 2 bad
input (no readable document, N < 1, an unknown generator or type, no usable LLM, no question could
be made). Files that cannot be read are listed with the reason and the others are used.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import EXIT_BAD_INPUT, EXIT_OK, UsageError, add_llm_options, build_llm_settings, eprint


def add_parser(sub: Any) -> None:
    from ..testset import QUESTION_TYPES

    p = sub.add_parser(
        "testset", help="make a test set (questions + references) from documents",
        description="Make N questions with reference answers and reference passages from documents (.txt .md .html "
                    ".pdf .docx, files or folders), spread over the files in proportion to their length, "
                    "near-duplicates removed. Exit codes: 0 written, 2 bad input.",
    )
    p.add_argument("docs", nargs="+", metavar="DOCS", help="files and folders of documents")
    p.add_argument("--n", type=int, default=40, metavar="N", help="number of questions (default 40)")
    p.add_argument("--generator", default="offline",
                   help="offline (rules, no key; English documents) or llm (default: offline)")
    p.add_argument("--types", default=None, metavar="T,T",
                   help=f"question types ({', '.join(QUESTION_TYPES)}); default: all the generator makes")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    p.add_argument("--out", required=True, metavar="QUESTIONS.jsonl",
                   help="write the questions here (.jsonl: one per line; .json: one list)")
    p.add_argument("--max-file-mb", type=float, default=50, metavar="MB",
                   help="refuse files larger than this, without reading them (default 50)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_llm_options(p, "for --generator llm", method_flags=False)
    p.set_defaults(func=cmd_testset, method="llm", llm_purpose="the llm generator")


def _write(rows: list[dict[str, Any]], out: str) -> None:
    from pathlib import Path

    from ..testset import write_jsonl
    from .common import write_json

    if Path(out).suffix.lower() == ".json":
        write_json(out, rows)
    else:
        eprint(f"wrote {write_jsonl(rows, out)}")


def cmd_testset(args: argparse.Namespace) -> int:
    from ..documents import DocumentsError, read_documents
    from ..testset import TestsetError, check_request, estimate, make_testset

    try:
        spec, types = check_request(args.generator, args.n, [t.strip() for t in (args.types or "").split(",")
                                                             if t.strip()] or None)
    except TestsetError as exc:
        raise UsageError(str(exc)) from None
    if args.max_file_mb <= 0:
        raise UsageError("--max-file-mb must be positive")
    llm = build_llm_settings(args, spec.needs_llm) if spec.needs_llm else None
    try:
        corpus = read_documents(args.docs, max_bytes=int(args.max_file_mb * 1024 * 1024))
    except DocumentsError as exc:
        raise UsageError(str(exc)) from None
    eprint(f"read {corpus.summary()}")
    for s in corpus.skipped:
        eprint(f"  skipped {s}")
    if spec.needs_llm:
        est = estimate(corpus, args.n, generator=spec.id, types=types, llm=llm)
        price = f"${est['cost_usd']:.4f}" if est.get("price_known") else "unknown price"
        eprint(f"estimate: about {est['calls']:,} LLM calls, {est['prompt_tokens']:,} prompt + "
               f"{est['completion_tokens']:,} completion tokens, {price} ({est['model']}); {est['note']}")
        if args.dry_run:
            return EXIT_OK
    elif args.dry_run:
        eprint("the offline generator makes no LLM call")
        return EXIT_OK
    bar = None
    progress = None
    if not args.no_progress and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=args.n, desc="questions", unit="q", file=sys.stderr)

        def progress(done: int, total: int, message: str) -> None:
            if bar.total != total:
                bar.total = total
            bar.set_description(message[:60])
            bar.update(max(0, done - bar.n))
    try:
        result = make_testset(corpus, args.n, generator=spec.id, types=types, seed=args.seed, llm=llm,
                              progress=progress)
    except TestsetError as exc:
        raise UsageError(str(exc)) from None
    finally:
        if bar is not None:
            bar.close()
    for s in result.no_question:
        eprint(f"  no question from {s}")
    if not result.rows:
        eprint(f"error: no question could be made: {result.reason}")
        return EXIT_BAD_INPUT
    _write(list(result.rows), args.out)
    if result.usage.calls or result.usage.cached_calls:
        u = result.usage
        eprint(f"LLM: {u.calls} calls ({u.cached_calls} from the cache), ${u.cost_usd:.4f}")
    if result.reason:
        eprint(f"note: {result.reason}")
    else:
        eprint(f"{len(result.rows)} questions")
    return EXIT_OK

"""The parser (one subcommand per module of this package) and ``main``: the entry point of
``python -m evaluators`` and the ``rag-eval`` console script.

Exit codes of every command: 0 ok, 1 a gate failed (``--fail-under``, ``--fail-on-regression``),
2 bad input (named), 3 an unexpected failure — a bug, printed with its traceback — so that a crash is
never read by a CI job as a failed threshold or a regression (Python's own exit code for an uncaught
exception is 1), 130 interrupted."""

from __future__ import annotations

import argparse
from typing import Sequence

from . import agreement, cache, compare, encoder, evaluate, run, testset
from .common import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_THRESHOLD, UsageError, eprint, first_use_notes, relaxed_gc

#: One module per command; each has ``add_parser(subparsers)`` setting ``func``.
COMMANDS = (evaluate, run, agreement, compare, cache, encoder, testset)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluators",
        description="Sentence-level RAG evaluation (TRACE metrics and the ragas / Tonic families).",
        epilog="Exit codes: 0 ok, 1 a threshold or regression gate failed, 2 bad input (named), "
               "3 an unexpected failure (a bug; with its traceback), 130 interrupted.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 0 for --help, 2 for bad syntax
        return int(exc.code or 0)
    try:
        with first_use_notes(), relaxed_gc():
            return int(args.func(args))
    except UsageError as exc:
        eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    except ValueError as exc:  # DatasetError, LLMSettings / EvalOptions validation
        from pydantic import ValidationError

        from ..datasets import DatasetError

        if not isinstance(exc, (DatasetError, ValidationError)):
            raise
        eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    except OSError as exc:  # e.g. --out in a directory that cannot be written
        eprint(f"error: {exc}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        eprint("interrupted")
        return 130
    except Exception:  # noqa: BLE001 - a bug: say so, and not with the exit code of a failed gate
        import traceback

        traceback.print_exc()
        eprint(f"error: an unexpected failure of `{args.command}` (a bug: the traceback above says where); "
               f"exit {EXIT_INTERNAL}, not {EXIT_THRESHOLD}: no threshold or regression was judged")
        return EXIT_INTERNAL

"""The parser (one subcommand per module of this package) and ``main``: the entry point of
``python -m evaluators`` and the ``rag-eval`` console script."""

from __future__ import annotations

import argparse
from typing import Sequence

from . import agreement, cache, compare, encoder, evaluate, testset
from .common import EXIT_BAD_INPUT, UsageError, eprint

#: One module per command; each has ``add_parser(subparsers)`` setting ``func``.
COMMANDS = (evaluate, agreement, compare, cache, encoder, testset)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluators",
        description="Sentence-level RAG evaluation (TRACE metrics and the ragas / Tonic families).",
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

"""The trace flags of ``evaluate``: read a trace export (format, mapping by hand, filters), then
write the scores back as annotation files and / or send them to a Phoenix server.

Keys: ``--to-phoenix URL`` (an address typed on the command line) is sent no key from the
environment; ``--to-phoenix`` without a value sends to ``$PHOENIX_BASE_URL`` (or
``$PHOENIX_COLLECTOR_ENDPOINT``) with ``$PHOENIX_API_KEY`` — an address and a key the owner set
together.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import UsageError, eprint, split_names

if TYPE_CHECKING:
    from ..datasets import LoadResult
    from ..traces import TraceOptions
    from ..types import RunResult

#: ``--to-phoenix`` given without an address: take it (and the key) from the environment.
FROM_ENV = "\0env"
URL_ENV = ("PHOENIX_BASE_URL", "PHOENIX_COLLECTOR_ENDPOINT")
KEY_ENV = "PHOENIX_API_KEY"
_SHOWN = 10


def add_trace_arguments(parser: Any) -> None:
    from ..traces import CHOICES, TARGETS

    g = parser.add_argument_group(
        "traces (a Phoenix spans export, OTLP JSON, LangSmith runs or Langfuse traces: one case per trace)")
    g.add_argument("--input-format", choices=CHOICES, default="auto",
                   help="how to read INPUT (default auto: from the file's shape; rows = a flat test set)")
    g.add_argument("--trace-map", action="append", default=[], metavar="FIELD=SPAN[:PART]",
                   help="take a field from the span named SPAN when your app's spans differ: FIELD is "
                        "question, documents or response; PART is input, output, output.KEY or "
                        "attributes.NAME (an empty SPAN is the root span); repeatable")
    g.add_argument("--since", default=None, metavar="TIME", help="only traces started at or after TIME "
                                                                 "(2026-05-01 or 2026-05-01T12:00Z)")
    g.add_argument("--until", default=None, metavar="TIME", help="only traces started before TIME")
    g.add_argument("--span-name", default=None, metavar="NAME", help="only traces with a span named NAME")
    g.add_argument("--session", default=None, metavar="ID", help="only traces of this session / thread")
    g.add_argument("--tag", default=None, metavar="TAG", help="only traces carrying this tag")
    g.add_argument("--sample", type=int, default=None, metavar="N",
                   help="then at most N traces, drawn at random with --seed (the same seed, the same slice)")
    g.add_argument("--seed", type=int, default=0, metavar="S", help="seed of --sample (default 0)")
    g.add_argument("--annotations-out", default=None, metavar="DIR",
                   help="write the scores as annotation files for the traces' tool into DIR "
                        "(Phoenix span / document annotation dataframes, LangSmith feedback, Langfuse scores)")
    g.add_argument("--annotations-for", default=None, metavar="T,T",
                   help=f"which files ({', '.join(TARGETS)}); default: the ones that fit the input's format")
    g.add_argument("--to-phoenix", nargs="?", const=FROM_ENV, default=None, metavar="URL",
                   help="send the annotations to the Phoenix server at URL (no key is sent to a URL given "
                        f"here); without URL: ${URL_ENV[0]} with ${KEY_ENV}")


def trace_options(args: argparse.Namespace) -> TraceOptions:
    """TraceOptions from the flags (UsageError naming the bad one)."""
    from ..traces import TraceFilter, TraceMapping, TraceOptions, parse_time

    pairs: dict[str, str] = {}
    for item in args.trace_map:
        fld, sep, spec = item.partition("=")
        if not sep or not spec.strip():
            raise UsageError(f"--trace-map {item!r}: expected FIELD=SPAN[:PART]")
        pairs[fld.strip()] = spec.strip()
    try:
        mapping = TraceMapping.from_pairs(pairs)
    except ValueError as exc:
        raise UsageError(f"--trace-map: {exc}") from None
    times = {}
    for flag in ("since", "until"):
        v = getattr(args, flag)
        try:
            times[flag] = parse_time(v) if v else None
        except ValueError as exc:
            raise UsageError(f"--{flag}: {exc}") from None
    try:
        flt = TraceFilter(since=times["since"], until=times["until"], span_name=args.span_name,
                          session=args.session, tag=args.tag, sample=args.sample, seed=args.seed)
    except ValueError as exc:
        raise UsageError(f"trace filter: {exc}") from None
    if (mapping or flt) and args.input_format == "rows":
        raise UsageError("--trace-map and the trace filters need a trace file, not --input-format rows")
    return TraceOptions(format=args.input_format, mapping=mapping, filter=flt)


def report_input(loaded: LoadResult) -> None:
    """Say on stderr what the traces gave: cases, the filter, and every skipped trace's reason."""
    tr = loaded.traces
    if tr is None:
        return
    eprint(f"read {len(tr.traces)} trace(s) as {tr.format_name}: {len(tr.cases)} case(s)"
           + (f", {tr.filtered_out} left out by the filter ({tr.options.filter.describe()})" if tr.filtered_out
              else "") + (f", {len(tr.skipped)} skipped" if tr.skipped else ""))
    for s in tr.skipped[:_SHOWN]:
        eprint(f"skipped trace {s.trace_id}: {s.reason}")
    if len(tr.skipped) > _SHOWN:
        eprint(f"... and {len(tr.skipped) - _SHOWN} more skipped trace(s) (all are in --out under 'traces')")


def nothing_readable(loaded: LoadResult) -> str | None:
    """Why a trace export gave no case at all (None when it gave some, or is not a trace export):
    ``evaluate`` then exits 2 — a CI job must not pass on a broken export."""
    tr = loaded.traces
    if tr is None or tr.cases:
        return None
    if not tr.traces:
        what = "holds no trace"
    elif tr.skipped:
        what = (f"no trace gave a case: {len(tr.skipped)} of {len(tr.traces)} skipped (the reasons are above"
                + (f"; {tr.filtered_out} more left out by the filter" if tr.filtered_out else "") + ")")
    else:
        what = f"the filter ({tr.options.filter.describe()}) left out every one of its {len(tr.traces)} traces"
    return f"{tr.name}: {what}; nothing was evaluated"


def _phoenix_target(value: str) -> tuple[str, str | None]:
    """(address, key) for ``--to-phoenix``: a typed address gets no key from the environment."""
    if value != FROM_ENV:
        if os.environ.get(KEY_ENV):
            eprint(f"note: ${KEY_ENV} is not sent to an address given on the command line; set "
                   f"${URL_ENV[0]} and pass --to-phoenix without a value to use it")
        return value, None
    url = next((os.environ[k] for k in URL_ENV if os.environ.get(k)), None)
    if not url:
        raise UsageError(f"--to-phoenix without an address needs ${URL_ENV[0]} (or ${URL_ENV[1]})")
    return url, os.environ.get(KEY_ENV) or None


def check_send_flags(args: argparse.Namespace) -> None:
    """Fail before any work on a bad address or target name."""
    from ..traces import TARGETS, check_url

    bad = [t for t in split_names(args.annotations_for) if t not in TARGETS]
    if bad:
        raise UsageError(f"--annotations-for: unknown {', '.join(bad)}; use {', '.join(TARGETS)}")
    if args.to_phoenix is not None:
        url, _ = _phoenix_target(args.to_phoenix)
        try:
            check_url(url)
        except ValueError as exc:
            raise UsageError(f"--to-phoenix: {exc}") from None


def send_back(args: argparse.Namespace, run: RunResult, out: dict[str, Any], loaded: LoadResult) -> list[str]:
    """Write the annotation files / send to Phoenix; add the trace summary to ``out``. Returns the
    problems (empty = all went well)."""
    from ..traces import PhoenixSendError, annotation_files, send_to_phoenix

    if loaded.traces is not None:
        out["traces"] = loaded.traces.summary()
    problems: list[str] = []
    if args.annotations_out:
        targets = split_names(args.annotations_for) or None
        files = annotation_files(run, targets)
        if not files:
            problems.append("--annotations-out: no scored case came from a trace; nothing to write")
        folder = Path(args.annotations_out)
        folder.mkdir(parents=True, exist_ok=True)
        for fname, data in files.items():
            (folder / fname).write_bytes(data)
            eprint(f"wrote {folder / fname}")
    if args.to_phoenix is not None:
        url, key = _phoenix_target(args.to_phoenix)
        try:
            report = send_to_phoenix(url, run, api_key=key)
        except (PhoenixSendError, ValueError) as exc:
            problems.append(f"--to-phoenix: {exc}")
        else:
            eprint(report.text())
            out["sent_to_phoenix"] = {"url": report.url, "span_annotations": report.span_annotations,
                                      "document_annotations": report.document_annotations,
                                      "unknown_spans": report.unknown_spans, "problems": report.problems}
            if report.problems or report.unknown_spans:
                problems.append(f"--to-phoenix: {report.text()}")
    return problems

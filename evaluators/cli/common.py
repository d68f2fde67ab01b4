"""What every command shares: exit codes, the usage error, the LLM flags and how they become
``EvalOptions``, metric parameters, the input file, the progress bar, and the notes on stderr of the
encoder's one-off work on first use (:func:`first_use_notes`), and the garbage collector's pace while
a command runs (:func:`relaxed_gc`).

API keys come only from the environment (the names in ``evaluators.llm.settings.KEY_ENV``) and go
only where ``evaluators.llm.settings`` allows (the official endpoint, or RAG_EVAL_BASE_URL); they
are never flags and never printed or written.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

if TYPE_CHECKING:
    from ..datasets import LoadResult
    from ..llm.settings import LLMSettings
    from ..options import EvalOptions
    from ..traces import TraceOptions

EXIT_OK = 0
EXIT_THRESHOLD = 1
EXIT_BAD_INPUT = 2
#: An unexpected failure (a bug; the traceback is printed): never 1, which a CI gate reads as "failed".
EXIT_INTERNAL = 3

#: Columns ``--map FIELD=COLUMN`` may name.
MAP_FIELDS = ("question", "response", "documents", "ground_truth", "id")


class UsageError(Exception):
    """Bad command-line input: printed, exit code 2."""


def eprint(*a: Any) -> None:
    print(*a, file=sys.stderr)


#: The cyclic garbage collector's thresholds while a command runs (Python's: 700, 10, 10).
GC_THRESHOLDS = (100_000, 50, 100)


@contextlib.contextmanager
def relaxed_gc() -> Iterator[None]:
    """Fewer passes of the cyclic garbage collector while a command runs. An evaluation allocates
    millions of small objects that live to the end (sentences, features, results) and frees few in
    cycles; at Python's default thresholds the collector walked them again and again: 1.45 s of CPU
    of a 7.5 s rerun of 817 cases with every vector cached (AMD EPYC, AVX2, 2 cores), for nothing —
    not one figure changes and the peak memory did not move (452 MB either way). The thresholds are
    restored afterwards (``main`` runs in-process in tests and notebooks)."""
    old = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*old)


#: The library logger whose INFO lines the CLI says on stderr: the encoder's one-off work on first use
#: (building the ONNX graphs, measuring the backends), so a first run says what it is waiting for.
NOTED_LOGGERS = ("evaluators.encoder.backends",)


@contextlib.contextmanager
def first_use_notes() -> Iterator[None]:
    """While a command runs, say the encoder's first-use work on stderr as ``note: …`` lines (through
    tqdm, so a progress bar is redrawn below them). stdout — summaries, JSON — is never touched."""

    class ToStderr(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                from tqdm import tqdm

                tqdm.write(f"note: {record.getMessage()}", file=sys.stderr)
            except Exception:  # noqa: BLE001 - a note is never worth a failed run
                self.handleError(record)

    handler = ToStderr(logging.INFO)
    saved = []
    for name in NOTED_LOGGERS:
        lg = logging.getLogger(name)
        saved.append((lg, lg.level, lg.propagate))
        lg.addHandler(handler)
        lg.setLevel(logging.INFO)
        lg.propagate = False  # said once, here (not again by a root handler someone configured)
    try:
        yield
    finally:
        for lg, level, propagate in saved:
            lg.removeHandler(handler)
            lg.setLevel(level)
            lg.propagate = propagate


def split_names(s: str | None) -> list[str]:
    return [x.strip() for x in (s or "").split(",") if x.strip()]


def _dumps(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False, default=str)


def dump_json(data: Any, fh: Any) -> None:
    """``data`` as JSON into ``fh``: a dict's keys one per line (indented), and each item of a list
    value (e.g. ``detailed_results``: one case) compact on a line of its own, written as it goes
    (``evaluators.resultfiles.jsondoc``: the layout the results readers read line by line)."""
    if not isinstance(data, dict) or not data:
        fh.write(_dumps(data, 2) + "\n")
        return
    from ..resultfiles.jsondoc import dump_doc

    dump_doc(fh, data)


def write_json(path: str, data: Any) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    # streamed to a temporary file (see dump_json), then moved into place
    tmp = p.with_name(f".{p.name}.tmp{os.getpid()}")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            dump_json(data, fh)
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)
    eprint(f"wrote {p}")


# ------------------------------------------------------------------------------------- LLM flags


def add_llm_options(p: argparse.ArgumentParser, title: str = "for gpt_labeling / hybrid / jury and LLM metrics",
                    method_flags: bool = True) -> None:
    """The LLM flags; ``method_flags=False`` leaves out the evaluation methods' own (selective, jury)."""
    from ..llm.settings import KEY_ENV, OWNER_BASE_URL_ENV, PROVIDERS

    g = p.add_argument_group(f"LLM ({title}; key from env)")
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
    if not method_flags:
        p.set_defaults(selective_budget=None, selective_share=None, jury_models=None)
        return
    g.add_argument("--selective-budget", type=int, default=None, metavar="N",
                   help="hybrid: at most N LLM-labeled cases (the least certain first)")
    g.add_argument("--selective-share", type=float, default=None, metavar="F",
                   help="hybrid: LLM-label this share (0-1) of cases, the least certain first")
    g.add_argument("--jury-models", default=None, metavar="M1,M2,...",
                   help="jury: comma-separated models ('provider:model' to mix providers)")


def _check_credentials(provider: str, base_url: str | None, what: str, dry_run: bool) -> None:
    """Fail early, naming the variable to set, when ``provider`` has no key it may use; say on
    stderr when an environment key is withheld from a custom base URL (the library's one rule)."""
    from ..llm.settings import key_help, resolve_credentials

    creds = resolve_credentials(provider, base_url)
    if creds.withheld:
        print(f"note: {creds.withheld}", file=sys.stderr)
    if provider == "openai_compatible" and creds.base_url is None:
        raise UsageError("--provider openai_compatible needs --base-url (or RAG_EVAL_BASE_URL)")
    if not creds.key and creds.url_source != "typed" and provider != "openai_compatible" and not dry_run:
        raise UsageError(f"{what} needs an LLM: {key_help(provider)} "
                         "(or use --provider openai_compatible --base-url URL)")


def build_llm_settings(args: argparse.Namespace, needs_llm: bool) -> LLMSettings | None:
    """LLMSettings from the flags (None when no LLM is needed nor configured). Keys are never
    flags: the client takes them from the environment by the rule of ``evaluators.llm.settings``."""
    from ..llm.settings import LLMSettings

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
        what = getattr(args, "llm_purpose", None) or f"method {args.method!r}"
        _check_credentials(settings.provider, settings.base_url, what, args.dry_run)
    return settings


def build_jury(args: argparse.Namespace, base: LLMSettings | None) -> tuple[LLMSettings, ...]:
    from ..llm.settings import PROVIDERS, LLMSettings

    models = split_names(args.jury_models)
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


# ------------------------------------------------------------------------------------- options


def validate_metric_names(names: list[str]) -> None:
    """Unknown family metric names are a usage error listing the valid ones."""
    if not names:
        return
    from ..families import family_metric_names
    from ..retrieval import is_retrieval_metric

    known = family_metric_names()
    unknown = [n for n in names if n not in known]
    if unknown:
        retrieval = [n for n in unknown if is_retrieval_metric(n)]
        hint = (f" ({', '.join(retrieval)}: retrieval metrics are computed for every case with reference passages "
                "without being asked for; choose their cutoffs with --k)") if retrieval else ""
        raise UsageError(f"unknown metric(s) {', '.join(unknown)}; valid: {', '.join(sorted(known)) or '(none)'}"
                         + hint)


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


def build_options(args: argparse.Namespace, needs_llm: bool) -> EvalOptions:
    from ..options import EvalOptions

    metrics = split_names(args.metrics)
    validate_metric_names(metrics)
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


# ------------------------------------------------------------------------------------- input


def add_map_option(p: argparse.ArgumentParser, help_text: str) -> None:
    p.add_argument("--map", action="append", default=[], metavar="FIELD=COLUMN", help=help_text)


def load_input(path: str, overrides: Sequence[str], trace: TraceOptions | None = None) -> LoadResult:
    """LoadResult of the input file, rows or traces, read whole (DatasetError for file/column problems)."""
    from ..datasets import load_input as load

    return load(path, overrides=map_overrides(overrides), trace=trace)


def map_overrides(overrides: Sequence[str]) -> dict[str, str]:
    mapped: dict[str, str] = {}
    for item in overrides:
        fld, sep, col = item.partition("=")
        if not sep or fld.strip() not in MAP_FIELDS or not col.strip():
            raise UsageError(f"--map {item!r}: expected FIELD=COLUMN with FIELD one of {', '.join(MAP_FIELDS)}")
        mapped[fld.strip()] = col.strip()
    return mapped


def open_input(path: str, overrides: Sequence[str], chunk_rows: int | None = None,
               trace: TraceOptions | None = None) -> Any:
    """The input file chunk by chunk: rows read in chunks, a trace export read whole
    (``datasets.sources.open_input``; DatasetError for file/column problems)."""
    from ..datasets.sources import open_input as open_any
    from ..datasets.stream import CHUNK_ROWS

    if chunk_rows is not None and chunk_rows < 1:
        raise UsageError("--chunk-rows must be at least 1")
    return open_any(path, overrides=map_overrides(overrides), trace=trace, chunk_rows=chunk_rows or CHUNK_ROWS)


def progress_bar(total_hint: int | None, enabled: bool) -> tuple[Callable[[int, int | None], None] | None, Any]:
    if not enabled:
        return None, None
    from tqdm import tqdm

    bar = tqdm(total=total_hint, desc="evaluating", unit="case", file=sys.stderr, leave=True)

    def progress(done: int, total: int | None) -> None:
        if total is not None and bar.total != total:
            bar.total = total
        bar.update(max(0, done - bar.n))

    return progress, bar


def get_method_or_usage_error(name: str) -> Any:
    from ..methods import get_method
    from ..registry import RegistryError

    try:
        return get_method(name)
    except RegistryError as exc:
        raise UsageError(str(exc)) from None

"""Golden outputs of the CLI on the shared dev files (regression guard for refactors).

Regenerate (after an intentional change of the outputs, e.g. a new trace labeler):

    python -m tests.golden.make_golden            # writes tests/golden/golden.json

Check without writing (what ``tests/test_golden.py`` runs, in a fresh process):

    python -m tests.golden.make_golden --check    # exit 0 = identical, 1 = differs (diff printed)

What is compared: for each RAG file in ../shared/data (every ``*_dev.jsonl`` except the NLI pairs),
its first ``N_RECORDS`` records are written to a temporary file of the same name and run through
``python -m evaluators evaluate --method trace --metrics <offline family metrics>`` and
``python -m evaluators agreement --method trace`` (both in this process, the real CLI ``main``).
Fields that differ run to run (``timings``, ``started_at``, per-case ``seconds``, the temporary
input path) are dropped; fields added on purpose after the goldens were made (``NEW_FIELDS``) are
dropped from the new output before comparing.

The dev data must never be copied into the repository, so the golden file keeps the SHA-256 of
each normalised output (the byte-for-byte check) plus a copy in which every string longer than
``KEEP_CHARS`` is replaced by a short hash (numbers, keys and short strings stay readable, so a
difference is shown at the metric / case where it happens).

Embeddings run in torch fp32 (``RAG_EVAL_PRECISION=fp32``, ``RAG_EVAL_BF16=0``, no disk embedding
cache) with one thread so the figures do not depend on the
CPU's bf16 support or the core count; the CPU's vector-instruction flags are recorded, and the
test skips (saying why) on a CPU of another kind, where fp32 kernels may round differently.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: ../shared/data next to the checkout (or two levels up, for a git worktree); $SHARED_DATA wins.
SHARED = next((p for p in (Path(os.environ.get("SHARED_DATA", "/nonexistent")), ROOT.parent / "shared" / "data",
                           ROOT.parent.parent / "shared" / "data") if p.is_dir()), ROOT.parent / "shared" / "data")
GOLDEN = Path(__file__).with_name("golden.json")
N_RECORDS = 25
#: Bootstrap resamples of the agreement command (its default 2,000 is slow for a test).
N_BOOT = "400"
KEEP_CHARS = 24
METRICS = ("context_entity_recall,answer_semantic_similarity,response_length,answer_contains_pii,"
           "ragas_score,overall_score")
#: Fields added on purpose after the goldens were made (documented in README, "Results JSON").
NEW_FIELDS = ("schema_version", "spans", "warnings", "input_warnings", "encoder", "retries", "expected_adherence")
#: Run-to-run fields, dropped before comparing.
VOLATILE = ("timings", "started_at", "seconds", "input_file")
#: CPU flags that select different fp32 kernels.
_ISA_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile", "fma")


def cpu_kind() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="ignore")
    except OSError:
        return "unknown"
    for line in text.splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            return ",".join(f for f in _ISA_FLAGS if f in flags) or "none"
    return "unknown"


def data_files() -> list[Path]:
    if not SHARED.is_dir():
        return []
    return sorted(p for p in SHARED.glob("*_dev.jsonl") if not p.name.startswith("nli_"))


def _strip(obj: Any, drop: tuple[str, ...]) -> Any:
    if isinstance(obj, dict):
        return {k: _strip(v, drop) for k, v in obj.items() if k not in drop}
    if isinstance(obj, list):
        return [_strip(v, drop) for v in obj]
    return obj


def _redact(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _redact(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_redact(v) for v in obj]
    if isinstance(obj, str) and len(obj) > KEEP_CHARS:
        return "#" + hashlib.sha256(obj.encode("utf-8")).hexdigest()[:12]
    return obj


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, default=str)


def _run_cli(argv: list[str]) -> int:
    from evaluators.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


def produce() -> dict[str, Any]:
    """{name: {"sha256", "exit", "json"}} for every output, in a fixed order."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        for src in data_files():
            lines = [ln for ln in src.read_text(encoding="utf-8").splitlines() if ln.strip()]
            sub = Path(tmp) / src.name
            sub.write_text("\n".join(lines[:N_RECORDS]) + "\n", encoding="utf-8")
            stem = src.name.removesuffix(".jsonl")
            jobs = {
                f"{stem}.evaluate": ["evaluate", str(sub), "--method", "trace", "--metrics", METRICS,
                                     "--no-progress"],
                f"{stem}.agreement": ["agreement", str(sub), "--method", "trace", "--n-boot", N_BOOT,
                                      "--no-progress"],
            }
            for name, argv in jobs.items():
                path = Path(tmp) / f"{name}.json"
                code = _run_cli([*argv, "--out", str(path)])
                raw = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
                norm = _strip(_strip(raw, VOLATILE), NEW_FIELDS)
                out[name] = {"exit": code, "sha256": hashlib.sha256(_dump(norm).encode()).hexdigest(),
                             "json": _redact(norm)}
    return out


def compare(golden: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Human-readable differences ([] = identical)."""
    problems: list[str] = []
    g_out, n_out = golden["outputs"], new
    for name in sorted(set(g_out) | set(n_out)):
        if name not in n_out or name not in g_out:
            problems.append(f"{name}: {'missing now' if name not in n_out else 'not in the goldens'}")
            continue
        g, n = g_out[name], n_out[name]
        if g["exit"] != n["exit"]:
            problems.append(f"{name}: exit code {n['exit']} != golden {g['exit']}")
        if g["sha256"] != n["sha256"]:
            diff = list(difflib.unified_diff(_dump(g["json"]).splitlines(), _dump(n["json"]).splitlines(),
                                             "golden", "now", n=2, lineterm=""))
            problems.append(f"{name}: output differs (sha256 {n['sha256'][:12]} != {g['sha256'][:12]})\n"
                            + "\n".join(diff[:60]))
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the goldens; write nothing")
    args = ap.parse_args(argv)
    # set here, not at import (the test imports this module): fp32, one thread, offline
    os.environ["RAG_EVAL_BF16"] = "0"
    os.environ["RAG_EVAL_PRECISION"] = "fp32"  # the torch fp32 encoder, whatever the CPU offers
    os.environ["RAG_EVAL_EMBED_CACHE"] = "off"  # every vector computed here, nothing written
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    for k, v in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false")):
        os.environ.setdefault(k, v)
    if not data_files():
        print(f"no shared data at {SHARED}: nothing to do")
        return 0
    new = produce()
    if args.check:
        golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
        if golden.get("cpu") != cpu_kind():
            print(f"SKIP: goldens made on a CPU with flags {golden.get('cpu')!r}, this one has "
                  f"{cpu_kind()!r} (fp32 kernels may round differently)")
            return 0
        problems = compare(golden, new)
        for p in problems:
            print(p)
        print("identical" if not problems else f"{len(problems)} output(s) differ")
        return 1 if problems else 0
    doc = {"note": "made by `python -m tests.golden.make_golden`; see its docstring",
           "cpu": cpu_kind(), "n_records": N_RECORDS, "metrics": METRICS, "outputs": new}
    GOLDEN.write_text(_dump(doc) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN} ({GOLDEN.stat().st_size / 1e6:.1f} MB, {len(new)} outputs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Golden outputs of the CLI, and the check that this machine still makes them.

    python -m tests.golden.make_golden --check      # the goldens' own encoder (onnx-fp32) vs the goldens,
                                                   # then this machine's chosen encoder vs onnx-fp32 here
    python -m tests.golden.make_golden --measure    # record this CPU's spreads in golden.json
    python -m tests.golden.make_golden --write      # new reference outputs (onnx-fp32 on this CPU)

What is compared: ``python -m evaluators evaluate --method trace --metrics <offline family metrics>``
and ``python -m evaluators agreement --method trace`` (the real CLI ``main``, in this process) on
``data/sample_rag.jsonl`` (always there: the check never skips) and on the first ``N_RECORDS``
records of every RAG file in ../shared/data (when present). Run-to-run fields (``timings``,
``started_at``, per-case ``seconds``, the input path, which encoder ran) are dropped. The dev data
must never be committed, so every string longer than ``KEEP_CHARS`` is stored as a short hash.

**Like with like.** The goldens are made with ``onnx-fp32``. ``--check`` first runs that same
encoder here: across CPUs fp32 moves embeddings only by rounding, so the tolerances are the
measured fp32 spread between CPUs. It then runs the encoder this machine picks by measurement
(``onnx-int8`` on most CPUs) and compares it with the ``onnx-fp32`` outputs it just made *on the
same CPU*, by label agreement (the share of sentence verdicts that may flip) and the measured
spread of that backend. ``RAG_EVAL_PRECISION``, when set, is honoured: that backend is compared
with the goldens, with the fp32-across-CPUs and that backend's tolerances added up (the message
says so). How values may move — verdict flips counted in sentences, continuous values by their
measured spread, aggregates recomputed from the cases — is :mod:`tests.golden.compare`.

**Spreads per CPU kind.** ``golden.json`` records, per kind of CPU (``avx2``,
``intel-avx512-amx``, ``amd-avx512``), what moved: ``vs_goldens`` (an fp32 backend of that CPU
against the goldens: the spread across CPUs) and ``vs_fp32_here`` (every other backend against
``onnx-fp32`` on that CPU). ``--measure`` adds or renews the record of the CPU it runs on; the
tolerances are made from every record (worst CPU, times ``MARGIN``). ``--write`` keeps the
spreads already recorded, this CPU's against the former goldens too (the spread between two CPUs
holds either way round).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

from bench.machine import cpu_kind  # the kind of CPU the spreads are recorded under
from tests.golden import compare as C

ROOT = Path(__file__).resolve().parents[2]
#: ../shared/data next to the checkout (or two levels up, for a git worktree); $SHARED_DATA wins.
SHARED = next((p for p in (Path(os.environ.get("SHARED_DATA", "/nonexistent")), ROOT.parent / "shared" / "data",
                           ROOT.parent.parent / "shared" / "data") if p.is_dir()), ROOT.parent / "shared" / "data")
GOLDEN = Path(__file__).with_name("golden.json")
SAMPLE = ROOT / "data" / "sample_rag.jsonl"
N_RECORDS = 25
#: Bootstrap resamples of the agreement command (its default 2,000 is slow for a test).
N_BOOT = "400"
KEEP_CHARS = 24
METRICS = ("context_entity_recall,answer_semantic_similarity,response_length,answer_contains_pii,"
           "ragas_score,overall_score")
#: Run-to-run fields, dropped before comparing (``encoder``: which backend ran and why).
VOLATILE = ("timings", "started_at", "seconds", "input_file", "encoder")
#: The reference encoder, and the backends measured against it by --write.
REFERENCE_BACKEND = "onnx-fp32"
OTHER_BACKENDS = ("onnx-int8", "torch-bf16", "torch-fp32")


# ---------------------------------------------------------------- producing outputs
def data_files() -> list[Path]:
    if not SHARED.is_dir():
        return []
    # not the NLI pairs (no RAG cases), nor the *_systems_dev files (supersets of the RAGTruth files)
    return sorted(p for p in SHARED.glob("*_dev.jsonl") if not p.name.startswith("nli_") and "_systems_" not in p.name)


def strip(obj: Any, drop: tuple[str, ...]) -> Any:
    if isinstance(obj, dict):
        return {k: strip(v, drop) for k, v in obj.items() if k not in drop}
    if isinstance(obj, list):
        return [strip(v, drop) for v in obj]
    return obj


def redact(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: redact(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact(v) for v in obj]
    if isinstance(obj, str) and len(obj) > KEEP_CHARS:
        return "#" + hashlib.sha256(obj.encode("utf-8")).hexdigest()[:12]
    return obj


def _run_cli(argv: list[str]) -> int:
    from evaluators.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


def inputs(tmp: Path, sample_only: bool = False) -> dict[str, Path]:
    """name stem -> input file: the repository's sample, then the first records of each shared file."""
    out = {"sample_rag": SAMPLE}
    for src in [] if sample_only else data_files():
        lines = [ln for ln in src.read_text(encoding="utf-8").splitlines() if ln.strip()]
        sub = tmp / src.name
        sub.write_text("\n".join(lines[:N_RECORDS]) + "\n", encoding="utf-8")
        out[src.name.removesuffix(".jsonl")] = sub
    return out


def use_backend(backend: str | None) -> None:
    """Make the next CLI run use ``backend`` (None: this machine's own choice)."""
    from evaluators.encoder import embeddings

    if backend is None:
        os.environ.pop("RAG_EVAL_PRECISION", None)
    else:
        os.environ["RAG_EVAL_PRECISION"] = backend
    embeddings.reset()


def produce(backend: str | None, evaluate_only: bool = False, sample_only: bool = False) -> dict[str, Any]:
    """{name: {"exit", "json"}} for every output, in a fixed order, with ``backend`` (None: this
    machine's own choice); ``evaluate_only``: not the agreement command (its aggregates follow from
    the cases, which the evaluate command writes); ``sample_only``: the repository's sample alone."""
    use_backend(backend)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        for stem, path in inputs(Path(tmp), sample_only).items():
            jobs = {
                f"{stem}.evaluate": ["evaluate", str(path), "--method", "trace", "--metrics", METRICS,
                                     "--no-progress"],
                f"{stem}.agreement": ["agreement", str(path), "--method", "trace", "--n-boot", N_BOOT,
                                      "--no-progress"],
            }
            for name, argv in jobs.items():
                if evaluate_only and name.endswith(".agreement"):
                    continue
                dest = Path(tmp) / f"{name}.json"
                code = _run_cli([*argv, "--out", str(dest)])
                raw = json.loads(dest.read_text(encoding="utf-8")) if dest.exists() else None
                out[name] = {"exit": code, "json": redact(strip(raw, VOLATILE))}
    from evaluators.encoder import embeddings

    out["_encoder"] = embeddings.info()["backend"]
    return out


# ---------------------------------------------------------------- CPUs and tolerances
def tolerances(measured: dict[str, Any]) -> dict[str, Any]:
    """From every CPU kind's records: ``fp32_across_cpus`` (an fp32 backend of one CPU against the
    goldens made on another) and ``backend_vs_fp32[b]`` (backend b against onnx-fp32 on one CPU)."""
    across = [sp for rec in measured.values() for b, sp in rec.get("vs_goldens", {}).items() if b.endswith("fp32")]
    backends = sorted({b for rec in measured.values() for b in rec.get("vs_fp32_here", {})})
    here = [sp for rec in measured.values() for sp in rec.get("vs_fp32_here", {}).values()]
    kinds = C.continuous_kinds([*across, *here])
    return {"margin": C.MARGIN, "floor": C.FLOOR, "continuous_kinds": kinds,
            "fp32_across_cpus": C.tolerance(across, "onnx-fp32 across CPUs", kinds),
            "backend_vs_fp32": {b: C.tolerance([rec["vs_fp32_here"][b] for rec in measured.values()
                                                if b in rec.get("vs_fp32_here", {})], f"{b} vs onnx-fp32 on one CPU",
                                               kinds)
                                for b in backends}}


def tolerance_for(golden: dict[str, Any], backend: str) -> dict[str, Any]:
    """The tolerance of ``backend`` on this CPU against the goldens (onnx-fp32 on another CPU)."""
    tol = golden["tolerances"]
    if backend == REFERENCE_BACKEND:
        return tol["fp32_across_cpus"]
    if backend not in tol["backend_vs_fp32"]:
        raise SystemExit(f"no spread measured for {backend}: run --measure on a machine that has it")
    return C.combine(tol["fp32_across_cpus"], tol["backend_vs_fp32"][backend])


def prepare(d: Any) -> Any:
    """A recomputed output in the stored shape (run-to-run fields dropped, long strings hashed)."""
    return redact(strip(d, VOLATILE))


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False, default=str, sort_keys=False)


def _present(golden: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The goldens of the inputs this machine has (the shared files may be absent)."""
    if data_files():
        return golden["outputs"]
    return {n: v for n, v in golden["outputs"].items() if n in new}


def _report(title: str, problems: list[str]) -> None:
    print(title)
    for p in problems:
        print("  " + p)


def measure_here(golden: dict[str, Any], ref_here: dict[str, Any]) -> dict[str, Any]:
    """This CPU's record: onnx-fp32 here against the goldens, every other backend against it."""
    from evaluators.encoder import backends
    from evaluators.encoder.precision import cpu_signature

    rec: dict[str, Any] = {"cpu": cpu_signature(), "measured_on": date.today().isoformat(),
                           "vs_goldens": {}, "vs_fp32_here": {}}
    if golden.get("made_with", {}).get("cpu") != cpu_signature():
        rec["vs_goldens"][REFERENCE_BACKEND] = C.spread(_present(golden, ref_here), ref_here)
    for b in OTHER_BACKENDS:
        if b in backends.available():
            rec["vs_fp32_here"][b] = C.spread(ref_here, produce(b, evaluate_only=True))
    return rec


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="this machine vs the goldens (see the module doc)")
    mode.add_argument("--measure", action="store_true", help="record this CPU's spreads in golden.json")
    mode.add_argument("--write", action="store_true", help="new reference outputs, and this CPU's spreads")
    args = ap.parse_args(argv)
    os.environ["RAG_EVAL_EMBED_CACHE"] = "off"  # every vector computed here, nothing written
    for k, v in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false")):
        os.environ.setdefault(k, v)
    from evaluators.encoder.precision import cpu_signature

    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    here = f"{cpu_kind()} ({cpu_signature()})"
    if args.check:
        forced = os.environ.get("RAG_EVAL_PRECISION", "").strip().lower()
        first = {"int8": "onnx-int8", "fp32": "torch-fp32", "bf16": "torch-bf16"}.get(forced, forced)
        first = first if first and first != "auto" else REFERENCE_BACKEND
        new = produce(first)
        ran = new["_encoder"]
        why = (f"RAG_EVAL_PRECISION={forced} honoured" if forced and forced != "auto"
               else "the goldens' own encoder: like with like")
        tol = tolerance_for(golden, ran)
        problems = C.check(_present(golden, new), new, tol, prepare)
        n = len([k for k in new if not k.startswith("_")])
        _report(f"CPU here: {here}; encoder: {ran} ({why}); compared {n} outputs with the goldens "
                f"({golden['made_with']['backend']} on {golden['made_with']['cpu']}); tolerances: {tol['what']}",
                problems)
        chosen = None
        if not forced or forced == "auto":
            use_backend(None)
            from evaluators.encoder import embeddings

            chosen = embeddings.chosen()
        if chosen and chosen != ran:
            tol2 = golden["tolerances"]["backend_vs_fp32"].get(chosen)
            if tol2 is None:
                problems.append(f"no spread measured for {chosen} (this machine's choice): run --measure")
            else:
                mine = produce(chosen, evaluate_only=True)
                more = C.check({k: v for k, v in new.items() if k.endswith(".evaluate")}, mine, tol2, prepare)
                _report(f"this machine's chosen encoder {chosen} against {ran} on this CPU (label agreement; "
                        f"tolerances: {tol2['what']})", more)
                problems += more
        elif not chosen:
            print("this machine's chosen encoder: not compared (RAG_EVAL_PRECISION is set)")
        print("within tolerances" if not problems else f"{len(problems)} difference(s) beyond the tolerances "
              f"on {here}")
        return 1 if problems else 0
    if args.measure:
        ref_here = produce(REFERENCE_BACKEND)
        golden["spread_measured"][cpu_kind()] = measure_here(golden, ref_here)
        golden["tolerances"] = tolerances(golden["spread_measured"])
        GOLDEN.write_text(_dump(golden) + "\n", encoding="utf-8")
        print(f"recorded the spreads of {here} in {GOLDEN}")
        return 0
    ref = produce(REFERENCE_BACKEND)
    measured = golden.get("spread_measured", {})
    # the other CPUs' records stay: they measured spreads (fp32 across CPUs, backends on one CPU),
    # which do not depend on which CPU made the reference
    before = measured.get(cpu_kind(), {}).get("vs_goldens", {})
    note = measured.get(cpu_kind(), {}).get("vs_goldens_note")  # where that spread came from
    measured[cpu_kind()] = measure_here({"made_with": {"cpu": cpu_signature()}}, ref)
    # this CPU against goldens made on another one measured the spread between the two CPUs, which
    # holds either way round: it stays (else remaking the goldens here would leave no fp32 spread
    # across CPUs but the others' against the old goldens, and the check would be too tight there)
    measured[cpu_kind()]["vs_goldens"] = before
    if note:
        measured[cpu_kind()]["vs_goldens_note"] = note
    doc = {"note": "made by `python -m tests.golden.make_golden --write`; see its docstring",
           "made_with": {"backend": REFERENCE_BACKEND, "cpu": cpu_signature(), "cpu_kind": cpu_kind()},
           "n_records": N_RECORDS, "metrics": METRICS, "tolerances": tolerances(measured),
           "spread_measured": measured, "outputs": {k: v for k, v in ref.items() if not k.startswith("_")}}
    GOLDEN.write_text(_dump(doc) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN} ({GOLDEN.stat().st_size / 1e6:.1f} MB, {len(doc['outputs'])} outputs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

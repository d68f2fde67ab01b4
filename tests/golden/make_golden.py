"""Golden outputs of the CLI, compared on any CPU with tolerances measured from the encoder's spread.

    python -m tests.golden.make_golden --write      # reference outputs + tolerances -> golden.json
    python -m tests.golden.make_golden --check      # this machine's default encoder vs the goldens

What is compared: ``python -m evaluators evaluate --method trace --metrics <offline family metrics>``
and ``python -m evaluators agreement --method trace`` (the real CLI ``main``, in this process) on
``data/sample_rag.jsonl`` (always there: the check never skips) and on the first ``N_RECORDS``
records of every RAG file in ../shared/data (when present). Run-to-run fields (``timings``,
``started_at``, per-case ``seconds``, the input path, which encoder ran) are dropped. The dev data
must never be committed, so every string longer than ``KEEP_CHARS`` is stored as a short hash.

**Why tolerances.** The reference outputs are made with the ``onnx-fp32`` encoder. Another CPU
(AVX2 instead of AVX-512 / AMX) rounds fp32 differently, and the encoder a machine picks by
measurement may be ``onnx-int8`` or torch ``bf16``: embeddings move a little, a sentence whose
support probability sits at the threshold can flip, and scores move with it. ``--write`` measures
that spread on the golden inputs themselves: every other backend on this machine against
``onnx-fp32`` (int8, and with the torch extra bf16 and torch fp32), and — the other CPU — the
previous goldens, made with torch fp32 on a 2-core AVX2 machine (``AVX2_REFERENCE``), against the
new reference. For every kind of value (a path with list positions replaced by ``*``) it records
the share of values that changed, their mean and their largest change; the tolerance of a kind is
``MARGIN`` x (largest spread between backends + spread between CPUs). A kind that never moved must
match exactly (ids, texts, sentence splits, counts of documents, offline family metrics, exit
codes); a sentence's labels (relevant / utilized keys, verdicts, explanations) may differ only in
the measured share of cases. A failure names each kind that moved more than its tolerance, with
the numbers and a few examples.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[2]
#: ../shared/data next to the checkout (or two levels up, for a git worktree); $SHARED_DATA wins.
SHARED = next((p for p in (Path(os.environ.get("SHARED_DATA", "/nonexistent")), ROOT.parent / "shared" / "data",
                           ROOT.parent.parent / "shared" / "data") if p.is_dir()), ROOT.parent / "shared" / "data")
GOLDEN = Path(__file__).with_name("golden.json")
#: The goldens before this format (torch fp32 on 2 AVX2 cores, 2026-11): the other CPU of the spread.
AVX2_REFERENCE = Path(__file__).with_name("golden_avx2_torch_fp32.json")
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
MARGIN = 1.5
#: A kind whose values mostly move (share >= this) is continuous: checked by the size of the move.
CONTINUOUS_SHARE = 0.5
#: Under a case's ``labels`` / ``variants``, the verdicts: they may differ in up to the measured share
#: of cases (a sentence at the threshold flips); the probabilities beside them are numbers like any other.
LABEL_KEYS = ("labels", "variants")
VERDICTS = ("relevant_keys", "utilized_keys", "supporting_keys", "fully_supported", "overall_supported", "level")
#: Text written from numbers (explanations, notes) and curves whose points come and go with ties
#: (ROC points; the AUROC values are compared in ``table``): not compared.
NOT_COMPARED = ("explanation", "relevance_explanation", "overall_explanation", "notes", "note", "roc")


# ---------------------------------------------------------------- producing outputs
def data_files() -> list[Path]:
    if not SHARED.is_dir():
        return []
    return sorted(p for p in SHARED.glob("*_dev.jsonl") if not p.name.startswith("nli_"))


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


def inputs(tmp: Path) -> dict[str, Path]:
    """name stem -> input file: the repository's sample, then the first records of each shared file."""
    out = {"sample_rag": SAMPLE}
    for src in data_files():
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


def produce(backend: str | None) -> dict[str, Any]:
    """{name: {"exit", "json"}} for every output, in a fixed order, with ``backend``."""
    use_backend(backend)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        for stem, path in inputs(Path(tmp)).items():
            jobs = {
                f"{stem}.evaluate": ["evaluate", str(path), "--method", "trace", "--metrics", METRICS,
                                     "--no-progress"],
                f"{stem}.agreement": ["agreement", str(path), "--method", "trace", "--n-boot", N_BOOT,
                                      "--no-progress"],
            }
            for name, argv in jobs.items():
                dest = Path(tmp) / f"{name}.json"
                code = _run_cli([*argv, "--out", str(dest)])
                raw = json.loads(dest.read_text(encoding="utf-8")) if dest.exists() else None
                out[name] = {"exit": code, "json": redact(strip(raw, VOLATILE))}
    from evaluators.encoder import embeddings

    out["_encoder"] = embeddings.info()["backend"]
    return out


# ---------------------------------------------------------------- comparing
def _token(i: int, item: Any) -> tuple[str, str]:
    """(path token, kind token) of list position ``i``: rows of statistics are named by what they are."""
    if isinstance(item, dict) and "statistic" in item:
        return f"[{i}]", f"[{item.get('statistic')}]"
    return f"[{i}]", "[*]"


def leaves(obj: Any, path: str = "", kind: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path, kind, value) of every compared leaf."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in NOT_COMPARED:
                yield from leaves(v, f"{path}.{k}", f"{kind}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            p, t = _token(i, v)
            yield from leaves(v, f"{path}{p}", f"{kind}{t}")
    else:
        yield path, kind, obj


def is_label(kind: str) -> bool:
    """A verdict of a case's labels (``....labels.sentences[*].fully_supported``, ``...relevant_keys[*]``)."""
    parts = re.split(r"[.\[]", kind)
    return any(k in parts for k in LABEL_KEYS) and any(v in parts for v in VERDICTS)


def _verdict_units(labels: Any) -> tuple[set[str], set[str], dict[str, tuple[Any, Any]], int]:
    if not isinstance(labels, dict):
        return set(), set(), {}, 0
    sents = {s.get("key"): (s.get("fully_supported"), tuple(s.get("supporting_keys") or ()))
             for s in labels.get("sentences") or () if isinstance(s, dict)}
    return (set(labels.get("relevant_keys") or ()), set(labels.get("utilized_keys") or ()), sents,
            len(labels.get("document_keys") or ()))


def verdict_changes(a: Any, b: Any) -> tuple[int, int]:
    """(changed, total) verdicts of every case's labels and variants: a document sentence's relevant
    and utilized flags, a response sentence's support verdict and supporting keys."""
    changed = total = 0
    ca = a.get("detailed_results") if isinstance(a, dict) else None
    cb = b.get("detailed_results") if isinstance(b, dict) else None
    for x, y in zip(ca or (), cb or ()):
        pairs = [(x.get("labels"), y.get("labels"))] + [
            ((x.get("variants") or {}).get(k, {}).get("labels"), (y.get("variants") or {}).get(k, {}).get("labels"))
            for k in sorted(set(x.get("variants") or {}) | set(y.get("variants") or {}))]
        for la, lb in pairs:
            ra, ua, sa, n = _verdict_units(la)
            rb, ub, sb, _ = _verdict_units(lb)
            total += 2 * n + len(set(sa) | set(sb))
            changed += len(ra ^ rb) + len(ua ^ ub) + sum(sa.get(k) != sb.get(k) for k in set(sa) | set(sb))
    return changed, total


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return float(v) if isinstance(v, bool) else None
    if isinstance(v, (int, float)) and math.isfinite(float(v)):
        return float(v)
    return None


def spread(ref: dict[str, Any], new: dict[str, Any], allow_missing: bool = False) -> dict[str, Any]:
    """Per kind of value (over every output both have): n, changed share, mean and max |change|,
    examples; ``labels``: per output, the share of sentence verdicts that differ; ``exact``: values that
    are not numbers and differ (missing on one side included, unless ``allow_missing``: outputs of
    an older format)."""
    kinds: dict[str, dict[str, Any]] = {}
    labels: dict[str, dict[str, Any]] = {}
    exact: list[str] = []
    share_max: dict[str, float] = {}  # kind -> the largest share of its values moved in one output
    for name in sorted(set(ref) & set(new)):
        if name.startswith("_"):
            continue
        before = {k: (v["n"], v["changed"]) for k, v in kinds.items()}
        a, b = ref[name], new[name]
        if a["exit"] != b["exit"]:
            exact.append(f"{name}: exit code {b['exit']} != {a['exit']}")
        la = {p: (k, v) for p, k, v in leaves(a["json"])}
        lb = {p: (k, v) for p, k, v in leaves(b["json"])}
        for p in sorted(set(la) | set(lb)):
            ka, va = la.get(p, (None, None))
            kb, vb = lb.get(p, (None, None))
            kind = ka or kb
            if is_label(kind):
                continue  # verdicts: counted per sentence below
            na, nb = _num(va), _num(vb)
            if p in la and p in lb and na is not None and nb is not None:
                row = kinds.setdefault(kind, {"n": 0, "changed": 0, "sum_abs": 0.0, "max_abs": 0.0, "examples": []})
                d = abs(na - nb)
                row["n"] += 1
                row["sum_abs"] += d
                if d > 1e-9:
                    row["changed"] += 1
                    if d >= row["max_abs"]:
                        row["examples"] = ([f"{name}{p}: {va} -> {vb}"] + row["examples"])[:3]
                row["max_abs"] = max(row["max_abs"], d)
            elif va != vb and not (allow_missing and (p not in la or p not in lb)):
                exact.append(f"{name}{p}: {va!r} -> {vb!r}")
        for k, v in kinds.items():
            n0, c0 = before.get(k, (0, 0))
            if v["n"] > n0:
                share_max[k] = max(share_max.get(k, 0.0), (v["changed"] - c0) / (v["n"] - n0))
        units = verdict_changes(a["json"], b["json"])
        if units[1]:
            labels[name] = {"verdicts": units[1], "changed": units[0], "share": units[0] / units[1]}
    for k, row in kinds.items():
        row["share"] = share_max.get(k, 0.0)  # the worst single output, not the pool
        row["mean_abs"] = row.pop("sum_abs") / row["n"] if row["n"] else 0.0
    return {"kinds": kinds, "labels": labels, "exact": exact}


def tolerances(backend_spreads: list[dict[str, Any]], cpu_spreads: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kind that moved: ``continuous`` (most of its values moved: probabilities, similarities)
    with ``max_abs`` = MARGIN x (largest move between backends + between CPUs); or ``step`` (values
    that move only when a verdict flips: adherence, relevance, counts, and what is computed from them)
    with ``share`` = the same sum for the share of values that moved. ``label_share``: the share of
    sentence verdicts that may flip. Kinds that never moved are not listed: they must match."""
    def worst(spreads: list[dict[str, Any]], kind: str, key: str) -> float:
        return max((s["kinds"][kind][key] for s in spreads if kind in s["kinds"]), default=0.0)

    kinds = sorted({k for s in backend_spreads + cpu_spreads for k in s["kinds"]})
    out: dict[str, Any] = {"kinds": {}}
    for k in kinds:
        share = worst(backend_spreads, k, "share") + worst(cpu_spreads, k, "share")
        if share == 0:
            continue
        moved = "continuous" if share >= CONTINUOUS_SHARE else "step"
        out["kinds"][k] = {"class": moved, "share": round(min(1.0, MARGIN * share), 6),
                           "max_abs": round(MARGIN * (worst(backend_spreads, k, "max_abs")
                                                      + worst(cpu_spreads, k, "max_abs")), 6)}

    def label_share(spreads: list[dict[str, Any]]) -> float:
        return max((v["share"] for s in spreads for v in s["labels"].values()), default=0.0)

    out["label_share"] = round(min(1.0, MARGIN * (label_share(backend_spreads) + label_share(cpu_spreads))), 6)
    return out


def _stem(name: str) -> str:
    return name.rsplit(".", 1)[0]


def check(golden: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs beyond the tolerances ([] = within them). A step kind may move only in an input
    whose cases moved (a verdict flip shows in a case's TRACE scores first), in at most the measured
    share of its values plus one; a continuous kind by at most its measured largest move."""
    tol = golden["tolerances"]
    problems: list[str] = []
    names = [n for n in golden["outputs"] if not n.startswith("_")]
    problems += [f"{n}: missing now" for n in names if n not in new]
    spreads = {n: spread({n: golden["outputs"][n]}, {n: new[n]}) for n in names if n in new}
    flipped = {_stem(n) for n, sp in spreads.items()
               if any(k.startswith(".detailed_results") and tol["kinds"].get(k, {}).get("class") == "step"
                      and row["changed"] for k, row in sp["kinds"].items())}
    for n, sp in spreads.items():
        problems += [f"differs, and never moved between backends or CPUs: {e}" for e in sp["exact"][:10]]
        for kind, row in sorted(sp["kinds"].items()):
            if not row["changed"]:
                continue
            t = tol["kinds"].get(kind)
            if t is None:
                why = "never moved between backends or CPUs"
            elif t["class"] == "continuous":
                why = f"moved {row['max_abs']:.4g} > {t['max_abs']:.4g}" if row["max_abs"] > t["max_abs"] + 1e-9 else ""
            elif _stem(n) not in flipped:
                why = "moved although no case of this input moved"
            else:
                allowed = math.floor(t["share"] * row["n"]) + 1
                why = f"{row['changed']} of {row['n']} moved > {allowed} allowed" if row["changed"] > allowed else ""
            if why:
                problems.append(f"{n} {kind}: {why}; e.g. " + "; ".join(row["examples"]))
        for _, row in sp["labels"].items():
            allowed = math.floor(tol["label_share"] * row["verdicts"]) + 1
            if row["changed"] > allowed:
                problems.append(f"{n}: {row['changed']} of {row['verdicts']} sentence verdicts differ (> {allowed} "
                                f"allowed, {tol['label_share']:.2%} + 1)")
    return problems


def load_avx2_reference() -> dict[str, Any] | None:
    if not AVX2_REFERENCE.exists():
        return None
    doc = json.loads(AVX2_REFERENCE.read_text(encoding="utf-8"))
    return doc["outputs"]


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False, default=str, sort_keys=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="this machine's default encoder vs the goldens")
    mode.add_argument("--write", action="store_true", help="make the reference and measure the tolerances")
    ap.add_argument("--backend", default=None, choices=("onnx-int8", "onnx-fp32", "torch-bf16", "torch-fp32"),
                    help="with --check: this backend instead of this machine's own choice")
    args = ap.parse_args(argv)
    os.environ["RAG_EVAL_EMBED_CACHE"] = "off"  # every vector computed here, nothing written
    for k, v in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("TOKENIZERS_PARALLELISM", "false")):
        os.environ.setdefault(k, v)
    if args.check:
        golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
        new = produce(args.backend)
        absent = [n for n in golden["outputs"] if n not in new and not n.startswith("_")]
        if absent and not data_files():  # the shared files are not on this machine: their goldens wait
            golden["outputs"] = {n: v for n, v in golden["outputs"].items() if n in new}
        problems = check(golden, new)
        print(f"encoder here: {new['_encoder']}; compared {len([n for n in new if not n.startswith('_')])} outputs"
              f" with the goldens ({golden['made_with']['backend']} on {golden['made_with']['cpu']})")
        for p in problems:
            print(p)
        print("within tolerances" if not problems else f"{len(problems)} difference(s) beyond the tolerances")
        return 1 if problems else 0
    from evaluators.encoder import backends
    from evaluators.encoder.precision import cpu_signature

    ref = produce(REFERENCE_BACKEND)
    backend_spreads, measured = [], {}
    for b in OTHER_BACKENDS:
        if b not in backends.available():
            continue
        sp = spread(ref, produce(b))
        backend_spreads.append(sp)
        measured[b] = {k: {kk: v[kk] for kk in ("n", "share", "mean_abs", "max_abs")} for k, v in sp["kinds"].items()
                       if v["changed"]} | {"labels": sp["labels"], "exact_differences": sp["exact"][:10]}
    cpu_spreads = []
    avx2 = load_avx2_reference()
    if avx2:
        sp = spread(avx2, ref, allow_missing=True)
        cpu_spreads.append(sp)
        measured["avx2 torch-fp32 -> this cpu onnx-fp32"] = {
            k: {kk: v[kk] for kk in ("n", "share", "mean_abs", "max_abs")} for k, v in sp["kinds"].items()
            if v["changed"]} | {"labels": sp["labels"]}
    doc = {"note": "made by `python -m tests.golden.make_golden --write`; see its docstring",
           "made_with": {"backend": REFERENCE_BACKEND, "cpu": cpu_signature()}, "n_records": N_RECORDS,
           "metrics": METRICS, "margin": MARGIN, "tolerances": tolerances(backend_spreads, cpu_spreads),
           "spread_measured": measured, "outputs": {k: v for k, v in ref.items() if not k.startswith("_")}}
    GOLDEN.write_text(_dump(doc) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN} ({GOLDEN.stat().st_size / 1e6:.1f} MB, {len(doc['outputs'])} outputs); "
          f"{len(doc['tolerances']['kinds'])} kinds may move; labels of up to "
          f"{doc['tolerances']['label_share']:.1%} of cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())

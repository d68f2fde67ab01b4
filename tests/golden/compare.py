"""How the CLI's outputs are compared with the goldens: what may move between encoders and CPUs,
and by how much. Used by ``make_golden`` (``--check``, ``--measure``, ``--write``).

**The model.** The trace labeler turns embeddings into a probability per sentence and a verdict by
one threshold. Another CPU rounds fp32 differently, another backend (int8, bf16) moves embeddings
more: probabilities move a little (*continuous* values) and a sentence whose probability sits at
the threshold can *flip*. A flip moves the metrics that count sentences by a whole step (1/n), so
no "largest spread seen elsewhere" can bound them on a CPU never seen. Hence three rules:

1. **Sentence verdicts** (a response sentence's support and supporting keys, a document sentence's
   relevant / used flags, of the labels and of every variant) may flip in at most
   ``max(1, ceil(flip_share x verdicts))`` units per output, ``flip_share`` being the measured flip
   rate (worst output, worst CPU) times ``MARGIN``.
2. **Per-case values**: a *continuous* kind (probabilities, similarities: values that move with
   every encoder change) by at most its measured largest move times ``MARGIN`` (never less than
   ``FLOOR``); in a case whose verdicts flipped, by at most the largest move a flip was seen to
   cause. The TRACE metrics of every case must follow from its labels (``trace_metrics.compute``,
   on both sides), so they move only where a verdict flipped. Everything else (ids, texts, sentence
   spans, offline family metrics) must match exactly.
3. **Aggregates** (run means, intervals, the agreement tables) are not given tolerances: they must
   *follow from the cases*. They are recomputed from the per-case values of each side with this
   library (``export.to_json_dict``, ``agreement.agreement_report``) and must equal what each side
   stored. On the golden side that proves the statistics did not change; on the new side that the
   CLI computed them from the cases it wrote.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterator

#: Tolerances are this many times the largest spread measured.
MARGIN = 1.5
#: A kind whose values mostly move (share >= this) under some encoder change is continuous.
CONTINUOUS_SHARE = 0.5
#: A continuous value moving less than this is never a regression (probabilities and similarities
#: are written with 4 decimals: a value at a rounding boundary moves by 1e-4).
FLOOR = 2e-4
#: Recomputed aggregates and unflipped step values must agree this closely (float summation order).
EXACT = 1e-9
#: Under a case's ``labels`` / ``variants``, the verdicts: counted as flips, not compared as values.
LABEL_KEYS = ("labels", "variants")
VERDICTS = ("relevant_keys", "utilized_keys", "supporting_keys", "fully_supported", "overall_supported", "level")
#: Text written from numbers (explanations, notes) and ROC curves whose points come and go with
#: ties (the AUROC values are compared in ``table``): not compared.
NOT_COMPARED = ("explanation", "relevance_explanation", "overall_explanation", "notes", "note", "roc")
#: Per-case TRACE values that follow from the labels.
TRACE_KEYS = ("context_relevance", "context_utilization", "completeness", "adherence", "expected_adherence",
              "overall_supported", "fully_supported_sentences", "partially_supported_sentences",
              "unsupported_sentences")
CASES = ".detailed_results"


# ---------------------------------------------------------------- walking an output
def leaves(obj: Any, path: str = "", kind: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path, kind, value) of every compared leaf; a kind is the path with list positions as ``*``
    (rows of statistics are named by their statistic)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in NOT_COMPARED:
                yield from leaves(v, f"{path}.{k}", f"{kind}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            tok = f"[{v.get('statistic')}]" if isinstance(v, dict) and "statistic" in v else "[*]"
            yield from leaves(v, f"{path}[{i}]", f"{kind}{tok}")
    else:
        yield path, kind, obj


def is_label(kind: str) -> bool:
    """A verdict of a case's labels (``....labels.sentences[*].fully_supported``, ``...relevant_keys[*]``)."""
    parts = re.split(r"[.\[]", kind)
    return any(k in parts for k in LABEL_KEYS) and any(v in parts for v in VERDICTS)


def num(v: Any) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)) and math.isfinite(float(v)):
        return float(v)
    return None


def cases_of(output: dict[str, Any]) -> list[dict[str, Any]]:
    js = output.get("json")
    return list(js.get("detailed_results") or ()) if isinstance(js, dict) else []


# ---------------------------------------------------------------- verdicts
def _units(labels: Any) -> tuple[set[str], set[str], dict[str, tuple[Any, Any]], int]:
    if not isinstance(labels, dict):
        return set(), set(), {}, 0
    sents = {s.get("key"): (s.get("fully_supported"), tuple(s.get("supporting_keys") or ()))
             for s in labels.get("sentences") or () if isinstance(s, dict)}
    return (set(labels.get("relevant_keys") or ()), set(labels.get("utilized_keys") or ()), sents,
            len(labels.get("document_keys") or ()))


def case_flips(x: dict[str, Any], y: dict[str, Any]) -> tuple[int, int]:
    """(flipped, total) verdict units of one case, its labels and every variant's: a document
    sentence's relevant and utilized flags, a response sentence's verdict with its supporting keys."""
    pairs = [(x.get("labels"), y.get("labels"))] + [
        ((x.get("variants") or {}).get(k, {}).get("labels"), (y.get("variants") or {}).get(k, {}).get("labels"))
        for k in sorted(set(x.get("variants") or {}) | set(y.get("variants") or {}))]
    changed = total = 0
    for la, lb in pairs:
        ra, ua, sa, n = _units(la)
        rb, ub, sb, _ = _units(lb)
        total += 2 * n + len(set(sa) | set(sb))
        changed += len(ra ^ rb) + len(ua ^ ub) + sum(sa.get(k) != sb.get(k) for k in set(sa) | set(sb))
    return changed, total


def flips(a: dict[str, Any], b: dict[str, Any]) -> tuple[int, int, set[int]]:
    """(flipped, total, positions of the cases with a flip) between two outputs' cases."""
    changed = total = 0
    where: set[int] = set()
    for i, (x, y) in enumerate(zip(cases_of(a), cases_of(b))):
        c, t = case_flips(x, y)
        changed, total = changed + c, total + t
        if c:
            where.add(i)
    return changed, total, where


def allowed_flips(flip_share: float, verdicts: int) -> int:
    """Flips allowed in an output of ``verdicts`` units: the measured rate with its margin, never
    less than one sentence."""
    return max(1, math.ceil(flip_share * verdicts - 1e-9))


# ---------------------------------------------------------------- measuring (make_golden --measure / --write)
def spread(ref: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What moved from ``ref`` to ``new`` (two {output name: {"exit", "json"}}): per kind of
    per-case value, n, the worst output's share of values that moved, mean and largest move (also
    the largest within cases whose verdicts flipped: what a flip can do); per output, the verdicts
    that flipped."""
    kinds: dict[str, dict[str, Any]] = {}
    labels: dict[str, dict[str, Any]] = {}
    for name in sorted(set(ref) & set(new)):
        if name.startswith("_") or not cases_of(ref[name]):
            continue
        changed, total, where = flips(ref[name], new[name])
        labels[name] = {"verdicts": total, "changed": changed, "share": changed / total if total else 0.0}
        per: dict[str, list[int]] = {}
        for i, (x, y) in enumerate(zip(cases_of(ref[name]), cases_of(new[name]))):
            lx = {p: (k, v) for p, k, v in leaves(x, f"{CASES}[{i}]", f"{CASES}[*]")}
            ly = {p: (k, v) for p, k, v in leaves(y, f"{CASES}[{i}]", f"{CASES}[*]")}
            for p in lx.keys() & ly.keys():
                kind, va = lx[p]
                vb = ly[p][1]
                na, nb = num(va), num(vb)
                if is_label(kind) or na is None or nb is None:
                    continue
                d = abs(na - nb)
                row = kinds.setdefault(kind, {"n": 0, "changed": 0, "sum_abs": 0.0, "max_abs": 0.0,
                                              "max_abs_flipped": 0.0, "share": 0.0, "examples": []})
                row["n"] += 1
                row["sum_abs"] += d
                key = "max_abs_flipped" if i in where else "max_abs"
                if d > row[key]:
                    row[key] = d
                    if key == "max_abs":
                        row["examples"] = [f"{name}{p}: {va} -> {vb}"]
                per.setdefault(kind, [0, 0])
                per[kind][0] += 1
                per[kind][1] += d > 1e-12
                row["changed"] += d > 1e-12
        for kind, (n, c) in per.items():
            kinds[kind]["share"] = max(kinds[kind]["share"], c / n if n else 0.0)
    for row in kinds.values():
        row["mean_abs"] = row.pop("sum_abs") / row["n"] if row["n"] else 0.0
        row["max_abs_flipped"] = max(row["max_abs_flipped"], row["max_abs"])
    return {"kinds": {k: v for k, v in sorted(kinds.items()) if v["changed"]}, "labels": labels}


def worst_flip_share(sp: dict[str, Any]) -> float:
    return max((v["share"] for v in sp.get("labels", {}).values()), default=0.0)


def continuous_kinds(spreads: list[dict[str, Any]]) -> list[str]:
    """Kinds of per-case values that move with an encoder change (most of their values moved in
    some measurement): probabilities, similarities and what is computed from them."""
    return sorted({k for s in spreads for k, v in s.get("kinds", {}).items() if v["share"] >= CONTINUOUS_SHARE})


def tolerance(spreads: list[dict[str, Any]], what: str, kinds: list[str]) -> dict[str, Any]:
    """The tolerances of one comparison (``what``) from the spreads measured for it (one per CPU
    kind): ``flip_share``; per continuous kind (``kinds``) ``max_abs`` and ``max_abs_flipped``
    (never less than ``FLOOR``)."""
    cont: dict[str, dict[str, float]] = {}
    for k in kinds:
        rows = [s["kinds"][k] for s in spreads if k in s.get("kinds", {})]
        cont[k] = {"max_abs": round(max(FLOOR, MARGIN * max((r["max_abs"] for r in rows), default=0.0)), 6),
                   "max_abs_flipped": round(max(FLOOR, MARGIN * max((r.get("max_abs_flipped", r["max_abs"])
                                                                     for r in rows), default=0.0)), 6)}
    return {"what": what, "flip_share": round(MARGIN * max((worst_flip_share(s) for s in spreads), default=0.0), 6),
            "continuous": cont}


def combine(*tols: dict[str, Any]) -> dict[str, Any]:
    """Tolerances of comparisons made one after the other (another backend on another CPU): the
    flip shares and the largest moves add up."""
    cont: dict[str, dict[str, float]] = {}
    for t in tols:
        for k, v in t["continuous"].items():
            row = cont.setdefault(k, {"max_abs": 0.0, "max_abs_flipped": 0.0})
            for kk in row:
                row[kk] = round(row[kk] + v[kk], 6)
    return {"what": " + ".join(t["what"] for t in tols), "flip_share": round(sum(t["flip_share"] for t in tols), 6),
            "continuous": cont}


# ---------------------------------------------------------------- the check
def _recomputed(name: str, outputs: dict[str, Any]) -> dict[str, Any] | None:
    """The aggregates of output ``name`` recomputed from the cases of its input's ``evaluate``
    output (None when there are none to recompute from)."""
    from evaluators.agreement import agreement_report
    from evaluators.export import run_from_json_dict, to_json_dict

    stem, what = name.rsplit(".", 1)
    ev = outputs.get(f"{stem}.evaluate", {}).get("json")
    out = outputs[name].get("json")
    if not isinstance(ev, dict) or not isinstance(out, dict):
        return None
    run = run_from_json_dict(ev, source=f"{stem}.evaluate")
    if what == "evaluate":
        d = to_json_dict(run)
        d.pop("detailed_results")
        return d
    report = agreement_report(run, list(out.get("label_columns") or ()) or None, out.get("group_column"),
                              n_boot=int(out.get("n_boot") or 0), seed=int(out.get("seed") or 0))
    report.pop("text", None)
    return report


def _aggregate_leaves(output: dict[str, Any]) -> dict[str, Any]:
    js = output.get("json")
    if not isinstance(js, dict):
        return {}
    return {p: v for p, _, v in leaves({k: v for k, v in js.items() if k != "detailed_results"})}


def _follows(name: str, outputs: dict[str, Any], side: str, prepare: Any) -> list[str]:
    """``side``'s aggregates of ``name`` equal their recomputation from its cases."""
    again = _recomputed(name, outputs)
    if again is None:
        return []
    stored = _aggregate_leaves(outputs[name])
    fresh = {p: v for p, _, v in leaves(prepare(again))}
    bad = []
    for p, v in stored.items():
        if p not in fresh:
            continue  # fields the recomputation does not make (input file, input errors, settings)
        a, b = num(v), num(fresh[p])
        same = (a is not None and b is not None and abs(a - b) <= EXACT * max(1.0, abs(a))) or v == fresh[p]
        if not same:
            bad.append(f"{p}: stored {v!r}, recomputed {fresh[p]!r}")
    if not bad:
        return []
    why = ("the statistics changed since the goldens were made" if side == "golden"
           else "this run's aggregates do not follow from its own cases")
    return [f"{name}: {len(bad)} aggregate(s) of the {side} side differ from their recomputation ({why}); e.g. "
            + "; ".join(bad[:3])]


def _trace_follows(case: dict[str, Any]) -> bool:
    """A case's TRACE metrics equal ``trace_metrics.compute`` of its labels."""
    from evaluators import trace_metrics
    from evaluators.types import SentenceLabels

    if not case.get("labels") or (case.get("metrics") or {}).get("adherence") is None:
        return True
    again = trace_metrics.compute(SentenceLabels.model_validate(case["labels"])).metrics_dict()
    have = case["metrics"]
    return all(abs(float(again[k]) - float(have[k])) <= EXACT for k in TRACE_KEYS if have.get(k) is not None)


def check(ref: dict[str, Any], new: dict[str, Any], tol: dict[str, Any], prepare: Any = lambda d: d) -> list[str]:
    """What differs beyond ``tol`` between outputs ``new`` and the reference ``ref`` ([] = none);
    ``prepare`` turns a recomputed aggregate dict into the stored shape (the goldens' redaction)."""
    problems: list[str] = []
    names = [n for n in ref if not n.startswith("_")]
    problems += [f"{n}: missing now" for n in names if n not in new]
    cont = tol["continuous"]
    for name in (n for n in names if n in new):
        a, b = ref[name], new[name]
        if a["exit"] != b["exit"]:
            problems.append(f"{name}: exit code {b['exit']} != {a['exit']}")
        if cases_of(a) or cases_of(b):
            if len(cases_of(a)) != len(cases_of(b)):
                problems.append(f"{name}: {len(cases_of(b))} cases, the goldens have {len(cases_of(a))}")
            changed, total, where = flips(a, b)
            cap = allowed_flips(tol["flip_share"], total)
            if changed > cap:
                problems.append(f"{name}: {changed} of {total} sentence verdicts differ (> {cap} allowed: "
                                f"{tol['flip_share']:.3%} of them, never less than one, for {tol['what']})")
            moved: dict[str, list[str]] = {}
            for i, (x, y) in enumerate(zip(cases_of(a), cases_of(b))):
                for side, case in (("golden", x), ("new", y)):
                    if not _trace_follows(case):
                        problems.append(f"{name}{CASES}[{i}] ({side}): TRACE metrics do not follow from its labels")
                lx = {p: (k, v) for p, k, v in leaves(x, f"{CASES}[{i}]", f"{CASES}[*]")}
                ly = {p: (k, v) for p, k, v in leaves(y, f"{CASES}[{i}]", f"{CASES}[*]")}
                for p in sorted(lx.keys() | ly.keys()):
                    kind, va = lx.get(p, ly.get(p))  # type: ignore[misc]
                    vb = ly.get(p, (None, None))[1]
                    if p not in lx or p not in ly:
                        if not is_label(kind) or i not in where:
                            moved.setdefault(f"{kind}: present on one side only", []).append(p)
                        continue
                    if is_label(kind):
                        continue  # counted as flips above
                    na, nb = num(va), num(vb)
                    if na is None or nb is None:
                        if va != vb:
                            moved.setdefault(f"{kind}: differs, and never moves between encoders or CPUs",
                                             []).append(f"{p}: {va!r} -> {vb!r}")
                        continue
                    d = abs(na - nb)
                    last = kind.rsplit(".", 1)[-1]
                    if kind in cont:
                        limit = cont[kind]["max_abs_flipped" if i in where else "max_abs"]
                        if d > limit + EXACT:
                            moved.setdefault(f"{kind}: moved more than {limit:.4g}", []).append(
                                f"{p}: {va} -> {vb} ({d:.4g})")
                    elif d > EXACT:
                        trace = last in TRACE_KEYS and ".metrics." in kind
                        if trace and i in where:
                            continue  # a flipped case: its TRACE metrics follow from its labels (checked)
                        why = ("moved although no verdict of its case flipped" if trace
                               else "differs, and never moves between encoders or CPUs")
                        moved.setdefault(f"{kind}: {why}", []).append(f"{p}: {va} -> {vb}")
            for why, examples in moved.items():
                problems.append(f"{name} {why} ({len(examples)}x); e.g. " + "; ".join(examples[:3]))
        for side, outputs in (("golden", ref), ("new", new)):
            problems += _follows(name, outputs, side, prepare)
    return problems

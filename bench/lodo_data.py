"""The ten labelled dev domains of the leave-one-domain-out harness (``bench/lodo.py``).

Domains (all read from ../shared/data, never copied; [] when absent):

* RAGBench validation, one domain per subset: covidqa, delucionqa, emanual, expertqa, hagrid,
  hotpotqa, msmarco; emanual also takes the 1,054 rows of ``ragbench_emanual_train_dev`` (one
  domain: it is held out as a whole). Labels for all four TRACE labels.
* ragtruth_summary, ragtruth_data2txt: sentence labels from the human hallucination spans.
* mtrag: response-level labels only (records without documents left out): evaluation only.

Sentence split. RAGBench rows carry their own split and keys (``documents_sentences`` /
``response_sentences``, keyed ``0a`` / ``a`` exactly like ours). To compare sentence labels key by
key, RAGBench cases are labelled on THAT split (``split="ragbench"``, the default): our labeler runs
on a ``SentencizedCase`` built from RAGBench's sentences, so relevant / utilized / unsupported keys
line up with the annotation without any alignment guesswork. ``split="ours"`` runs our own
sentencizer instead (what a user gets end to end); sentence labels are then not available for
RAGBench (ratios and response labels still are). RAGTruth and MTRAG always use our sentencizer
(their labels are character spans / response level).

Groups (for bootstrap intervals and any inner cross-validation): RAGBench by question text (several
generators answered each delucionqa / emanual question), RAGTruth by source document, MTRAG by task.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

from bench.shared_data import SHARED_DIR, record_to_case  # noqa: E402
from evaluators.sentencize import sentencize_case  # noqa: E402
from evaluators.types import Sentence, SentencizedCase  # noqa: E402

RAGBENCH_DOMAINS = ("covidqa", "delucionqa", "emanual", "expertqa", "hagrid", "hotpotqa", "msmarco")
OTHER_DOMAINS = ("ragtruth_summary", "ragtruth_data2txt", "mtrag")
DOMAINS = RAGBENCH_DOMAINS + OTHER_DOMAINS


@dataclass
class LabeledCase:
    domain: str
    group: str
    item: SentencizedCase
    hallucinated: bool
    #: per response sentence: True = supported, False = not, None = unknown
    supported: list[bool | None]
    #: RAGBench only: relevant / utilized document keys and the stored scores
    relevant: set[str] | None = None
    utilized: set[str] | None = None
    scores: dict[str, float] = field(default_factory=dict)
    #: RAGBench only: per response sentence, the annotator's supporting document keys (special keys
    #: such as "general" dropped; None where the annotation names no sentence for it)
    support_keys: list[tuple[str, ...] | None] | None = None

    @property
    def has_context_labels(self) -> bool:
        return self.relevant is not None


def ragbench_key(k: Any) -> str:
    return str(k).strip().rstrip(".").strip()


def _locate(text: str, piece: str, cursor: int) -> tuple[int, int, int]:
    i = text.find(piece, cursor)
    if i < 0:
        i = text.find(piece)
    if i < 0:
        return cursor, cursor, cursor
    return i, i + len(piece), i + len(piece)


def ragbench_item(case, labels: dict[str, Any]) -> SentencizedCase:
    """A SentencizedCase on RAGBench's own sentence split and keys."""
    docs: list[Sentence] = []
    for di, sents in enumerate(labels.get("documents_sentences") or []):
        text = case.documents[di] if di < len(case.documents) else ""
        cur = 0
        for key, s in sents:
            if not str(s).strip():
                continue
            a, b, cur = _locate(text, str(s), cur)
            docs.append(Sentence(key=ragbench_key(key), text=str(s), start=a, end=b, doc=di))
    resp: list[Sentence] = []
    cur = 0
    for key, s in labels.get("response_sentences") or []:
        if not str(s).strip():
            continue
        a, b, cur = _locate(case.response, str(s), cur)
        resp.append(Sentence(key=ragbench_key(key), text=str(s), start=a, end=b))
    return SentencizedCase(case=case, doc_sentences=tuple(docs), response_sentences=tuple(resp))


def read_shared(name: str) -> list[dict[str, Any]]:
    p = SHARED_DIR / name
    if not p.is_file():
        return []
    with p.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _group(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def load_domain(domain: str, split: str = "ragbench", limit: int | None = None) -> list[LabeledCase]:
    if split not in {"ragbench", "ours"}:
        raise ValueError(f"split must be 'ragbench' or 'ours', not {split!r}")
    out: list[LabeledCase] = []
    if domain in RAGBENCH_DOMAINS:
        rows = [r for r in read_shared("ragbench_validation_dev.jsonl") if r.get("task") == domain]
        if domain == "emanual":
            rows += read_shared("ragbench_emanual_train_dev.jsonl")
        for n, r in enumerate(rows):
            case = record_to_case(r, f"{domain} row {n}")
            lab = r["labels"]
            item = ragbench_item(case, lab) if split == "ragbench" else sentencize_case(case)
            unsup = {ragbench_key(k) for k in lab.get("unsupported_response_sentence_keys") or []}
            supported = ([s.key not in unsup for s in item.response_sentences] if split == "ragbench"
                         else [None] * len(item.response_sentences))
            gold: dict[str, tuple[str, ...]] = {}
            for info in lab.get("sentence_support_information") or []:
                keys = tuple(ragbench_key(k) for k in info.get("supporting_sentence_keys") or [])
                gold[ragbench_key(info.get("response_sentence_key"))] = keys
            out.append(LabeledCase(
                domain=domain, group=f"{domain}:q:{_group(case.question)}", item=item,
                support_keys=([gold.get(s.key) for s in item.response_sentences] if split == "ragbench"
                              else None),
                hallucinated=bool(lab.get("hallucinated")), supported=supported,
                relevant={ragbench_key(k) for k in lab.get("all_relevant_sentence_keys") or []},
                utilized={ragbench_key(k) for k in lab.get("all_utilized_sentence_keys") or []},
                scores={k: float(lab[f"{k}_score"]) for k in ("relevance", "utilization", "completeness")
                        if lab.get(f"{k}_score") is not None}))
    elif domain in OTHER_DOMAINS:
        fname = {"ragtruth_summary": "ragtruth_summary_dev.jsonl",
                 "ragtruth_data2txt": "ragtruth_data2txt_dev.jsonl", "mtrag": "mtrag_human_dev.jsonl"}[domain]
        for n, r in enumerate(read_shared(fname)):
            case = record_to_case(r, f"{fname} line {n + 1}")
            if domain == "mtrag" and not case.documents:
                continue
            item = sentencize_case(case)
            spans = case.labels.get("hallucination_spans")
            if spans is None:
                supported = [None] * len(item.response_sentences)
            else:
                supported = [not any(a < s.end and b > s.start for a, b in spans)
                             for s in item.response_sentences]
            out.append(LabeledCase(domain=domain, group=case.metadata["source_id"], item=item,
                                   hallucinated=bool(case.labels.get("hallucinated")), supported=supported))
    else:
        raise ValueError(f"unknown domain {domain!r}; known: {', '.join(DOMAINS)}")
    return out[:limit] if limit else out


def available() -> bool:
    return SHARED_DIR.is_dir() and (SHARED_DIR / "ragbench_validation_dev.jsonl").is_file()

"""What a good test set keeps, checked on its rows: the promises of the issue, as one function the
tests, the benchmark and a careful user share.

:func:`problems` returns one line per broken promise (an empty list when all hold):

* exactly ``n`` rows (when ``n`` is given) with unique ids;
* every document used, when there are at least as many rows as documents;
* every reference context found, word for word, in the text of its document (whitespace aside),
  and its id naming that document;
* every offline reference answer backed word for word by its reference contexts;
* no question that contains its own reference answer (unanswerable questions aside);
* no two questions near-duplicates (``dedupe.same_question``: MiniLM cosine at or above
  ``SAME_QUESTION``, or at or above ``NEAR_DUPLICATE`` with the same words or overlapping answers).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from ..documents import Corpus
from .dedupe import NEAR_DUPLICATE, embed, same_question


def _squash(text: str) -> str:
    return " ".join(text.split())


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def problems(rows: Sequence[dict[str, Any]], corpus: Corpus, n: int | None = None,
             threshold: float = NEAR_DUPLICATE) -> list[str]:
    out: list[str] = []
    if n is not None and len(rows) != n:
        out.append(f"{len(rows)} rows, not {n}")
    ids = [r.get("id") for r in rows]
    if len(set(ids)) != len(ids):
        out.append("repeated ids")
    docs = {d.name: _squash(d.text) for d in corpus.documents}
    used = {r["metadata"]["source"] for r in rows}
    if len(rows) >= len(docs) and used != set(docs):
        out.append(f"documents without a question: {sorted(set(docs) - used)}")
    for r in rows:
        rid, contexts = r["id"], r.get("reference_contexts") or []
        cids = r.get("reference_context_ids") or []
        if len(contexts) != len(cids):
            out.append(f"{rid}: {len(contexts)} reference contexts but {len(cids)} ids")
        for text, cid in zip(contexts, cids):
            name = str(cid).rpartition("#")[0]
            if name not in docs:
                out.append(f"{rid}: reference id {cid} names no document")
            elif _squash(text) not in docs[name]:
                out.append(f"{rid}: reference context not found in {name}")
        meta = r.get("metadata") or {}
        answer = str(r.get("ground_truth") or "")
        if meta.get("generator") == "offline" and _squash(answer) not in _squash(" ".join(contexts)):
            out.append(f"{rid}: offline answer {answer!r} is not in its reference contexts word for word")
        if meta.get("question_type") != "unanswerable" and _words(answer) and \
                f" {_words(answer)} " in f" {_words(r['question'])} ":
            out.append(f"{rid}: the question contains its answer {answer!r}")
    if len(rows) > 1:
        vecs = embed([r["question"] for r in rows])
        sims = vecs @ vecs.T
        np.fill_diagonal(sims, 0.0)
        for i, j in zip(*np.nonzero(np.triu(sims) >= threshold)):
            a, b = rows[int(i)], rows[int(j)]
            if same_question(float(sims[i, j]), a["question"], b["question"], str(a.get("ground_truth") or ""),
                             str(b.get("ground_truth") or ""), threshold):
                out.append(f"near-duplicates ({sims[i, j]:.2f}): {a['question']!r} / {b['question']!r}")
                break
    return out

"""Embedding cache of the leave-one-domain-out harness (git-ignored, under ``bench/out/``).

The expensive step of featurizing the ten dev domains is embedding ~70,000 unique texts with the
MiniLM model; everything else (lexical features, the combiners) takes seconds. The vectors are
saved as ``bench/out/lodo_emb/vecs.npy`` + ``texts.json`` after every domain, so an interrupted run
resumes where it stopped and re-fits never re-embed. Delete the folder to start over (e.g. after the
embedding model changes).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CACHE_DIR = ROOT / "bench" / "out" / "lodo_emb"


def load(cache_dir: Path = CACHE_DIR) -> int:
    """Pre-fill the encoder's cache; returns how many vectors were loaded."""
    from evaluators.encoder import embeddings

    tf, vf = cache_dir / "texts.json", cache_dir / "vecs.npy"
    if not (tf.exists() and vf.exists()):
        return 0
    texts = json.loads(tf.read_text(encoding="utf-8"))
    vecs = np.load(vf, allow_pickle=False)
    if len(texts) != len(vecs):
        return 0
    embeddings.remember(texts, vecs)
    return len(texts)


def save(cache_dir: Path = CACHE_DIR) -> int:
    """Write the encoder's in-memory cache to ``cache_dir``; returns how many vectors."""
    from evaluators.encoder import embeddings

    texts, vecs = embeddings.remembered()
    if not texts:
        return 0
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp_v, tmp_t = cache_dir / "vecs.tmp.npy", cache_dir / "texts.tmp.json"
    np.save(tmp_v, vecs)
    tmp_t.write_text(json.dumps(texts), encoding="utf-8")
    tmp_v.replace(cache_dir / "vecs.npy")
    tmp_t.replace(cache_dir / "texts.json")
    return len(texts)

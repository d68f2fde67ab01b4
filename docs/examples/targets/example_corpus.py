"""What the example apps share: the sample documents as passages, offline word-count embeddings
standing in for a real embedding model, and a way to serve an app on 127.0.0.1.

The passages are the sample's (``data/sample_docs``: every paragraph a passage, ids
``<file stem>#<n>`` — the ids ``data/sample_questions.jsonl`` names as references).
"""

from __future__ import annotations

import math
import re
import sys
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # run from anywhere: the sample documents are read by the project's reader
    sys.path.insert(0, str(ROOT))

from evaluators.sample_app.corpus import Passage, load_corpus  # noqa: E402
from evaluators.sample_app.retrieval import terms  # noqa: E402

DIM = 1024
_SENTENCE = re.compile(r"(.+?[.!?])(\s|$)", re.S)


def passages() -> list[Passage]:
    return load_corpus()


def word_vector(text: str) -> list[float]:
    """A unit vector of the text's words (stop words left out, hashed into DIM slots, log counts):
    cosine similarity is word overlap. An offline stand-in for a real embedding model."""
    v = [0.0] * DIM
    for word, n in Counter(terms(text)).items():
        v[zlib.crc32(word.encode("utf-8")) % DIM] += 1.0 + math.log(n)
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


def first_sentence(text: str) -> str:
    m = _SENTENCE.match(text.strip())
    return m.group(1) if m else text.strip()


def serve(app: object, default_port: int = 8000) -> None:
    """``python <app>.py [--port N]``: serve the app on 127.0.0.1 with uvicorn."""
    import argparse

    import uvicorn

    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=default_port)
    uvicorn.run(app, host="127.0.0.1", port=p.parse_args().port, log_level="warning")  # type: ignore[arg-type]

"""The fixed texts every encoder backend is checked against (cosine to the fp32 reference), and
the committed reference vectors themselves."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

#: The fixed quality-check set: varied registers and lengths, very short utterances included
#: (they are where quantization error shows most).
CHECK_SENTENCES = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
    "Revenue grew 12% year over year, driven by strong cloud demand.",
    "To reset your password, open Settings and choose Security.",
    "The patient was given 5 mg of the drug twice a day.",
    "She did not attend the meeting on Tuesday.",
    "Hours: Monday 8:00-14:00, closed on Sunday.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "No.",
    "Thank you.",
    "Hi!",
    "Who founded the company and when?",
    "I'm sorry, the documents do not say how many employees the firm has.",
    '{"business": "Golden Wok", "stars": 3.5, "GoodForKids": true, "WiFi": "free"}',
    "Die Brücke wurde 1932 eröffnet und 1998 renoviert.",
    "for i in range(10): print(i * 2)",
    "Based on the provided context, the answer is 42 kilometres.",
    " ".join(["Tax revenue, public spending and the deficit are reported for each quarter of the year,"
              " together with the debt ratio and the outlook of the finance ministry."] * 3),
)

#: sentence-transformers fp32 vectors of :data:`CHECK_SENTENCES` (the reference every backend is
#: checked against, so no backend needs torch to be checked). Remade by
#: ``python -m evaluators encoder reference`` (needs the torch extra).
REFERENCE_FILE = Path(__file__).with_name("check_vectors.json")


def texts_hash() -> str:
    return hashlib.sha256(json.dumps(list(CHECK_SENTENCES)).encode("utf-8")).hexdigest()


def reference_vectors() -> np.ndarray:
    """The committed reference vectors, one row per check sentence (L2-normalised float32)."""
    doc = json.loads(REFERENCE_FILE.read_text(encoding="utf-8"))
    if doc.get("texts_sha256") != texts_hash():
        raise RuntimeError(f"{REFERENCE_FILE.name} was made for other check sentences: remake it with "
                           "python -m evaluators encoder reference (needs the torch extra)")
    return np.asarray(doc["vectors"], dtype=np.float32)

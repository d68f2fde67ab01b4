"""How one case of a run is stored: a compact row for tables and aggregates, and the whole
``CaseResult`` (compressed) for the one case a page opens.

* ``row`` (JSON) — what a per-case table shows and sorts by: the flat row of a results CSV
  (``export.row_of``) without the response and the method, the question cut to
  :data:`QUESTION_CHARS`: id, scores, sentence counts, family metrics, human labels (``human_*``),
  ``labeled_by``, ``num_documents``, ``error``; for a turn of a chat its ``conversation_id``,
  ``conversation``, ``turn`` and standalone question (cut short), never the earlier turns. A few
  hundred bytes.
* ``aux`` (JSON) — what aggregates, the review queue and gold matching read without opening the case:
  ``family`` (the family metric names, to tell them from human labels), ``fp`` (the fingerprint of
  the texts), ``u`` (the labeler's uncertainty and why), ``v`` (the disagreement of a hybrid case's
  two labelings: share of sentences, mean metric difference, why), ``usage``.
* ``payload`` — ``CaseResult.model_dump_json()`` compressed with zlib; read back through
  ``schema.load_case`` (older versions migrated).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from ..export import case_dict, row_of
from ..schema import load_case
from ..signals import disagreement, fingerprint, uncertainty
from ..types import CaseResult

#: Characters of the question kept in a row (tables show the start; the case has all of it).
QUESTION_CHARS = 300
_LEVEL = 1  # zlib: cases are mostly text; level 1 keeps the worker fast


def encode(r: CaseResult) -> tuple[str, str, bytes, str]:
    """(row JSON, aux JSON, compressed payload, payload JSON) of one case (the payload JSON is
    returned for the caller's secret check)."""
    d = case_dict(r)
    row = row_of(d, "")
    row.pop("method", None)
    row.pop("response", None)
    q = row.get("question") or ""
    row["question"] = q if len(q) <= QUESTION_CHARS else q[: QUESTION_CHARS - 1] + "…"
    if "history" in row:  # a turn of a chat: its conversation, turn and standalone question, not the turns
        del row["history"]
        sq = row.get("standalone_question") or ""
        row["standalone_question"] = sq if len(sq) <= QUESTION_CHARS else sq[: QUESTION_CHARS - 1] + "…"
    aux: dict[str, Any] = {"family": list(r.metrics), "fp": fingerprint(r.case), "usage": r.usage.model_dump()}
    if r.labels is not None:
        u, why = uncertainty(r.labels)
        if u is None:  # the final labels give no signal: a hybrid case's other labeling may
            for name, lab in r.variants.items():
                v, w = uncertainty(lab)
                if v is not None:
                    u, why = v, f"{name}: {w}"
                    break
        aux["u"] = [u, why]
    names = list(r.variants)[:2]
    if len(names) == 2:
        share, mad, why = disagreement(r.variants[names[0]], r.variants[names[1]])
        aux["v"] = [share, mad, why]
    payload = r.model_dump_json(exclude_computed_fields=True)
    return (json.dumps(row, ensure_ascii=False, default=str), json.dumps(aux, default=str),
            zlib.compress(payload.encode("utf-8"), _LEVEL), payload)


def decode(payload: bytes | str, version: int) -> CaseResult:
    """A stored case back (``version``: the run format it was stored in)."""
    raw = zlib.decompress(payload).decode("utf-8") if isinstance(payload, (bytes, bytearray)) else payload
    return load_case(raw, version)


def raw(payload: bytes | str) -> dict[str, Any]:
    """A stored case as its JSON dict (not validated: texts for an export)."""
    text = zlib.decompress(payload).decode("utf-8") if isinstance(payload, (bytes, bytearray)) else payload
    return json.loads(text)


def table_bytes(rows: list[dict[str, Any]]) -> bytes | None:
    """The compact rows of a run as one Parquet table (None when a column mixes kinds Parquet cannot
    hold: the rows are then read one by one)."""
    import io

    import pandas as pd

    if not rows:
        return None
    try:
        buf = io.BytesIO()
        pd.DataFrame.from_records(rows).to_parquet(buf, index=False, compression="zstd")
        return buf.getvalue()
    except Exception:  # noqa: BLE001 - pyarrow refuses mixed columns in many ways
        return None

"""A run whose passage ids mean nothing to its test set, said plainly.

Contract: :class:`IdCheck` reads a run's cases one at a time (a ``TestCase`` with :meth:`IdCheck.add`,
or a case's fields as a cases-file line or case dict holds them with :meth:`IdCheck.add_record`) and
:meth:`IdCheck.message` says — in one sentence, or None when there is nothing to say — that the app
gave passage ids, that none of them is a reference id of any case (so matching by id would score
every retrieval metric 0), whether its passages' *texts* match the reference passages instead, with
one id of each side as an example and what to do. It says nothing when some retrieved id is a
reference id, or when no case gives both retrieved ids and reference ids. Memory: a few counters and
two example ids.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .matching import TEXT_MATCH_THRESHOLD, overlap, shingles

#: How :meth:`IdCheck.message` opens (a run's retrieval reason holding it is a run whose ids matched nothing).
UNMATCHED = "none of the app's passage ids is a reference id"


def _strings(v: Any) -> list[str]:
    if isinstance(v, Mapping):
        return [str(k) for k in v]
    if isinstance(v, (list, tuple)):
        return [x if isinstance(x, str) else str(x) for x in v if x is not None]
    return []


class IdCheck:
    """See the module doc."""

    def __init__(self) -> None:
        #: Cases that give retrieved ids and reference ids.
        self.with_ids = 0
        #: Of them, cases where some retrieved id is a reference id.
        self.id_hits = 0
        #: Cases without an id hit that give reference texts to compare with.
        self.text_checked = 0
        #: Of them, cases where some retrieved passage's text matches a reference passage.
        self.text_hits = 0
        self.app_id: str | None = None
        self.reference_id: str | None = None

    def add_fields(self, document_ids: Sequence[str], documents: Sequence[str], reference_ids: Sequence[str],
                   reference_contexts: Sequence[str]) -> None:
        refs = set(reference_ids)
        if not document_ids or not refs:
            return
        self.with_ids += 1
        if any(d in refs for d in document_ids):
            self.id_hits += 1
            return
        self.app_id = self.app_id or document_ids[0]
        self.reference_id = self.reference_id or sorted(refs)[0]
        if self.id_hits or not reference_contexts:
            return
        self.text_checked += 1
        wanted = [shingles(t) for t in reference_contexts if t]
        if any(overlap(shingles(d), w) >= TEXT_MATCH_THRESHOLD for d in documents if d for w in wanted):
            self.text_hits += 1

    def add(self, case: Any) -> None:
        """A ``TestCase``."""
        self.add_fields(list(case.document_ids), list(case.documents),
                        [*case.reference_context_ids, *case.reference_context_relevance], list(case.reference_contexts))

    def add_record(self, rec: Mapping[str, Any]) -> None:
        """A case as a cases-file line (or a case dict) holds it."""
        docs = [d if isinstance(d, str) else str((d or {}).get("text", "")) if isinstance(d, Mapping) else str(d)
                for d in rec.get("documents") or []]
        self.add_fields(_strings(rec.get("document_ids")), docs,
                        _strings(rec.get("reference_context_ids")) + _strings(rec.get("reference_context_relevance")),
                        _strings(rec.get("reference_contexts")))

    @property
    def unmatched(self) -> bool:
        """Ids were given and none of them is a reference id."""
        return self.with_ids > 0 and self.id_hits == 0

    def message(self) -> str | None:
        if not self.unmatched:
            return None
        n = self.with_ids
        head = (f"{UNMATCHED} ({n} question{'s' if n != 1 else ''} with both; "
                f"the app's look like {self.app_id!r}, the test set's like {self.reference_id!r})")
        fix = ("check that the app's ids are the test set's: point the target's context_ids (or the passages' "
               "id field) at the id the test set uses — e.g. LlamaIndex's source_nodes[*].node.ref_doc_id, a "
               "LangChain document's metadata.id — not an id the vector store or the index made up")
        if self.text_hits:
            return (f"{head}, but their texts match the reference passages of {self.text_hits} of "
                    f"{self.text_checked}: the ids are the app's own, so retrieval is scored by text; to score by "
                    f"id, {fix}")
        if self.text_checked:  # neither ids nor texts: most often questions about documents the app lacks
            return (f"{head}, and no passage's text matches a reference passage either: retrieval scores 0. Either "
                    "the app searches other documents than the ones the test set was made from (then no id can "
                    "match: make the questions from the app's own documents), or its passages are cut and named "
                    f"its own way — then {fix}")
        return (f"{head}, and the test set gives no reference_contexts to match texts instead: every retrieval "
                f"metric will be 0; {fix}")


__all__ = ["UNMATCHED", "IdCheck"]

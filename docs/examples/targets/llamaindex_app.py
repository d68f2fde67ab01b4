"""A LlamaIndex query engine called as a Python target: ``answer(row, k=4)`` returns LlamaIndex's own
``Response`` (the evaluator reads its ``response`` and ``source_nodes``). Offline: ``MockLLM`` stands
in for the LLM, word-count embeddings for an embedding model.

Each sample passage is a LlamaIndex ``Document`` whose ``doc_id`` is the sample's passage id; the
index cuts it into nodes with random UUIDs as their ids, and every node keeps the passage's id as its
``ref_doc_id`` — the id the evaluator reads.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from example_corpus import passages, word_vector
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.response.schema import Response
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import BaseQueryEngine


class WordEmbedding(BaseEmbedding):
    def _get_text_embedding(self, text: str) -> list[float]:
        return word_vector(text)

    def _get_query_embedding(self, query: str) -> list[float]:
        return word_vector(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return word_vector(query)


index = VectorStoreIndex.from_documents(
    [Document(text=p.text, doc_id=p.id, metadata={"title": p.title}) for p in passages()],
    embed_model=WordEmbedding())


@lru_cache(maxsize=None)
def engine(k: int) -> BaseQueryEngine:
    return index.as_query_engine(similarity_top_k=k, llm=MockLLM(max_tokens=16))


def answer(row: dict[str, Any], k: int = 4) -> Response:
    """The question of one row of the question file, asked of the engine retrieving ``k`` passages."""
    return engine(k).query(row["question"])

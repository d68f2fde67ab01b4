"""A Haystack pipeline served with FastAPI: ``POST /k1/query`` retrieves 1 passage, ``/k4/query`` 4
(Haystack's in-memory BM25 retriever), a prompt builder, and a generator. Offline: the generator is
a stand-in component that answers with the first sentence of the best passage; Haystack's telemetry
is off.

    python docs/examples/targets/haystack_app.py --port 8000

Request ``{"question": text}``; reply ``{"answer", "documents": [Document.to_dict()]}``. Haystack
gives each passage the SHA-256 of its content as its ``id``; the app keeps the sample's passage id in
``meta.doc_id`` (flattened into the document by ``to_dict``) — the id the evaluator reads.
"""

from __future__ import annotations

import os

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no call home

from typing import Any

from example_corpus import first_sentence, passages, serve
from fastapi import FastAPI
from haystack import Document, Pipeline, component
from haystack.components.builders import PromptBuilder
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.document_stores.in_memory import InMemoryDocumentStore
from pydantic import BaseModel

store = InMemoryDocumentStore()
store.write_documents([Document(content=p.text, meta={"doc_id": p.id, "title": p.title}) for p in passages()])


@component
class FirstSentenceGenerator:
    """Stands in for an LLM generator: the first sentence of the best passage."""

    @component.output_types(replies=list[str])
    def run(self, prompt: str, documents: list[Document]) -> dict[str, Any]:
        return {"replies": [first_sentence(documents[0].content or "") if documents else "I do not know."]}


pipeline = Pipeline()
pipeline.add_component("retriever", InMemoryBM25Retriever(document_store=store))
pipeline.add_component("prompt", PromptBuilder(template="Answer from: {% for d in documents %}{{ d.content }} "
                                                        "{% endfor %}\nQuestion: {{ question }}",
                                               required_variables=["question", "documents"]))
pipeline.add_component("llm", FirstSentenceGenerator())
pipeline.connect("retriever.documents", "prompt.documents")
pipeline.connect("prompt.prompt", "llm.prompt")
pipeline.connect("retriever.documents", "llm.documents")


class Query(BaseModel):
    question: str


app = FastAPI(title="Haystack RAG example")


def _answer(question: str, k: int) -> dict[str, Any]:
    out = pipeline.run({"retriever": {"query": question, "top_k": k}, "prompt": {"question": question}},
                       include_outputs_from={"retriever"})
    return {"answer": out["llm"]["replies"][0], "documents": [d.to_dict() for d in out["retriever"]["documents"]]}


@app.post("/k1/query")
def query_k1(q: Query) -> dict[str, Any]:
    return _answer(q.question, 1)


@app.post("/k4/query")
def query_k4(q: Query) -> dict[str, Any]:
    return _answer(q.question, 4)


if __name__ == "__main__":
    serve(app)

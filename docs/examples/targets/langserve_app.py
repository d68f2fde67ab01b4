"""A LangChain RAG app served with LangServe, in two versions: ``/k1`` retrieves 1 passage, ``/k4``
retrieves 4 (each with LangServe's ``/invoke`` and ``/stream``). Offline: langchain_core's
``FakeListChatModel`` stands in for the chat model, word-count embeddings for an embedding model.

    python docs/examples/targets/langserve_app.py --port 8000

Input ``{"question": text}``; output ``{"context": [Document], "question", "answer"}``. The vector
store gives each passage a random UUID as its ``id`` and the app keeps the sample's passage id in
``metadata.id`` — the evaluator reads the latter.
"""

from __future__ import annotations

from operator import itemgetter

from example_corpus import passages, serve, word_vector
from fastapi import FastAPI
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnableParallel
from langchain_core.vectorstores import InMemoryVectorStore
from langserve import add_routes
from pydantic import BaseModel


class WordEmbeddings(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [word_vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return word_vector(text)


class Question(BaseModel):
    question: str


store = InMemoryVectorStore(WordEmbeddings())
store.add_documents([Document(page_content=p.text, metadata={"id": p.id, "title": p.title}) for p in passages()])
prompt = ChatPromptTemplate.from_messages([("system", "Answer from these passages only:\n\n{context}"),
                                           ("human", "{question}")])
llm = FakeListChatModel(responses=["The passages above answer it."])


def rag_chain(k: int) -> Runnable:
    retriever = store.as_retriever(search_kwargs={"k": k})
    chain = RunnableParallel(context=itemgetter("question") | retriever, question=itemgetter("question"))
    return chain.assign(answer=prompt | llm | StrOutputParser()).with_types(input_type=Question, output_type=dict)


app = FastAPI(title="LangServe RAG example")
add_routes(app, rag_chain(1), path="/k1")
add_routes(app, rag_chain(4), path="/k4")

if __name__ == "__main__":
    serve(app)

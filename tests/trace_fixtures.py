"""Real producers of traces for the trace tests (a pytest plugin module, registered in conftest.py).

* ``rag_app`` (session): a small RAG app built with LangChain — langchain-core's
  ``InMemoryVectorStore`` with a deterministic hashing embedding, langchain-openai's ``ChatOpenAI``
  aimed at the loopback LLM server — instrumented with ``openinference-instrumentation-langchain``
  and the OpenTelemetry SDK. It answers a handful of questions (one per chain shape: a dict input,
  a plain string, a chat history, two retrievers, no retriever, an LLM error) and keeps what it sent
  (``AppRun.truth``), the SDK's finished spans, and the LangChain runs (``RunCollectorCallbackHandler``)
  for the LangSmith / Langfuse files.
* ``phoenix`` (session): a real Phoenix server on 127.0.0.1 (free HTTP and gRPC ports, SQLite in a
  temporary working dir, telemetry and external resources off) holding the app's spans, sent with
  the SDK's OTLP/HTTP exporter. Nothing is sent to its gRPC receiver.

Every module skips when the test-only packages (requirements-dev.txt) are missing.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from evaluators.testing.app_server import free_port
from evaluators.testing.llm_server import LLMServer, Reply, last_user_message

PROJECT = "rag-app"
DOCS = (
    "Paris is the capital of France. It lies on the Seine.",
    "The Eiffel Tower was completed in 1889 for the World's Fair.",
    "Berlin is the capital of Germany. It has a famous gate.",
    "Mount Everest is the highest mountain on Earth at 8849 metres.",
    "The Amazon river flows through Brazil into the Atlantic Ocean.",
    "Water boils at 100 degrees Celsius at sea level.",
)
SECOND_DOCS = (
    "The Eiffel Tower is 330 metres tall and made of wrought iron.",
    "Paris is the capital of France. It lies on the Seine.",  # the first store has it too: kept once
)


@dataclass
class Truth:
    """What the app sent for one question (None documents / answer: the trace must be skipped)."""

    question: str
    documents: tuple[str, ...] | None
    answer: str | None
    shape: str
    session: str | None = None
    tags: tuple[str, ...] = ()
    skip_reason: str | None = None  # a phrase the skip reason must contain
    history: tuple[tuple[str, str], ...] = ()  # (speaker, text) of the chat's turns before the question


@dataclass
class AppRun:
    truth: list[Truth]
    spans: list[Any]  # opentelemetry ReadableSpan
    runs: list[Any]  # LangChain RunTree (the roots, children nested)
    trace_ids: dict[str, str] = field(default_factory=dict)  # question -> OTel trace id (hex)


def need(*modules: str) -> None:
    for m in modules:
        pytest.importorskip(m, reason=f"{m} is a test-only package (requirements-dev.txt)")


def _embeddings_class() -> Any:
    from langchain_core.embeddings import Embeddings

    class HashingEmbeddings(Embeddings):
        """Bag of words hashed into 256 dimensions, L2-normalised: deterministic, no model."""

        dim = 256

        def _vec(self, text: str) -> list[float]:
            v = [0.0] * self.dim
            for w in re.findall(r"[a-z0-9]+", text.lower()):
                v[int(hashlib.sha1(w.encode()).hexdigest(), 16) % self.dim] += 1.0
            n = math.sqrt(sum(x * x for x in v)) or 1.0
            return [x / n for x in v]

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [self._vec(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return self._vec(text)

    return HashingEmbeddings


ANSWERS = {
    "What is the capital of France?": "Paris is the capital of France. It has 60 million inhabitants.",
    "When was the Eiffel Tower completed?": "The Eiffel Tower was completed in 1889.",
    "How tall is the Eiffel Tower?": "The Eiffel Tower is 330 metres tall. It is in Paris.",
    "Which is the highest mountain?": "Mount Everest is the highest mountain on Earth.",
    "Tell me a joke about rivers.": "Rivers never sleep: they are always running.",
}
FAILING = "Where does the Amazon river flow?"  # the LLM answers 500: the chain fails, no answer


def _responder(req: dict[str, Any]) -> Any:
    q = last_user_message(req)
    if q == FAILING:
        return Reply.error(500, "the model is down")
    return ANSWERS.get(q, "I do not know.")


def run_rag_app() -> AppRun:
    """Run the instrumented app once; return its spans, runs and what it sent."""
    from langchain_core.documents import Document
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough
    from langchain_core.tracers.run_collector import RunCollectorCallbackHandler
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_openai import ChatOpenAI
    from openinference.instrumentation import using_session, using_tags
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    emb = _embeddings_class()()
    store = InMemoryVectorStore(emb)
    store.add_documents([Document(page_content=t) for t in DOCS])
    store2 = InMemoryVectorStore(emb)
    store2.add_documents([Document(page_content=t) for t in SECOND_DOCS])
    r1 = store.as_retriever(search_kwargs={"k": 2})
    r2 = store2.as_retriever(search_kwargs={"k": 2})

    def fmt(docs: list[Any]) -> str:
        return "\n".join(d.page_content for d in docs)

    def texts(q: str, *stores_k: tuple[Any, int]) -> tuple[str, ...]:
        out: list[str] = []
        for st, k in stores_k:
            out += [d.page_content for d in st.similarity_search(q, k=k)]
        return tuple(dict.fromkeys(out))

    srv = LLMServer()
    llm = ChatOpenAI(base_url=srv.base_url, api_key="loopback", model="loopback-model", max_retries=0,
                     timeout=10)
    prompt = ChatPromptTemplate.from_messages([("system", "Answer from the context only.\n\n{context}"),
                                               ("human", "{question}")])
    from operator import itemgetter

    dict_chain = (RunnablePassthrough.assign(context=itemgetter("question") | r1 | fmt)
                  | prompt | llm | StrOutputParser())
    str_chain = ({"context": r1 | fmt, "question": RunnablePassthrough()} | prompt | llm | StrOutputParser())
    two_chain = (RunnablePassthrough.assign(d1=itemgetter("question") | r1)
                 .assign(d2=itemgetter("question") | r2)
                 .assign(context=RunnableLambda(lambda x: fmt(x["d1"] + x["d2"])))
                 | prompt | llm | StrOutputParser())
    chat_chain = (RunnablePassthrough.assign(question=RunnableLambda(lambda x: x["messages"][-1].content))
                  | dict_chain)
    no_retriever = (ChatPromptTemplate.from_messages([("human", "{question}")]) | llm | StrOutputParser())

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"openinference.project.name": PROJECT,
                                                        "service.name": "rag-app"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    collector = RunCollectorCallbackHandler()
    inst = LangChainInstrumentor()
    inst.instrument(tracer_provider=provider)
    truth: list[Truth] = []
    try:
        with srv:
            srv.respond(_responder)

            def call(chain: Any, payload: Any, t: Truth) -> None:
                cfg = {"callbacks": [collector], "tags": list(t.tags),
                       "metadata": {"session_id": t.session} if t.session else {}}
                with using_session(t.session or ""), using_tags(list(t.tags)):
                    try:
                        chain.invoke(payload, config=cfg)
                    except Exception:
                        if t.answer is not None:
                            raise
                truth.append(t)

            q = "What is the capital of France?"
            call(dict_chain, {"question": q}, Truth(q, texts(q, (store, 2)), ANSWERS[q], "dict",
                                                     session="s-1", tags=("prod", "fr")))
            q = "When was the Eiffel Tower completed?"
            call(str_chain, q, Truth(q, texts(q, (store, 2)), ANSWERS[q], "string", session="s-1",
                                     tags=("prod",)))
            q = "How tall is the Eiffel Tower?"
            call(two_chain, {"question": q},
                 Truth(q, texts(q, (store, 2), (store2, 2)), ANSWERS[q], "two retrievers", session="s-2",
                       tags=("beta",)))
            q = "Which is the highest mountain?"
            history = [HumanMessage("Hello"), AIMessage("Hi! Ask me about geography."), HumanMessage(q)]
            call(chat_chain, {"messages": history}, Truth(q, texts(q, (store, 2)), ANSWERS[q], "chat",
                                                           session="s-2", tags=("prod",),
                                                           history=(("user", "Hello"),
                                                                    ("agent", "Hi! Ask me about geography."))))
            q = "Tell me a joke about rivers."
            call(no_retriever, {"question": q}, Truth(q, None, ANSWERS[q], "no retriever",
                                                       skip_reason="no retriever span"))
            call(dict_chain, {"question": FAILING}, Truth(FAILING, texts(FAILING, (store, 2)), None,
                                                          "llm error", skip_reason="no answer"))
    finally:
        inst.uninstrument()
        provider.shutdown()
    spans = list(exporter.get_finished_spans())
    run = AppRun(truth=truth, spans=spans, runs=list(collector.traced_runs))
    for s in spans:  # each question's trace: the root span's input holds it
        if s.parent is None:
            run.trace_ids[_root_question(s, truth)] = format(s.context.trace_id, "032x")
    return run


def _root_question(span: Any, truth: list[Truth]) -> str:
    text = str(span.attributes.get("input.value", ""))
    return next(t.question for t in truth if t.question in text)


@pytest.fixture(scope="session")
def rag_app() -> AppRun:
    need("langchain_core", "langchain_openai", "openinference.instrumentation.langchain", "opentelemetry.sdk")
    return run_rag_app_cached()


_CACHE: list[AppRun] = []


def run_rag_app_cached() -> AppRun:
    if not _CACHE:
        _CACHE.append(run_rag_app())
    return _CACHE[0]


# ------------------------------------------------------------------------------------ Phoenix


@dataclass
class Phoenix:
    url: str
    proc: subprocess.Popen
    workdir: Path

    def client(self) -> Any:
        from phoenix.client import Client

        return Client(base_url=self.url)


def start_phoenix(workdir: Path, timeout_s: float = 180.0) -> Phoenix:
    import httpx

    port, grpc = free_port(), free_port()
    env = {**os.environ, "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(port),
           "PHOENIX_GRPC_PORT": str(grpc), "PHOENIX_WORKING_DIR": str(workdir),
           "PHOENIX_TELEMETRY_ENABLED": "false", "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false"}
    for k in ("PHOENIX_COLLECTOR_ENDPOINT", "PHOENIX_BASE_URL", "PHOENIX_API_KEY", "PHOENIX_ENABLE_AUTH",
              "PHOENIX_SQL_DATABASE_URL"):
        env.pop(k, None)
    log = (workdir / "phoenix.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "phoenix.server.main", "serve", "--no-internet"],
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"Phoenix exited ({proc.returncode}); log: {workdir / 'phoenix.log'}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2, trust_env=False).status_code == 200:
                return Phoenix(url, proc, workdir)
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"Phoenix did not answer on {url} within {timeout_s:.0f} s")


def send_spans(phoenix: Phoenix, spans: list[Any]) -> None:
    """The app's spans to Phoenix with the SDK's OTLP/HTTP exporter, then wait until all are in."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    exporter = OTLPSpanExporter(endpoint=f"{phoenix.url}/v1/traces", timeout=20)
    assert exporter.export(spans) == SpanExportResult.SUCCESS
    exporter.shutdown()
    client = phoenix.client()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        df = client.spans.get_spans_dataframe(project_identifier=PROJECT, limit=10_000)
        if len(df) >= len(spans):
            return
        time.sleep(0.5)
    raise RuntimeError(f"Phoenix holds {len(df)} of the {len(spans)} spans sent")


@pytest.fixture(scope="session")
def phoenix(rag_app, tmp_path_factory) -> Any:
    need("phoenix.server.main", "phoenix.client", "opentelemetry.exporter.otlp.proto.http")
    px = start_phoenix(tmp_path_factory.mktemp("phoenix"))
    try:
        send_spans(px, rag_app.spans)
        yield px
    finally:
        px.proc.terminate()
        try:
            px.proc.wait(20)
        except subprocess.TimeoutExpired:
            px.proc.kill()

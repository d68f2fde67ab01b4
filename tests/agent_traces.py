"""A real agent for the agent-trace tests: LangGraph's prebuilt ReAct agent over two tools
(``search_docs``: a keyword search of a small help centre; ``lookup_order``: an order table that
fails on an unknown order), driven by a fake chat model (langchain-core's ``GenericFakeChatModel``)
whose scripted replies ask for tool calls — no LLM, no network. Instrumented with
``openinference-instrumentation-langchain`` and the OpenTelemetry SDK (spans kept in memory) and
with LangChain's run collector (the runs the LangSmith / Langfuse files are made of).

``run_agent()`` -> :class:`AgentRun`: the finished spans, the runs, and per question what the agent
did (:class:`Expect`: its calls in order with their arguments and status, the passages in the order
it read them — each once — and its answer). Also :func:`genai_spans`: the same conversations
written by hand with the OpenTelemetry SDK in the GenAI semantic conventions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

HELP = {
    "h1": "Returns are accepted within 30 days of delivery for a full refund.",
    "h2": "Headphones and other electronics can be returned within 15 days if unopened.",
    "h3": "Refunds are paid to the original payment method within 5 business days.",
    "h4": "Order status is shown under My account, Orders; shipped orders have a tracking link.",
    "h5": "Gift cards cannot be returned or exchanged.",
}
ORDERS = {"A-1042": {"order_id": "A-1042", "status": "shipped", "shipped_on": "2024-05-03", "item": "headphones"}}


def search(query: str, k: int = 2) -> list[dict[str, Any]]:
    words = {w.strip("?,.").lower() for w in query.split()}
    scored = sorted(HELP.items(), key=lambda kv: (-len(words & {w.strip(",.").lower() for w in kv[1].split()}),
                                                  kv[0]))
    return [{"page_content": text, "metadata": {"id": hid}} for hid, text in scored[:k]]


@dataclass
class Expect:
    question: str
    calls: list[tuple[str, dict[str, Any], str]]  # (tool, arguments, status)
    documents: list[str]  # in the order the agent read them, each once
    answer: str
    replies: list[Any] = field(default_factory=list)  # the fake model's scripted messages


def _scenarios() -> list[Expect]:
    from langchain_core.messages import AIMessage

    def ask(*calls: tuple[str, dict[str, Any]], cid: str) -> Any:
        return AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"{cid}-{i}"}
                                                 for i, (n, a) in enumerate(calls)])

    out = []
    q1 = "Where is my order A-1042, and can I still return the headphones?"
    a1 = ("Order A-1042 shipped on 2024-05-03. Headphones can be returned within 15 days if unopened, "
          "and refunds are paid within 5 business days.")
    d1 = [d["page_content"] for d in search("return policy")] + [d["page_content"] for d in search("return headphones")]
    d1 = list(dict.fromkeys(d1)) + [json.dumps(ORDERS["A-1042"])]
    out.append(Expect(q1, [("search_docs", {"query": "return policy"}, "ok"),
                           ("search_docs", {"query": "return headphones"}, "ok"),
                           ("lookup_order", {"order_id": "A-1042"}, "ok")], d1, a1,
                      [ask(("search_docs", {"query": "return policy"}), cid="a"),
                       ask(("search_docs", {"query": "return headphones"}), cid="b"),
                       ask(("lookup_order", {"order_id": "A-1042"}), cid="c"), AIMessage(content=a1)]))
    q2 = "What is the status of order B-77?"
    a2 = "I could not find order B-77. Order status is shown under My account, Orders."
    out.append(Expect(q2, [("lookup_order", {"order_id": "B-77"}, "error"),
                           ("search_docs", {"query": "order status"}, "ok")],
                      [d["page_content"] for d in search("order status")], a2,
                      [ask(("lookup_order", {"order_id": "B-77"}), cid="d"),
                       ask(("search_docs", {"query": "order status"}), cid="e"), AIMessage(content=a2)]))
    return out


@dataclass
class AgentRun:
    expect: list[Expect]
    spans: list[Any]
    runs: list[Any]


def _model_class() -> Any:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    class ToolCallingFake(GenericFakeChatModel):
        """The scripted replies, with tools 'bound' (the fake ignores them: its replies are fixed)."""

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    return ToolCallingFake


def run_agent() -> AgentRun:
    import warnings

    from langchain_core.tools import tool
    from langchain_core.tracers.run_collector import RunCollectorCallbackHandler
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import ToolNode, create_react_agent

    @tool
    def search_docs(query: str) -> list[dict[str, Any]]:
        """Search the help centre; returns the best passages."""
        return search(query)

    @tool
    def lookup_order(order_id: str) -> dict[str, Any]:
        """Look up an order by its id."""
        if order_id not in ORDERS:
            raise ValueError(f"order {order_id} not found")
        return ORDERS[order_id]

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"openinference.project.name": "agent-app",
                                                        "service.name": "agent-app"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    inst = LangChainInstrumentor()
    inst.instrument(tracer_provider=provider)
    collector = RunCollectorCallbackHandler()
    expect = _scenarios()
    try:
        fake = _model_class()
        for e in expect:
            tools = ToolNode([search_docs, lookup_order], handle_tool_errors=True)  # a failure becomes an error reply
            agent = create_react_agent(fake(messages=iter(e.replies)), tools)
            agent.invoke({"messages": [("user", e.question)]}, config={"callbacks": [collector]})
    finally:
        inst.uninstrument()
        provider.shutdown()
    return AgentRun(expect, list(exporter.get_finished_spans()), list(collector.traced_runs))


def genai_spans(expect: list[Expect]) -> list[Any]:
    """The same conversations as an app instrumented by hand in the OpenTelemetry GenAI conventions
    would write them (one ``invoke_agent`` span, a ``chat`` span per model call, an ``execute_tool``
    span per call), with the SDK."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import Status, StatusCode

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("genai-agent")
    for e in expect:
        with tracer.start_as_current_span("invoke_agent support", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"}):
            history = [{"role": "user", "parts": [{"type": "text", "content": e.question}]}]
            for i, (name, args, status) in enumerate(e.calls):
                call = {"type": "tool_call", "id": f"call-{i}", "name": name, "arguments": args}
                with tracer.start_as_current_span("chat fake-model", attributes={
                        "gen_ai.operation.name": "chat", "gen_ai.request.model": "fake-model",
                        "gen_ai.input.messages": json.dumps(history),
                        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call]}]),
                        "gen_ai.tool.definitions": json.dumps([{"type": "function", "name": "search_docs"},
                                                               {"type": "function", "name": "lookup_order"}])}):
                    pass
                with tracer.start_as_current_span(f"execute_tool {name}", attributes={
                        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                        "gen_ai.tool.call.id": f"call-{i}", "gen_ai.tool.call.arguments": json.dumps(args)}) as sp:
                    if status == "error":
                        sp.set_status(Status(StatusCode.ERROR, f"order {args['order_id']} not found"))
                        result: Any = None
                    elif name == "search_docs":
                        result = search(args["query"])
                    else:
                        result = ORDERS[args["order_id"]]
                    if result is not None:
                        sp.set_attribute("gen_ai.tool.call.result", json.dumps(result))
                history += [{"role": "assistant", "parts": [call]},
                            {"role": "tool", "parts": [{"type": "tool_call_response", "id": f"call-{i}",
                                                        "response": result}]}]
            with tracer.start_as_current_span("chat fake-model", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": "fake-model",
                    "gen_ai.input.messages": json.dumps(history, default=str),
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                        {"type": "text", "content": e.answer}], "finish_reason": "stop"}])}):
                pass
    provider.shutdown()
    return list(exporter.get_finished_spans())


_CACHE: list[AgentRun] = []


def run_agent_cached() -> AgentRun:
    """:func:`run_agent` once per process (the agent modules share it when they share a worker)."""
    if not _CACHE:
        _CACHE.append(run_agent())
    return _CACHE[0]


def check(cases, agent: AgentRun, fmt: str, latency: bool = True) -> None:
    """Every question of the agent is a case whose calls, documents and answer are what it did."""
    by_q = {c.question: c for c in cases}
    assert len(cases) == len(agent.expect), [c.question for c in cases]
    for e in agent.expect:
        c = by_q[e.question]
        assert c.response == e.answer, fmt
        got = [(t.name, t.arguments, t.status) for t in c.tool_calls]
        assert got == e.calls, (fmt, got)
        assert list(c.documents) == e.documents, (fmt, c.documents)
        brought = sorted(i for t in c.tool_calls for i in t.documents)
        assert brought == list(range(len(c.documents))) or set(brought) == set(range(len(c.documents))), fmt
        for t in c.tool_calls:
            if t.status == "error":
                assert t.error and "not found" in t.error and not t.documents, fmt
            else:
                assert t.result, fmt
            if latency:
                assert t.latency_s is not None and t.latency_s >= 0, fmt
            if t.name == "search_docs" and t.status == "ok":
                assert t.query == t.arguments["query"] and t.documents, fmt
        assert c.metadata["trace_format"] == fmt

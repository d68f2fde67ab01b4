"""The sample support agent: two versions of a small tool-calling agent over a help centre and an
order table, no key, no model — the agent counterpart of the sample RAG app, for the tool-call
metrics (``data/sample_agent_questions.jsonl``, ``data/sample_targets/agent_v1.yaml``).

    python -m evaluators run data/sample_agent_questions.jsonl --target data/sample_targets/agent_v1.yaml --out a1.jsonl

Each version is a Python target: ``answer_v1(row) -> {"answer", "contexts", "tool_calls"}``. It
plans its calls from the question's words (the help-centre searches first, in a fixed order; then
the order tools; a calculator-like refund estimate; a pickup), runs them, and answers from what they
returned. Version 1 has the habits real agents have: it looks up only the first of two orders, calls
``lookup_order`` where ``cancel_order`` was meant, checks a tracked order twice, searches the refund
page as well when asked about returns and refunds, and passes an order number without its prefix.
Version 2 is a regression to catch: it stops calling ``lookup_order`` when the question also asks
about a policy.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, Callable

HELP: dict[str, str] = {
    "return policy": "Items can be returned within 30 days of delivery for a full refund. Headphones and "
                     "other electronics can be returned within 15 days if unopened.",
    "refund time": "Refunds are paid to the original payment method within 5 business days of the return "
                   "being received.",
    "shipping times": "Standard shipping takes 3 to 5 business days; express shipping takes 1 to 2 business days.",
    "gift cards": "Gift cards cannot be returned or exchanged, and they never expire.",
    "warranty": "Every device has a two-year warranty covering manufacturing defects.",
}
ITEMS = ("headphones", "keyboard", "monitor", "phone case", "charger", "desk lamp")
ORDERS: dict[str, dict[str, Any]] = {
    f"A-{1000 + i}": {"order_id": f"A-{1000 + i}", "status": ("shipped", "processing", "delivered")[i % 3],
                      "item": ITEMS[i % len(ITEMS)], "placed_on": f"2024-05-{1 + i % 28:02d}"}
    for i in range(80)}
TOOLS = ("search_docs", "lookup_order", "cancel_order", "estimate_refund", "schedule_pickup")
_ID = re.compile(r"\b([A-Za-z]-\d{3,5})\b")
_BARE = re.compile(r"order (?:number |no\. )?(\d{3,5})\b", re.I)
_MONEY = re.compile(r"\$\s?(\d+(?:\.\d+)?)")
_DATE = re.compile(r"\bon ((?:January|February|March|April|May|June|July|August|September|October|November|"
                   r"December) \d{1,2}, \d{4})")


def _plan(question: str, version: int) -> list[tuple[str, dict[str, Any]]]:
    q = question.lower()
    ids = [m.upper() for m in _ID.findall(question)] or _BARE.findall(question)  # a bare number: no prefix
    if "pickup" in q and ids:
        d = _DATE.search(question)
        return [("schedule_pickup", {"order_id": ids[0], "date": d.group(1) if d else ""})]
    money = _MONEY.search(question)
    if money and ("get back" in q or "estimate" in q):
        return [("estimate_refund", {"amount": money.group(1)})]  # the amount as written: text
    calls: list[tuple[str, dict[str, Any]]] = []
    for words, query in ((("return",), "return policy"), (("refund",), "refund time"),
                         (("ship", "deliver"), "shipping times"), (("gift card",), "gift cards"),
                         (("warranty",), "warranty")):
        if any(w in q for w in words):
            calls.append(("search_docs", {"query": query}))
    if not ids or (version == 2 and calls):
        return calls
    if "cancel" in q:
        calls.append(("lookup_order", {"order_id": ids[0]}))  # meant cancel_order
    elif "track" in q:
        calls += [("lookup_order", {"order_id": ids[0]})] * 2  # checks again
    else:
        calls.append(("lookup_order", {"order_id": ids[0]}))  # the second order is forgotten
    return calls


def _run(name: str, args: dict[str, Any]) -> tuple[Any, str | None]:
    if name == "search_docs":
        return [{"id": args["query"], "text": HELP[args["query"]]}], None
    if name in ("lookup_order", "cancel_order", "schedule_pickup"):
        order = ORDERS.get(str(args.get("order_id")))
        if order is None:
            return None, f"order {args.get('order_id')} not found"
        if name == "cancel_order":
            return {**order, "status": "cancelled"}, None
        if name == "schedule_pickup":
            return {"order_id": order["order_id"], "pickup": args.get("date")}, None
        return order, None
    if name == "estimate_refund":
        return {"refund": round(float(args["amount"]) * 0.95, 2), "currency": "USD"}, None
    return None, f"unknown tool {name}"


def _answer(question: str, version: int) -> dict[str, Any]:
    calls, contexts, parts = [], [], []
    for name, args in _plan(question, version):
        t0 = time.perf_counter()
        result, error = _run(name, args)
        call: dict[str, Any] = {"name": name, "arguments": args, "latency_s": round(time.perf_counter() - t0, 6),
                                "status": "error" if error else "ok"}
        if error:
            call["error"] = error
            parts.append(f"I could not find that order ({error}).")
        elif name == "search_docs":
            call["result"] = json.dumps(result)
            contexts += [r["text"] for r in result if r["text"] not in contexts]
            parts.append(result[0]["text"].split(". ")[0].rstrip(".") + ".")
        else:
            text = json.dumps(result)
            call["result"] = text
            if text not in contexts:
                contexts.append(text)
            if "status" in result:
                parts.append(f"Order {result['order_id']} is {result['status']}.")
            elif "pickup" in result:
                parts.append(f"A pickup for order {result['order_id']} is booked on {result['pickup']}.")
            else:
                parts.append(f"You would get back about ${result['refund']:.2f}.")
        calls.append(call)
    answer = " ".join(dict.fromkeys(parts)) or "You're welcome! Is there anything else I can help with?"
    return {"answer": answer, "contexts": contexts, "tool_calls": calls}


def _question(row: Any) -> str:
    return str(row.get("question", "")) if isinstance(row, dict) else str(row)


def answer_v1(row: Any) -> dict[str, Any]:
    """Version 1 (``row``: the question row, or the question's text)."""
    return _answer(_question(row), 1)


def answer_v2(row: Any) -> dict[str, Any]:
    """Version 2: version 1 without ``lookup_order`` when the question also asks about a policy."""
    return _answer(_question(row), 2)


VERSIONS: dict[str, Callable[[Any], dict[str, Any]]] = {"agent_v1": answer_v1, "agent_v2": answer_v2}

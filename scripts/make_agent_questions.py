"""Write data/sample_agent_questions.jsonl: 60 questions for the sample support agent
(evaluators/sample_app/agent.py), each with the tool calls a good agent makes
(``reference_tool_calls``) and, under ``expected``, the tool-call metrics version 1 of the agent must
get on it. The expected values are worked out by hand per kind of question (``kind``) from the
definitions in docs/metrics.md — not by running the metrics — so tests/test_agent_questions.py can
check the code against them.

    python scripts/make_agent_questions.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluators.sample_app.agent import TOOLS

S = "search_docs"
L = "lookup_order"
ALL_ONE = {"tool_call_accuracy": 1, "tool_call_f1": 1, "tool_selection": 1, "tool_arguments_exact": 1,
           "tool_arguments_by_key": 1, "trajectory_strict": 1, "trajectory_unordered": 1, "trajectory_subset": 1,
           "trajectory_superset": 1, "failed_tool_calls": 0, "redundant_tool_calls": 0}
F1_HALF = round(2 * 1 * 0.5 / 1.5, 4)  # P = 1, R = 1/2 (or the other way round)


def c(name: str, **args) -> dict:
    return {"name": name, "arguments": args}


def rows() -> list[dict]:
    out: list[dict] = []

    def add(kind: str, question: str, ref: list[dict], expected: dict, steps: int, order: str | None = None) -> None:
        row = {"id": f"q{len(out) + 1:02d}", "question": question, "reference_tool_calls": ref, "kind": kind,
               "expected": {**expected, "tool_steps": steps}, "available_tools": list(TOOLS)}
        if order:
            row["tool_call_order"] = order
        out.append(row)

    # 1. one search, made as the reference makes it: everything 1
    for q, query in [("How long does shipping take?", "shipping times"),
                     ("When will my parcel be delivered if I pick express?", "shipping times"),
                     ("Do gift card balances ever expire?", "gift cards"),
                     ("Can I exchange a gift card for cash?", "gift cards"),
                     ("What does the warranty cover?", "warranty"),
                     ("Is my laptop charger under warranty?", "warranty"),
                     ("How long do I have to return a monitor?", "return policy"),
                     ("What is your return window for electronics?", "return policy")]:
        add("one search, right", q, [c(S, query=query)], ALL_ONE, 1)
    # 2. one order lookup, right
    for q in (["What is the status of order A-1003?", "Has A-1007 arrived yet?",
                           "Can you check order A-1011 for me?", "Where is A-1015 right now?",
                           "Any news on my order A-1020?", "Did order A-1024 go out?"]):
        oid = q.split("A-")[1][:4]
        add("one lookup, right", q, [c(L, order_id=f"A-{oid}")], ALL_ONE, 1)
    # 3. a policy and an order, both right (search first, as the reference orders them)
    for q, query, oid in [("I want to return order A-1030, what is the policy?", "return policy", "A-1030"),
                          ("Order A-1031 is late - how long is shipping normally?", "shipping times", "A-1031"),
                          ("Does the warranty apply to my order A-1032?", "warranty", "A-1032"),
                          ("Can I return A-1033 if I opened it?", "return policy", "A-1033"),
                          ("What are the delivery times, and where is A-1034?", "shipping times", "A-1034"),
                          ("A-1035 arrived broken; what does the warranty say?", "warranty", "A-1035")]:
        add("search and lookup, right", q, [c(S, query=query), c(L, order_id=oid)], ALL_ONE, 2)
    # 4. the wrong tool: lookup_order where cancel_order was meant
    zero = {k: 0 for k in ALL_ONE} | {"failed_tool_calls": 0, "redundant_tool_calls": 0}
    for oid in ("A-1040", "A-1041", "A-1042", "A-1043", "A-1044"):
        add("wrong tool", f"Please cancel order {oid}.", [c("cancel_order", order_id=oid)], zero, 1)
    # 5. a missing call: two orders asked about, one looked up
    missing = {"tool_call_accuracy": 0, "tool_call_f1": F1_HALF, "tool_selection": 0.5, "tool_arguments_exact": 0.5,
               "tool_arguments_by_key": 0.5, "trajectory_strict": 0, "trajectory_unordered": 0, "trajectory_subset": 1,
               "trajectory_superset": 0, "failed_tool_calls": 0, "redundant_tool_calls": 0}
    for a, b in (("A-1050", "A-1051"), ("A-1052", "A-1053"), ("A-1054", "A-1055"), ("A-1056", "A-1057"),
                 ("A-1058", "A-1059")):
        add("missing call", f"What is the status of orders {a} and {b}?", [c(L, order_id=a), c(L, order_id=b)],
            missing, 1)
    # 6. an extra call: the refund page searched too, where the return policy was enough
    extra = {"tool_call_accuracy": 0, "tool_call_f1": F1_HALF, "tool_selection": 1, "tool_arguments_exact": 1,
             "tool_arguments_by_key": 1, "trajectory_strict": 0, "trajectory_unordered": 0, "trajectory_subset": 0,
             "trajectory_superset": 1, "failed_tool_calls": 0, "redundant_tool_calls": 0}
    for q in ("Can I return headphones for a refund?", "What is the return and refund policy?",
              "How do returns and refunds work?", "If I return a keyboard, is the refund full?",
              "Returning a lamp - do I get a refund?"):
        add("extra call", q, [c(S, query="return policy")], extra, 2)
    # 7. a wrong argument: the order number without its prefix (the lookup fails)
    wrong = {k: 0 for k in ALL_ONE} | {"tool_selection": 1, "failed_tool_calls": 1, "redundant_tool_calls": 0}
    for n in ("1061", "1062", "1063", "1064", "1065"):
        add("wrong argument", f"Where is order number {n}?", [c(L, order_id=f"A-{n}")], wrong, 1)
    # 8. a redundant call: a tracked order checked twice
    redundant = {"tool_call_accuracy": 0, "tool_call_f1": F1_HALF, "tool_selection": 1, "tool_arguments_exact": 1,
                 "tool_arguments_by_key": 1, "trajectory_strict": 0, "trajectory_unordered": 0, "trajectory_subset": 0,
                 "trajectory_superset": 1, "failed_tool_calls": 0, "redundant_tool_calls": 1}
    for oid in ("A-1066", "A-1067", "A-1068", "A-1069"):
        add("redundant call", f"Can you track {oid}?", [c(L, order_id=oid)], redundant, 2)
    # 9. dates written differently: the same date (normalised)
    for oid, said, iso in (("A-1070", "May 10, 2024", "2024-05-10"), ("A-1071", "June 2, 2024", "2024-06-02"),
                           ("A-1072", "July 15, 2024", "2024-07-15"), ("A-1073", "August 1, 2024", "2024-08-01")):
        add("date normalised", f"Please schedule a pickup for {oid} on {said}.",
            [c("schedule_pickup", order_id=oid, date=iso)], ALL_ONE, 1)
    # 10. numbers written differently: "120" (text) and 120 (a number) are the same amount
    for amount in (120, 45, 89.5, 300):
        add("number normalised", f"How much would I get back if I return something that cost ${amount}?",
            [c("estimate_refund", amount=amount)], ALL_ONE, 1)
    # 11. nothing to look up: no call, as the reference says
    none = {**ALL_ONE, "tool_arguments_exact": None, "tool_arguments_by_key": None}
    for q in ("Thanks, that's all!", "Hello there", "You have been very helpful."):
        add("no call", q, [], none, 0)
    # 12. the reference lists the lookup first; the agent searches first: fine when order is free ...
    for q, query, oid in [("Check A-1074 and tell me the return policy.", "return policy", "A-1074"),
                          ("Look up A-1075; also, how long is shipping?", "shipping times", "A-1075"),
                          ("Find A-1076 and explain the warranty.", "warranty", "A-1076")]:
        add("other order, free", q, [c(L, order_id=oid), c(S, query=query)],
            {**ALL_ONE, "trajectory_strict": 0}, 2, order="any")
    # ... and a half when the reference's order is required (the LCS keeps one of the two calls)
    strict = {"tool_call_accuracy": 0, "tool_call_f1": 1, "tool_selection": 0.5, "tool_arguments_exact": 0.5,
              "tool_arguments_by_key": 0.5, "trajectory_strict": 0, "trajectory_unordered": 1, "trajectory_subset": 1,
              "trajectory_superset": 1, "failed_tool_calls": 0, "redundant_tool_calls": 0}
    for q, query, oid in [("Check A-1077 first, then the return policy.", "return policy", "A-1077"),
                          ("Look up A-1078, then shipping times please.", "shipping times", "A-1078")]:
        add("other order, strict", q, [c(L, order_id=oid), c(S, query=query)], strict, 2, order="strict")
    return out


def main() -> None:
    data = rows()
    assert len(data) == 60, len(data)
    path = Path(__file__).resolve().parents[1] / "data" / "sample_agent_questions.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data), encoding="utf-8")
    print(f"{path}: {len(data)} questions")


if __name__ == "__main__":
    main()

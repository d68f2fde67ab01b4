"""The names of the tool-call metrics and what each one means.

Contract: :data:`COMPARED` (the agent's calls against ``reference_tool_calls``), :data:`COUNTED`
(the agent's calls alone) and :data:`GOAL` (did it achieve what was asked: an LLM's judgment) in
report order; :data:`DECLARATIONS` holds each metric's description,
formula, one-line example, direction and whether it is 0 / 1 — the text of docs/metrics.md, the
dashboard's help and glossary (registered with the family metrics by
``evaluators.families.toolcalls``). Imports nothing of the project.
"""

from __future__ import annotations

#: The family name every tool-call metric carries (``MetricValue.family``).
FAMILY = "toolcalls"
#: Order the calls must follow: ``strict`` (the reference's order) or ``any``.
ORDERS = ("strict", "any")
#: A case's own order (a question-file column / metadata key), overriding the run's.
ORDER_KEY = "tool_call_order"

TRAJECTORY_MODES = ("strict", "unordered", "subset", "superset")
COMPARED: tuple[str, ...] = ("tool_call_accuracy", "tool_call_f1", "tool_selection", "tool_arguments_exact",
                             "tool_arguments_by_key", *(f"trajectory_{m}" for m in TRAJECTORY_MODES))
COUNTED: tuple[str, ...] = ("tool_steps", "failed_tool_calls", "redundant_tool_calls", "tool_latency_s")
#: Did the agent achieve what was asked: judged by an LLM (``.goal``), not available offline.
GOAL = "goal_accuracy"
#: Every tool-call metric, in report order.
NAMES: tuple[str, ...] = (GOAL, *COMPARED, *COUNTED)

#: name -> (description, formula, example, direction, binary).
DECLARATIONS: dict[str, tuple[str, str, str, str, bool]] = {
    GOAL: (
        "Did the agent achieve what the user asked? An LLM lists the request's goals and, for each, cites the "
        "answer sentences that deliver it and the tool calls that did the work, then says whether it was "
        "achieved (not when the answer only claims it while the call that should have done it failed). "
        "One LLM call per case; not available offline (method trace). ragas AgentGoalAccuracy is its "
        "0 / 1 form.",
        "|goals of the request achieved| / |goals of the request|",
        "\"Where is order 7 and can I return it?\": status found, return rule found → 2 / 2 = 1.00; "
        "lookup_order failed → 1 / 2 = 0.50",
        "higher", False),
    "tool_call_accuracy": (
        "Did the agent call the reference's tools with the reference's arguments? 0 unless it called "
        "exactly the reference's tools (in the reference's order when order is required, else as the same "
        "multiset); then the mean over reference calls of the share of their arguments the paired call gave "
        "the same value (numbers and dates normalised). ragas ToolCallAccuracy.",
        "[tools match] × mean over reference calls of |reference arguments matched| / |reference arguments|",
        "reference search(q=refund), lookup_order(id=7); agent the same two, id=8 → (1 + 0) / 2 = 0.50",
        "higher", False),
    "tool_call_f1": (
        "F1 of the agent's calls against the reference calls, a call counting when the same tool was "
        "called with the same arguments (each reference call matched once; a repeated call counts again). "
        "ragas ToolCallF1.",
        "2PR / (P + R), P = matched / agent calls, R = matched / reference calls",
        "3 calls, 2 of them in the reference of 2 → P 0.67, R 1 → 0.80",
        "higher", False),
    "tool_selection": (
        "Share of the reference calls whose tool the agent called (arguments not checked; each call "
        "used once; in order when order is required). DeepEval ToolCorrectnessMetric.",
        "|reference calls whose tool was called| / |reference calls|",
        "reference search, search, lookup_order; agent search, lookup_order → 2 / 3 = 0.67",
        "higher", False),
    "tool_arguments_exact": (
        "Share of the reference calls the agent made with exactly the reference's arguments (numbers, "
        "dates and case normalised); a call not made counts 0.",
        "|reference calls made with the same arguments| / |reference calls|",
        "lookup_order(id=\"1042\") for a reference lookup_order(id=1042) → 1.00",
        "higher", False),
    "tool_arguments_by_key": (
        "Per reference call, the share of argument keys (over both calls' keys) the best-fitting call of "
        "that tool got right, averaged over reference calls; a call not made counts 0. DeepEval "
        "ToolCorrectnessMetric with input parameters.",
        "mean over reference calls of |keys with the same value| / |keys of either call|",
        "reference search(q=refund, k=5), agent search(q=refund, k=3) → 1 / 2 = 0.50",
        "higher", False),
    "trajectory_strict": (
        "1 when the agent made exactly the reference calls (tool and arguments) in the same order, else 0 "
        "(agentevals' strict trajectory match).",
        "1 if calls = reference calls, in order",
        "reference search, lookup_order; agent lookup_order, search → 0",
        "higher", True),
    "trajectory_unordered": (
        "1 when the agent made exactly the reference calls (tool and arguments) in any order, else 0 "
        "(agentevals' unordered match).",
        "1 if the calls and the reference calls are the same multiset",
        "reference search, lookup_order; agent lookup_order, search → 1",
        "higher", True),
    "trajectory_subset": (
        "1 when every call the agent made is one of the reference calls (it did nothing it should not "
        "have), else 0 (agentevals' subset match).",
        "1 if calls ⊆ reference calls",
        "reference search, lookup_order; agent search → 1",
        "higher", True),
    "trajectory_superset": (
        "1 when the agent made every reference call (perhaps more), else 0 (agentevals' superset match).",
        "1 if calls ⊇ reference calls",
        "reference search; agent search, search, lookup_order → 1",
        "higher", True),
    "tool_steps": (
        "How many tool calls the agent made (TOOL / RETRIEVER spans, or the calls the app returned).",
        "|calls|",
        "search twice, then lookup_order → 3",
        "lower", False),
    "failed_tool_calls": (
        "How many of the agent's tool calls failed (an error status or message).",
        "|calls with an error|",
        "lookup_order raised 'order not found' once → 1",
        "lower", False),
    "redundant_tool_calls": (
        "How many calls repeat an earlier call of the same tool with the same arguments (normalised).",
        "|calls equal to an earlier call|",
        "search(q=refund) three times → 2",
        "lower", False),
    "tool_latency_s": (
        "Seconds the agent spent in its tools: the sum of the calls' durations (the calls that say).",
        "Σ call duration (s)",
        "0.4 s + 0.3 s + 1.2 s → 1.9",
        "lower", False),
}


def is_toolcall_metric(name: str) -> bool:
    return name in DECLARATIONS


__all__ = ["COMPARED", "COUNTED", "DECLARATIONS", "FAMILY", "GOAL", "NAMES", "ORDERS", "ORDER_KEY", "TRAJECTORY_MODES",
           "is_toolcall_metric"]

"""Tool-call metrics: did the agent call the right tools, with the right arguments, in the right order?

    from evaluators.toolcalls import case_metrics, read_calls
    from evaluators.types import TestCase

    case = TestCase(id="q1", question="Where is order 1042?", response="It shipped on 3 May.",
                    tool_calls=read_calls([{"name": "search_docs", "args": {"query": "shipping"}},
                                           {"name": "lookup_order", "arguments": '{"order_id": "1042"}'}]),
                    reference_tool_calls=read_calls([{"name": "lookup_order", "arguments": {"order_id": 1042}}]))
    values, notes = case_metrics(case)           # {name: MetricValue}, family "toolcalls"
    values["tool_call_f1"].value                 # 0.667: 1 of 2 calls in the reference, the reference's 1 of 1 made
    values["trajectory_superset"].value          # 1.0: every reference call was made
    values["tool_steps"].value                   # 2.0

A case carries the agent's calls (``TestCase.tool_calls``: from a trace's TOOL / RETRIEVER spans,
``evaluators.traces``; from an app's reply, ``evaluators.targets``; or a column of a file) and
optionally the calls it should have made (``reference_tool_calls``). ``evaluate`` adds the metrics to
every case of a run that has either (``CaseResult.metrics``), so means, intervals, ``--fail-under``,
``compare`` and ``--fail-on-regression`` take them by name, like the retrieval metrics.

Modules (this package's surface is below):

* ``names`` — the metric names and their declarations (description, formula, example, direction);
* ``shapes`` — calls in the shapes people have them (OpenAI, LangChain, Anthropic, ragas, DeepEval,
  a chat transcript, bare names) read into ``ToolCall`` s, a bad one named;
* ``arguments`` — argument values normalised (numbers, dates, case) and compared (exact, by key);
* ``measures`` — the measures of one case (pure; each definition beside ragas' / DeepEval's /
  agentevals' and docs/metrics.md);
* ``scoring`` — each case's metrics valued or skipped with the reason, the order used, unknown tools;
* ``goal`` — goal accuracy: did the agent achieve what was asked, one LLM call per case (through
  ``evaluators.llm``; not available offline); imported where it runs (``evaluate``), not here;
* ``changes`` — the tools a version stopped or started calling, question by question (Compare:
  ``evaluators.comparison`` pairs the questions, this counts and says it).
"""

from __future__ import annotations

from .arguments import by_key, exact, normalize, same
from .changes import added_tools, dropped_tools
from .changes import changes as tool_changes
from .changes import sentences as tool_change_sentences
from .changes import words as tool_change_words
from .measures import (
    arguments_by_key,
    arguments_exact,
    tool_call_accuracy,
    tool_call_f1,
    tool_selection,
    trajectory,
)
from .names import COMPARED, COUNTED, DECLARATIONS, FAMILY, GOAL, NAMES, ORDER_KEY, ORDERS, is_toolcall_metric
from .scoring import NO_REFERENCE, case_metrics, has_tool_calls, known_tools, order_of, score_cases
from .shapes import ANY_ARGUMENTS, MAX_RESULT_CHARS, ToolCallError, call_dicts, call_of, cut, read_calls

__all__ = [
    "ANY_ARGUMENTS", "COMPARED", "COUNTED", "DECLARATIONS", "FAMILY", "GOAL", "MAX_RESULT_CHARS", "NAMES",
    "NO_REFERENCE",
    "ORDERS", "ORDER_KEY", "added_tools", "arguments_by_key", "arguments_exact", "by_key", "call_dicts", "call_of",
    "case_metrics", "cut", "dropped_tools", "exact", "has_tool_calls", "is_toolcall_metric", "known_tools",
    "normalize", "order_of", "read_calls", "same", "score_cases", "tool_call_accuracy", "tool_call_f1",
    "tool_change_sentences", "tool_change_words", "tool_changes", "tool_selection", "trajectory", "ToolCallError",
]

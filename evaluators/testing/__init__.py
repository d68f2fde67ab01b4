"""Gate RAG quality inside your own test suite.

    from evaluators.testing import assert_trace

    def test_rag_quality():
        assert_trace(cases, adherence=0.8, context_relevance=0.5, gate_on="lower")

``cases`` are TestCases, dicts in the batch format, or an already evaluated ``RunResult``. On
failure an ``AssertionError`` lists each failed metric (mean, 95 % interval, threshold) and the
worst cases of that metric, so the test report says what to look at.

The package also holds the loopback OpenAI-compatible server the LLM tests and benchmarks use
(``evaluators.testing.llm_server``: the real SDKs over 127.0.0.1, nothing mocked).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..gate import GATE_ON, evaluate_gate
from ..types import RunResult, TestCase

__all__ = ["assert_trace"]


def assert_trace(cases_or_run: RunResult | Iterable[TestCase | Mapping[str, Any]], method: str = "trace", *,
                 gate_on: str = "mean", group_column: str | None = None, worst: int = 3,
                 allow_errors: bool = True, options: Any = None, **thresholds: float) -> RunResult:
    """Evaluate (unless given a RunResult) and assert every ``metric=minimum`` threshold.

    ``gate_on="lower"`` checks the lower bound of the 95 % interval instead of the mean.
    ``allow_errors=False`` also fails when a case could not be scored. Family metrics can be
    gated too (pass ``options=EvalOptions(metrics=(...))`` so they are computed). Returns the
    RunResult for further checks.
    """
    if gate_on not in GATE_ON:
        raise ValueError(f"gate_on must be one of {', '.join(GATE_ON)}, got {gate_on!r}")
    if not thresholds and allow_errors:
        raise ValueError("assert_trace needs at least one threshold, e.g. adherence=0.8")
    for k, v in thresholds.items():
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"threshold {k}={v!r} must be a number")
    if isinstance(cases_or_run, RunResult):
        run = cases_or_run
    else:
        from ..pipeline import evaluate_batch

        cases = list(cases_or_run)
        if not cases:
            raise ValueError("assert_trace got no cases to evaluate")
        run = evaluate_batch(cases, method, options=options)
    gate = evaluate_gate(run, {k: float(v) for k, v in thresholds.items()}, gate_on,
                         group_column=group_column)
    problems: list[str] = []
    for c in gate.failures:
        problems.append(f"- {c.metric}: {c.reason}")
        vals = [(x, r) for r in run.results if (x := r.value(c.metric)) is not None]
        vals.sort(key=lambda t: t[0])
        for v, r in vals[: max(0, worst)]:
            q = r.case.question.replace("\n", " ")
            q = q if len(q) <= 70 else q[:67] + "..."
            problems.append(f"    worst: {r.case.id} {c.metric}={v:.3f}  {q}")
    if run.errors and (not allow_errors or problems):
        head = f"- {len(run.errors)} case(s) could not be scored" + ("" if allow_errors else " (allow_errors=False)")
        problems.append(head)
        problems.extend(f"    {i}: {e}" for i, e in run.errors[:worst or 3])
    if problems and (gate.failures or not allow_errors):
        basis = "lower bound of the 95% interval" if gate_on == "lower" else "mean"
        raise AssertionError(
            f"RAG quality gate failed ({run.method}, {len(run.scored)} of {len(run.results)} cases "
            f"scored; thresholds on the {basis}):\n" + "\n".join(problems))
    return run

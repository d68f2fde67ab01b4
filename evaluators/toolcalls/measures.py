"""The tool-call measures of one case: the agent's calls against the reference calls.

Contract: pure functions of two lists of :class:`~evaluators.types.ToolCall` (the agent's, in the
order they ran; the reference) and, where order can matter, ``ordered``. Arguments are compared
after :func:`.arguments.normalize`; a reference call given by its name alone
(:func:`.shapes.any_arguments`) matches a call of that tool with any arguments; a call whose
arguments were not JSON (``raw_arguments``) matches a reference with one argument when the text is
that argument's value. Every definition, and where it differs from ragas / DeepEval / agentevals,
is in docs/metrics.md ("Tool calls"); :data:`.names.DECLARATIONS` holds their one-line forms.
"""

from __future__ import annotations

from typing import Callable, Sequence

from ..types import ToolCall
from .arguments import by_key, exact, key_text, normalize, same
from .shapes import any_arguments

Calls = Sequence[ToolCall]


def args_equal(ref: ToolCall, got: ToolCall) -> bool:
    """``got`` was made with the reference's arguments (see the module docstring)."""
    if any_arguments(ref):
        return True
    if got.raw_arguments is not None:
        return len(ref.arguments) == 1 and same(next(iter(ref.arguments.values())), got.raw_arguments)
    return exact(ref.arguments, got.arguments)


def args_share(ref: ToolCall, got: ToolCall) -> float:
    """Share of argument keys (over both calls' keys) with the same value: DeepEval's rule."""
    if any_arguments(ref):
        return 1.0
    if got.raw_arguments is not None:
        return 1.0 if args_equal(ref, got) else 0.0
    return by_key(ref.arguments, got.arguments)


def args_ragas(ref: ToolCall, got: ToolCall) -> float:
    """ragas' argument score: the share of the reference's keys the call gave the same value
    (keys the call added are not counted); 1 when neither has arguments, 0 when only the call has."""
    if any_arguments(ref):
        return 1.0
    if got.raw_arguments is not None:
        return 1.0 if args_equal(ref, got) else 0.0
    if not ref.arguments and not got.arguments:
        return 1.0
    if not ref.arguments:
        return 0.0
    hits = sum(1 for k, v in ref.arguments.items() if k in got.arguments and same(v, got.arguments[k]))
    return hits / len(ref.arguments)


def _best_pairs(refs: Calls, calls: Calls, score: Callable[[ToolCall, ToolCall], float]) -> list[tuple[int, int]]:
    """Pairs (reference index, call index) of the same tool, each used once, with the largest total
    ``score`` (an assignment; scipy's)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    if not refs or not calls:
        return []
    m = np.full((len(refs), len(calls)), -1.0)
    for i, r in enumerate(refs):
        for j, c in enumerate(calls):
            if r.name == c.name:
                m[i, j] = score(r, c)
    rows, cols = linear_sum_assignment(m, maximize=True)
    return [(int(i), int(j)) for i, j in zip(rows, cols) if m[i, j] >= 0]


def tool_call_accuracy(calls: Calls, refs: Calls, ordered: bool) -> float:
    """ragas ToolCallAccuracy: 0 unless the agent called the reference's tools — in order, or as the
    same multiset when order is not required; then the mean over reference calls of the argument
    score of the call paired with it."""
    if not calls and not refs:
        return 1.0
    if not calls or not refs:
        return 0.0
    names, ref_names = [c.name for c in calls], [r.name for r in refs]
    if ordered:
        if names != ref_names:
            return 0.0
        return sum(args_ragas(r, c) for r, c in zip(refs, calls)) / len(refs)
    if sorted(names) != sorted(ref_names):
        return 0.0
    pairs = _best_pairs(refs, calls, args_ragas)
    return sum(args_ragas(refs[i], calls[j]) for i, j in pairs) / len(refs)


def matching(refs: Calls, calls: Calls, equal: Callable[[ToolCall, ToolCall], bool] = lambda r, c: (
        r.name == c.name and args_equal(r, c))) -> list[tuple[int, int]]:
    """A largest set of pairs (reference, call) that are ``equal``, each used once (augmenting
    paths: the reference calls with any arguments cannot take a call a specific one needs)."""
    match_of_call: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j, c in enumerate(calls):
            if j in seen or not equal(refs[i], c):
                continue
            seen.add(j)
            if j not in match_of_call or augment(match_of_call[j], seen):
                match_of_call[j] = i
                return True
        return False

    for i in range(len(refs)):
        augment(i, set())
    return sorted((i, j) for j, i in match_of_call.items())


def tool_call_f1(calls: Calls, refs: Calls) -> tuple[float, float, float]:
    """(F1, precision, recall) of the calls against the reference calls, a call matching a
    reference call of the same tool with the same arguments, each used once (repeats count)."""
    if not calls and not refs:
        return 1.0, 1.0, 1.0
    tp = len(matching(refs, calls))
    precision = tp / len(calls) if calls else 0.0
    recall = tp / len(refs) if refs else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f1, precision, recall


def _weighted_lcs(refs: Calls, calls: Calls, score: Callable[[ToolCall, ToolCall], float]) -> float:
    """The largest total ``score`` of reference / call pairs of the same tool taken in order
    (DeepEval's weighted longest common subsequence)."""
    m, n = len(refs), len(calls)
    dp = [[0.0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            best = max(dp[i - 1][j], dp[i][j - 1])
            if refs[i - 1].name == calls[j - 1].name:
                s = score(refs[i - 1], calls[j - 1])
                if s > 0:
                    best = max(best, dp[i - 1][j - 1] + s)
            dp[i][j] = best
    return dp[m][n]


def greedy(refs: Calls, calls: Calls, score: Callable[[ToolCall, ToolCall], float]) -> float:
    """DeepEval's unordered matching: each reference call in turn takes the unused call of the same
    tool that scores best (the first of equals)."""
    used: set[int] = set()
    total = 0.0
    for r in refs:
        best, best_j = 0.0, None
        for j, c in enumerate(calls):
            if j in used or c.name != r.name:
                continue
            s = score(r, c)
            if s > best:
                best, best_j = s, j
        if best_j is not None:
            used.add(best_j)
            total += best
    return total


def _per_reference(calls: Calls, refs: Calls, ordered: bool, score: Callable[[ToolCall, ToolCall], float]) -> float:
    if not refs:
        return 1.0 if not calls else 0.0
    got = _weighted_lcs(refs, calls, score) if ordered else greedy(refs, calls, score)
    return got / len(refs)


def tool_selection(calls: Calls, refs: Calls, ordered: bool) -> float:
    """DeepEval ToolCorrectnessMetric (default): the share of reference calls whose tool the agent
    called (each call counted once; in order when order is required)."""
    return _per_reference(calls, refs, ordered, lambda r, c: 1.0)


def arguments_by_key(calls: Calls, refs: Calls, ordered: bool) -> float:
    """DeepEval ToolCorrectnessMetric with input parameters: per reference call, the share of
    argument keys right in the call of that tool that fits best; a call not made counts 0."""
    return _per_reference(calls, refs, ordered, args_share)


def arguments_exact(calls: Calls, refs: Calls, ordered: bool) -> float:
    """The share of reference calls the agent made with exactly the reference's arguments
    (after normalisation); a call not made counts 0."""
    return _per_reference(calls, refs, ordered, lambda r, c: 1.0 if args_equal(r, c) else 0.0)


def trajectory(calls: Calls, refs: Calls, mode: str) -> bool:
    """agentevals' trajectory match of the calls (tool and arguments): ``strict`` — the same calls
    in the same order; ``unordered`` — the same calls in any order; ``subset`` — every call the
    agent made is in the reference; ``superset`` — every reference call was made."""
    pairs = len(matching(refs, calls))
    if mode == "strict":
        return len(calls) == len(refs) and all(r.name == c.name and args_equal(r, c) for r, c in zip(refs, calls))
    if mode == "unordered":
        return len(calls) == len(refs) == pairs
    if mode == "subset":
        return pairs == len(calls)
    if mode == "superset":
        return pairs == len(refs)
    raise ValueError(f"unknown trajectory mode {mode!r}")


def call_key(c: ToolCall) -> str:
    """The tool and its normalised arguments as one text (two calls with the same key are the same call)."""
    if c.raw_arguments is not None:
        return f"{c.name}\x00raw\x00{normalize(c.raw_arguments)}"
    return f"{c.name}\x00{key_text(c.arguments)}"


def redundant(calls: Calls) -> list[int]:
    """Indices of calls that repeat an earlier call (same tool, same arguments)."""
    seen: set[str] = set()
    out = []
    for j, c in enumerate(calls):
        k = call_key(c)
        if k in seen:
            out.append(j)
        seen.add(k)
    return out


def failed(calls: Calls) -> list[int]:
    return [j for j, c in enumerate(calls) if c.failed]


def latency(calls: Calls) -> float | None:
    """Seconds spent in tools (the sum of the calls that say; None when none does)."""
    known = [c.latency_s for c in calls if c.latency_s is not None]
    return float(sum(known)) if known else None


__all__ = ["args_equal", "args_ragas", "args_share", "arguments_by_key", "arguments_exact", "call_key", "failed",
           "latency", "matching", "redundant", "tool_call_accuracy", "tool_call_f1", "tool_selection", "trajectory"]

"""Which calls a case makes (stage 1, and whether a stage-2 ``verify`` follows), and the
offline estimate of their prompts and replies (dry run / cost)."""

from __future__ import annotations

from ...sentencize import split_sentences
from ...types import TestCase
from .prompts import (
    chunks_spec,
    ground_truth_sentences,
    judge_specs,
    nonempty_chunks,
    pii_spec,
    relevancy_specs,
    response_spec,
    verify_spec,
)
from .schemas import CallSpec, Needs


def plan_case(case: TestCase, needs: Needs) -> tuple[list[CallSpec], bool]:
    """Stage-1 calls of a case, and whether a stage-2 ``verify`` call (needing claims) follows."""
    specs: list[CallSpec] = []
    for s in (response_spec(case, needs), chunks_spec(case, needs), pii_spec(case, needs)):
        if s is not None:
            specs.append(s)
    specs.extend(judge_specs(case, needs))
    specs.extend(relevancy_specs(case, needs))
    needs_claims = any(t in needs.tasks for t in ("verify.claims_docs", "verify.claims_gt"))
    if not needs_claims:
        v = verify_spec(case, needs, None)
        if v is not None:
            specs.append(v)
        return specs, False
    return specs, True


def estimate_calls(case: TestCase, needs: Needs) -> int:
    specs, later = plan_case(case, needs)
    n = len(specs)
    if later:
        n += 1
    return n


def _expected_output_tokens(spec: CallSpec, case: TestCase, needs: Needs) -> int:
    n_sent = max(1, len(split_sentences(case.response)))
    if spec.group == "response":
        return 40 + 30 * n_sent * ("claims" in needs.tasks) + 20 * needs.n_questions * (
            "questions" in needs.tasks) + 30 * len(needs.aspects)
    if spec.group == "chunks":
        return 30 + 40 * len(nonempty_chunks(case)) + 20 * ("chunk.sentences" in needs.tasks)
    if spec.group == "verify":
        return 30 + 35 * (n_sent + len(ground_truth_sentences(case))) + 80 * ("entities" in needs.tasks)
    if spec.group.startswith("judge#"):
        return 30 + 30 * len(needs.aspects)
    return 80


def estimate_prompts(case: TestCase, needs: Needs) -> list[tuple[str, int]]:
    """(prompt text, expected output tokens) of every call the case would make; the verify prompt
    is approximated with the response's sentences standing in for its claims."""
    specs, later = plan_case(case, needs)
    if later:
        v = verify_spec(case, needs, split_sentences(case.response) or None)
        if v is not None:
            specs = [*specs, v]
    return [("\n".join(m["content"] for m in s.messages), _expected_output_tokens(s, case, needs))
            for s in specs]

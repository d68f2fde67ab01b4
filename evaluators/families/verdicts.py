"""Verdict helpers shared by the ragas and Tonic families (and the aggregate scores): reading the
claim / chunk / aspect verdicts of the shared LLM calls, planning the calls that produce them, and
small numeric helpers. Family modules import from here, never from each other."""

from __future__ import annotations

from typing import Any, Mapping

from ..types import TestCase
from .base import Ctx, Metric, Skip
from .llm_groups import ASPECTS, Needs
from .params import as_float, as_int


def verified_items(ctx: Ctx, prefix: str, n: int, field: str) -> list[Any]:
    """Items ``{prefix}1`` .. ``{prefix}n`` of the verification call (``R``: response claims, ``G``:
    ground-truth sentences), each with ``field`` answered; Skip names the first one lacking it."""
    items = {it.id: it for it in ctx.group("verify").items}
    what = "claim" if prefix == "R" else "ground-truth sentence"
    out = []
    for i in range(n):
        it = items.get(f"{prefix}{i + 1}")
        if it is None or getattr(it, field) is None:
            raise Skip(f"LLM verification lacks {what} {prefix}{i + 1}")
        out.append(it)
    return out


def claim_verdicts(ctx: Ctx) -> list[dict[str, Any]]:
    """[{claim, supported, reason}] of the response's claims against the documents."""
    claims = ctx.group("response").claims or []
    if not claims:
        raise Skip("the response makes no factual claim: nothing to verify")
    items = verified_items(ctx, "R", len(claims), "supported_by_documents")
    return [{"claim": c, "supported": bool(it.supported_by_documents), "reason": it.reason}
            for c, it in zip(claims, items)]


def claim_support(ctx: Ctx, count_key: str, list_key: str) -> tuple[float, dict[str, Any]]:
    """Share of the response's claims the documents support; details: the count and the verdicts."""
    v = claim_verdicts(ctx)
    n_ok = sum(x["supported"] for x in v)
    return n_ok / len(v), {count_key: n_ok, list_key: v}


def plan_claims_vs_docs(case: TestCase, params: dict, needs: Needs, llm: bool) -> None:
    needs.tasks |= {"claims", "verify.claims_docs"}


def chunk_verdicts(ctx: Ctx, field: str) -> list[tuple[int, bool]]:
    chunks = ctx.group("chunks").chunks
    if not chunks:
        raise Skip("no retrieved chunk to judge")
    return [(c.chunk, bool(getattr(c, field))) for c in chunks]


def aspect_votes(ctx: Ctx, aspect: str) -> list[bool]:
    """Votes on one aspect: one per sample (``judge#i``), or the single ``response`` judgment."""
    names = sorted((g for g in ctx.groups if g.startswith("judge#")), key=lambda g: int(g[6:]))
    if not names:
        names = ["response"]
    votes = []
    for g in names:
        val = ctx.group(g)
        by = {a.name: a for a in (val.aspects or [])}
        if aspect not in by:
            raise Skip(f"LLM judgment lacks aspect {aspect!r}")
        votes.append(bool(by[aspect].verdict))
    return votes


def majority(votes: list[bool]) -> bool:
    return sum(votes) * 2 > len(votes)


def norm_judge(metric: str, p: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters of an LLM judgment: odd ``strictness`` (samples, default 1) and ``temperature``."""
    return {"strictness": as_int(metric, p, "strictness", 1, lo=1, odd=True),
            "temperature": as_float(metric, p, "temperature", 0.7, lo=0.0, hi=2.0)}


def single_aspect_parts(name: str) -> dict[str, Any]:
    """The Metric fields of a binary judgment of one predefined aspect (majority of the samples):
    its parameters, normalize, compute and plan."""
    def compute(ctx: Ctx):
        v = aspect_votes(ctx, name)
        return float(majority(v)), {"votes": [int(x) for x in v]}

    def plan(case: TestCase, params: dict, needs: Needs, llm: bool) -> None:
        plan_judge({name: ASPECTS[name]})(case, params, needs, llm)

    return {"param_names": ("strictness", "temperature"), "normalize": lambda p: norm_judge(name, p),
            "compute": compute, "plan": plan}


def clip01(x: float) -> float:
    return min(1.0, max(0.0, float(x)))


def average_precision(flags: list[bool]) -> float:
    """Σ_k precision@k · v_k / (number of relevant items in the top K); 0 when none is relevant."""
    hits = 0
    total = 0.0
    for k, v in enumerate(flags, start=1):
        if v:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def jaccard(a: set[str], b: set[str]) -> float:
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def plan_judge(aspects: Mapping[str, str]):
    def plan(case: TestCase, params: dict, needs: Needs, llm: bool) -> None:
        needs.tasks.add("judge")
        needs.merge_aspects(aspects)
        if params["strictness"] > needs.judge_strictness:
            needs.judge_strictness = params["strictness"]
            needs.judge_temperature = params["temperature"]
    return plan


def oriented(metric: Metric, value: float) -> float:
    """Value mapped to [0, 1] with higher = better (range-normalised; lower-is-better flipped)."""
    lo, hi = metric.range
    x = (value - lo) / (hi - lo) if hi > lo else value
    x = clip01(x)
    return 1.0 - x if metric.direction == "lower" else x

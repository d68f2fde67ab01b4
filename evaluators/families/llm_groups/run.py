"""Making the planned calls: stage 1 for every case at once, then the ``verify`` calls that need
the claims of stage 1 (concurrency across cases via ``LLMClient.run_all``)."""

from __future__ import annotations

from typing import Any, Sequence

from ...types import TestCase
from .plan import plan_case
from .prompts import verify_spec
from .schemas import CallSpec, GroupOutcome, Needs, Verification


def run_groups(cases: Sequence[TestCase], needs: Sequence[Needs], settings: Any,
               dry_run: bool = False) -> list[dict[str, GroupOutcome]]:
    """Make every planned call (two stages; concurrency across cases via ``client.run_all``).
    Returns, per case, group name -> outcome. Never raises for a failed call."""
    out: list[dict[str, GroupOutcome]] = [{} for _ in cases]
    plans = [plan_case(c, n) if n.tasks else ([], False) for c, n in zip(cases, needs)]
    if not any(specs or later for specs, later in plans):
        return out
    if dry_run or settings is None:
        reason = ("dry run: no LLM call made" if dry_run else
                  "needs an LLM: none configured (set an LLM provider/model in the options)")
        for i, (specs, later) in enumerate(plans):
            est = len(specs) + int(later)
            for s in specs:
                out[i][s.group] = GroupOutcome(error=reason, meta={"estimated_llm_calls": est})
            if later:
                out[i]["verify"] = GroupOutcome(error=reason, meta={"estimated_llm_calls": est})
                out[i].setdefault("response", GroupOutcome(error=reason))
        return out
    from ...llm import LLMUnavailable, StructuredCallError, get_client

    try:
        client = get_client(settings)
    except Exception as exc:  # noqa: BLE001 - LLMUnavailable, or a broken configuration
        reason = (f"LLM unavailable: {exc}" if isinstance(exc, LLMUnavailable)
                  else f"LLM unavailable: {type(exc).__name__}: {exc}")
        for i, (specs, later) in enumerate(plans):
            for s in specs:
                out[i][s.group] = GroupOutcome(error=reason)
            if later:
                out[i]["verify"] = GroupOutcome(error=reason)
        return out

    def make(spec: CallSpec):
        async def call() -> GroupOutcome:
            try:
                res = await client.structured(spec.messages, spec.schema, temperature=spec.temperature,
                                              cache_salt=spec.cache_salt, validate=spec.validate)
            except StructuredCallError as exc:
                return GroupOutcome(error=f"LLM call failed: {exc.reason}", usage=exc.usage)
            return GroupOutcome(value=res.value, usage=res.usage, notes=tuple(res.notes))
        return call

    def run(stage: list[tuple[int, CallSpec]]) -> None:
        results = client.run_all([make(s) for _, s in stage])
        for (i, s), r in zip(stage, results):
            if isinstance(r, Exception):
                r = GroupOutcome(error=f"LLM call failed: {type(r).__name__}: {r}")
            out[i][s.group] = r

    run([(i, s) for i, (specs, _) in enumerate(plans) for s in specs])
    stage2: list[tuple[int, CallSpec]] = []
    for i, (_, later) in enumerate(plans):
        if not later:
            continue
        resp = out[i].get("response")
        claims = resp.value.claims if resp is not None and resp.error is None else None
        spec = verify_spec(cases[i], needs[i], claims)
        if spec is not None:
            stage2.append((i, spec))
        elif claims is not None:  # no claims and nothing else to verify: nothing to ask
            out[i]["verify"] = GroupOutcome(value=Verification(), meta={"claims": []})
        else:
            out[i]["verify"] = GroupOutcome(error=resp.error if resp is not None else "no claims")
    run(stage2)
    for i, _spec in stage2:
        resp = out[i].get("response")
        claims = resp.value.claims if resp is not None and resp.error is None and resp.value.claims else []
        o = out[i]["verify"]
        out[i]["verify"] = GroupOutcome(o.value, o.error, o.usage, o.notes, meta={"claims": list(claims)})
    return out

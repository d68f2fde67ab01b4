"""The Tonic Validate family (definitions: Tonic Validate RAG metrics reference)."""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from ..types import TestCase
from . import pii
from .base import Ctx, Metric, MetricParamError, Skip, latency_of, register
from .llm_groups import Needs
from .params import as_bool, as_float, as_int, as_str, as_str_list
from .verdicts import chunk_verdicts, claim_support, claim_verdicts, plan_claims_vs_docs, single_aspect_parts

# -- LLM metrics ---------------------------------------------------------------------------------


def _answer_consistency(ctx: Ctx):
    return claim_support(ctx, "supported_points", "main_points")


register(Metric(
    name="answer_consistency", family="tonic",
    formula='|main points supported by the documents| / |main points of the response|',
    example='5 main points, 4 found in the documents → 0.80',
    description="Share of the response's main points (claims) attributable to the retrieved "
                "documents. Uses the same extraction and verification as faithfulness.",
    inputs=("response", "documents"), needs_llm=True, llm_calls_per_case=2,
    llm_calls_note="shared claim extraction + shared verification of all points",
    reference_llm_calls="1 + one per main point",
    compute=_answer_consistency, plan=plan_claims_vs_docs,
))


def _answer_consistency_binary(ctx: Ctx):
    v = claim_verdicts(ctx)
    unsupported = [x["claim"] for x in v if not x["supported"]]
    return float(not unsupported), {"unsupported_points": unsupported}


register(Metric(
    name="answer_consistency_binary", family="tonic",
    formula='1 if every main point of the response is supported by the documents, else 0',
    example='one invented point among five → 0',
    description="1 when every point of the response comes from the retrieved documents, else 0.",
    inputs=("response", "documents"), needs_llm=True, binary=True, llm_calls_per_case=2,
    llm_calls_note="derived from the shared claim verification (0 extra calls)",
    reference_llm_calls="1",
    compute=_answer_consistency_binary, plan=plan_claims_vs_docs,
))


def _answer_similarity(ctx: Ctx):
    return float(ctx.group("verify").similarity), {}


register(Metric(
    name="answer_similarity", family="tonic",
    formula="LLM grade 0–5 of how well the response matches the ground truth's meaning",
    example='same facts in other words → 5; half the facts → 2 or 3',
    description="LLM grade 0-5 of how well the response matches the meaning of the ground truth "
                "(divided by 5 in overall_score).",
    inputs=("question", "response", "ground_truth"), range=(0.0, 5.0), needs_llm=True,
    llm_calls_per_case=1, llm_calls_note="a field of the shared verification call",
    reference_llm_calls="1",
    compute=_answer_similarity, plan=lambda c, p, n, llm: n.tasks.add("verify.similarity"),
))


def _chunk_share(name: str, field: str, task: str, details_key: str, **decl: Any) -> Metric:
    """Share of the retrieved chunks whose ``field`` verdict (LLM task ``task``) is yes."""
    def compute(ctx: Ctx):
        v = chunk_verdicts(ctx, field)
        hits = [i for i, f in v if f]
        return len(hits) / len(v), {details_key: hits, "num_chunks": len(v)}

    return Metric(name=name, family="tonic", needs_llm=True, llm_calls_per_case=1,
                  reference_llm_calls="K (one per chunk)", compute=compute,
                  plan=lambda c, p, n, llm: n.tasks.add(task), **decl)


register(_chunk_share(
    "retrieval_precision", "relevant_to_question", "chunk.relevant", "relevant_chunks",
    description="Share of the retrieved chunks relevant to answering the question.",
    formula="|chunks relevant to the question| / |chunks|",
    example="3 of 5 retrieved chunks are relevant → 0.60",
    inputs=("question", "documents"), llm_calls_note="shared chunk call (all chunks in one call)",
))


def _augmentation_precision(ctx: Ctx):
    rel = dict(chunk_verdicts(ctx, "relevant_to_question"))
    used = dict(chunk_verdicts(ctx, "used_in_response"))
    relevant = [i for i, f in rel.items() if f]
    if not relevant:
        raise Skip("no retrieved chunk is relevant to the question (precision undefined)")
    hit = [i for i in relevant if used[i]]
    return len(hit) / len(relevant), {"relevant_chunks": relevant, "relevant_and_used": hit}


register(Metric(
    name="augmentation_precision", family="tonic",
    formula='|relevant chunks used in the response| / |relevant chunks|',
    example='2 of 4 relevant chunks are used → 0.50',
    description="Share of the relevant retrieved chunks whose information appears in the response "
                "(skipped when no chunk is relevant).",
    inputs=("question", "response", "documents"), needs_llm=True, llm_calls_per_case=1,
    llm_calls_note="shared chunk call",
    reference_llm_calls="2K (relevance + use per chunk)",
    compute=_augmentation_precision,
    plan=lambda c, p, n, llm: n.tasks.update({"chunk.relevant", "chunk.used"}),
))


register(_chunk_share(
    "augmentation_accuracy", "used_in_response", "chunk.used", "used_chunks",
    description="Share of the retrieved chunks that appear (in part) in the response.",
    formula="|chunks used in the response| / |chunks|",
    example="the answer uses 1 of 5 chunks → 0.20",
    inputs=("response", "documents"), llm_calls_note="shared chunk call",
))


def _judge_metric(name: str, desc: str, example: str) -> Metric:
    return Metric(
        name=name, family="tonic", description=desc, inputs=("response",), needs_llm=True,
        formula=f"1 if the LLM judges that the response shows {name.replace('_', ' ')} (majority of the "
                "samples), else 0", example=example,
        binary=True, direction="lower", llm_calls_per_case=1,
        llm_calls_note="a judgment inside the shared response call (0 extra calls)",
        reference_llm_calls="1", **single_aspect_parts(name),
    )


register(_judge_metric("duplication", "1 when the response contains duplicate information "
                                      "(the same point stated more than once).",
                       "the opening hours are stated twice → 1 (bad)"))
register(_judge_metric("hate_speech_content", "1 when the response contains hate speech.",
                       "a neutral product answer → 0"))


# -- offline metrics -----------------------------------------------------------------------------

def _norm_text(metric: str):
    def norm(p: Mapping[str, Any]) -> dict[str, Any]:
        text = as_str(metric, p, "text", None)
        if text is not None and not text:
            raise MetricParamError(f"metric {metric!r}: parameter 'text' must not be empty")
        return {"text": text, "case_sensitive": as_bool(metric, p, "case_sensitive", False)}
    return norm


def _target_text(ctx: Ctx) -> tuple[str, str]:
    t = ctx.params.get("text")
    if t is not None:
        return t, "param"
    gt = ctx.case.ground_truth
    if gt and gt.strip():
        return gt, "ground_truth"
    raise Skip("no text to look for: set metric_params text, or provide a ground_truth")


def _answer_match(ctx: Ctx):
    text, src = _target_text(ctx)
    a, b = ctx.case.response.strip(), text.strip()
    if not ctx.params["case_sensitive"]:
        a, b = a.casefold(), b.casefold()
    return float(a == b), {"text_from": src}


register(Metric(
    name="answer_match", family="tonic",
    formula='1 if trim(response) = text (case-insensitive unless case_sensitive), else 0',
    example="response 'Paris', text 'paris' → 1",
    description="1 when the response (whitespace-trimmed) equals the given text — or the ground "
                "truth when no text is given; case-insensitive unless case_sensitive.",
    inputs=("response",), binary=True, reference_llm_calls="0",
    param_names=("text", "case_sensitive"), normalize=_norm_text("answer_match"), compute=_answer_match,
))


def _contains_text(ctx: Ctx):
    text, src = _target_text(ctx)
    a = ctx.case.response
    if not ctx.params["case_sensitive"]:
        a, text = a.casefold(), text.casefold()
    return float(text in a), {"text_from": src}


register(Metric(
    name="contains_text", family="tonic",
    formula='1 if text occurs in the response (case-insensitive unless case_sensitive), else 0',
    example="text 'Paris', response 'It is Paris.' → 1",
    description="1 when the response contains the given text (or the ground truth when no text is "
                "given); case-insensitive unless case_sensitive.",
    inputs=("response",), binary=True, reference_llm_calls="0",
    param_names=("text", "case_sensitive"), normalize=_norm_text("contains_text"), compute=_contains_text,
))


def _norm_regex(p: Mapping[str, Any]) -> dict[str, Any]:
    pattern = as_str("regex", p, "pattern", None)
    if not pattern:
        raise MetricParamError("metric 'regex': parameter 'pattern' is required")
    flags = 0 if as_bool("regex", p, "case_sensitive", True) else re.IGNORECASE
    try:
        compiled = re.compile(pattern, flags)
    except re.error as exc:
        raise MetricParamError(f"metric 'regex': invalid pattern {pattern!r}: {exc}") from None
    return {"pattern": pattern, "compiled": compiled,
            "expected_matches": as_int("regex", p, "expected_matches", 1, lo=0),
            "case_sensitive": not flags}


def _regex(ctx: Ctx):
    n = len(ctx.params["compiled"].findall(ctx.case.response))
    return float(n == ctx.params["expected_matches"]), {"matches": n,
                                                         "expected": ctx.params["expected_matches"]}


register(Metric(
    name="regex", family="tonic",
    formula='1 if the pattern matches the response exactly expected_matches times, else 0',
    example=r"pattern \d{4}, one year in the response → 1",
    description="1 when the pattern matches the response exactly expected_matches times (default 1).",
    inputs=("response",), binary=True, reference_llm_calls="0",
    param_names=("pattern", "expected_matches", "case_sensitive"), normalize=_norm_regex, compute=_regex,
))


def _norm_length(metric: str):
    def norm(p: Mapping[str, Any]) -> dict[str, Any]:
        lo = as_int(metric, p, "min", None, lo=0)
        hi = as_int(metric, p, "max", None, lo=0)
        if lo is not None and hi is not None and lo > hi:
            raise MetricParamError(f"metric {metric!r}: min ({lo}) is greater than max ({hi})")
        return {"min": lo, "max": hi}
    return norm


def _in_range(n: int, params: Mapping[str, Any]) -> bool:
    lo, hi = params["min"], params["max"]
    return (lo is None or n >= lo) and (hi is None or n <= hi)


def _need_bounds(params: Mapping[str, Any], metric: str) -> None:
    if params["min"] is None and params["max"] is None:
        raise Skip(f"no bounds: set metric_params['{metric}'] min and/or max (characters)")


def _response_length(ctx: Ctx):
    _need_bounds(ctx.params, "response_length")
    n = len(ctx.case.response)
    return float(_in_range(n, ctx.params)), {"length": n}


register(Metric(
    name="response_length", family="tonic",
    formula='1 if min ≤ len(response) ≤ max characters, else 0',
    example='min 10, max 400, a 250-character answer → 1',
    description="1 when the response length in characters is within [min, max] (either bound optional).",
    inputs=("response",), binary=True, reference_llm_calls="0",
    param_names=("min", "max"), normalize=_norm_length("response_length"), compute=_response_length,
))


def _context_length(ctx: Ctx):
    _need_bounds(ctx.params, "context_length")
    lengths = [len(d) for d in ctx.case.documents if d and d.strip()]
    return float(all(_in_range(n, ctx.params) for n in lengths)), {"lengths": lengths}


register(Metric(
    name="context_length", family="tonic",
    formula='1 if min ≤ len(chunk) ≤ max characters for every chunk, else 0',
    example='max 1000, one chunk of 1500 characters → 0',
    description="1 when every retrieved chunk's length in characters is within [min, max].",
    inputs=("documents",), binary=True, reference_llm_calls="0",
    param_names=("min", "max"), normalize=_norm_length("context_length"), compute=_context_length,
))


def _norm_latency(p: Mapping[str, Any]) -> dict[str, Any]:
    return {"target_s": as_float("latency", p, "target_s", 5.0, lo=0.0, lo_open=True),
            "column": as_str("latency", p, "column", "latency") or "latency"}


def _latency(ctx: Ctx):
    secs = latency_of(ctx.case, ctx.params["column"])
    if secs is None:  # pragma: no cover - the input check catches it first
        raise Skip(f"no latency in column {ctx.params['column']!r}")
    return float(secs <= ctx.params["target_s"]), {"latency_s": secs, "target_s": ctx.params["target_s"]}


register(Metric(
    name="latency", family="tonic",
    formula='1 if latency ≤ target_s seconds, else 0',
    example='1.2 s with the 5 s target → 1',
    description="1 when the response latency (seconds, from the latency column; '850ms' / '1.2s' "
                "accepted) is at most target_s (default 5).",
    inputs=("latency",), binary=True, reference_llm_calls="0",
    param_names=("target_s", "column"), normalize=_norm_latency, compute=_latency,
))


def _norm_pii(metric: str):
    def norm(p: Mapping[str, Any]) -> dict[str, Any]:
        types = as_str_list(metric, p, "types", None)
        types = list(pii.OFFLINE_TYPES) if not types else list(dict.fromkeys(pii.canonical_type(t) for t in types))
        return {"types": types}
    return norm


def _plan_pii(case: TestCase, params: dict, needs: Needs, llm: bool) -> None:
    extra = [t for t in params["types"] if t not in pii.OFFLINE_TYPES]
    if extra:
        needs.tasks.add("pii")
        needs.pii_types.extend(t for t in extra if t not in needs.pii_types)


def _pii_metric(ctx: Ctx, where: str):
    types = ctx.params["types"]
    offline = [t for t in types if t in pii.OFFLINE_TYPES]
    llm_types = [t for t in types if t not in pii.OFFLINE_TYPES]
    text = ctx.case.response if where == "response" else "\n".join(d for d in ctx.case.documents if d)
    found: dict[str, int] = pii.detect(text, offline)
    details: dict[str, Any] = {"checked_offline": offline}
    if llm_types:
        details["checked_by_llm"] = llm_types
        try:
            judged = getattr(ctx.group("pii"), where)
        except Skip as exc:
            if found:  # the answer is already "yes": an LLM failure cannot change it
                details["llm_skipped"] = str(exc)
                judged = []
            else:
                raise Skip(f"{exc} (types {', '.join(llm_types)} need the LLM)") from None
        for t in judged:
            if t in llm_types:
                found.setdefault(t, 1)
    details["found"] = found
    return float(bool(found)), details


register(Metric(
    name="answer_contains_pii", family="tonic",
    formula='1 if the response contains PII of the listed types, else 0',
    example='an e-mail address in the answer → 1 (bad)',
    description="1 when the response contains PII of the listed types (default: every type detected "
                "offline — email, phone, credit card (Luhn), US SSN, IBAN, IP address); other types "
                "are judged by the LLM. Only counts per type are reported, never the values.",
    inputs=("response",), binary=True, direction="lower", llm_calls_per_case=0,
    llm_calls_note="0 for offline types; 1 call (shared with context_contains_pii) for other types",
    reference_llm_calls="0 (Tonic Textual API)",
    param_names=("types",), normalize=_norm_pii("answer_contains_pii"),
    compute=lambda ctx: _pii_metric(ctx, "response"), plan=_plan_pii,
))

register(Metric(
    name="context_contains_pii", family="tonic",
    formula='1 if the documents contain PII of the listed types, else 0',
    example='a phone number in one chunk → 1 (bad)',
    description="1 when the retrieved documents contain PII of the listed types (same detectors as "
                "answer_contains_pii).",
    inputs=("documents",), binary=True, direction="lower", llm_calls_per_case=0,
    llm_calls_note="0 for offline types; 1 call (shared with answer_contains_pii) for other types",
    reference_llm_calls="0 (Tonic Textual API)",
    param_names=("types",), normalize=_norm_pii("context_contains_pii"),
    compute=lambda ctx: _pii_metric(ctx, "context"), plan=_plan_pii,
))


def _norm_binary(p: Mapping[str, Any]) -> dict[str, Any]:
    cb = p.get("callback")
    if cb is not None and not callable(cb):
        raise MetricParamError("metric 'binary': parameter 'callback' must be callable (case -> bool)")
    return {"callback": cb}


def _binary(ctx: Ctx):
    cb: Callable[[TestCase], Any] | None = ctx.params.get("callback")
    if cb is None:
        raise Skip("no callback: pass metric_params={'binary': {'callback': fn}} (library only)")
    try:
        out = cb(ctx.case)
    except Exception as exc:  # noqa: BLE001 - the user's code
        raise Skip(f"callback raised {type(exc).__name__}: {exc}") from None
    if hasattr(out, "item"):  # numpy bool
        out = out.item()
    if not isinstance(out, bool) and out not in (0, 1):
        raise Skip(f"callback must return true/false, got {out!r}")
    return float(bool(out)), {}


register(Metric(
    name="binary", family="tonic",
    formula='callback(case) → 1 (true) or 0 (false)',
    example="callback 'cites a source' on an answer with a citation → 1",
    description="1/0 from a user-supplied Python callback(case) -> bool (library only).",
    inputs=(), binary=True, reference_llm_calls="0",
    param_names=("callback",), normalize=_norm_binary, compute=_binary,
))

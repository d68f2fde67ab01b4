"""The ragas family (definitions: ragas metric guide; where the issue differs, the issue stands).

Helpers shared with the Tonic family (claim support, chunk verdicts, aspect votes) are in
``verdicts``.
"""

from __future__ import annotations

from itertools import combinations
from statistics import mean
from typing import Any, Mapping

from ..types import TestCase
from . import embed
from .base import Ctx, Metric, MetricParamError, Skip, register
from .entities import extract_entities, mentioned
from .llm_groups import ASPECTS, LOWER_IS_BETTER, Needs, context_sentences, ground_truth_sentences
from .params import as_float, as_int, as_str
from .verdicts import (
    aspect_votes,
    average_precision,
    chunk_verdicts,
    claim_support,
    clip01,
    jaccard,
    majority,
    norm_judge,
    plan_claims_vs_docs,
    plan_judge,
    single_aspect_parts,
    verified_items,
)


def _similarity(ctx: Ctx, cross_encoder: str | None) -> float:
    case = ctx.case
    gt = case.ground_truth or ""
    if cross_encoder:
        try:
            return clip01(embed.cross_encoder_scores(cross_encoder, [(gt, case.response)])[0])
        except RuntimeError as exc:
            raise Skip(str(exc)) from None
    return clip01(embed.cosine(ctx.embedding(case.response), ctx.embedding(gt)))


# ============================================================================ metrics


def _faithfulness(ctx: Ctx):
    return claim_support(ctx, "supported_claims", "claims")


register(Metric(
    name="faithfulness", family="ragas",
    formula='|response claims supported by the documents| / |response claims|',
    example='4 claims, 3 supported by the documents → 0.75',
    description="Share of the response's claims that the retrieved documents support "
                "(claims extracted by the LLM, all verified in one call).",
    inputs=("response", "documents"), needs_llm=True, llm_calls_per_case=2,
    llm_calls_note="1 claim extraction + 1 verification of all claims; both shared with "
                   "answer_consistency(_binary), context_recall, ragas_answer_correctness, answer_similarity",
    reference_llm_calls="2+ (statements, then NLI)",
    compute=_faithfulness, plan=plan_claims_vs_docs,
))


# -- answer_relevancy --------------------------------------------------------------------------

def _norm_relevancy(p: Mapping[str, Any]) -> dict[str, Any]:
    return {"n": as_int("answer_relevancy", p, "n", 3, lo=1)}


def _plan_relevancy(case: TestCase, params: dict, needs: Needs, llm: bool) -> None:
    needs.tasks.add("questions")
    needs.n_questions = params["n"]


def _relevancy_texts(case: TestCase, params: dict, groups: Mapping[str, Any]) -> list[str]:
    g = groups.get("response")
    if g is None or g.error is not None or not g.value.questions:
        return []
    return [case.question, *g.value.questions[: params["n"]]]


def _answer_relevancy(ctx: Ctx):
    r = ctx.group("response")
    qs = list(r.questions or [])[: ctx.params["n"]]
    if r.noncommittal:
        return 0.0, {"generated_questions": qs, "noncommittal": True}
    if not qs:
        raise Skip("the LLM generated no question")
    sims = [embed.cosine(ctx.embedding(ctx.case.question), ctx.embedding(q)) for q in qs]
    score = 0.0 if r.noncommittal else clip01(mean(sims))
    return score, {"generated_questions": qs, "similarities": [round(s, 4) for s in sims],
                   "noncommittal": bool(r.noncommittal)}


register(Metric(
    name="answer_relevancy", family="ragas",
    formula='mean over N generated questions q_i of max(0, cos(question, q_i)); 0 if noncommittal',
    example='cosines 0.9, 0.8 and 0.7 → 0.80',
    description="Mean cosine similarity (embedded MiniLM) between the question and N questions the "
                "LLM generates from the response (default N = 3); a noncommittal answer scores 0. "
                "Negative cosines count as 0.",
    inputs=("question", "response"), needs_llm=True, needs_embeddings=True, llm_calls_per_case=1,
    llm_calls_note="shared response-analysis call (also claims and strictness-1 judgments)",
    reference_llm_calls="N = 3 generations",
    param_names=("n",), normalize=_norm_relevancy, compute=_answer_relevancy,
    plan=_plan_relevancy, embed_texts=_relevancy_texts,
))


# -- context_precision ---------------------------------------------------------------------------

def _context_precision(ctx: Ctx):
    v = chunk_verdicts(ctx, "useful_for_reference")
    flags = [f for _, f in v]
    ref = "ground_truth" if ctx.case.ground_truth and ctx.case.ground_truth.strip() else "response"
    return average_precision(flags), {"useful_chunks": [i for i, f in v if f],
                                      "ranking": [int(f) for f in flags], "reference": ref}


register(Metric(
    name="context_precision", family="ragas",
    formula='Σ_k precision@k · v_k / |useful chunks in the top K|',
    example='3 chunks, only the 2nd useful: (0/1 + 1/2 + 0/3) / 1 → 0.50',
    description="Average precision of the ranking: Σ_k precision@k · v_k / (useful chunks in the top "
                "K), where v_k says whether chunk k was useful for the ground truth (or for the "
                "response when there is no ground truth). 0 when no chunk is useful.",
    inputs=("question", "documents"), needs_llm=True, llm_calls_per_case=1,
    llm_calls_note="ONE call judges every chunk (shared with retrieval/augmentation precision, "
                   "augmentation_accuracy and strictness-1 context_relevancy)",
    reference_llm_calls="K (one per chunk, sequential)",
    compute=_context_precision,
    plan=lambda c, p, n, llm: n.tasks.add("chunk.useful"),
))


# -- context_recall ------------------------------------------------------------------------------

def _context_recall(ctx: Ctx):
    gts = ground_truth_sentences(ctx.case)
    items = verified_items(ctx, "G", len(gts), "supported_by_documents")
    flags = [bool(it.supported_by_documents) for it in items]
    return sum(flags) / len(flags), {
        "sentences": [{"sentence": s, "attributed": f, "reason": it.reason}
                      for s, f, it in zip(gts, flags, items)]}


register(Metric(
    name="context_recall", family="ragas",
    formula='|ground-truth sentences attributable to the documents| / |ground-truth sentences|',
    example='2 of 3 reference sentences are found in the documents → 0.67',
    description="Share of the ground-truth sentences that can be attributed to the retrieved documents.",
    inputs=("ground_truth", "documents"), needs_llm=True, llm_calls_per_case=1,
    llm_calls_note="shared verification call",
    reference_llm_calls="1",
    compute=_context_recall,
    plan=lambda c, p, n, llm: n.tasks.add("verify.gt_docs"),
))


# -- context_relevancy -------------------------------------------------------------------------

def _norm_ctx_relevancy(p: Mapping[str, Any]) -> dict[str, Any]:
    return {"strictness": as_int("context_relevancy", p, "strictness", 1, lo=1),
            "temperature": as_float("context_relevancy", p, "temperature", 0.7, lo=0.0, hi=2.0)}


def _plan_ctx_relevancy(case: TestCase, params: dict, needs: Needs, llm: bool) -> None:
    needs.tasks.add("chunk.sentences")
    needs.relevancy_strictness = params["strictness"]
    needs.relevancy_temperature = params["temperature"]


def _context_relevancy(ctx: Ctx):
    sents = context_sentences(ctx.case)
    if not sents:
        raise Skip("the documents contain no sentence")
    valid = {k for k, _ in sents}
    if ctx.params["strictness"] == 1:
        samples = [ctx.group("chunks").relevant_sentence_keys or []]
    else:
        samples = [ctx.group(f"relevancy#{i}").relevant_sentence_keys
                   for i in range(ctx.params["strictness"])]
    sets = [{k for k in s if k in valid} for s in samples]
    unknown = sorted({k for s in samples for k in s if k not in valid})
    overlaps = [min(len(s) / len(sents), 1.0) for s in sets]
    agreement = mean(jaccard(a, b) for a, b in combinations(sets, 2)) if len(sets) > 1 else 1.0
    details: dict[str, Any] = {"relevant_sentences": sorted(set().union(*sets)),
                               "num_context_sentences": len(sents),
                               "overlaps": [round(o, 4) for o in overlaps],
                               "agreement": round(agreement, 4)}
    if unknown:
        details["ignored_unknown_keys"] = unknown
    return mean(overlaps) * agreement, details


register(Metric(
    name="context_relevancy", family="ragas",
    formula='min(1, |relevant context sentences| / |context sentences|) (× agreement when strictness > 1)',
    example='3 of 12 context sentences are relevant → 0.25',
    description="Share of the context's sentences the LLM extracts as relevant to the question "
                "(capped at 1). With strictness n > 1: n samples, mean share × agreement (mean "
                "pairwise Jaccard of the extracted sentence sets).",
    inputs=("question", "documents"), needs_llm=True, llm_calls_per_case=1,
    llm_calls_note="strictness 1: inside the shared chunk call; n > 1: n calls",
    reference_llm_calls="n (strictness)",
    param_names=("strictness", "temperature"), normalize=_norm_ctx_relevancy,
    compute=_context_relevancy, plan=_plan_ctx_relevancy,
))


# -- context_entity_recall ---------------------------------------------------------------------

def _norm_entity(p: Mapping[str, Any]) -> dict[str, Any]:
    return {"extractor": as_str("context_entity_recall", p, "extractor", "auto",
                                ("auto", "offline", "llm"))}


def _plan_entity(case: TestCase, params: dict, needs: Needs, llm: bool) -> None:
    if params["extractor"] == "llm" or (params["extractor"] == "auto" and llm):
        needs.tasks.add("entities")


def _context_entity_recall(ctx: Ctx):
    case = ctx.case
    context = "\n".join(d for d in case.documents if d)
    if "entities" in ctx.tasks:
        ents = ctx.group("verify")
        ge = list(dict.fromkeys(e.strip().casefold() for e in ents.ground_truth_entities or [] if e.strip()))
        ce = {e.strip().casefold() for e in ents.context_entities or [] if e.strip()}
        extractor = "llm"
    else:
        ge = extract_entities(case.ground_truth or "")
        ce = set(extract_entities(context))
        extractor = "offline"
    if not ge:
        raise Skip("no entity found in the ground truth")
    found = [e for e in ge if e in ce or mentioned(e, context)]
    return len(found) / len(ge), {"extractor": extractor, "ground_truth_entities": ge,
                                  "recalled": found, "missing": [e for e in ge if e not in found]}


register(Metric(
    name="context_entity_recall", family="ragas",
    formula='|ground-truth entities found in the context| / |ground-truth entities|',
    example='reference names Paris, France and 1889; the context has Paris and 1889 → 0.67',
    description="|entities(context) ∩ entities(ground truth)| / |entities(ground truth)|. A "
                "ground-truth entity counts as recalled when it is among the context's entities or "
                "occurs verbatim in the context. Entities by the LLM when one is configured "
                "(extractor='auto'), else by the offline extractor ('offline' / 'llm' force one).",
    inputs=("ground_truth", "documents"), needs_llm=False, llm_calls_per_case=1,
    llm_calls_note="LLM mode: both entity lists are fields of the shared verification call; 0 offline",
    reference_llm_calls="2 (ground truth, context)",
    param_names=("extractor",), normalize=_norm_entity,
    compute=_context_entity_recall, plan=_plan_entity,
))


# -- answer_semantic_similarity ------------------------------------------------------------------

def _norm_sim(p: Mapping[str, Any]) -> dict[str, Any]:
    return {"cross_encoder": as_str("answer_semantic_similarity", p, "cross_encoder", None)}


def _sim_texts(case: TestCase, params: dict, groups: Mapping[str, Any]) -> list[str]:
    return [] if params.get("cross_encoder") else [case.response, case.ground_truth or ""]


def _answer_semantic_similarity(ctx: Ctx):
    model = ctx.params.get("cross_encoder")
    return _similarity(ctx, model), {"model": model or "embedded MiniLM (cosine)"}


register(Metric(
    name="answer_semantic_similarity", family="ragas",
    formula='max(0, cos(embedding(response), embedding(ground truth)))',
    example='a close paraphrase of the reference → about 0.9; an unrelated answer → about 0.1',
    description="Similarity of response and ground truth: cosine of the embedded MiniLM embeddings "
                "(negative → 0), or an optional cross-encoder given by local path / name.",
    inputs=("response", "ground_truth"), needs_embeddings=True, llm_calls_per_case=0,
    reference_llm_calls="0",
    param_names=("cross_encoder",), normalize=_norm_sim,
    compute=_answer_semantic_similarity, embed_texts=_sim_texts,
))


# -- ragas_answer_correctness -------------------------------------------------------------------

def _norm_correctness(p: Mapping[str, Any]) -> dict[str, Any]:
    w = p.get("weights", [0.75, 0.25])
    try:
        w = [float(x) for x in w]
    except (TypeError, ValueError):
        raise MetricParamError("metric 'ragas_answer_correctness': parameter 'weights' must be two numbers") from None
    if len(w) != 2 or min(w) < 0 or sum(w) <= 0:
        raise MetricParamError("metric 'ragas_answer_correctness': parameter 'weights' must be two "
                               f"non-negative numbers with a positive sum, got {w}")
    return {"weights": w,
            "threshold": as_float("ragas_answer_correctness", p, "threshold", None, lo=0.0, hi=1.0),
            "cross_encoder": as_str("ragas_answer_correctness", p, "cross_encoder", None)}


def _plan_correctness(case: TestCase, params: dict, needs: Needs, llm: bool) -> None:
    if params["weights"][0] > 0:
        needs.tasks |= {"claims", "verify.claims_gt", "verify.gt_resp"}


def _correctness_texts(case: TestCase, params: dict, groups: Mapping[str, Any]) -> list[str]:
    if params["weights"][1] == 0 or params.get("cross_encoder"):
        return []
    return [case.response, case.ground_truth or ""]


def factual_f1(ctx: Ctx) -> tuple[float, dict[str, Any]]:
    claims = ctx.group("response").claims or []
    in_gt = [bool(it.supported_by_ground_truth)
             for it in verified_items(ctx, "R", len(claims), "supported_by_ground_truth")]
    gts = ground_truth_sentences(ctx.case)
    covered = [bool(it.covered_by_response)
               for it in verified_items(ctx, "G", len(gts), "covered_by_response")]
    tp, fp, fn = sum(in_gt), in_gt.count(False), covered.count(False)
    denom = tp + 0.5 * (fp + fn)
    f1 = tp / denom if denom else 1.0
    return f1, {"tp": tp, "fp": fp, "fn": fn}


def _answer_correctness(ctx: Ctx):
    w_f, w_s = ctx.params["weights"]
    details: dict[str, Any] = {"weights": [w_f, w_s]}
    f1 = sim = 0.0
    if w_f > 0:
        f1, d = factual_f1(ctx)
        details.update(d, factual_f1=round(f1, 4))
    if w_s > 0:
        sim = _similarity(ctx, ctx.params.get("cross_encoder"))
        details["semantic_similarity"] = round(sim, 4)
    score = (w_f * f1 + w_s * sim) / (w_f + w_s)
    thr = ctx.params.get("threshold")
    if thr is not None:
        details["raw_score"] = round(score, 4)
        score = float(score >= thr)
    return score, details


register(Metric(
    name="ragas_answer_correctness", family="ragas",
    formula='(w_f · F1 + w_s · similarity) / (w_f + w_s), F1 = TP / (TP + ½(FP + FN))',
    example='TP 2, FP 1, FN 1 → F1 0.67; similarity 0.9 → 0.75 · 0.67 + 0.25 · 0.9 = 0.73',
    description="Weighted mix (default 0.75 / 0.25) of factual F1 — TP = response claims the ground "
                "truth supports, FP = claims it does not, FN = ground-truth sentences the response "
                "misses; F1 = TP / (TP + ½(FP + FN)) — and semantic similarity; optional threshold "
                "turns it into 0/1.",
    inputs=("response", "ground_truth"), needs_llm=True, needs_embeddings=True, llm_calls_per_case=2,
    llm_calls_note="shared claim extraction + shared verification call",
    reference_llm_calls="2-3 (statements of answer and ground truth, classification)",
    param_names=("weights", "threshold", "cross_encoder"), normalize=_norm_correctness,
    compute=_answer_correctness, plan=_plan_correctness, embed_texts=_correctness_texts,
))


# -- aspect critique -------------------------------------------------------------------------------

PREDEFINED = ("harmfulness", "maliciousness", "coherence", "correctness", "conciseness")


def _norm_aspect_critique(p: Mapping[str, Any]) -> dict[str, Any]:
    out = norm_judge("aspect_critique", p)
    aspects = p.get("aspects")
    custom = p.get("custom") or []
    if aspects is None:
        aspects = [] if custom else list(PREDEFINED)
    if isinstance(aspects, str):
        aspects = [a.strip() for a in aspects.split(",") if a.strip()]
    bad = [a for a in aspects if a not in PREDEFINED]
    if bad:
        raise MetricParamError(f"metric 'aspect_critique': unknown aspect(s) {', '.join(map(str, bad))}; "
                               f"predefined: {', '.join(PREDEFINED)} (define others under 'custom')")
    defs: dict[str, str] = {a: ASPECTS[a] for a in aspects}
    directions: dict[str, str] = {a: "lower" if a in LOWER_IS_BETTER else "higher" for a in aspects}
    if not isinstance(custom, (list, tuple)):
        raise MetricParamError("metric 'aspect_critique': 'custom' must be a list of {name, definition}")
    for c in custom:
        if not isinstance(c, Mapping) or not str(c.get("name", "")).strip() or not str(c.get("definition", "")).strip():
            raise MetricParamError("metric 'aspect_critique': each custom aspect needs a non-empty "
                                   f"'name' and 'definition', got {c!r}")
        name = str(c["name"]).strip()
        if name in defs or name in ASPECTS:
            raise MetricParamError(f"metric 'aspect_critique': custom aspect {name!r} clashes with a "
                                   "predefined or repeated aspect name")
        direction = c.get("direction", "higher")
        if direction not in ("higher", "lower"):
            raise MetricParamError(f"metric 'aspect_critique': custom aspect {name!r}: direction must "
                                   "be 'higher' (a yes is good) or 'lower' (a yes is bad)")
        defs[name] = str(c["definition"]).strip()
        directions[name] = direction
    if not defs:
        raise MetricParamError("metric 'aspect_critique': no aspect selected")
    out["aspects"] = defs
    out["directions"] = directions
    return out


def _plan_aspect_critique(case: TestCase, params: dict, needs: Needs, llm: bool) -> None:
    plan_judge(params["aspects"])(case, params, needs, llm)


def _aspect_critique(ctx: Ctx):
    verdicts: dict[str, int] = {}
    votes: dict[str, list[int]] = {}
    passed: dict[str, bool] = {}
    for a in ctx.params["aspects"]:
        v = aspect_votes(ctx, a)
        votes[a] = [int(x) for x in v]
        verdicts[a] = int(majority(v))
        passed[a] = (verdicts[a] == 0) if ctx.params["directions"][a] == "lower" else (verdicts[a] == 1)
    return float(all(passed.values())), {"verdicts": verdicts, "votes": votes, "passed": passed,
                                         "directions": dict(ctx.params["directions"])}


register(Metric(
    name="aspect_critique", family="ragas",
    formula='1 if every selected aspect passes (majority of the samples), else 0',
    example='coherent and concise but harmful → 0',
    description="Binary LLM critique of the response per aspect — predefined (harmfulness, "
                "maliciousness, coherence, correctness, conciseness) and user-defined (name + "
                "definition); strictness = odd number of samples, majority vote. Value 1 when every "
                "aspect passes (harmful/malicious = no; others = yes); each aspect's verdict is also "
                "reported as aspect_critique.<aspect>.",
    inputs=("question", "response"), needs_llm=True, binary=True, llm_calls_per_case=1,
    llm_calls_note="strictness 1: all aspects inside the shared response call; n > 1: n calls "
                   "judging every aspect",
    reference_llm_calls="aspects × strictness",
    param_names=("aspects", "custom", "strictness", "temperature"), normalize=_norm_aspect_critique,
    compute=_aspect_critique, plan=_plan_aspect_critique,
))


#: A one-line example of each predefined aspect's verdict.
_ASPECT_EXAMPLES = {
    "harmfulness": "step-by-step instructions for a dangerous act → 1 (bad)",
    "maliciousness": "an answer that pushes the user to reveal a password → 1 (bad)",
    "coherence": "a logically ordered answer → 1; contradictory jumps between points → 0",
    "correctness": "'Water boils at 100 °C at sea level' → 1; 'at 50 °C' → 0",
    "conciseness": "a two-sentence answer to a yes/no question → 1; three paragraphs of filler → 0",
}


def _single_aspect(name: str) -> Metric:
    return Metric(
        name=name, family="ragas",
        formula=f"1 if the LLM answers yes to the {name} question (majority of the samples), else 0",
        example=_ASPECT_EXAMPLES[name],
        description=f"ragas aspect critique '{name}': {ASPECTS[name]} 1 = yes (majority of "
                    "strictness samples).",
        inputs=("question", "response"), needs_llm=True, binary=True,
        direction="lower" if name in LOWER_IS_BETTER else "higher", llm_calls_per_case=1,
        llm_calls_note="shared response call (strictness 1) or the shared judgment samples",
        reference_llm_calls="strictness", **single_aspect_parts(name),
    )


for _a in PREDEFINED:
    register(_single_aspect(_a))


"""The prompt of every call group (one ``*_spec`` function per group): what is asked, the reply
shape, and the validation a reply must pass (a failure re-asks once through ``evaluators.llm``)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from pydantic import BaseModel

from ...sentencize import sentencize_document, split_sentences
from ...types import TestCase
from .schemas import (
    SYSTEM,
    AspectVerdict,
    CallSpec,
    ChunkJudgment,
    Judgments,
    Needs,
    PIIFound,
    RelevantSentences,
    ResponseAnalysis,
    Verification,
)


def nonempty_chunks(case: TestCase) -> list[tuple[int, str]]:
    return [(i, d) for i, d in enumerate(case.documents) if d and d.strip()]


def context_sentences(case: TestCase) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for i, d in nonempty_chunks(case):
        out.extend((s.key, s.text) for s in sentencize_document(d, i))
    return out


def ground_truth_sentences(case: TestCase) -> list[str]:
    return split_sentences(case.ground_truth or "")


def _docs_block(case: TestCase, keyed: bool) -> str:
    parts = []
    for i, d in nonempty_chunks(case):
        if keyed:
            body = "\n".join(f"{s.key}: {s.text}" for s in sentencize_document(d, i))
        else:
            body = d.strip()
        parts.append(f"[Chunk {i}]\n{body}")
    return "\n\n".join(parts) if parts else "(no documents)"


def _msgs(user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def _aspect_lines(aspects: Mapping[str, str]) -> str:
    return "\n".join(f'   - "{k}": {v}' for k, v in aspects.items())


def _check_aspects(got: list[AspectVerdict] | None, want: Sequence[str]) -> list[AspectVerdict]:
    if got is None:
        raise ValueError('"aspects" is missing')
    by = {a.name.strip().lower(): a for a in got}
    missing = [a for a in want if a.lower() not in by]
    if missing:
        raise ValueError(f'"aspects" lacks a verdict for: {", ".join(missing)}')
    return [by[a.lower()].model_copy(update={"name": a}) for a in want]


# ---- response ---------------------------------------------------------------------------

def response_spec(case: TestCase, needs: Needs) -> CallSpec | None:
    want_claims = "claims" in needs.tasks
    want_q = "questions" in needs.tasks
    want_judge = "judge" in needs.tasks and needs.judge_strictness == 1 and bool(needs.aspects)
    if not (want_claims or want_q or want_judge):
        return None
    tasks: list[str] = []
    shape: list[str] = []
    if want_claims:
        tasks.append('- "claims": every distinct factual claim the RESPONSE makes, each rewritten as a '
                     "short self-contained sentence (resolve pronouns, one fact per claim, keep the "
                     "response's wording where possible). Greetings, hedges and restatements of the "
                     "question are not claims. [] when the response makes no factual claim.")
        shape.append('"claims": ["...", ...]')
    if want_q:
        tasks.append(f'- "questions": exactly {needs.n_questions} different questions that the RESPONSE '
                     "answers, each answerable from the response alone.\n"
                     '- "noncommittal": true when the RESPONSE is evasive, vague or declines to answer '
                     '(e.g. "I don\'t know", "I\'m not sure", "it depends"), else false.')
        shape.append('"questions": ["...", ...], "noncommittal": false')
    if want_judge:
        tasks.append('- "aspects": one object {"name", "reason" (one short sentence), "verdict" '
                     "(true/false)} per criterion below; verdict true means the RESPONSE meets the "
                     "criterion as asked:\n" + _aspect_lines(needs.aspects))
        shape.append('"aspects": [{"name": "...", "reason": "...", "verdict": true}, ...]')
    user = (f"QUESTION:\n{case.question}\n\nRESPONSE:\n{case.response}\n\n"
            "Fill these JSON fields:\n" + "\n".join(tasks) +
            "\n\nReply with: {" + ", ".join(shape) + "}")
    aspects = list(needs.aspects) if want_judge else []
    n_q = needs.n_questions

    def validate(v: BaseModel) -> BaseModel:
        assert isinstance(v, ResponseAnalysis)
        upd: dict[str, Any] = {}
        if want_claims:
            if v.claims is None:
                raise ValueError('"claims" is missing')
            upd["claims"] = [c.strip() for c in v.claims if c and c.strip()]
        if want_q:
            qs = [q.strip() for q in (v.questions or []) if q and q.strip()]
            if v.noncommittal is None:
                raise ValueError('"noncommittal" is missing')
            if not qs and not v.noncommittal:
                raise ValueError('"questions" is missing or empty')
            upd["questions"] = qs[:n_q]
        if want_judge:
            upd["aspects"] = _check_aspects(v.aspects, aspects)
        return v.model_copy(update=upd)

    return CallSpec("response", _msgs(user), ResponseAnalysis, validate)


def judge_specs(case: TestCase, needs: Needs) -> list[CallSpec]:
    if "judge" not in needs.tasks or needs.judge_strictness == 1 or not needs.aspects:
        return []
    aspects = list(needs.aspects)
    user = (f"QUESTION:\n{case.question}\n\nRESPONSE:\n{case.response}\n\n"
            'Judge the RESPONSE. For each criterion below give {"name", "reason" (one short '
            'sentence), "verdict" (true/false)}; verdict true means the RESPONSE meets the criterion '
            "as asked:\n" + _aspect_lines(needs.aspects) +
            '\n\nReply with: {"aspects": [{"name": "...", "reason": "...", "verdict": true}, ...]}')

    def validate(v: BaseModel) -> BaseModel:
        assert isinstance(v, Judgments)
        return v.model_copy(update={"aspects": _check_aspects(v.aspects, aspects)})

    return [CallSpec(f"judge#{i}", _msgs(user), Judgments, validate, needs.judge_temperature,
                     cache_salt=f"sample-{i}") for i in range(needs.judge_strictness)]


# ---- chunks -------------------------------------------------------------------------------

def chunks_spec(case: TestCase, needs: Needs) -> CallSpec | None:
    flags = [t for t in ("chunk.relevant", "chunk.useful", "chunk.used") if t in needs.tasks]
    want_sent = "chunk.sentences" in needs.tasks and needs.relevancy_strictness == 1
    if not flags and not want_sent:
        return None
    chunk_ids = [i for i, _ in nonempty_chunks(case)]
    use_gt = bool(case.ground_truth and case.ground_truth.strip())
    head = f"QUESTION:\n{case.question}\n\n"
    if "chunk.used" in flags or ("chunk.useful" in flags and not use_gt):
        head += f"RESPONSE:\n{case.response}\n\n"
    if "chunk.useful" in flags and use_gt:
        head += f"REFERENCE ANSWER:\n{case.ground_truth}\n\n"
    head += ("RETRIEVED CHUNKS (in rank order; each sentence is prefixed with its key):\n"
             if want_sent else "RETRIEVED CHUNKS (in rank order):\n")
    head += _docs_block(case, keyed=want_sent) + "\n\n"
    tasks: list[str] = []
    fields: list[str] = []
    if flags:
        desc = {
            "chunk.relevant": '"relevant_to_question": true when the chunk contains information '
                              "relevant to answering the QUESTION",
            "chunk.useful": ('"useful_for_reference": true when the chunk was useful in arriving at '
                             + ("the REFERENCE ANSWER" if use_gt else "the RESPONSE")),
            "chunk.used": '"used_in_response": true when some of the chunk\'s information appears in '
                          "the RESPONSE",
        }
        fields = [desc[f].split('"')[1] for f in flags]
        tasks.append('- "chunks": one object per chunk {"chunk": <its number>, "reason": one short '
                     "sentence, " + ", ".join(f'"{f}"' for f in fields) + "}, where\n" +
                     "\n".join(f"   {desc[f]}" for f in flags) +
                     f"\n  Judge every chunk: {', '.join(map(str, chunk_ids))}.")
    if want_sent:
        tasks.append('- "relevant_sentence_keys": the keys of the context sentences that can help '
                     "answer the QUESTION, copied exactly (e.g. \"0a\"); [] when none can.")
    shape = []
    if flags:
        shape.append('"chunks": [{"chunk": %d, "reason": "...", %s}, ...]' % (
            chunk_ids[0] if chunk_ids else 0, ", ".join(f'"{f}": true' for f in fields)))
    if want_sent:
        shape.append('"relevant_sentence_keys": ["..."]')
    user = head + "Fill these JSON fields:\n" + "\n".join(tasks) + "\n\nReply with: {" + \
        ", ".join(shape) + "}"

    def validate(v: BaseModel) -> BaseModel:
        assert isinstance(v, ChunkJudgment)
        upd: dict[str, Any] = {}
        if flags:
            by = {c.chunk: c for c in v.chunks if c.chunk in chunk_ids}
            missing = [i for i in chunk_ids if i not in by]
            if missing:
                raise ValueError(f'"chunks" lacks chunk(s) {", ".join(map(str, missing))}')
            for i, c in by.items():
                lacking = [f for f in fields if getattr(c, f) is None]
                if lacking:
                    raise ValueError(f"chunk {i} lacks {', '.join(lacking)}")
            upd["chunks"] = [by[i] for i in chunk_ids]
        if want_sent:
            if v.relevant_sentence_keys is None:
                raise ValueError('"relevant_sentence_keys" is missing')
            upd["relevant_sentence_keys"] = [k.strip() for k in v.relevant_sentence_keys]
        return v.model_copy(update=upd)

    return CallSpec("chunks", _msgs(user), ChunkJudgment, validate)


def relevancy_specs(case: TestCase, needs: Needs) -> list[CallSpec]:
    if "chunk.sentences" not in needs.tasks or needs.relevancy_strictness == 1:
        return []
    user = (f"QUESTION:\n{case.question}\n\nCONTEXT (each sentence is prefixed with its key):\n"
            + _docs_block(case, keyed=True) +
            "\n\nExtract the context sentences that can potentially help answer the QUESTION. "
            'Reply with {"relevant_sentence_keys": ["0a", ...]} listing their keys exactly as '
            "given; [] when no sentence helps or the question cannot be answered from the context.")
    return [CallSpec(f"relevancy#{i}", _msgs(user), RelevantSentences, None,
                     needs.relevancy_temperature, cache_salt=f"sample-{i}")
            for i in range(needs.relevancy_strictness)]


# ---- verify -------------------------------------------------------------------------------

def verify_spec(case: TestCase, needs: Needs, claims: list[str] | None) -> CallSpec | None:
    """``claims``: the response's claims (None when the response call failed or was not needed)."""
    claim_tasks = [t for t in ("verify.claims_docs", "verify.claims_gt") if t in needs.tasks]
    gt_tasks = [t for t in ("verify.gt_docs", "verify.gt_resp") if t in needs.tasks]
    want_sim = "verify.similarity" in needs.tasks
    want_ent = "entities" in needs.tasks
    if claims is None or not claims:
        claim_tasks = []
    gts = ground_truth_sentences(case) if gt_tasks else []
    if not gts:
        gt_tasks = []
    if not (claim_tasks or gt_tasks or want_sim or want_ent):
        return None
    r_ids = [f"R{i + 1}" for i in range(len(claims or []))] if claim_tasks else []
    g_ids = [f"G{i + 1}" for i in range(len(gts))] if gt_tasks else []
    parts = []
    if "verify.claims_docs" in claim_tasks or "verify.gt_docs" in gt_tasks or want_ent:
        parts.append("DOCUMENTS:\n" + _docs_block(case, keyed=False))
    parts.append(f"QUESTION:\n{case.question}")
    if "verify.gt_resp" in gt_tasks or want_sim:
        parts.append(f"RESPONSE:\n{case.response}")
    if "verify.claims_gt" in claim_tasks or gt_tasks or want_sim or want_ent:
        parts.append(f"GROUND TRUTH ANSWER:\n{case.ground_truth}")
    stmts = [f"{i}: {c}" for i, c in zip(r_ids, claims or [])] + [f"{i}: {s}" for i, s in zip(g_ids, gts)]
    if stmts:
        parts.append("STATEMENTS:\n" + "\n".join(stmts))
    rules: list[str] = []
    if stmts:
        rules.append('- "items": one object per statement {"id", "reason" (one short sentence), ...} with:')
        if "verify.claims_docs" in claim_tasks:
            rules.append('   R statements: "supported_by_documents": true only when the claim can be '
                         "directly inferred from the DOCUMENTS")
        if "verify.claims_gt" in claim_tasks:
            rules.append('   R statements: "supported_by_ground_truth": true when the GROUND TRUTH ANSWER '
                         "states or directly implies the claim")
        if "verify.gt_docs" in gt_tasks:
            rules.append('   G statements: "supported_by_documents": true when the sentence can be '
                         "attributed to the DOCUMENTS")
        if "verify.gt_resp" in gt_tasks:
            rules.append('   G statements: "covered_by_response": true when the RESPONSE states or '
                         "directly implies the sentence")
        rules.append(f"  Judge every statement: {', '.join(r_ids + g_ids)}.")
    if want_sim:
        rules.append('- "similarity": an integer 0-5 grading how well the RESPONSE matches the meaning '
                     "of the GROUND TRUTH ANSWER (5 = same meaning and facts, 3 = partly, 0 = "
                     "unrelated or contradicting).")
    if want_ent:
        rules.append('- "ground_truth_entities" and "context_entities": the named and fact-bearing '
                     "entities (people, places, organisations, works, dates, numbers, materials, "
                     "products) of the GROUND TRUTH ANSWER and of the DOCUMENTS, each written exactly "
                     "as in the text, without duplicates.")
    r_fields = [f for t, f in (("verify.claims_docs", "supported_by_documents"),
                               ("verify.claims_gt", "supported_by_ground_truth")) if t in claim_tasks]
    g_fields = [f for t, f in (("verify.gt_docs", "supported_by_documents"),
                               ("verify.gt_resp", "covered_by_response")) if t in gt_tasks]

    shape = []
    if stmts:
        example = (r_ids or g_ids)[0]
        flds = r_fields if r_ids else g_fields
        shape.append('"items": [{"id": "%s", "reason": "...", %s}, ...]' % (
            example, ", ".join(f'"{f}": true' for f in flds)))
    if want_sim:
        shape.append('"similarity": 4')
    if want_ent:
        shape.append('"ground_truth_entities": ["..."], "context_entities": ["..."]')
    user = "\n\n".join(parts) + "\n\nFill these JSON fields:\n" + "\n".join(rules) + \
        "\n\nReply with: {" + ", ".join(shape) + "}"

    def validate(v: BaseModel) -> BaseModel:
        assert isinstance(v, Verification)
        by = {it.id.strip().upper(): it for it in v.items}
        missing = [i for i in r_ids + g_ids if i not in by]
        if missing:
            raise ValueError(f'"items" lacks statement(s) {", ".join(missing)}')
        for ids, flds in ((r_ids, r_fields), (g_ids, g_fields)):
            for i in ids:
                lacking = [f for f in flds if getattr(by[i], f) is None]
                if lacking:
                    raise ValueError(f"statement {i} lacks {', '.join(lacking)}")
        upd: dict[str, Any] = {"items": [by[i].model_copy(update={"id": i}) for i in r_ids + g_ids]}
        if want_sim:
            if v.similarity is None:
                raise ValueError('"similarity" is missing')
            if not 0 <= v.similarity <= 5:
                raise ValueError(f'"similarity" must be between 0 and 5, got {v.similarity}')
        if want_ent:
            lacking = [f for f in ("ground_truth_entities", "context_entities") if getattr(v, f) is None]
            if lacking:
                raise ValueError(f"{' and '.join(map(repr, lacking))} missing")
        return v.model_copy(update=upd)

    return CallSpec("verify", _msgs(user), Verification, validate)


# ---- pii / entities -------------------------------------------------------------------------

def pii_spec(case: TestCase, needs: Needs) -> CallSpec | None:
    if "pii" not in needs.tasks or not needs.pii_types:
        return None
    types = list(needs.pii_types)
    user = (f"RESPONSE:\n{case.response}\n\nCONTEXT:\n{_docs_block(case, keyed=False)}\n\n"
            "Which of these kinds of personally identifiable information (PII) appear in the RESPONSE, "
            f"and which in the CONTEXT? Kinds: {', '.join(types)}.\n"
            'Reply with {"response": [kinds found in the RESPONSE], "context": [kinds found in the '
            "CONTEXT]}, using only the kind names listed; [] when none. Do not copy the PII itself.")

    def validate(v: BaseModel) -> BaseModel:
        assert isinstance(v, PIIFound)
        known = {t.upper(): t for t in types}
        bad = [x for x in (*v.response, *v.context) if x.strip().upper() not in known]
        if bad:
            raise ValueError(f"unknown PII kind(s) {', '.join(bad)}; use only: {', '.join(types)}")
        return v.model_copy(update={
            "response": sorted({known[x.strip().upper()] for x in v.response}),
            "context": sorted({known[x.strip().upper()] for x in v.context}),
        })

    return CallSpec("pii", _msgs(user), PIIFound, validate)

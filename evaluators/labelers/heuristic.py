"""``trace``: the offline heuristic sentence labeler (the default method).

For each response sentence it scores P(supported) with a logistic combiner over embedding and
lexical evidence (see ``heuristic_features``): similarity to the best document sentence and to
windows of two adjacent sentences, coverage of content words, numbers, names and negations, and
contradiction cues (a number / name of the response missing while the best matching sentence holds
a different one), and for structured (JSON) documents attribute values (``"WiFi": "no"`` vs "offers
WiFi"). The combiner that ships is ``adherence_model`` (those features plus case-relative signals
such as the sentence's novel-token share, ``adherence_params.json``), fitted leave-one-domain-out
on the labelled dev domains by ``bench/lodo.py --write``, with the ONE decision threshold (fixed
for every dataset; override per run with ``options.heuristic["threshold"]``). Without that file the
earlier combiners of ``heuristic_params.json`` are used (``prose`` set by hand, ``structured`` fitted
by ``bench/train_detector.py``).

Labels:
* fully supported  = P(supported) >= threshold (supporting keys = the best sentences);
* partial          = below threshold but some document sentence matches well (keys kept);
* none             = nothing matches;
* sentences that need no support (refusals such as "the documents do not say", transitions such
  as "Here is a summary:", pleasantries) are fully supported with the special key
  ``supported_without_sentence`` / ``general`` and say so in their explanation.
* relevant / utilized keys = the learned models of ``context_model`` (``context_params.json``):
  the expected number of most probable sentences; the supporting keys of every fully supported
  sentence count as utilized. Relevance is a function of the question and the documents alone
  (TRACE): two responses to one question over the same documents get the same relevant keys. Without
  the params file, relevant = cosine to the question (or shared keywords) and utilized = the
  supporting keys of every (fully or partly) supported sentence.

``SentenceSupport.score`` carries P(supported); ``SentenceLabels.confidence`` is 1 − the expected
disagreement of trace's adherence with the truth (``confidence.py``, ``confidence_params.json``) —
selective hybrid sends the least confident cases to an LLM.

Options (``options.heuristic``): ``threshold``, ``relevance_threshold``, ``relevance_floor``,
``support_floor``, ``support_margin``, ``partial_floor``, ``max_support``, ``cross_encoder``
(local path or hub name of an NLI cross-encoder, loaded lazily with sentence-transformers),
``cross_encoder_weight`` (0-1, share of the NLI entailment probability in the final score).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .. import citations
from ..conversations import as_standalone, support_from_earlier_turns
from ..encoder import cross_encoder
from ..methods import BaseMethod
from ..options import EvalOptions
from ..markdown_lines import link_text
from ..types import LabelOutcome, SentenceLabels, SentenceSupport, SentencizedCase
from . import adherence_model, context_model
from . import heuristic_contradiction as contradiction
from . import heuristic_levels as levels
from . import heuristic_parts as parts
from . import heuristic_structured as structured
from . import confidence as confidence_mod
from .fitted import read_fitted
from .heuristic_explain import explain, needs_no_support, overall_text, relevance_learned, relevance_rule
from .heuristic_features import (FEATURES, analyze, build_doc_index, given_vocabulary, is_structured,
                                 sentence_features)

METHOD = "trace"
PARAMS_PATH = Path(__file__).with_name("heuristic_params.json")

DEFAULTS: dict[str, Any] = {
    "threshold": None,  # None = the fitted one from heuristic_params.json
    "relevance_threshold": None,  # None = the learned relevance model (context_params.json)
    "relevance_floor": 0.25,
    "support_floor": 0.30,
    "support_margin": 0.08,
    "partial_floor": 0.45,
    "partial_p": 0.5,  # below it a sentence is "not supported", whatever matches it
    # which clashes override: "substitutions" (numbers, dates, swapped terms) | "numbers" | "all" | "off"
    "contradictions": "substitutions",
    "max_support": 3,
    "cross_encoder": None,
    "cross_encoder_weight": 0.5,
    "verifier": None,  # None = use the learned verifier when its weights and combiner ship; False = never
}

#: The prior of the prose model: weights set by hand BEFORE looking at any labeled data (similarity
#: and word coverage up, missing numbers / names / negation down). Raw (unstandardised) features, in
#: FEATURES order. The shipped prose model (heuristic_params.json) is the logit average of these and
#: a logistic regression fitted on RAGTruth Summary sentences, with the weight picked out-of-fold by
#: bench/train_detector.py (either alone ranks responses worse); structured (JSON) documents use a
#: fitted model. Without the params file, these weights are used as they are.
HAND_PROSE: dict[str, Any] = {
    "mean": [0.0] * len(FEATURES),
    "scale": [1.0] * len(FEATURES),
    "coef": [4.0, 2.0, 0.0, 3.0, 2.0, -1.5, -1.0, -1.0, -0.5, -0.7, -0.3, -1.5, 0.0, 0.5, 0.0, 0.0,
             -2.0, -1.0],
    "intercept": -5.0,
    "source": "hand-set a priori",
}


def _at(arr: np.ndarray | None, i: int) -> float | None:
    if arr is None or math.isnan(float(arr[i])):
        return None
    return float(arr[i])


def _logit(p: float) -> float:
    p = min(max(float(p), 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def sentence_probs(p: dict[str, Any], model: tuple[np.ndarray, np.ndarray, np.ndarray, float]) -> np.ndarray:
    """Combiner P(supported) per response sentence of a prepared case (NaN: no features)."""
    coef, mean, scale, intercept = model
    out = np.full(len(p["sent"]), np.nan)
    rows = [si for si, sp in enumerate(p["sent"]) if sp["feats"] is not None]
    if rows:
        X = (np.asarray([p["sent"][si]["feats"] for si in rows], dtype=np.float64) - mean) / scale
        out[rows] = 1.0 / (1.0 + np.exp(-np.clip(X @ coef + intercept, -40, 40)))
    return out


@lru_cache(maxsize=1)
def load_params() -> dict[str, Any]:
    """The adherence combiner and the ONE threshold: the learned combiner of ``adherence_model``
    (``adherence_params.json``: {"features", "threshold", "model"}) when it ships, else the earlier
    {"threshold", "models": {"prose": {...}, "structured": {...}}} (see bench/train_detector.py)."""
    learned = adherence_model.load_params()
    if learned is not None:
        return learned
    earlier = read_fitted(PARAMS_PATH, FEATURES, "heuristic_features.FEATURES", "bench/train_detector.py")
    if earlier is not None:
        return earlier
    return {"features": list(FEATURES), "threshold": 0.5,
            "models": {"prose": HAND_PROSE, "structured": HAND_PROSE}}


def model_arrays(model: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    return (np.asarray(model["coef"], dtype=np.float64), np.asarray(model["mean"], dtype=np.float64),
            np.asarray(model["scale"], dtype=np.float64), float(model["intercept"]))


# ---------------------------------------------------------------- optional NLI cross-encoder
# One loader for every cross-encoder (never downloads; one reading of the output).
entailment_probs = cross_encoder.probabilities


# ---------------------------------------------------------------- the labeler
def judged_texts(it: SentencizedCase) -> list[str]:
    """The response sentences as the labeler reads them: Markdown links by their text unless a document
    holds their address (``markdown_lines.link_text``), citation markers left out (``citations.strip``:
    "[2]" is no claim); the sentences' own text and spans are untouched."""
    c = it.case
    return [link_text(citations.strip(s.text, c.documents, c.document_ids) or s.text, c.documents)
            for s in it.response_sentences]


class HeuristicMethod(BaseMethod):
    """Offline TRACE labeler (embeddings + lexical evidence + fitted logistic combiner)."""

    #: Cases per ``label`` call in ``evaluate_batch``: all texts of a chunk are embedded in one
    #: length-sorted model call, so bigger chunks pad less (1,000 QA cases: 11.8 s with 64,
    #: 8.9 s with 256, 7.6 s in one chunk); 256 still reports progress every few seconds.
    chunk_size = 256

    def __init__(self) -> None:  # cheap: the model and params load lazily, cached process-wide
        pass

    def warm_up(self) -> None:
        """Load the chosen encoder and the combiner parameters now (both cached process-wide)."""
        from ..encoder import embeddings

        embeddings.load()
        load_params()

    # -- settings
    def _settings(self, options: EvalOptions, need_params: bool = True) -> dict[str, Any]:
        s = dict(DEFAULTS)
        unknown = set(options.heuristic) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"unknown heuristic option(s): {', '.join(sorted(unknown))}; "
                             f"valid: {', '.join(sorted(DEFAULTS))}")
        s.update({k: v for k, v in options.heuristic.items() if v is not None})
        if s["threshold"] is None and need_params:
            s["threshold"] = float(load_params().get("threshold", 0.5))
        return s

    # -- entry point
    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick) -> list[LabelOutcome]:
        if not items:
            return []
        settings = self._settings(options)  # bad options / params fail every case, clearly
        asked = [it.case.question for it in items]  # adherence reads the turn's own question
        items = as_standalone(items)  # relevance and utilization: the standalone question of a turn
        _, prepared = self.featurize(items, options, asked)
        out = self.label_prepared(items, prepared, settings)
        out = support_from_earlier_turns(  # what the documents lack but the agent said before
            items, out, lambda xs: self.label_prepared(xs, self.featurize(xs, options)[1], settings), overall_text)
        tick(len(items))
        return out

    def label_prepared(self, items: Sequence[SentencizedCase], prepared: Sequence[Any],
                       settings: dict[str, Any], params: dict[str, Any] | None = None,
                       context: dict[str, Any] | str | None = None,
                       confidence: dict[str, Any] | str | None = None,
                       support: dict[str, Any] | str | None = "shipped") -> list[LabelOutcome]:
        """Labels from :meth:`featurize` output. ``params`` / ``context`` / ``confidence`` (default:
        the shipped heuristic_params.json, context_params.json, confidence_params.json; ``"hand"`` =
        the rules used without a params file) and ``support`` (the supporting-key selector of
        ``heuristic_parts``: "shipped" = support_params.json, None = the greedy set) let
        ``bench/lodo.py`` / ``bench/support_keys.py`` score fold-fitted models through this very code path."""
        params = load_params() if params is None else params
        if context is None:
            context = context_model.load_params() or "hand"
        if settings.get("relevance_threshold") is not None and isinstance(context, dict):
            context = {**context, "relevance": None}  # an explicit cosine rule overrides the model
        if confidence is None:
            confidence = confidence_mod.load_params() or "hand"
        ctx = context if isinstance(context, dict) else None
        conf_model = confidence if isinstance(confidence, dict) else None
        learned = params.get("model")  # adherence_model combiner (FEATURES + case-relative signals)
        if not isinstance(learned, dict):
            learned = None  # heuristic_params.json: "model" is a description, "models" the combiners
        models = {} if learned else {name: model_arrays(m) for name, m in params["models"].items()}
        # optional NLI pass over all sentences of the chunk at once
        nli: dict[int, np.ndarray] = {}
        ce_name = settings.get("cross_encoder")
        if ce_name:
            pairs: list[tuple[str, str]] = []
            owners: list[tuple[int, int]] = []
            for ci, p in enumerate(prepared):
                if isinstance(p, Exception):
                    continue
                for si, sp in enumerate(p["sent"]):
                    if sp["special"] is None and sp["support"]:
                        premise = " ".join(p["doc_texts"][i] for i in sorted(sp["support"]))
                        pairs.append((premise, sp["text"]))
                        owners.append((ci, si))
            probs = entailment_probs(str(ce_name), pairs)
            for (ci, si), pr in zip(owners, probs):
                nli.setdefault(ci, np.full(len(prepared[ci]["sent"]), np.nan))[si] = pr
        base: dict[int, np.ndarray] = {}
        for ci, p in enumerate(prepared):
            if not isinstance(p, Exception):
                try:
                    if learned:
                        case = items[ci].case
                        base[ci] = adherence_model.sentence_probs(p, learned, case.response, case.documents)
                    else:
                        base[ci] = sentence_probs(p, models[p["doc_kind"]])
                except Exception as exc:  # noqa: BLE001
                    prepared = list(prepared)
                    prepared[ci] = exc
        verified = self._verify(items, prepared, base, params, settings)
        out: list[LabelOutcome] = []
        for ci, (it, p) in enumerate(zip(items, prepared)):
            if isinstance(p, Exception):
                out.append(LabelOutcome(error=f"trace labeler failed: {type(p).__name__}: {p}",
                                        labeled_by=METHOD))
                continue
            try:
                labels = self._finish(it, p, settings, base[ci], nli.get(ci), ctx, conf_model,
                                      verified.get(ci), selector=support)
                out.append(LabelOutcome(labels=labels, labeled_by=METHOD))
            except Exception as exc:  # noqa: BLE001
                out.append(LabelOutcome(error=f"trace labeler failed: {type(exc).__name__}: {exc}",
                                        labeled_by=METHOD))
        return out

    def featurize(self, items: Sequence[SentencizedCase], options: EvalOptions,
                  asked: Sequence[str] | None = None) -> tuple[dict[str, Any], list[Any]]:
        """Settings and, per item, its prepared sentences (features, evidence) or the Exception.

        ``asked``: per item, the question as the turn asked it, when ``items`` carry a turn's
        standalone question (:func:`evaluators.conversations.as_standalone`): relevance and
        utilization read the standalone question, adherence (a sentence's closeness to the question,
        the words the question gives) the turn's own — the words the rewrite brought in from earlier
        turns are not the question's to give (MTRAG human faithfulness, adherence AUROC 0.889 with
        the turn's own question, 0.859 with the standalone one and earlier-turn support counted).

        Every text of the chunk (questions, document and response sentences) is embedded in ONE
        ``embeddings.encode`` call (the facts of a big record only where the case's words reach them:
        ``heuristic_structured.unread``). Also used by ``bench/train_detector.py``."""
        settings = self._settings(options, need_params=False)  # features do not use the combiner
        own = list(asked) if asked is not None else [it.case.question for it in items]
        texts: list[str] = []
        for it, q in zip(items, own):
            texts.append(it.case.question)
            texts.append(q)
            texts.extend(s.text for s in it.doc_sentences)
            texts.extend(judged_texts(it))
        from ..encoder import embeddings

        quiet = structured.unread(items)  # facts of big records no word of their case reaches: not embedded
        uniq = [t for t in dict.fromkeys(texts) if t not in quiet]
        vecs = embeddings.encode(uniq)
        if quiet:  # their vectors are zeros: similarity 0 to everything
            vecs = np.vstack([vecs.reshape(len(uniq), -1), np.zeros((len(quiet), embeddings.dimension()), vecs.dtype)])
            uniq += sorted(quiet)
        row = {t: i for i, t in enumerate(uniq)}
        prepared: list[Any] = []
        for it, q in zip(items, own):
            try:
                prepared.append(self._prepare(it, vecs, row, settings, q))
            except Exception as exc:  # noqa: BLE001 - one bad case never sinks the chunk
                prepared.append(exc)
        return settings, prepared

    # -- per case: similarities, support candidates, features
    def _prepare(self, it: SentencizedCase, vecs: np.ndarray, row: dict[str, int],
                 st: dict[str, Any], asked: str | None = None) -> dict[str, Any]:
        asked = it.case.question if asked is None else asked
        doc_texts = [s.text for s in it.doc_sentences]
        doc_ids = [s.doc if s.doc is not None else 0 for s in it.doc_sentences]
        q = vecs[row[it.case.question]]  # relevance: the (standalone) question
        qa = vecs[row[asked]]  # adherence: the question as the turn asked it
        n_d = len(doc_texts)
        D = vecs[[row[t] for t in doc_texts]] if n_d else np.zeros((0, vecs.shape[1]), np.float32)
        judged = judged_texts(it)
        R = (vecs[[row[t] for t in judged]] if it.response_sentences
             else np.zeros((0, vecs.shape[1]), np.float32))
        doc = build_doc_index(tuple(doc_texts), tuple(doc_ids), it.case.documents)
        S = R @ D.T if n_d else np.zeros((len(R), 0), np.float32)
        if doc.windows:
            wi = np.asarray(doc.windows)
            W = D[wi[:, 0]] + D[wi[:, 1]]
            W /= np.maximum(np.linalg.norm(W, axis=1, keepdims=True), 1e-12)
            SW = R @ W.T
        else:
            wi = np.zeros((0, 2), dtype=int)
            SW = np.zeros((len(R), 0), np.float32)
        qs = R @ qa if len(R) else np.zeros(0)
        dq = D @ q if n_d else np.zeros(0)
        given = given_vocabulary(doc, analyze(asked))
        sents: list[dict[str, Any]] = []
        floor, margin, kmax = float(st["support_floor"]), float(st["support_margin"]), int(st["max_support"])
        for si, s in enumerate(it.response_sentences):
            special = needs_no_support(s.text)
            info = analyze(judged[si])
            support: list[int] = []
            if n_d:
                sims = S[si]
                order = np.argsort(-sims)[: max(kmax, 1)]
                best = float(sims[order[0]])
                support = [int(i) for i in order if sims[i] >= max(floor, best - margin)][:kmax]
                if not support:
                    support = [int(order[0])]
                if SW.shape[1]:
                    wbest = int(np.argmax(SW[si]))
                    if SW[si, wbest] > best + 0.02:
                        for i in wi[wbest]:
                            if int(i) not in support:
                                support.append(int(i))
                feats, ev = sentence_features(info, sims, SW[si], float(qs[si]), doc, support, given)
            else:
                feats, ev = None, {}
            sents.append({"text": judged[si], "key": s.key, "special": special, "support": support,
                          "feats": feats, "ev": ev})
        kind = "structured" if any(is_structured(d) for d in it.case.documents) else "prose"
        return {"sent": sents, "doc_texts": doc_texts, "dq": dq, "doc": doc, "doc_kind": kind, "S": S,
                "qs": qs}

    # -- per case: probabilities -> labels
    def _verify(self, items: Sequence[SentencizedCase], prepared: Sequence[Any], base: dict[int, np.ndarray],
                params: dict[str, Any], settings: dict[str, Any]) -> dict[int, np.ndarray]:
        """The learned verifier (``verifier.py``), as a cascade: only sentences whose combiner
        probability lies in the params' ``verifier.band`` are sent to it; their probability is then
        re-scored by the verifier combiner (FEATURES + the verifier's logit). Nothing happens when
        the params carry no verifier combiner, the option ``verifier`` is False, or the weights are
        absent. Returns, per case, the verifier's P per sentence (NaN = not verified)."""
        vinfo = params.get("verifier")
        opt = settings.get("verifier")
        if not vinfo or opt is False:
            return {}
        try:
            from . import verifier as vmod
        except ImportError:
            return {}
        path = opt if isinstance(opt, str) else None
        if not vmod.available(path):
            return {}
        lo, hi = (float(x) for x in vinfo.get("band", (0.0, 1.0)))
        claims: list[str] = []
        premises: list[str] = []
        owners: list[tuple[int, int]] = []
        for ci, pb in base.items():
            p = prepared[ci]
            for si, sp in enumerate(p["sent"]):
                if sp["special"] is not None or sp["feats"] is None or not lo <= pb[si] <= hi:
                    continue
                cand = vmod.top_candidates(p["S"][si])
                claims.append(sp["text"])
                premises.append(vmod.build_premise(p["doc_texts"], cand))
                owners.append((ci, si))
        if not claims:
            return {}
        probs = vmod.get_verifier(path).score_pairs(claims, premises)
        out: dict[int, np.ndarray] = {}
        for (ci, si), pr in zip(owners, probs):
            out.setdefault(ci, np.full(len(prepared[ci]["sent"]), np.nan))[si] = float(pr)
        vmodels = {k: model_arrays(m) for k, m in vinfo["models"].items()}
        for ci, vp in out.items():
            p = prepared[ci]
            coef, mean, scale, intercept = vmodels[p["doc_kind"]]
            for si in map(int, np.flatnonzero(~np.isnan(vp))):
                x = np.asarray(list(p["sent"][si]["feats"]) + [_logit(vp[si])], dtype=np.float64)
                z = float(((x - mean) / scale) @ coef + intercept)
                base[ci][si] = 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))
        return out

    def _finish(self, it: SentencizedCase, p: dict[str, Any], st: dict[str, Any], base: np.ndarray,
                nli: np.ndarray | None, ctx: dict[str, Any] | None = None,
                conf_model: dict[str, Any] | None = None, verified: np.ndarray | None = None,
                selector: dict[str, Any] | str | None = "shipped") -> SentenceLabels:
        keys = it.doc_keys
        thr = float(st["threshold"])
        out: list[SentenceSupport] = []
        utilized: set[int] = set()
        uncarried: dict[str, list[list[Any]]] = {}  # response key -> parts carried nowhere (Inspect marks them)
        part_docs: dict[str, list[list[int]]] | None = (  # which documents carry each part: the citations' judge
            {} if citations.find(it.case.response, it.case.documents, it.case.document_ids) else None)
        no_docs = not keys
        # substitutions are read in prose only (a JSON record has no sentence to align with); a term
        # the question or an earlier turn names is the conversation's subject, never a swap
        asked = " ".join([it.case.question, *(t.text for t in it.case.history)])
        swap_ctx = ((it.case.response, tuple(p["doc_texts"]), asked)
                    if p["doc_kind"] == "prose" else None)
        fields = structured.findings(it)  # JSON records / tables: field-by-field findings, else None
        doc_ids = [s.doc or 0 for s in it.doc_sentences]
        # prose: every part of a sentence and the document sentence that carries it (heuristic_parts)
        sel = parts.load_selector() if selector == "shipped" else selector
        unc = sel.get("uncarried") if isinstance(sel, dict) else None  # fitted offsets of the verdict
        atts = [parts.attribute(sp["text"], p["S"][si], p["doc"], selector=sel)
                if p["doc_kind"] == "prose" and sp["special"] is None and sp["feats"] is not None else None
                for si, sp in enumerate(p["sent"])]
        for si, sp in enumerate(p["sent"]):
            prob = float(base[si]) if sp["feats"] is not None else None
            if sp["special"] is not None:
                key, why = sp["special"]
                out.append(SentenceSupport(key=sp["key"], supporting_keys=(key,), fully_supported=True,
                                           explanation=why, score=1.0))
                continue
            if no_docs:
                out.append(SentenceSupport(key=sp["key"], supporting_keys=(), fully_supported=False,
                                           explanation="no documents were retrieved, so nothing supports "
                                                       "this claim", score=0.0))
                continue
            nli_p = None
            if nli is not None and not math.isnan(float(nli[si])):
                nli_p = float(nli[si])
                w = float(st["cross_encoder_weight"])
                prob = (1 - w) * prob + w * nli_p  # type: ignore[operator]
            assert prob is not None
            att = atts[si]
            if unc and att is not None:  # the parts carried nowhere, as evidence the verdict learned
                prob = parts.with_uncarried(prob, parts.uncarried_features(att, asked), unc["coef"])
            ev = sp["ev"]
            support = sp["support"]
            level, prob, clashes = self._level(ev, prob, st, sp["text"], p["doc_texts"][ev["best"]],
                                               swap_ctx)
            if att is not None:  # the small set that carries every part (issue 55)
                support = list(att.chosen)
            level, prob, support, decided = structured.revise(fields[si] if fields else None, level, prob,
                                                              support, thr)
            full, partial = level == "full", level == "partial"
            sup_keys = tuple(keys[i] for i in support) if (full or partial) else ()
            if full or partial:
                utilized.update(support)
            if att is not None:  # the details name the share of the parts the named sentences carry
                ev = {**ev, "cov_top": att.carried_share()}
            why = self._explain(ev, keys, support, level, prob, nli_p, _at(verified, si), clashes,
                                contradiction.missing(ev, sp["text"]),
                                parts.explain_parts(att, keys) if att is not None and (full or partial) else "")
            if att is not None and part_docs is not None:
                part_docs[sp["key"]] = parts.part_documents(att, p["doc"], doc_ids)
            if att is not None and not full and att.uncarried:
                marks = parts.marks_in(it.response_sentences[si].text, att)
                if marks:
                    uncarried[sp["key"]] = marks
            out.append(SentenceSupport(key=sp["key"], supporting_keys=sup_keys, fully_supported=full,
                                       explanation=structured.explanation(why, decided, keys),
                                       score=round(prob, 4)))
        probs = [1.0 if s.score is None else float(s.score) for s in out]
        if ctx is not None and ctx.get("utilization") and keys:
            fu = context_model.utilization_features(it.case.question, [sp["text"] for sp in p["sent"]],
                                                    p, doc_ids)
            p_util = context_model.predict(ctx["utilization"], fu)
            utilized = {int(i) for i in context_model.select(p_util, ctx["utilization"])}
            if ctx["utilization"].get("union_support"):
                for sp, o, att in zip(p["sent"], out, atts):
                    if o.fully_supported and sp["special"] is None:
                        utilized.update(parts.utilized_by(att) if att is not None else sp["support"])
        if ctx is not None and ctx.get("relevance") and keys:
            # question and documents only (TRACE): never the response, nor what it used
            fr = context_model.relevance_features(it.case.question, p["dq"], p["doc"].infos, doc_ids)
            rel, rel_expl = self._relevance_learned(it, p, ctx["relevance"], fr)
        else:
            rel, rel_expl = self._relevance(it, p, st)
        unsupported = [s for s in out if not s.fully_supported]
        overall = overall_text(out)
        novel = confidence_mod.novel_token_ratio(it.case.response, it.case.documents)
        wrong = confidence_mod.p_wrong(conf_model, probs, thr, novel) if out else 0.0
        p_h = (confidence_mod.p_hallucinated(conf_model, confidence_mod.case_features(probs, thr, novel))
               if out and conf_model is not None else None)
        conf = 1.0 - wrong
        scores = [s.score for s in out if s.score is not None]
        return SentenceLabels(
            method=METHOD,
            document_keys=keys,
            relevant_keys=tuple(keys[i] for i in sorted(rel)),
            utilized_keys=tuple(keys[i] for i in sorted(utilized)),
            sentences=tuple(out),
            overall_supported=bool(out) and not unsupported,
            relevance_explanation=rel_expl,
            overall_explanation=overall,
            confidence=round(float(conf), 4),
            extra={"threshold": thr, "min_score": min(scores) if scores else None, "model": p["doc_kind"],
                   "cross_encoder": bool(st.get("cross_encoder")), "p_wrong": round(float(wrong), 4),
                   "p_hallucinated": None if p_h is None else round(float(p_h), 4),
                   "novel_token_ratio": round(float(novel), 4),
                   **({"uncarried_parts": uncarried} if uncarried else {}),
                   **({"part_docs": part_docs} if part_docs else {})},
        )

    _level = staticmethod(levels.level)  # how a sentence's level is read (heuristic_levels)
    _explain = staticmethod(explain)
    _relevance_learned = staticmethod(relevance_learned)
    _relevance = staticmethod(relevance_rule)

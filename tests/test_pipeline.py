"""Pipeline and library API: evaluate / evaluate_batch, failure isolation, progress, cancel, facades."""

from __future__ import annotations

import re

import pytest

from evaluators.export import to_json_dict, to_rows
from evaluators.facades import TRACEEvaluator, UnifiedEvaluationPipeline, _SingleMethodEvaluator
from evaluators.methods import BaseMethod, get_evaluation_methods
from evaluators.options import EvalOptions
from evaluators.pipeline import as_test_case, evaluate, evaluate_batch
from evaluators.registry import RegistryError
from evaluators.types import LabelOutcome, SentenceLabels, SentenceSupport, TestCase

_WORD = re.compile(r"\w+")


def _words(s: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(s)}


class FakeMethod(BaseMethod):
    """Deterministic labeler: a response sentence is fully supported when all its words occur in one
    document sentence, partially when at least half do. Relevant = doc sentences sharing a 4+-letter
    word with the question. 'BOOM' in a question makes the whole chunk raise; 'BADCASE' returns an
    error outcome for that case only."""

    def __init__(self):
        self.calls: list[int] = []
        self.options: list[EvalOptions] = []

    def label(self, items, options, tick):
        self.calls.append(len(items))
        self.options.append(options)
        if any("BOOM" in it.case.question for it in items):
            raise RuntimeError("exploded on purpose")
        out = []
        for it in items:
            if "BADCASE" in it.case.question:
                out.append(LabelOutcome(error="fake labeler refused this case"))
                continue
            q = {w for w in _words(it.case.question) if len(w) >= 4}
            relevant = [s.key for s in it.doc_sentences if q & _words(s.text)]
            sents, used = [], []
            for r in it.response_sentences:
                rw = _words(r.text)
                best, best_cov = None, 0.0
                for d in it.doc_sentences:
                    cov = len(rw & _words(d.text)) / max(1, len(rw))
                    if cov > best_cov:
                        best, best_cov = d.key, cov
                keys = (best,) if best and best_cov >= 0.5 else ()
                used.extend(keys)
                sents.append(SentenceSupport(key=r.key, supporting_keys=keys, fully_supported=best_cov == 1.0))
            out.append(LabelOutcome(labels=SentenceLabels(
                method="fake", document_keys=it.doc_keys, relevant_keys=tuple(relevant),
                utilized_keys=tuple(dict.fromkeys(used)), sentences=tuple(sents),
                overall_supported=all(s.fully_supported for s in sents))))
        return out


@pytest.fixture
def fake(register_method):
    impl = FakeMethod()
    register_method("fake", impl, "Fake", "test")
    return impl


DOCS = ("Paris is the capital of France. It has two million residents.",
        "Berlin is the capital of Germany.")


def case(i, question="What is the capital of France?", response="Paris is the capital of France.",
         docs=DOCS, **kw):
    return TestCase(id=str(i), question=question, response=response, documents=docs, **kw)


# --- evaluate ----------------------------------------------------------------------------------------

def test_evaluate_one_case_hand_checked(fake):
    r = evaluate(case(1, response="Paris is the capital of France. It has five million residents. Cats fly."),
                 method="fake")
    assert r.ok and r.error is None
    # doc keys 0a, 0b, 1a; relevant = sentences sharing 'capital'/'france' = 0a, 1a
    assert r.labels.document_keys == ("0a", "0b", "1a")
    assert set(r.labels.relevant_keys) == {"0a", "1a"}
    s = r.scores
    assert s.context_relevance == pytest.approx(2 / 3)
    assert s.context_utilization == pytest.approx(2 / 3)  # 0a and 0b are used
    assert s.completeness == pytest.approx(1 / 2)        # relevant 0a,1a; used 0a
    assert (s.fully_supported_sentences, s.partially_supported_sentences, s.unsupported_sentences) == (1, 1, 1)
    assert s.adherence == pytest.approx(1 / 3)
    assert s.overall_supported is False
    assert r.method == "fake" and r.labeled_by == "fake"


def test_evaluate_accepts_batch_dict(fake):
    r = evaluate({"query": "Capital of France?", "response": "Paris is the capital of France.",
                  "retrieved_documents": list(DOCS), "ground_truth": "Paris", "id": "q7",
                  "source": "unit"}, method="fake")
    assert r.ok
    assert r.case.id == "q7" and r.case.ground_truth == "Paris"
    assert r.case.documents == DOCS
    assert r.case.metadata == {"source": "unit"}
    assert r.scores.adherence == 1.0


def test_unknown_method_lists_valid_names():
    with pytest.raises(RegistryError) as ei:
        evaluate_batch([case(1)], method="nope")
    msg = str(ei.value)
    assert "nope" in msg
    for name in ("trace", "gpt_labeling", "hybrid"):
        assert name in msg


def test_as_test_case_variants():
    c = as_test_case({"question": "q", "response": "r", "contexts": "one doc"}, 4)
    assert c.id == "4" and c.documents == ("one doc",)
    with pytest.raises(ValueError, match=r"case 3: missing response"):
        as_test_case({"question": "q"}, 3)
    with pytest.raises(ValueError, match=r"case 0: missing question/query, response"):
        as_test_case({}, 0)
    with pytest.raises(TypeError, match="case 2"):
        as_test_case(["q", "r"], 2)  # type: ignore[arg-type]


# --- failure isolation ---------------------------------------------------------------------------

def test_empty_response_flagged_others_score(fake):
    cases = [case(1), case(2, response="   "), case(3, response="Berlin is the capital of Germany.")]
    run = evaluate_batch(cases, method="fake")
    assert [r.case.id for r in run.results] == ["1", "2", "3"]
    bad = run.results[1]
    assert not bad.ok and bad.scores is None
    assert "response is empty" in bad.error
    assert run.results[0].ok and run.results[2].ok
    assert run.errors == [("2", bad.error)]
    assert len(run.scored) == 2
    # means are over scored cases only
    assert run.means()["adherence"] == pytest.approx(1.0)
    # the empty case never reached the labeler
    assert sum(fake.calls) == 2


def test_chunk_that_raises_is_flagged_rest_score(fake):
    cases = [case(i) for i in range(6)]
    cases[3] = case(3, question="BOOM what is the capital?")
    run = evaluate_batch(cases, method="fake", chunk_size=2)
    flagged = [r.case.id for r in run.results if not r.ok]
    assert flagged == ["2", "3"]  # the chunk holding case 3
    for r in run.results:
        if not r.ok:
            assert "fake failed" in r.error and "RuntimeError" in r.error and "exploded on purpose" in r.error
    assert len(run.scored) == 4
    assert fake.calls == [2, 2, 2]


def test_error_outcome_flags_only_that_case(fake):
    cases = [case(1), case(2, question="BADCASE capital?"), case(3)]
    run = evaluate_batch(cases, method="fake")
    assert [r.ok for r in run.results] == [True, False, True]
    assert run.results[1].error == "fake labeler refused this case"


def test_wrong_number_of_outcomes_is_flagged(register_method):
    class Short(BaseMethod):
        def label(self, items, options, tick):
            return []

    register_method("short", Short(), "S")
    run = evaluate_batch([case(1), case(2)], method="short")
    assert all(not r.ok for r in run.results)
    assert "returned 0 outcomes for 2 cases" in run.results[0].error


def test_all_failed_means_are_none(fake):
    run = evaluate_batch([case(1, response=""), case(2, question="BOOM")], method="fake")
    m = run.means()
    assert all(m[k] is None for k in ("context_relevance", "adherence", "overall_supported", "average"))
    d = to_json_dict(run)
    assert d["num_samples"] == 2 and d["num_scored"] == 0 and d["num_errors"] == 2
    assert d["detailed_results"][0]["metrics"]["adherence"] is None
    assert d["detailed_results"][0]["error"]


# --- progress and cancellation -------------------------------------------------------------------

def test_progress_callback_counts(fake):
    seen: list[tuple[int, int]] = []
    cases = [case(i) for i in range(7)] + [case(99, response="")]
    run = evaluate_batch(cases, method="fake", chunk_size=3, progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (1, 8)  # the pre-flagged empty response counts as done at once
    assert seen == [(1, 8), (4, 8), (7, 8), (8, 8)]
    assert all(t == 8 for _, t in seen)
    assert len(run.results) == 8


def test_should_stop_cancels_keeping_finished(fake):
    cases = [case(i) for i in range(10)]
    calls = {"n": 0}

    def stop():
        calls["n"] += 1
        return calls["n"] > 2  # two chunks run, then stop

    run = evaluate_batch(cases, method="fake", chunk_size=3, should_stop=stop)
    assert run.cancelled is True
    assert [r.case.id for r in run.results] == [str(i) for i in range(6)]
    assert all(r.ok for r in run.results)
    assert to_json_dict(run)["cancelled"] is True


def test_should_stop_false_runs_all(fake):
    run = evaluate_batch([case(i) for i in range(5)], method="fake", chunk_size=2, should_stop=lambda: False)
    assert not run.cancelled and len(run.results) == 5


def test_option_overrides_reach_method(fake):
    evaluate_batch([case(1)], method="fake", heuristic={"threshold": 0.3})
    assert fake.options[-1].heuristic == {"threshold": 0.3}
    base = EvalOptions(heuristic={"a": 1})
    evaluate_batch([case(1)], method="fake", options=base)
    assert fake.options[-1] is base


def test_empty_batch(fake):
    run = evaluate_batch([], method="fake")
    assert run.results == () and not run.cancelled
    assert to_json_dict(run)["num_samples"] == 0


def test_run_settings_and_export_rows(fake):
    run = evaluate_batch([case(1, labels={"hallucinated": False}), case(2, response="")], method="fake")
    assert run.settings["method"] == "fake"
    rows = to_rows(run)
    assert [r["id"] for r in rows] == ["1", "2"]
    assert rows[0]["human_hallucinated"] is False
    assert rows[0]["adherence"] == 1.0 and rows[0]["error"] is None
    assert rows[1]["adherence"] is None and "empty" in rows[1]["error"]


# --- facades ----------------------------------------------------------------------------------------

def test_get_evaluation_methods():
    ms = get_evaluation_methods()
    ids = [m["id"] for m in ms]
    assert {"trace", "gpt_labeling", "hybrid"} <= set(ids)
    assert all(set(m) == {"id", "name", "description"} and m["name"] and m["description"] for m in ms)
    assert UnifiedEvaluationPipeline.get_evaluation_methods() == ms


def test_unified_pipeline_facade(fake):
    pipe = UnifiedEvaluationPipeline(llm_client=None, chunking_strategy="ignored")
    d = pipe.evaluate(question="What is the capital of France?", response="Paris is the capital of France.",
                      retrieved_documents=list(DOCS), ground_truth="Paris", method="fake")
    assert d["num_samples"] == 1 and d["method"] == "fake"
    assert d["adherence"] == 1.0
    det = d["detailed_results"][0]
    assert det["question"] == "What is the capital of France?"
    assert det["llm_response"] == "Paris is the capital of France."
    assert det["retrieved_documents"] == list(DOCS)
    assert det["ground_truth"] == "Paris"
    assert {"context_relevance", "context_utilization", "completeness", "adherence"} <= set(det["metrics"])

    b = pipe.evaluate_batch(test_cases=[
        {"query": "Capital of France?", "response": "Paris is the capital of France.",
         "retrieved_documents": list(DOCS), "ground_truth": "Paris"},
        {"query": "Capital of Germany?", "response": "", "retrieved_documents": list(DOCS), "ground_truth": None},
    ], method="fake")
    assert b["num_samples"] == 2 and b["num_scored"] == 1
    assert b["detailed_results"][1]["error"]


def test_unified_pipeline_keeps_llm_settings():
    from evaluators.llm.settings import LLMSettings

    s = LLMSettings(provider="openai", model="m", api_key="sk-secret")
    pipe = UnifiedEvaluationPipeline(llm_client=s)
    assert pipe.options.llm is s
    assert "sk-secret" not in str(pipe.options.public_dict())


def test_single_method_evaluator_score_object(fake):
    class FakeEvaluator(_SingleMethodEvaluator):
        method = "fake"

    ev = FakeEvaluator()
    s = ev.evaluate("What is the capital of France?", "Paris is the capital of France. Dogs sing.", list(DOCS))
    assert s.adherence == pytest.approx(0.5)
    assert s.overall_supported is False
    four = (s.context_relevance, s.context_utilization, s.completeness, s.adherence)
    assert s.average() == pytest.approx(sum(four) / 4)
    with pytest.raises(ValueError, match="response is empty"):
        ev.evaluate("q", "", list(DOCS))


# --- the real trace method -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def heuristic():
    return pytest.importorskip("evaluators.labelers.heuristic")


def test_real_trace_method(heuristic):
    cases = [
        case("ok", response="Paris is the capital of France. It has two million residents."),
        case("empty", response=""),
        case("nodocs", docs=()),
        TestCase(id="fr", question="Quelle est la capitale de la France ?",
                 response="Paris est la capitale de la France.",
                 documents=("Paris est la capitale de la France. Elle compte deux millions d'habitants.",)),
    ]
    seen = []
    run = evaluate_batch(cases, method="trace", progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (4, 4)
    by_id = {r.case.id: r for r in run.results}
    assert not by_id["empty"].ok and "empty" in by_id["empty"].error
    for cid in ("ok", "nodocs", "fr"):
        r = by_id[cid]
        assert r.ok, r.error
        assert r.labels.method == "trace"
        from evaluators.sentencize import sentencize_case

        sc = sentencize_case(r.case)
        assert r.labels.document_keys == sc.doc_keys
        assert tuple(s.key for s in r.labels.sentences) == sc.response_keys
        assert set(r.labels.relevant_keys) <= set(sc.doc_keys)
        assert set(r.labels.utilized_keys) <= set(sc.doc_keys)
        for v in (r.scores.context_relevance, r.scores.context_utilization, r.scores.completeness,
                  r.scores.adherence):
            assert 0.0 <= v <= 1.0
    nd = by_id["nodocs"].scores
    assert nd.num_document_sentences == 0
    assert nd.context_relevance == 0.0 and nd.completeness == 1.0
    # the verbatim-copied response is fully grounded
    assert by_id["ok"].scores.adherence == 1.0


def test_trace_evaluator_facade(heuristic):
    s = TRACEEvaluator().evaluate(question="What is the capital of France?",
                                  response="Paris is the capital of France.",
                                  retrieved_documents=list(DOCS))
    for name in ("context_relevance", "context_utilization", "completeness", "adherence"):
        assert 0.0 <= getattr(s, name) <= 1.0
    assert isinstance(s.overall_supported, bool)
    assert 0.0 <= s.average() <= 1.0
    assert s.num_document_sentences == 3 and s.num_response_sentences == 1


def test_chunk_size_defaults_to_the_methods_own(fake):
    """evaluate_batch sends the method's own chunk_size (else CHUNK_SIZE) cases per label() call;
    an explicit chunk_size wins. The trace labeler asks for big chunks (less padding per encode)."""
    from evaluators.labelers.heuristic import HeuristicMethod
    from evaluators.pipeline import CHUNK_SIZE

    sizes = fake.calls  # cases per label() call
    cases = [case(i) for i in range(CHUNK_SIZE + 6)]
    evaluate_batch(cases, "fake")
    assert sizes == [CHUNK_SIZE, 6]
    sizes.clear()
    fake.chunk_size = 40
    evaluate_batch(cases, "fake")
    assert sizes == [40, 30]
    sizes.clear()
    evaluate_batch(cases, "fake", chunk_size=25)
    assert sizes == [25, 25, 20]
    assert HeuristicMethod.chunk_size > CHUNK_SIZE


# --- the method contract ----------------------------------------------------------------------------

def test_method_contract_prepare_failure_is_reported(fake, register_method):
    """A failing prepare() no longer vanishes: the run carries a warning (also in the JSON) and
    the cases are still labeled chunk by chunk."""
    class BadPrepare(FakeMethod):
        def prepare(self, items, options):
            raise RuntimeError("ranking broke")

    register_method("badprep", BadPrepare())
    run = evaluate_batch([case(1), case(2)], method="badprep")
    assert all(r.ok for r in run.results)
    assert run.warnings and "prepare failed (RuntimeError: ranking broke)" in run.warnings[0]
    assert to_json_dict(run)["warnings"] == list(run.warnings)


def test_method_contract_estimate_and_warm_up_dispatch(register_method):
    """estimate() and warm_up() reach the method through the registry (no switch on names)."""
    from evaluators.methods import CONTRACT, METHODS
    from evaluators.pipeline import estimate

    class Priced(FakeMethod):
        warmed = 0

        def estimate(self, items, options):
            return {"cases": len(items), "calls": 7 * len(items), "price_known": False}

        def warm_up(self):
            Priced.warmed += 1

    impl = Priced()
    spec = register_method("priced", impl, needs_llm=True)
    est = estimate([case(1), case(2)], "priced")
    assert est["method"] == "priced" and est["calls"] == 14 and est["skipped_cases"] == 0
    spec.build().warm_up()
    assert Priced.warmed == 1
    for name in METHODS:  # every registered method fulfils the whole contract
        assert all(hasattr(METHODS.get(name).build(), m) for m in CONTRACT), name


def test_method_without_the_contract_is_a_clear_error():
    from evaluators.methods import MethodSpec

    with pytest.raises(TypeError, match="lacks label, prepare, chunk_size, estimate, warm_up; subclass"):
        MethodSpec("x", "X", "", False, "builtins:object").build()

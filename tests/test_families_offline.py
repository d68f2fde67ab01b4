"""Family metrics that need no LLM: hand-computed expectations, skip rules, registry, params."""

from __future__ import annotations

import numpy as np
import pytest

from evaluators import CaseResult, EvalOptions, TestCase
from evaluators.families import (
    METRICS,
    Metric,
    MetricParamError,
    UnknownMetricError,
    compute_metrics,
    embed,
    list_metrics,
    pii,
    validate_metric_names,
)
from evaluators.families.entities import extract_entities
from evaluators.families.verdicts import average_precision
from evaluators.registry import Registry, RegistryError


def case(**kw) -> TestCase:
    base = dict(id="c", question="Where is the Taj Mahal?", response="The Taj Mahal is in Agra.",
                documents=("The Taj Mahal is a mausoleum in Agra, India.",),
                ground_truth="The Taj Mahal is in Agra, India.")
    base.update(kw)
    return TestCase(**base)


def run(cases, metrics, params=None, **opts):
    results = [CaseResult(case=c, method="trace") for c in cases]
    return compute_metrics(results, EvalOptions(metrics=tuple(metrics), metric_params=params or {}, **opts))


def one(c, metric, params=None):
    return run([c], [metric], {metric: params} if params else None)[0][metric]


# -- definitions ---------------------------------------------------------------------------------

def test_context_precision_seed_example_second_of_three_relevant():
    # (0/1 + 1/2 + 0/3) / 1 relevant chunk = 0.5
    assert average_precision([False, True, False]) == pytest.approx(0.5)
    assert average_precision([True, False, True]) == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert average_precision([True, True, False]) == pytest.approx(1.0)
    assert average_precision([False, False]) == 0.0
    assert average_precision([]) == 0.0


def test_contains_text_and_answer_match():
    c = case(response="Paris is the capital.", ground_truth="paris is the capital.")
    assert one(c, "contains_text", {"text": "paris"}).value == 1.0
    assert one(c, "contains_text", {"text": "paris", "case_sensitive": True}).value == 0.0
    assert one(c, "contains_text", {"text": "Paris", "case_sensitive": True}).value == 1.0
    # answer_match defaults to the ground truth, case-insensitive, whitespace-trimmed
    mv = one(c.model_copy(update={"response": "  Paris is the capital. "}), "answer_match")
    assert mv.value == 1.0 and mv.details["text_from"] == "ground_truth"
    assert one(c, "answer_match", {"text": "Paris", "case_sensitive": False}).value == 0.0
    assert one(c, "answer_match", {"case_sensitive": True}).value == 0.0
    # no text and no ground truth: skipped with a reason, never a crash
    mv = one(case(ground_truth=None), "contains_text")
    assert mv.value is None and "no text to look for" in mv.skipped


def test_regex_counts_matches():
    c = case(response="Fido and Fio and Fiddo went out. fido stayed.")
    assert one(c, "regex", {"pattern": "Fid*o", "expected_matches": 3}).value == 1.0
    assert one(c, "regex", {"pattern": "Fid*o", "expected_matches": 2}).value == 0.0
    assert one(c, "regex", {"pattern": "Fid*o", "expected_matches": 4, "case_sensitive": False}).value == 1.0
    mv = one(c, "regex", {"pattern": r"\d+", "expected_matches": 0})
    assert mv.value == 1.0 and mv.details["matches"] == 0
    assert one(c, "regex", {"pattern": "Fid*o"}).details["expected"] == 1
    with pytest.raises(MetricParamError, match="invalid pattern"):
        validate_metric_names(["regex"], {"regex": {"pattern": "(unclosed"}})
    with pytest.raises(MetricParamError, match="'pattern' is required"):
        validate_metric_names(["regex"], {})


def test_response_and_context_length():
    c = case(response="x" * 10, documents=("a" * 5, "b" * 12))
    assert one(c, "response_length", {"min": 5, "max": 10}).value == 1.0
    assert one(c, "response_length", {"max": 9}).value == 0.0
    assert one(c, "response_length", {"min": 11}).value == 0.0
    assert one(c, "context_length", {"min": 5, "max": 12}).value == 1.0
    mv = one(c, "context_length", {"max": 11})
    assert mv.value == 0.0 and mv.details["lengths"] == [5, 12]
    assert "min and/or max" in one(c, "response_length").skipped
    with pytest.raises(MetricParamError, match="greater than max"):
        validate_metric_names(["response_length"], {"response_length": {"min": 5, "max": 2}})


@pytest.mark.parametrize("raw,target,expected", [
    (1.5, 2.0, 1.0), (2.5, 2.0, 0.0), ("850ms", 1.0, 1.0), ("1.2s", 1.0, 0.0), ("2", 2.0, 1.0),
])
def test_latency(raw, target, expected):
    mv = one(case(metadata={"latency": raw}), "latency", {"target_s": target})
    assert mv.value == expected


def test_latency_column_and_missing():
    c = case(metadata={"t_total": 0.4})
    assert one(c, "latency", {"column": "t_total", "target_s": 0.5}).value == 1.0
    mv = one(c, "latency")
    assert mv.value is None and mv.skipped == "missing input: latency"
    assert one(case(metadata={"latency": "n/a"}), "latency").skipped == "missing input: latency"


def test_latency_default_target_is_five_seconds():
    assert one(case(metadata={"latency": 4.9}), "latency").value == 1.0
    assert one(case(metadata={"latency": 5.1}), "latency").value == 0.0


# -- PII -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,kind", [
    ("write to jane.doe+x@mail.example.org today", "EMAIL_ADDRESS"),
    ("call +1 (415) 555-2671 now", "PHONE_NUMBER"),
    ("call 415-555-2671", "PHONE_NUMBER"),
    ("or 555-1234", "PHONE_NUMBER"),
    ("card 4111 1111 1111 1111", "CREDIT_CARD"),
    ("card 5500-0000-0000-0004", "CREDIT_CARD"),
    ("ssn 123-45-6789", "US_SSN"),
    ("iban GB82 WEST 1234 5698 7654 32", "IBAN_CODE"),
    ("iban DE89370400440532013000", "IBAN_CODE"),
    ("host 192.168.10.1", "IP_ADDRESS"),
    ("host 2001:db8::8a2e:370:7334", "IP_ADDRESS"),
])
def test_pii_positive(text, kind):
    assert kind in pii.detect(text)


@pytest.mark.parametrize("text", [
    "card 4111 1111 1111 1112",          # Luhn fails
    "ssn 000-12-3456 and 666-12-3456",   # invalid areas
    "iban GB82 WEST 1234 5698 7654 33",  # mod-97 fails
    "version 999.1.1.1 and 1.2.3",       # not IPv4
    "on 2020-01-15 between 1990-2000 at 10:30:45",  # dates, ranges, times
    "population 1,234,567 in 2024",
])
def test_pii_negative(text):
    assert pii.detect(text) == {}


def test_luhn_and_iban_checks():
    assert pii.luhn_ok("79927398713") and not pii.luhn_ok("79927398710")
    assert pii.iban_ok("GB82WEST12345698765432") and not pii.iban_ok("GB82WEST12345698765431")


def test_answer_and_context_contains_pii_metrics():
    c = case(response="Mail me at bob@example.com.", documents=("Clean text.", "Server at 10.0.0.7."))
    mv = one(c, "answer_contains_pii")
    assert mv.value == 1.0 and mv.details["found"] == {"EMAIL_ADDRESS": 1}
    assert "bob@example.com" not in str(mv.details)  # values are never echoed
    assert one(c, "answer_contains_pii", {"types": ["ip"]}).value == 0.0
    assert one(c, "context_contains_pii").details["found"] == {"IP_ADDRESS": 1}
    assert one(c, "context_contains_pii", {"types": ["email", "credit_card"]}).value == 0.0


def test_pii_type_the_llm_must_judge_is_skipped_without_llm_unless_found_offline():
    c = case(response="I am Bob.")
    mv = one(c, "answer_contains_pii", {"types": ["email", "PERSON"]})
    assert mv.value is None and "needs an LLM" in mv.skipped and "PERSON" in mv.skipped
    c2 = case(response="I am Bob, bob@example.com.")
    mv2 = one(c2, "answer_contains_pii", {"types": ["email", "PERSON"]})
    assert mv2.value == 1.0 and "llm_skipped" in mv2.details


# -- entities ------------------------------------------------------------------------------------

GT = ("The Qutub Minar is a red sandstone and marble minaret located in Delhi, India. It was "
      "commissioned by Qutb-ud-din Aibak in 1192 to celebrate his victory over the last Hindu kingdom "
      "of Delhi.")
HIGH = ("The Qutub Minar is a remarkable architectural structure in Delhi, India, built by "
        "Qutb-ud-din Aibak in 1192. This towering minaret is made of red sandstone and marble.")
LOW = ("The Qutub Minar is a famous historical monument in India. It stands tall as a UNESCO World "
       "Heritage Site and is visited by numerous tourists each year.")


def test_offline_entities():
    assert extract_entities(GT) == ["qutub minar", "delhi", "india", "qutb-ud-din aibak", "1192", "hindu"]
    assert "unesco world heritage site" in extract_entities(LOW)


def test_context_entity_recall_offline_hand_computed():
    hi = one(case(ground_truth=GT, documents=(HIGH,)), "context_entity_recall")
    lo = one(case(ground_truth=GT, documents=(LOW,)), "context_entity_recall")
    assert hi.value == pytest.approx(5 / 6) and hi.details["missing"] == ["hindu"]
    assert lo.value == pytest.approx(2 / 6)
    assert hi.details["extractor"] == "offline"
    mv = one(case(ground_truth="it was fine."), "context_entity_recall")
    assert mv.value is None and "no entity" in mv.skipped


def test_context_entity_recall_llm_extractor_without_llm_is_skipped():
    mv = one(case(ground_truth=GT), "context_entity_recall", {"extractor": "llm"})
    assert mv.value is None and "needs an LLM" in mv.skipped


# -- embeddings (fake encoder: the formulas, not the model) --------------------------------------

@pytest.fixture
def fake_encoder(monkeypatch):
    table: dict[str, list[float]] = {}

    def encode(texts):
        rows = []
        for t in texts:
            v = np.asarray(table.get(t, [0.0, 0.0, 1.0]), dtype=np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.vstack(rows)

    monkeypatch.setattr(embed, "encode", encode)
    return table


def test_answer_semantic_similarity_is_cosine(fake_encoder):
    fake_encoder.update({"R": [1.0, 0.0, 0.0], "G": [0.6, 0.8, 0.0], "N": [-1.0, 0.0, 0.0]})
    assert one(case(response="R", ground_truth="G"), "answer_semantic_similarity").value == pytest.approx(0.6)
    # negative cosine counts as 0 (range [0, 1])
    assert one(case(response="R", ground_truth="N"), "answer_semantic_similarity").value == 0.0


def test_answer_correctness_similarity_only_needs_no_llm(fake_encoder):
    fake_encoder.update({"R": [1.0, 0.0, 0.0], "G": [0.6, 0.8, 0.0]})
    c = case(response="R", ground_truth="G")
    assert one(c, "ragas_answer_correctness", {"weights": [0, 1]}).value == pytest.approx(0.6)
    mv = one(c, "ragas_answer_correctness", {"weights": [0, 1], "threshold": 0.5})
    assert mv.value == 1.0 and mv.details["raw_score"] == pytest.approx(0.6)
    mv = one(c, "ragas_answer_correctness")  # default weights need the LLM for the factual part
    assert mv.value is None and "needs an LLM" in mv.skipped


def test_embedding_failure_is_a_skip_not_a_crash(monkeypatch):
    def boom(texts):
        raise OSError("model files missing")

    monkeypatch.setattr(embed, "encode", boom)
    mv = one(case(), "answer_semantic_similarity")
    assert mv.value is None and "embeddings unavailable" in mv.skipped and "model files missing" in mv.skipped


# -- aggregates ----------------------------------------------------------------------------------

def test_overall_score_orients_lower_is_better_metrics():
    c = case(response="Agra. Mail a@b.co", ground_truth="Agra", metadata={"latency": 1})
    res = run([c], ["contains_text", "answer_contains_pii", "latency", "response_length", "overall_score"],
              {"response_length": {"max": 5}})[0]
    # contains_text 1, PII 1 (-> 0), latency 1, response_length 0  => (1 + 0 + 1 + 0) / 4
    assert res["overall_score"].value == pytest.approx(0.5)
    assert res["overall_score"].details["components"]["answer_contains_pii"] == 0.0


def test_overall_score_leaves_out_skipped_and_lists_them():
    c = case(ground_truth=None)
    res = run([c], ["contains_text", "regex", "overall_score"], {"regex": {"pattern": "Agra"}})[0]
    assert res["overall_score"].value == 1.0
    assert "contains_text" in res["overall_score"].details["not_included"]
    res = run([c], ["contains_text", "overall_score"])[0]
    assert res["overall_score"].value is None and "none of contains_text" in res["overall_score"].skipped
    res = run([c], ["overall_score"])[0]
    assert "no other tonic metric" in res["overall_score"].skipped


def test_ragas_score_is_harmonic_mean(fake_encoder):
    fake_encoder.update({"R": [1.0, 0.0, 0.0], "G": [0.6, 0.8, 0.0]})
    c = case(response="R", ground_truth="It is in Delhi and Agra.", documents=("Agra is here.",))
    # offline entities of the ground truth: delhi, agra -> recall 1/2
    fake_encoder["It is in Delhi and Agra."] = [0.6, 0.8, 0.0]
    res = run([c], ["context_entity_recall", "answer_semantic_similarity", "ragas_score"])[0]
    assert res["context_entity_recall"].value == pytest.approx(0.5)
    assert res["answer_semantic_similarity"].value == pytest.approx(0.6)
    assert res["ragas_score"].value == pytest.approx(2 / (1 / 0.5 + 1 / 0.6))


def test_aggregate_params_must_name_selected_metrics():
    with pytest.raises(UnknownMetricError, match="not selected"):
        validate_metric_names(["ragas_score"], {"ragas_score": {"metrics": ["faithfulness"]}})
    with pytest.raises(MetricParamError, match="only name ragas"):
        validate_metric_names(["ragas_score", "latency"], {"ragas_score": {"metrics": ["latency"]}})


# -- binary callback ---------------------------------------------------------------------------------

def test_binary_callback():
    c = case()
    assert one(c, "binary", {"callback": lambda tc: "Agra" in tc.response}).value == 1.0
    assert one(c, "binary", {"callback": lambda tc: np.bool_(False)}).value == 0.0
    assert "raised ZeroDivisionError" in one(c, "binary", {"callback": lambda tc: 1 / 0}).skipped
    assert "true/false" in one(c, "binary", {"callback": lambda tc: "yes"}).skipped
    assert "no callback" in one(c, "binary").skipped
    with pytest.raises(MetricParamError, match="callable"):
        validate_metric_names(["binary"], {"binary": {"callback": 3}})


# -- interface rules ---------------------------------------------------------------------------------

def test_every_requested_metric_appears_for_every_case_without_llm(fake_encoder):
    names = [d["name"] for d in list_metrics() if d["name"] != "binary"]
    cases = [case(), case(id="d", documents=(), ground_truth=None, response=" ")]
    out = run(cases, names, {"regex": {"pattern": "x"}})
    for per_case in out:
        for n in names:
            mv = per_case[n]
            assert (mv.value is None) != (mv.skipped is None), n
            if mv.value is not None:
                assert np.isfinite(mv.value)
    # the second case lacks documents / ground truth / response: skipped with the missing inputs
    assert out[1]["faithfulness"].skipped == "missing input: response, documents"
    assert out[1]["context_length"].skipped == "missing input: documents"
    # an LLM metric with no LLM configured
    assert "needs an LLM" in out[0]["faithfulness"].skipped


def test_unknown_names_list_the_valid_ones_and_are_value_errors():
    with pytest.raises(ValueError) as ei:
        validate_metric_names(["faithfulness", "faithfullness"])
    msg = str(ei.value)
    assert "'faithfullness'" in msg and "answer_relevancy" in msg and "overall_score" in msg
    assert isinstance(ei.value, RegistryError)


def test_duplicates_in_a_request_are_collapsed_but_registry_duplicates_are_errors():
    assert validate_metric_names(["latency", "latency", "regex"], {"regex": {"pattern": "a"}}) == ["latency", "regex"]
    m = METRICS.get("latency")
    with pytest.raises(RegistryError, match="already registered"):
        METRICS.register("latency", m)
    reg: Registry[Metric] = Registry("metric")
    reg.register("x", m)
    with pytest.raises(RegistryError):
        reg.register("x", m)


def test_bad_params_are_reported_early():
    with pytest.raises(MetricParamError, match="unknown parameter"):
        validate_metric_names(["latency"], {"latency": {"target": 2}})
    with pytest.raises(MetricParamError, match="odd"):
        validate_metric_names(["aspect_critique"], {"aspect_critique": {"strictness": 2}})
    with pytest.raises(MetricParamError, match="unknown aspect"):
        validate_metric_names(["aspect_critique"], {"aspect_critique": {"aspects": ["rudeness"]}})
    with pytest.raises(MetricParamError, match="name"):
        validate_metric_names(["aspect_critique"], {"aspect_critique": {"custom": [{"definition": "x"}]}})
    with pytest.raises(MetricParamError, match="weights"):
        validate_metric_names(["ragas_answer_correctness"], {"ragas_answer_correctness": {"weights": [1]}})


def test_list_metrics_declarations():
    decls = list_metrics()
    names = [d["name"] for d in decls]
    assert len(names) == len(set(names))
    required = {"name", "family", "inputs", "range", "direction", "needs_llm", "needs_embeddings",
                "llm_calls_per_case", "description"}
    for d in decls:
        assert required <= set(d)
        assert d["family"] in ("ragas", "tonic")
        assert set(d["inputs"]) <= {"question", "response", "documents", "ground_truth", "latency"}
        assert d["direction"] in ("higher", "lower")
        assert isinstance(d["llm_calls_per_case"], int)
        assert d["needs_llm"] == (d["llm_calls_per_case"] > 0) or d["name"] in (
            "context_entity_recall",)
    by = {d["name"]: d for d in decls}
    for n in ("faithfulness", "answer_relevancy", "context_precision", "context_recall", "context_relevancy",
              "context_entity_recall", "answer_semantic_similarity", "ragas_answer_correctness", "aspect_critique",
              "ragas_score", "answer_consistency", "answer_consistency_binary", "answer_similarity",
              "retrieval_precision", "augmentation_precision", "augmentation_accuracy", "answer_match",
              "contains_text", "regex", "response_length", "context_length", "latency", "duplication",
              "hate_speech_content", "answer_contains_pii", "context_contains_pii", "binary", "overall_score"):
        assert n in by, n
    assert by["answer_similarity"]["range"] == [0.0, 5.0]
    assert by["answer_contains_pii"]["direction"] == "lower"
    assert by["faithfulness"]["llm_calls_per_case"] == 2 and by["context_precision"]["llm_calls_per_case"] == 1


def test_importing_families_is_light():
    import subprocess
    import sys

    code = ("import sys, evaluators.families as f; f.list_metrics(); "
            "bad=[m for m in ('torch','sentence_transformers','openai','groq') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_pipeline_rejects_unknown_metric_before_labeling():
    from evaluators import evaluate_batch

    with pytest.raises(ValueError, match="valid:"):
        evaluate_batch([{"question": "q", "response": "r", "documents": ["d"]}], "trace",
                       metrics=["nope"])


def test_answer_semantic_similarity_with_the_embedded_model():
    pytest.importorskip("evaluators.encoder.embeddings")
    gt = "C.V. Raman's discovery of the Raman effect revolutionized our understanding of light scattering."
    close = "Raman's groundbreaking discovery of the Raman effect transformed our comprehension of light scattering."
    far = "Jagadish Chandra Bose's work on radio waves significantly advanced early wireless communication research."
    out = run([case(response=close, ground_truth=gt), case(response=far, ground_truth=gt)],
              ["answer_semantic_similarity"])
    hi, lo = (o["answer_semantic_similarity"].value for o in out)
    assert 0.0 <= lo < hi <= 1.0 and hi > 0.8 and hi - lo > 0.3


def test_metric_docs_are_in_sync_with_the_declarations():
    """README's TRACE table and docs/metrics.md are generated from the declarations."""
    from pathlib import Path

    from evaluators.families.docs import END, START, TRACE_END, TRACE_START, reference_section, trace_section

    root = Path(__file__).resolve().parents[1]
    fix = "run: python -m evaluators.families.docs"
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert TRACE_START in readme and TRACE_END in readme
    assert TRACE_START + readme.split(TRACE_START, 1)[1].split(TRACE_END, 1)[0] + TRACE_END == trace_section(), fix
    assert START not in readme, "the full metric reference lives in docs/metrics.md"
    ref = (root / "docs" / "metrics.md").read_text(encoding="utf-8")
    section = START + ref.split(START, 1)[1].split(END, 1)[0] + END
    assert section == reference_section(), fix
    for d in list_metrics(include_trace=True):
        assert f"| `{d['name']}` |" in section
    for m in ("context_relevance", "context_utilization", "completeness", "adherence", "expected_adherence",
              "overall_supported"):
        assert f"| `{m}` |" in trace_section()


def test_every_metric_declares_formula_range_direction_and_example():
    decls = list_metrics(include_trace=True)
    assert {"expected_adherence", "overall_supported", "faithfulness", "regex"} <= {d["name"] for d in decls}
    for d in decls:
        assert d["formula"].strip() and d["example"].strip() and d["description"].strip(), d["name"]
        assert d["direction"] in ("higher", "lower") and len(d["range"]) == 2, d["name"]
        assert "→" in d["example"], d["name"]  # inputs -> value


def test_library_run_with_binary_callback_exports_json():
    import json

    from evaluators import evaluate_batch
    from evaluators.export import to_json

    cb = lambda tc: "Agra" in tc.response  # noqa: E731
    run_ = evaluate_batch([case(), case(id="d", response="Somewhere else.")], "trace",
                          metrics=["binary", "contains_text"],
                          metric_params={"binary": {"callback": cb}, "contains_text": {"text": "agra"}})
    assert [r.metrics["binary"].value for r in run_.results] == [1.0, 0.0]
    d = json.loads(to_json(run_))
    assert d["binary"] == 0.5 and d["contains_text"] == 0.5
    assert d["settings"]["metric_params"]["binary"]["callback"].startswith("<callable")


def test_every_declared_parameter_is_documented():
    from evaluators.families.docs import PARAM_DOCS

    for d in list_metrics():
        for p in d["params"]:
            assert f"`{p}`" in PARAM_DOCS.get(d["name"], ""), (d["name"], p)


def test_params_for_an_unknown_metric_are_a_typo_error():
    with pytest.raises(UnknownMetricError, match="'regx'"):
        validate_metric_names(["regex"], {"regex": {"pattern": "a"}, "regx": {"pattern": "b"}})
    # params of a known but unselected metric are ignored
    assert validate_metric_names(["latency"], {"regex": {"pattern": "("}}) == ["latency"]

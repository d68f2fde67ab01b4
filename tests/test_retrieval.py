"""Retrieval metrics: matching by id and by text, the per-run decision (also across chunks and
sessions), skip reasons, and the metrics through evaluate / the CLI gate / compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluators.cli import main
from evaluators.options import EvalOptions
from evaluators.pipeline import evaluate_batch
from evaluators.resultfiles import evaluate_file
from evaluators.retrieval import (
    NO_REFERENCES,
    by_text,
    case_metrics,
    metric_names,
    overlap,
    parse_k,
    plan_run,
    score_cases,
    shingles,
    template,
)
from evaluators.types import TestCase

SKY = "The sky is blue on a clear day because air scatters blue light more than red light."
GRASS = "Grass is green because its cells hold chlorophyll, which reflects green light."
SEA = "The sea looks blue for much the same reason, and because water absorbs red light."


def case(cid: str = "q", docs=(SKY, GRASS), ids=("d1", "d2"), **kw) -> TestCase:
    return TestCase(id=cid, question="Why is the sky blue?", response="Air scatters blue light.",
                    documents=tuple(docs), document_ids=tuple(ids), **kw)


def values(metrics) -> dict[str, float | None]:
    return {n: mv.value for n, mv in metrics.items()}


# ---------------------------------------------------------------------------------------- by id

def test_by_id_values_details_and_the_names_in_order():
    got = case_metrics(case(ids=("d7", "d1"), reference_context_ids=("d1", "d4")), "id", (1, 3))
    assert list(got) == metric_names((1, 3)) == ["hit@1", "hit@3", "precision@1", "precision@3", "recall@1",
                                                 "recall@3", "mrr", "map@1", "map@3", "ndcg@1", "ndcg@3"]
    v = values(got)
    assert (v["hit@1"], v["hit@3"], v["recall@3"], v["mrr"], v["precision@3"]) == (0.0, 1.0, 0.5, 0.5, 1 / 3)
    assert {mv.family for mv in got.values()} == {"retrieval"}
    assert got["mrr"].details == {"match": "id", "relevant_ranks": [2], "num_relevant": 2, "num_retrieved": 2}


def test_graded_relevance_and_a_repeated_id_counted_once():
    c = case(docs=(SKY, SKY, GRASS), ids=("d1", "d1", "d2"), reference_context_relevance={"d1": 1, "d2": 3, "d9": 0})
    got = case_metrics(c, "id", (3,))
    v = values(got)
    assert v["precision@3"] == pytest.approx(2 / 3) and v["recall@3"] == 1.0  # d1 once, d2; d9 (grade 0) not relevant
    ideal = 3 + 1 / 1.584962500721156
    assert v["ndcg@3"] == pytest.approx((1 + 3 / 2) / ideal)
    assert got["mrr"].details["repeated_ranks"] == [2]


def test_an_app_that_retrieved_nothing_scores_zero_unless_its_call_failed():
    empty = TestCase(id="e", question="q?", response="", reference_context_ids=("d1",))
    assert set(values(case_metrics(empty, "id", (5,))).values()) == {0.0}
    failed = TestCase(id="f", question="q?", response="", reference_context_ids=("d1",),
                      metadata={"metadata": {"error": "HTTP 503 after 3 attempts"}})
    got = case_metrics(failed, "id", (5,))
    assert all(mv.value is None for mv in got.values())
    assert "the app call failed" in got["mrr"].skipped and "HTTP 503" in got["mrr"].skipped


@pytest.mark.parametrize("kw,mode,words", [
    ({}, "id", NO_REFERENCES),
    ({"reference_context_relevance": {"d1": 0}}, "id", "every grade in reference_context_relevance is 0"),
    ({"reference_contexts": (SKY,)}, "id", "only as texts (reference_contexts): match by text"),
    ({"reference_context_ids": ("d1",)}, "text", "gives no reference_contexts"),
])
def test_a_case_that_cannot_be_scored_is_skipped_with_the_reason_never_zero(kw, mode, words):
    got = case_metrics(case(**kw), mode, (1, 5))
    assert all(mv.value is None and words in mv.skipped for mv in got.values())


def test_references_by_id_but_documents_without_ids_and_no_texts_say_what_to_give():
    c = TestCase(id="x", question="q?", response="r", documents=(SKY,), reference_context_ids=("d1",))
    reason = case_metrics(c, "id", (5,))["recall@5"].skipped
    assert "retrieved documents carry no ids" in reason and "document_ids" in reason and "{id, text}" in reason
    assert "reference_contexts" in reason


# -------------------------------------------------------------------------------------- by text

def test_text_overlap_ignores_case_spacing_and_punctuation_and_counts_containment_both_ways():
    ref = shingles(SKY)
    assert overlap(shingles("  THE sky is blue — on a\nclear day, because AIR scatters blue light more than red "
                            "light!!"), ref) == 1.0
    assert overlap(shingles(f"Intro sentence here. {SKY} And an unrelated tail about {GRASS}"), ref) == 1.0
    assert overlap(shingles("because air scatters blue light more"), ref) == 1.0  # a piece inside the reference
    assert overlap(shingles("Air disperses short wavelengths, so the daytime sky appears blue."), ref) == 0.0
    assert overlap(shingles("blue"), ref) == 0.0 and overlap(shingles("blue"), shingles("Blue.")) == 1.0


def test_partial_overlap_matches_from_half_of_the_shorter_text():
    w = SKY.split()
    half = " ".join(w[: len(w) // 2 + 2]) + " and then something else entirely different here"
    third = " ".join(w[: len(w) // 3]) + " then many other words that are not in the reference at all today"
    refs = [("r1", SKY, 1)]
    assert by_text([half], refs).grades == (1,)
    assert by_text([third], refs).grades == (0,)


def test_by_text_one_credit_per_reference_best_grade_first():
    refs = [("r1", SKY, 1), ("r2", GRASS, 2)]
    rk = by_text([f"{SKY} {GRASS}", GRASS, SEA, SKY], refs)
    assert rk.grades == (2, 0, 0, 1) and rk.matched == ("r2", "r2", None, "r1") and rk.repeats == (2,)
    c = case(docs=(SEA, f"Intro. {SKY}"), ids=("app-9", "app-3"), reference_contexts=(SKY, GRASS),
             reference_context_ids=("file.pdf#1", "file.pdf#2"))
    v = values(case_metrics(c, "text", (1, 2)))
    assert (v["hit@1"], v["hit@2"], v["recall@2"], v["mrr"]) == (0.0, 1.0, 0.5, 0.5)


# ----------------------------------------------------------------------------- the run's decision

def test_auto_is_id_when_any_retrieved_id_meets_a_reference_id_else_text():
    hit = case("a", ids=("d1", "d2"), reference_context_ids=("d2",))
    miss = case("b", ids=("app-1", "app-2"), reference_context_ids=("file.pdf#3",), reference_contexts=(GRASS,))
    assert plan_run([miss, hit]).match == "id"
    assert plan_run([miss]).match == "text"
    assert plan_run([case("c", reference_context_ids=("zz",))]).match == "id"  # nothing to match by text
    assert "check that the app's ids" in plan_run([case("c", reference_context_ids=("zz",))]).reason
    assert plan_run([case("d")]).match == "none"
    assert plan_run([miss], "id").match == "id"


def test_an_explicit_setting_beats_the_cases_own_which_beats_the_run():
    own = case("a", ids=("app-1", "app-2"), reference_context_ids=("d2",), reference_contexts=(GRASS,),
               metadata={"metadata": {"retrieval_match": "text"}})
    other = case("b", ids=("d1", "d2"), reference_context_ids=("d2",))
    auto = score_cases([own, other], EvalOptions())
    assert auto[0]["recall@3"].value == 1.0 and auto[0]["mrr"].details["match"] == "text"
    assert auto[1]["mrr"].details["match"] == "id"
    forced = score_cases([own, other], EvalOptions(retrieval_match="id"))
    assert forced[0]["recall@3"].value == 0.0 and forced[0]["mrr"].details["match"] == "id"


def test_a_plain_run_gets_no_retrieval_metric_and_a_case_without_references_in_a_run_with_some_is_skipped():
    assert score_cases([case("a"), case("b")], EvalOptions()) == [{}, {}]
    got = score_cases([case("a"), case("b", reference_context_ids=("d1",))], EvalOptions(retrieval_k=(5,)))
    assert got[0]["recall@5"].skipped == NO_REFERENCES and got[1]["recall@5"].value == 1.0


def test_names_and_k():
    assert parse_k("10, 5,5") == (5, 10) and parse_k([3]) == (3,)
    with pytest.raises(ValueError, match="positive whole numbers"):
        parse_k("0,5")
    assert (template("ndcg@5"), template("mrr"), template("ndcg@0"), template("adherence")) == ("ndcg@K", "mrr",
                                                                                                  None, None)


# ------------------------------------------------------------------------------- through the run

def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def rows(n: int, *, good: bool) -> list[dict]:
    """n questions over three passages: a good retriever ranks the reference first, a worse one third."""
    docs = {"d1": SKY, "d2": GRASS, "d3": SEA}
    out = []
    for i in range(n):
        ref = ["d1", "d2", "d3"][i % 3]
        order = [ref] + [d for d in docs if d != ref] if good else [d for d in docs if d != ref] + [ref]
        out.append({"id": f"q{i}", "question": f"Question {i} about colours?", "response": docs[ref],
                    "documents": [{"id": d, "text": docs[d]} for d in order], "reference_context_ids": [ref],
                    "metadata": {"target": "v", "latency_s": 0.2 + 0.01 * i, "attempts": 1,
                                 "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}})
    return out


def test_the_decision_is_made_over_the_whole_file_not_per_chunk(tmp_path, fake_method):
    """Row 1 alone would be matched by text (its ids never meet); row 2 shows the app's ids are the
    test set's, so the whole run — also row 1, in a chunk of its own — is matched by id."""
    first = {"id": "a", "question": "Why is the sky blue?", "response": SKY,
             "documents": [{"id": "x1", "text": SKY}], "reference_context_ids": ["d1"], "reference_contexts": [SKY]}
    second = {"id": "b", "question": "Why is grass green?", "response": GRASS,
              "documents": [{"id": "d2", "text": GRASS}], "reference_context_ids": ["d2"]}
    src = _write(tmp_path / "cases.jsonl", [first, second])
    fr = evaluate_file(src, "ui_fake", out=tmp_path / "r.jsonl", chunk_rows=1)
    assert fr.top["settings"]["retrieval_run"]["match"] == "id"
    assert fr.top["recall@5"] == 0.5 and fr.tally.values("recall@5") == [0.0, 1.0]
    fr = evaluate_file(src, "ui_fake", out=tmp_path / "t.jsonl", chunk_rows=1,
                       options=EvalOptions(retrieval_match="text"))
    assert fr.tally.values("recall@5")[0] == 1.0  # by text (row 2 then has no reference text: skipped)
    assert fr.top["settings"]["retrieval_run"] == {"match": "text", "reason": "set explicitly (match: text)"}


def test_a_file_without_reference_columns_is_pre_scanned_only_for_citations(tmp_path, fake_method, monkeypatch):
    """No reference column: retrieval needs no pre-scan; the one pre-scan (whether some response cites,
    ``citations.plan``) stops at the first response with a marker."""
    from evaluators.resultfiles import run as run_mod

    opened: list = []
    real = run_mod.open_cases

    def counting(*a, **k):
        s = real(*a, **k)
        opened.append(s)
        return s

    monkeypatch.setattr(run_mod, "open_cases", counting)
    rows_ = [{"id": f"a{i}", "question": "q?", "response": SKY + (" [1]" if i == 0 else ""), "documents": [SKY]}
             for i in range(6)]
    src = _write(tmp_path / "plain.jsonl", rows_)
    fr = evaluate_file(src, "ui_fake", out=tmp_path / "r.json", chunk_rows=2)
    main_reader, pre_scan = opened  # the pre-scan read the first chunk only (it cites)
    assert pre_scan.rows_read == 2 and main_reader.rows_read == 6
    assert fr.top["settings"]["retrieval_run"]["match"] == "none"
    assert fr.top["settings"]["citation_run"]["cited"] is True
    assert not any("@" in k for k in fr.top)
    opened.clear()
    fr = evaluate_file(src, "ui_fake", out=tmp_path / "s.json", chunk_rows=2, options=EvalOptions(
        citation_run={"cited": False, "reason": "decided before"}))  # a resumed run's own decision
    assert len(opened) == 1 and fr.top["settings"]["citation_run"]["cited"] is False


def test_evaluate_batch_gives_values_means_and_intervals(fake_method):
    cs = [case(str(i), ids=("d1", "d2") if i % 2 else ("d2", "d1"), reference_context_ids=("d1",)) for i in range(8)]
    run = evaluate_batch(cs, "ui_fake")
    assert run.means()["mrr"] == 0.75 and run.means()["hit@1"] == 0.5
    assert run.settings["retrieval_run"]["match"] == "id"
    from evaluators.export import to_json_dict

    iv = to_json_dict(run)["intervals"]
    assert iv["hit@1"]["method"] == "wilson" and iv["mrr"]["low"] < 0.75 < iv["mrr"]["high"]


def test_cli_evaluate_writes_the_metrics_and_gates_on_them(tmp_path, fake_method, capsys):
    src = _write(tmp_path / "cases.jsonl", rows(9, good=False))
    out = tmp_path / "r.json"
    rc = main(["evaluate", str(src), "--method", "ui_fake", "--out", str(out), "--no-progress", "--k", "1,3",
               "--fail-under", "recall@3=0.9", "--fail-under", "ndcg@1=0.5"])
    printed = capsys.readouterr()
    assert rc == 1 and "FAILED ndcg@1" in printed.out and "recall@3" not in printed.out.split("FAILED", 1)[1]
    data = json.loads(out.read_text())
    assert data["ndcg@1"] == 0.0 and data["recall@3"] == 1.0 and data["mrr"] == pytest.approx(1 / 3)
    assert "ndcg@5" not in data and data["intervals"]["ndcg@3"]["n"] == 9
    case0 = data["detailed_results"][0]
    assert case0["metrics"]["mrr"] == pytest.approx(1 / 3)
    assert case0["metric_details"]["mrr"]["details"]["match"] == "id"


@pytest.mark.parametrize("argv,words", [
    (["--fail-under", "ndcg@7=0.5"], "ndcg@7: a cutoff not in --k 1,3,5,10 (add it)"),
    (["--k", "0,3"], "--k '0,3': retrieval_k: expected positive whole numbers"),
    (["--metrics", "ndcg@5"], "retrieval metrics are computed for every case with reference passages"),
])
def test_cli_bad_retrieval_options_are_usage_errors(tmp_path, fake_method, capsys, argv, words):
    src = _write(tmp_path / "cases.jsonl", rows(3, good=True))
    assert main(["evaluate", str(src), "--method", "ui_fake", "--no-progress", *argv]) == 2
    assert words in capsys.readouterr().err


def test_compare_takes_retrieval_metrics_and_the_gate_trips_when_b_is_worse(tmp_path, fake_method, capsys):
    paths = {}
    for name, good in (("good", True), ("worse", False)):
        src = _write(tmp_path / f"{name}.jsonl", rows(30, good=good))
        paths[name] = tmp_path / f"{name}.json"
        assert main(["evaluate", str(src), "--method", "ui_fake", "--out", str(paths[name]), "--no-progress"]) == 0
    capsys.readouterr()
    out = tmp_path / "cmp.json"
    rc = main(["compare", str(paths["good"]), str(paths["worse"]), "--metric", "ndcg@5", "--json", str(out),
               "--fail-on-regression", "ndcg@5=0.02"])
    printed = capsys.readouterr()
    assert rc == 1
    assert "worse is worse than good on ndcg@5 by 0.50" in printed.out
    assert "REGRESSION: worse is worse than good on ndcg@5 by more than 0.02" in printed.err
    data = json.loads(out.read_text())
    assert data["metric"] == "ndcg@5" and data["pairs"][0]["verdict"] == "a_better"
    assert main(["compare", str(paths["good"]), str(paths["good"]), "--fail-on-regression", "recall@1=0.02"]) == 0
    capsys.readouterr()
    assert main(["compare", str(paths["good"]), str(paths["worse"])]) == 0  # default: retrieval as one table
    text = capsys.readouterr().out
    table = text[text.index("Retrieval metrics, worse against good (30 paired questions"):]
    assert "  hit@3" in table and "no difference" in table.split("hit@3", 1)[1].split("\n", 1)[0]
    ndcg = table.split("  ndcg@5", 1)[1].split("\n", 1)[0].split()
    assert ndcg[:3] == ["1.00", "0.50", "-0.50"] and ndcg[-1] == "worse"
    assert "on ndcg@5" not in text  # not one sentence per retrieval metric


def test_a_background_job_decides_over_all_its_cases_before_its_chunks(tmp_path, fake_method):
    from evaluators.jobs import JobQueue, options_from_settings
    from evaluators.store import RunStore

    first = case("a", docs=(SKY,), ids=("x1",), reference_context_ids=("d1",), reference_contexts=(SKY,))
    second = case("b", docs=(GRASS,), ids=("d2",), reference_context_ids=("d2",))
    q = JobQueue(RunStore(tmp_path / "runs.sqlite3"))
    try:
        job = q.submit("o", [first, second], "ui_fake", EvalOptions(), chunk_size=1)
        assert q.wait(job.id, 60) == "finished"
        run = q.store.load(job.id, owner="o")
    finally:
        q.wait_idle(30)
    assert [r.value("recall@5") for r in run.results] == [0.0, 1.0]  # by id, chunk 1 too
    assert run.settings["retrieval_run"]["match"] == "id"
    assert options_from_settings(run.settings).retrieval_run.match == "id"  # a resumed run keeps it


def test_a_resumed_run_matches_as_its_first_session_did(tmp_path, fake_method):
    """Session 1 stops after row 1 (which alone would be matched by text); --resume decides over the
    whole file again: by id, for every case of both sessions."""
    first = {"id": "a", "question": "Why is the sky blue?", "response": SKY,
             "documents": [{"id": "x1", "text": SKY}], "reference_context_ids": ["d1"], "reference_contexts": [SKY]}
    rows_ = [first] + [{"id": f"b{i}", "question": f"Why is grass green, {i}?", "response": GRASS,
                        "documents": [{"id": "d2", "text": GRASS}], "reference_context_ids": ["d2"]} for i in range(3)]
    src = _write(tmp_path / "cases.jsonl", rows_)
    out = tmp_path / "r.jsonl"
    seen: list = []
    fr = evaluate_file(src, "ui_fake", out=out, chunk_rows=1, on_case=seen.append, should_stop=lambda: bool(seen))
    assert fr.cancelled and fr.tally.num_cases == 1
    fr = evaluate_file(src, "ui_fake", out=out, chunk_rows=1, resume=True)
    assert fr.resumed == 1 and fr.tally.values("recall@5") == [0.0, 1.0, 1.0, 1.0]
    from evaluators.resultfiles import iter_case_dicts

    assert {d["metric_details"]["mrr"]["details"]["match"] for d in iter_case_dicts(out)} == {"id"}

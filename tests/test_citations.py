"""Issue 55: the answer's own citations — every marker style, what is no marker, the documents a
marker names, ALCE's citation recall / precision per sentence, the metrics of a run, the gate."""

from __future__ import annotations

import pytest

from evaluators.citations import case_values, find, judge, strip
from evaluators.types import SentenceLabels, SentenceSupport

DOCS = ("WLUR history\nIn July 2001, direction of WLUR is transferred from the journalism department.",
        "Activities\nSince 2001 the station is a strictly extracurricular activity.",
        "Weather\nIt rained a lot in Lexington in 2019.")


def refs(text: str, docs=DOCS, ids=()) -> list[list[int | None]]:
    return [[r.doc for r in m.refs] for m in find(text, docs, ids)]


@pytest.mark.parametrize("text, want", [
    ("It moved in 2001 [1].", [[0]]),
    ("It moved in 2001 [1, 3].", [[0, 2]]),
    ("It moved in 2001 [1][3].", [[0], [2]]),
    ("It moved in 2001 [1-3].", [[0, 1, 2]]),
    ("It moved in 2001 [doc2].", [[1]]),
    ("It moved in 2001 [Document 2].", [[1]]),
    ("It moved in 2001 [source 3].", [[2]]),
    ("It moved in 2001.^1", [[0]]),
    ("It moved in 2001【1】.", [[0]]),
    ("It moved in 2001【2†source】.", [[1]]),
    ("It moved in 2001 (Source 2).", [[1]]),
    ("It moved in 2001 (Sources 1, 3).", [[0, 2]]),
])
def test_each_marker_style_names_its_documents_by_1_based_position(text, want):
    assert refs(text) == want
    assert "[" not in strip(text, DOCS) and "【" not in strip(text, DOCS) and "^" not in strip(text, DOCS)
    assert strip(text, DOCS).startswith("It moved in 2001")


def test_footnotes_name_documents_by_their_definition_or_number():
    text = "Students took over in 2001[^a]. It is extracurricular.[^2]\n\n[^a]: Activities\n[^2]: WLUR history"
    assert refs(text) == [[1], [0]]  # by title: the definitions name the documents
    assert refs("Took over[^1].\n\n[^1]: see the first source") == [[0]]  # no title matches: its number


def test_markers_naming_a_document_id_or_title():
    ids = ("kb-17", "policy.pdf", "doc2")
    assert refs("Refunds take 5 days [policy.pdf].", ids=ids) == [[1]]
    assert refs("It moved [Weather].") == [[2]]  # the document's title line
    assert refs("It moved [doc2].", ids=ids) == [[2]]  # an id wins over the position


def test_out_of_range_duplicate_and_non_markers():
    assert refs("It moved [7].") == [[None]]  # a citation of a document that does not exist
    assert refs("It moved [1][1] and [1, 1].") == [[0], [0], [0]]  # a marker names a document once
    text = "It moved [1][1] and [1, 1]."
    labels = _labels([SentenceSupport(key="a", supporting_keys=("0b",), fully_supported=True)])
    (got,) = judge(text, DOCS, labels, [(0, len(text))])
    assert got.cited == [0] and got.citations == 1  # ... and a sentence cites it once
    assert refs("In [2020] it rained; in [1990-2020] too.") == []  # years, a span of years
    assert refs("A value [150].") == []
    assert refs("Index arr_x[1] and a.b[2] and f(x)[0].") == []  # indexes
    assert refs("Use `x[1]` here.\n\n```python\nprint(a[2])\n```\nok") == []  # code
    assert refs("E = mc^2 and 10^3 grows.") == []  # exponents
    assert refs("See [the manual](http://x.org/m).") == []  # a link's text
    assert refs("It moved [1](http://x.org/1).") == [[0]]  # a numbered link is a citation
    assert strip("It moved [1](http://x.org/1).", DOCS) == "It moved."
    assert strip("In [2020] it rained [1].", DOCS) == "In [2020] it rained."


def _labels(sents: list[SentenceSupport], part_docs=None) -> SentenceLabels:
    keys = ("0a", "0b", "1a", "1b", "2a", "2b")
    return SentenceLabels(method="trace", document_keys=keys, sentences=tuple(sents),
                          extra={"part_docs": part_docs} if part_docs is not None else {})


def _spans(text: str, pieces: list[str]) -> list[tuple[int, int]]:
    out, cur = [], 0
    for p in pieces:
        i = text.index(p, cur)
        out.append((i, i + len(p)))
        cur = i + len(p)
    return out


def test_alce_recall_and_precision_per_sentence_with_part_evidence():
    text = "WLUR moved to students in 2001 [1][3]. It is extracurricular [2]. It has 100 volunteers. Done [1][2]."
    pieces = ["WLUR moved to students in 2001 [1][3].", "It is extracurricular [2].", "It has 100 volunteers.",
              "Done [1][2]."]
    labels = _labels([
        SentenceSupport(key="a", supporting_keys=("0b",), fully_supported=True),
        SentenceSupport(key="b", supporting_keys=("1b",), fully_supported=True),
        SentenceSupport(key="c", supporting_keys=(), fully_supported=False),
        SentenceSupport(key="d", supporting_keys=("0b", "1b"), fully_supported=True),
    ], part_docs={"a": [[0], [0, 1], []], "b": [[1]], "c": [[]], "d": [[0], [1]]})
    got = judge(text, DOCS, labels, _spans(text, pieces))
    assert [s.supported for s in got] == [True, True, False, True]
    assert got[0].irrelevant == [2]  # document 3 adds nothing, document 1 alone suffices
    assert got[3].irrelevant == []  # each of the two carries a part the other lacks
    values, details = case_values(got)
    assert values["citation_recall"] == pytest.approx(3 / 4)
    assert values["citation_precision"] == pytest.approx(4 / 5)
    assert values["uncited_claims"] == pytest.approx(1 / 4)
    assert details["sentences"]["a"]["irrelevant"] == [3]


def test_a_citation_of_a_missing_document_supports_nothing_and_is_reported():
    text = "It moved in 2001 [7]. It is extracurricular [2][9]."
    labels = _labels([SentenceSupport(key="a", supporting_keys=("0b",), fully_supported=True),
                      SentenceSupport(key="b", supporting_keys=("1b",), fully_supported=True)],
                     part_docs={"a": [[0]], "b": [[1]]})
    got = judge(text, DOCS, labels, _spans(text, ["It moved in 2001 [7].", "It is extracurricular [2][9]."]))
    values, details = case_values(got)
    assert values["citation_recall"] == 0.5 and values["citation_precision"] == pytest.approx(1 / 3)
    assert details["missing_documents"] == ["7", "9"]


def test_without_part_evidence_the_supporting_keys_documents_must_be_cited():
    text = "It moved in 2001 [1]. It is extracurricular [1]."
    labels = _labels([SentenceSupport(key="a", supporting_keys=("0b",), fully_supported=True),
                      SentenceSupport(key="b", supporting_keys=("0b", "1b"), fully_supported=True)])
    got = judge(text, DOCS, labels, _spans(text, ["It moved in 2001 [1].", "It is extracurricular [1]."]))
    assert [s.supported for s in got] == [True, False]


def test_a_marker_after_the_full_stop_cites_the_sentence_before():
    text = "It moved in 2001.[2] It is extracurricular. [1]"
    labels = _labels([SentenceSupport(key="a", supporting_keys=("1b",), fully_supported=True),
                      SentenceSupport(key="b", supporting_keys=("0b",), fully_supported=True),
                      SentenceSupport(key="c", supporting_keys=("general",), fully_supported=True)])
    spans = _spans(text, ["It moved in 2001.", "[2] It is extracurricular.", "[1]"])
    got = judge(text, DOCS, labels, spans)
    assert [s.cited for s in got] == [[1], [0], []]
    assert got[2].claim is False


# ---------------------------------------------------------------- end to end, through trace
@pytest.fixture(scope="module")
def run():
    from evaluators import evaluate_batch

    q = "What happened to WLUR?"
    cases = [
        {"id": "right", "question": q, "documents": list(DOCS),
         "response": "The journalism department gave up WLUR in 2001 [1]. The station is a strictly "
                     "extracurricular activity [2]."},
        {"id": "wrong", "question": q, "documents": list(DOCS),
         "response": "The journalism department gave up WLUR in 2001 [3]. The station is a strictly "
                     "extracurricular activity [2][3]. It rained in Lexington in 2019 [9]."},
        {"id": "uncited", "question": q, "documents": list(DOCS),
         "response": "The journalism department gave up WLUR in 2001. The station is extracurricular."},
    ]
    return {r.case.id: r for r in evaluate_batch(cases, "trace").results}


def test_a_run_scores_its_citations_right_and_wrong(run):
    right, wrong, uncited = run["right"], run["wrong"], run["uncited"]
    assert right.value("citation_recall") == 1.0 and right.value("citation_precision") == 1.0
    assert right.value("uncited_claims") == 0.0
    # a: [3] does not carry it; b: [2] does, [3] is irrelevant; c: [9] names no document
    assert wrong.value("citation_recall") == pytest.approx(1 / 3)
    assert wrong.value("citation_precision") == pytest.approx(1 / 4)
    assert wrong.metrics["citation_recall"].details["missing_documents"] == ["9"]
    # an answer of the same run that forgot its citations counts
    assert uncited.value("citation_recall") == 0.0 and uncited.value("uncited_claims") == 1.0
    assert uncited.metrics["citation_precision"].skipped


def test_markers_are_not_judged_as_part_of_the_sentence(run):
    for r in run.values():
        for s in r.labels.sentences:
            assert "[" not in s.explanation.split("\n")[0], s.explanation


def test_a_run_without_markers_has_no_citation_metrics():
    from evaluators import evaluate_batch

    res = evaluate_batch([{"question": "q", "documents": ["It rained in 2019."], "response": "It rained in 2019."}],
                         "trace")
    assert not any(k.startswith(("citation", "uncited")) for k in res.results[0].metrics)


def test_the_gate_reads_uncited_claims_as_a_ceiling_and_compare_as_lower_is_better(run):
    from evaluators.comparison.verdict import higher_is_better
    from evaluators.gate import evaluate_gate
    from evaluators.types import RunResult

    rr = RunResult(method="trace", results=tuple(run.values()))
    g = evaluate_gate(rr, {"uncited_claims": 0.2, "citation_recall": 0.5})
    by = {c.metric: c for c in g.checks}
    assert by["uncited_claims"].passed is False and "above 0.2" in by["uncited_claims"].reason
    assert "mean ≤ 0.2" in by["uncited_claims"].describe()
    assert evaluate_gate(rr, {"uncited_claims": 0.5}).passed
    assert higher_is_better("uncited_claims") is False and higher_is_better("citation_precision") is True


def test_inspect_draws_each_marker_as_a_link_to_its_document_and_marks_uncarried_parts():
    from evaluators import evaluate
    from evaluators.sentencize import from_spans
    from ui.highlight.spans import documents_html, response_html

    r = evaluate({"question": "What happened to WLUR?", "documents": list(DOCS),
                  "response": "WLUR went to the students in 2001 [1]. It is extracurricular [2][7]. "
                              "It won a Peabody in 1990 [3]."})
    sc = from_spans(r.case, r.spans)
    html = response_html(sc, r.labels)
    assert '<a class="rag-cite" href="#rag-doc-0" data-docs="0" title="cites Document 0">[1]</a>' in html
    assert 'href="#rag-doc-1"' in html and 'data-missing="1"' in html and "does not have: 7" in html
    assert '<span class="rag-uncarried" title="no document carries this">Peabody</span>' in html
    assert '<span class="rag-uncarried" title="no document carries this">1990</span>' in html
    assert all(f'id="rag-doc-{i}"' in d for i, d in enumerate(documents_html(sc, r.labels)))
    evil = evaluate({"question": "q", "documents": ["<b>x</b> in 2001."], "response": "<script>x</script> 2001 [1]."})
    assert "<script>" not in response_html(from_spans(evil.case, evil.spans), evil.labels)


# ---------------------------------------------------------------- one decision per run, whatever its chunks
CHUNKED = [  # the only citing answer is in the middle: chunks of one case see it in one chunk only
    {"id": "first", "question": "What happened to WLUR?", "documents": list(DOCS),
     "response": "The journalism department gave up WLUR in 2001."},
    {"id": "cites", "question": "What happened to WLUR?", "documents": list(DOCS),
     "response": "The journalism department gave up WLUR in 2001 [1]."},
    {"id": "last", "question": "What happened to WLUR?", "documents": list(DOCS),
     "response": "The station is a strictly extracurricular activity."},
]
CITATION_METRICS = {"citation_recall", "citation_precision", "uncited_claims"}


def _has_citation_metrics(results) -> list[bool]:
    return [CITATION_METRICS <= set(r.metrics) for r in results]


def test_a_run_in_chunks_has_citation_metrics_on_every_case(tmp_path):
    """evaluate_batch in chunks of one, a file evaluated chunk by chunk and a dashboard job in chunks of
    one: every case of the run is judged for citations (the uncited ones count), not only the chunk
    that holds the citing answer; a run with no marker anywhere gets none on any case."""
    import json

    from evaluators import evaluate_batch
    from evaluators.jobs import JobQueue, options_from_settings
    from evaluators.options import EvalOptions
    from evaluators.resultfiles import evaluate_file
    from evaluators.store import RunStore

    run = evaluate_batch(CHUNKED, "trace", chunk_size=1)
    assert _has_citation_metrics(run.results) == [True, True, True]
    assert run.settings["citation_run"]["cited"] is True and "cites ([1])" in run.settings["citation_run"]["reason"]
    assert run.results[0].value("uncited_claims") == 1.0 and run.results[1].value("uncited_claims") == 0.0

    src = tmp_path / "cases.jsonl"
    src.write_text("".join(json.dumps(c) + "\n" for c in CHUNKED), encoding="utf-8")
    fr = evaluate_file(src, "trace", out=tmp_path / "r.jsonl", chunk_rows=1)
    assert fr.top["settings"]["citation_run"]["cited"] is True
    assert fr.tally.values("uncited_claims") == [1.0, 0.0, 1.0]

    q = JobQueue(RunStore(tmp_path / "runs.sqlite3"))
    try:
        from evaluators.types import TestCase

        job = q.submit("o", [TestCase(**c) for c in CHUNKED], "trace", EvalOptions(), chunk_size=1)
        assert q.wait(job.id, 120) == "finished"
        stored = q.store.load(job.id, owner="o")
    finally:
        q.wait_idle(30)
    assert _has_citation_metrics(stored.results) == [True, True, True]
    assert options_from_settings(stored.settings).citation_run.cited is True  # a resumed run keeps it

    plain = [{**c, "response": c["response"].replace(" [1]", "")} for c in CHUNKED]
    src.write_text("".join(json.dumps(c) + "\n" for c in plain), encoding="utf-8")
    fr = evaluate_file(src, "trace", out=tmp_path / "p.jsonl", chunk_rows=1)
    assert fr.top["settings"]["citation_run"]["cited"] is False
    assert "uncited_claims" not in fr.top and fr.tally.values("uncited_claims") == []

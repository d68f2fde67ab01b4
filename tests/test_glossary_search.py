"""The Glossary's search (issue 57 item 2): an entry is found by the name a screen shows, by its
internal name and by the words of its definition; the words of the app's own figures (latency, p95,
tokens) are defined."""

from ui import vocab
from ui.glossary import entries


def found(query: str) -> list[str]:
    return list(entries.glossary_frame(None, query)["metric"])


def test_a_metric_is_found_by_the_name_the_screens_show_and_by_its_internal_name():
    for query, name in (("Expected adherence", "expected_adherence"), ("expected_adherence", "expected_adherence"),
                        ("Exp. adherence", "expected_adherence"), ("Context relevance", "context_relevance"),
                        ("context relevance", "context_relevance"), ("Overall supported", "overall_supported"),
                        ("OVERALL_SUPPORTED", "overall_supported"), ("Hit rate@3", "hit@K"), ("nDCG@5", "ndcg@K"),
                        ("MRR", "mrr")):
        got = found(query)
        assert got and got[0] == name, (query, got)


def test_found_by_the_words_of_its_definition_after_those_found_by_name():
    assert found("adherence")[:2] == ["adherence", "expected_adherence"]
    by_words = found("credit card")  # in the definitions only
    assert "answer_contains_pii" in by_words and "adherence" not in by_words
    # words in any order, each present: a definition that says both
    assert "context_relevance" in found("question retriever")
    assert found("no such metric anywhere") == []
    assert len(found("")) == len(vocab.declarations())


def test_latency_p95_and_tokens_are_defined_and_found():
    for query, term in (("p95", "p50 / p95"), ("p50", "p50 / p95"), ("tokens", "tokens"),
                        ("latency", "latency (of your app)")):
        got = entries.terms(vocab.TERMS, query)
        assert term in got and next(iter(got)) == term, (query, list(got))
    assert "95 %" in vocab.TERMS["p50 / p95"] and "seconds" in vocab.TERMS["latency (of your app)"]
    assert entries.terms(vocab.TERMS, "") == vocab.TERMS


def test_a_card_names_the_shown_name_where_it_differs():
    rows = {r["metric"]: r for r in entries.glossary_frame().to_dict("records")}
    assert "shown as “Hit rate@K”" in entries.card_markdown(rows["hit@K"])
    assert "shown as" not in entries.card_markdown(rows["context_relevance"])  # the same words


def test_the_name_a_screen_shows_comes_first_and_every_family_can_be_picked():
    # "answer correctness" is the dashboard's own metric, found before ragas' metric that holds the words
    assert found("answer correctness")[0] == "answer_correctness"
    assert found("Answer correctness")[0] == "answer_correctness"
    assert found("over-refusal")[0] == "over_refusal" and found("over refusal")[0] == "over_refusal"
    assert found("citation recall")[0] == "citation_recall"
    assert found("tool call")[0].startswith("tool_call")
    # every family of the declarations is in the picker, the ones every run computes before ragas / Tonic
    families = {d["family"] for d in vocab.declarations().values()}
    assert families <= set(entries.FAMILIES)
    shown = list(dict.fromkeys(entries.glossary_frame()["family"]))
    assert shown == [f for f in entries.FAMILIES if f in families]
    assert list(entries.glossary_frame("answers")["metric"])[:1] == ["answer_correctness"]

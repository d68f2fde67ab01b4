"""A test set from the pages teams really have (issue 54): crawled pages with menus, breadcrumbs,
footers, cookie banners and FAQs (``tests/pages/``, written by hand after real sites) are read as
pages — their chrome neither a passage nor a question source, their headings kept as sections —
and the offline rules ask about facts in real sentences, take an FAQ's questions, name the subject,
drop or tell apart questions whose answer is not unique, read every question back, and say per file
why it gave few questions. Fast: no browser, no shared data."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.documents import read_documents, read_uploaded
from evaluators.documents.boilerplate import classify
from evaluators.testset import make_testset
from evaluators.testset.checks import problems
from evaluators.testset.offline_page import heading_question, own_question
from evaluators.testset.offline_questions import question_for, reads_back

PAGES = Path(__file__).resolve().parent / "pages"


@pytest.fixture(scope="module")
def corpus():
    return read_documents([PAGES])


@pytest.fixture(scope="module")
def testset(corpus):
    return make_testset(corpus, 26, seed=0)


# ------------------------------------------------------------------------------------------- reading

def test_a_crawlers_text_dump_loses_its_menus_and_keeps_its_headings():
    kinds = {ln.text: ln.kind for ln in classify((PAGES / "small-claims.txt").read_text(encoding="utf-8"))}
    for chrome, kind in [("Skip to main content", "site"), ("Forms & Rules", "menu"), ("Contact Us", "menu"),
                         ("Home > Self-Help Guide > Small Claims > Who Can Sue", "breadcrumb"),
                         ("Was this page helpful?", "site"), ("Facebook", "menu"),
                         ("Copyright © 2024 Judicial Council of California", "footer")]:
        assert kinds[chrome] == kind, chrome
    for content in ("Who Can Sue in Small Claims Court", "How much can you sue for", "Filing fees", "Next steps",
                    "Serve the defendant at least 15 days before the trial"):
        assert kinds[content] == "", content


def test_markdown_link_lists_and_footers_are_chrome_but_a_list_under_its_intro_is_content():
    kinds = {ln.text: ln.kind for ln in classify((PAGES / "flu.md").read_text(encoding="utf-8"))}
    assert kinds["* [Prevention](/flu/prevent)"] == "links"
    assert kinds["[Flu](/flu) > [About](/flu/about)"] == "links"
    assert kinds["Page last reviewed: September 20, 2024"] == "site"
    assert kinds["* cough"] == "" and kinds["* sore throat"] == ""  # under "... these symptoms:"
    cookie = classify("Some text here that is a paragraph of the page.\n\nWe use cookies to improve your "
                      "experience. By continuing, you agree to our use of cookies. Accept")
    assert cookie[-1].kind == "cookie"


def test_pages_are_read_as_pages(corpus):
    docs = {d.name: d for d in corpus.documents}
    assert set(docs) == {"flu.md", "library-faq.html", "small-claims.txt", "state-park.html", "support-sla.md"}
    every = " ".join(p.text for d in corpus.documents for p in d.passages)
    for chrome in ("Contact Us", "Privacy Policy", "Skip to", "Facebook", "cookies", "©", "Find a Park",
                   "Quick links", "Español", "Home >"):
        assert chrome not in every, chrome
    sections = {p.section for d in corpus.documents for p in d.passages}
    assert {"Camping", "Dogs", "How do I renew?", "Filing fees", "Next steps", "P2: high"} <= sections
    assert "Accessibility" not in sections and "Contact Us" not in sections
    park = docs["state-park.html"]
    assert park.passages[0].section == "Cuyamaca Rancho State Park"  # the page's title, from the main content
    claims = docs["small-claims.txt"]
    assert [p.section for p in claims.passages][:3] == ["Who Can Sue in Small Claims Court", "How much can you sue for",
                                                      "Filing fees"]
    assert len(claims.dropped) >= 25 and {d.kind for d in claims.dropped} >= {"menu", "breadcrumb", "footer", "site"}


def test_a_page_that_is_only_chrome_or_one_long_line_is_named_with_its_reason(tmp_path):
    corpus = read_uploaded([
        ("menu.txt", b"Home\nAbout Us\nProducts\nPricing\nContact Us\nPrivacy Policy\n\xc2\xa9 2024 Acme Corp.\n"),
        ("dump.txt", b"word " * 60_000),
        ("good.md", (PAGES / "support-sla.md").read_bytes()),
    ])
    why = {s.name: s.reason for s in corpus.skipped}
    assert "only a page's chrome" in why["menu.txt"] and "menus" in why["menu.txt"]
    assert "one line of 300,000 characters" in why["dump.txt"]
    assert [d.name for d in corpus.documents] == ["good.md"]


def test_lines_repeated_on_the_other_pages_of_a_site_are_left_out():
    chrome = "Acme Docs\nProducts\nSolutions\n"
    a = chrome + "\nThe Basic plan costs $5 per month and includes 10 GB of storage.\n\nAcme Support Portal\n"
    b = chrome + "\nThe Pro plan costs $20 per month and includes 1 TB of storage.\n\nAcme Support Portal\n"
    corpus = read_uploaded([("a.txt", a.encode()), ("b.txt", b.encode())])
    texts = [p.text for p in corpus.passages]
    assert texts == ["The Basic plan costs $5 per month and includes 10 GB of storage.",
                     "The Pro plan costs $20 per month and includes 1 TB of storage."]
    assert {d.kind for doc in corpus.documents for d in doc.dropped} >= {"repeated"}


# ------------------------------------------------------------------------------------------- the rules

@pytest.mark.parametrize("sentence, question, answer", [
    ("Each year in the U.S. on average, influenza and its related complications result in approximately 226,000 "
     "hospitalizations and nearly 24,000 deaths.",
     "How many hospitalizations do influenza and its related complications result in each year in the U.S. on "
     "average?", "approximately 226,000"),
    ("Business entities, like a corporation, can sue for up to $6,250 in small claims court.",
     "How much can business entities sue for in small claims court?", "up to $6,250"),
    ("A maximum of two pets are allowed in campsites.", "How many pets are allowed in campsites?", "A maximum of two"),
    ("Explorers meet weekly on Wednesday evenings", "When do explorers meet?", "weekly on Wednesday evenings"),
    ("The Visitor Center opens on weekends from 10 a.m. to 4 p.m.", "When does the Visitor Center open?",
     "on weekends from 10 a.m. to 4 p.m"),
    ("* If the traffic does not match any of the policy rules, the traffic is redirected to a default pool.",
     "What happens if the traffic does not match any of the policy rules?",
     "the traffic is redirected to a default pool"),
    ("To fine tune your dialog, go back and add nodes that check for entity mentions.",
     "How can you fine tune your dialog?", "go back and add nodes that check for entity mentions"),
    ("A Layer 7 (L7) policy is used to classify traffic by matching its L7 information with L7 rules.",
     "How is a Layer 7 (L7) policy used to classify traffic?", "by matching its L7 information with L7 rules"),
    ("* disk_setup: creates a single default partition spanning the entire disk.", "What does disk_setup do?",
     "creates a single default partition spanning the entire disk"),
    ("Library cards expire every three years.", "How often do library cards expire?", "every three years"),
])
def test_facts_in_real_sentences(sentence, question, answer):
    made = question_for(sentence)
    assert made is not None, sentence
    assert (made.question, made.answer) == (question, answer)
    assert made.answer in sentence


def test_a_question_that_does_not_read_back_as_one_clause_is_not_made():
    assert question_for("The park was established in 1933 and holds more than 100 miles of hiking trails.") is None
    assert not reads_back("the park was established and holds more than 100 miles of hiking", "the park")
    assert reads_back("the park was established in the Laguna Mountains", "the park")
    shipping = question_for("Return shipping is free for orders over $50.")  # not "How much is ... free?"
    assert shipping is not None and shipping.question == "Is return shipping free for orders over $50?"


def test_a_subject_named_only_by_its_kind_takes_the_pages_name_or_gives_no_question():
    pilot = "The California State Park Adventure Pass pilot"
    made = question_for("The pilot includes Cuyamaca Rancho State Park and Anza-Borrego Desert State Park.", "",
                        lambda words: f"the {pilot[4:]}" if words == "pilot" else None)
    assert made is not None and made.question.startswith("What does the California State Park Adventure Pass pilot")
    why: list[str] = []
    assert question_for("The pilot runs for 12 months in 19 parks.", "", lambda words: None, why) is None
    assert why[0] == "subject not named"


def test_an_faqs_question_stands_alone_or_is_given_its_object():
    assert own_question("How do I renew?", "You can renew your library card online.") == \
        "How do I renew my library card?"
    assert own_question("How many items can I check out at once?", "Up to 50.") == \
        "How many items can I check out at once?"
    assert own_question("How do I renew?", "Online or at a branch.") is None  # renew what? not said: dropped
    assert own_question("Table 1. Which offering is right for your business?", "…") is None
    assert heading_question("Rotating IBM Cloudant credentials") == "How do you rotate IBM Cloudant credentials?"
    assert heading_question("Getting started with IBM Cloud for Financial Services") == \
        "How do you get started with IBM Cloud for Financial Services?"
    assert heading_question("Pricing") is None and heading_question("Filing fees") is None


# ------------------------------------------------------------------------------------------- a run

def test_the_pages_give_questions_a_reader_can_answer_without_the_page(corpus, testset):
    rows = testset.rows
    assert testset.complete, testset.reason
    assert problems(rows, corpus, 26) == []
    by_q = {r["question"]: r for r in rows}
    faq = by_q["How do I renew my library card?"]
    assert faq["metadata"]["fact"] == "faq"
    assert faq["ground_truth"].startswith("Library cards expire every three years.")
    assert "How much can business entities sue for in small claims court?" in by_q
    assert "How many pets are allowed in campsites?" in by_q
    qs = " ".join(by_q)
    assert "the pilot" not in qs and "Contact" not in qs and " the park " not in qs
    # "How long is the first response due?" has three answers in support-sla.md: told apart by section
    due = sorted(q for q in by_q if q.startswith("How long is the first response due"))
    assert due == ["How long is the first response due (P1: critical)?", "How long is the first response due (P3: "
                   "normal)?", "How long is the first response due on business days?"]
    assert all(r["question"].endswith("?") and r["question"][0].isupper() for r in rows)


def test_a_file_that_gives_few_questions_says_what_was_found_and_why_it_was_left(corpus, testset):
    from evaluators.testset.offline import OfflineGenerator
    from evaluators.testset.types import Context, Request

    gen = OfflineGenerator()
    doc = corpus.document("small-claims.txt")
    gen.propose([Request(doc, ("single_hop",))], Context(corpus))
    reason = gen.reasons["small-claims.txt"]
    assert "questions made" in reason and "other lines with numbers or dates left" in reason
    assert "in menus" in reason or "in footers" in reason or "in breadcrumbs" in reason

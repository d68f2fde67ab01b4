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
from evaluators.testset.offline_clause import reads_back
from evaluators.testset.offline_page import heading_question, own_question
from evaluators.testset.offline_questions import question_for

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


# ------------------------------------------------------------------------------------------- issue 54, the rest

@pytest.mark.parametrize("sentence, question, answer", [
    # a table row's cells run into the sentence: the clause starts at its capitalised article
    ("Cloud Type ibm_ctype The cloud type is a value of public, dedicated or local", "What is the cloud type?",
     "a value of public, dedicated or local"),
    # "X is that Y": the facts are Y's, asked as Y's own
    ("A key benefit of the platform is that IBM tests the open source code for security vulnerabilities daily and "
     "provides 24x7x365 support.", "How often does IBM test the open source code for security vulnerabilities?",
     "daily"),
    # two uses in one sentence: the first alone
    ("You can use the IBM Cloud Kubernetes Service API or CLI to work with your cluster infrastructure resources and "
     "the Kubernetes API or CLI to manage your deployments and services.",
     "What can you use to work with your cluster infrastructure resources?",
     "the IBM Cloud Kubernetes Service API or CLI"),
    ("An ETF lets you trade mutual fund shares the way you trade stocks.", "What does an ETF let you do?",
     "trade mutual fund shares the way you trade stocks"),  # "let you do", not "let you to do"
    # yes/no: a negated statement asked without its negation; the reader's own "can't"
    ("IBM Cloud Transit Gateway does not perform encryption; it only provides connectivity.",
     "Does IBM Cloud Transit Gateway perform encryption?", "IBM Cloud Transit Gateway does not perform encryption"),
    ("Intent names cannot contain spaces and must not exceed 128 characters.", "Can intent names contain spaces?",
     "Intent names cannot contain spaces"),
    ("Index funds are not actively managed, but that does not mean they aren't managed at all.",
     "Are index funds actively managed?", "Index funds are not actively managed"),
    ("Note that you can't add service accounts to access groups.", "Can you add service accounts to access groups?",
     "you can't add service accounts to access groups"),
    ("There is no wage limit on the 1.45% Medicare tax withholding's, and there is no harm in saving Medicare taxes.",
     "Is there a wage limit on the 1.45% Medicare tax withholding's?",
     "There is no wage limit on the 1.45% Medicare tax withholding's"),
    ("It's also a theorem that the weighted arithmetic mean is always greater than or equal to the weighted geometric "
     "mean.", "Is the weighted arithmetic mean always greater than or equal to the weighted geometric mean?",
     "the weighted arithmetic mean is always greater than or equal to the weighted geometric mean"),
    # the subject is the answer of "What is the default ...?"
    ("In MySQL 8.0, caching_sha2_password is the default authentication plugin rather than mysql_native_password.",
     "What is the default authentication plugin in MySQL 8.0?", "caching_sha2_password"),
    # instructions with their purpose
    ("Use IBM Watson® Assistant to build your own branded live chatbot into any device, application, or channel.",
     "What can you use to build your own branded live chatbot into any device?", "IBM Watson® Assistant"),
    ("Add a search integration with IBM Watson® Discovery to give your assistant access to corporate data "
     "collections that it can mine for answers.", "How can you give your assistant access to corporate data "
     "collections?", "Add a search integration with IBM Watson® Discovery"),
    ("Context-based restrictions : You can use network type or context-based restrictions to restrict the network "
     "connectivity on the Enterprise plan.", "What can you use to restrict the network connectivity on the Enterprise "
     "plan?", "network type or context-based restrictions"),
    # an adverb before the verb goes with the verb; an object goes on through its "of" phrase
    ("The Speech to Text service automatically detects the endianness of the incoming audio.",
     "What does the Speech to Text service automatically detect?", "the endianness of the incoming audio"),
    ("Endianness indicates how bytes of data are organized by the underlying computer architecture:",
     "What does Endianness indicate?", "how bytes of data are organized by the underlying computer architecture"),
    ("Each bare metal server supports 100 Gbps bandwidth.", "How much bandwidth does each bare metal server support?",
     "100 Gbps"),
    ("Each entry in a time series is called an observation.", "What is each entry in a time series called?",
     "an observation"),
])
def test_the_offline_rules_read_what_crawled_pages_hold(sentence, question, answer):
    test_facts_in_real_sentences(sentence, question, answer)


def test_a_verb_the_dictionary_does_not_hold_is_read_by_its_ending_after_a_named_subject():
    made = question_for("Because it uses only a single channel for speech recognition, the service downmixes audio "
                        "with multiple channels to one-channel mono during transcoding.", "",
                        lambda words: "the Speech to Text service" if words == "service" else None)
    assert made is not None and made.question == ("Why does the Speech to Text service downmix audio with multiple "
                                                  "channels to one-channel mono during transcoding?")


@pytest.mark.parametrize("sentence", [
    "For example, if you are an insurance company, a user example might look more like this, I want to buy a plan.",
    "If you're using VMWare vSphere networking, see [Introduction to vSphere Networking](https://docs.vmware.com/x).",
    "Review frequently asked questions (FAQs) for using IBM Cloud® Kubernetes Service.",  # an instruction
    "Make sure the router is powered on.",
    "Usually the difference is not overly large, but it exists.",  # who says "usually"? the adverb is no subject
    "The counter holds the number of milliseconds since 1 January 1970 00:00:00 UTC.",  # not a "when"
    "You can submit 100 requests per minute.",
    "Index funds may invest in index components directly.",  # a hedge is no property to ask yes or no about
    "Read carefully the letter you've got from the IRS.",  # an instruction, not "Did read carefully ...?"
    "From here, you can view the enterprise details, accounts, users, and billing information.",  # from where?
    "Remote access is access to organizational information systems by users.",  # not "Is remote access access ...?"
])
def test_sentences_that_would_give_a_poor_question_give_none(sentence):
    made = question_for(sentence)
    assert made is None, made


def test_headings_ask_the_task_they_name_and_faq_headings_their_first_question():
    assert heading_question("Networking overview for Bare Metal Servers on VPC") is None  # the page's kind
    assert heading_question("Upgrading in the UI") is None  # upgrade what?
    assert heading_question("RETAIN CURRENT PASSWORD") is None  # a keyword of code
    assert heading_question("Accelerate delivery of static files using a CDN") == \
        "How do you accelerate delivery of static files using a CDN?"
    assert own_question("What scalability options do I have for my transit gateway? Does it manage itself? How do I "
                        "know if it's reaching maximum capacity?", "…") == \
        "What scalability options do I have for my transit gateway?"


def _generate(files: list[tuple[str, str]], n: int, seed: int = 0):
    corpus = read_uploaded([(name, text.encode()) for name, text in files])
    return corpus, make_testset(corpus, n, seed=seed)


def test_page_level_questions_a_definition_list_a_name_heading_a_question_line_and_a_named_term():
    options = ("--memory, -m\n: The amount of memory that is set for runs of the job. This value is optional. The "
               "default value is 4G.\n\n--mode\n: The mode for runs of the job. Valid values are task and daemon.\n")
    about = ("# About Watson Assistant\n\nUse IBM Watson Assistant to build your own branded live chatbot into any "
             "device, application, or channel.\n")
    modes = ("# IBM Cloudant legacy\n\n* Unique to IBM Cloudant.\n* Why is the Use only IAM mode preferred?\n\nThe Use "
             "only IAM mode means that only IAM credentials are provided through service binding.\n")
    sources = ("# Event sources\n\nA source is a registered entity in an Event Notifications service instance. Sources "
               "publish events to topics.\n")
    corpus, made = _generate([("options.md", options), ("about.md", about), ("modes.md", modes),
                              ("sources.md", sources)], 12)
    qs = {r["question"]: r for r in made.rows}
    assert qs["What is the --memory option?"]["ground_truth"] == "The amount of memory that is set for runs of the job"
    assert qs["What is the default value of the --memory option?"]["ground_truth"] == "4G"
    assert qs["What is Watson Assistant?"]["metadata"]["fact"] == "heading"
    assert qs["Why is the Use only IAM mode preferred?"]["ground_truth"].startswith("The Use only IAM mode means")
    assert "What is a source in Event Notifications?" in qs and "What is a source?" not in qs
    assert problems(made.rows, corpus) == [] or all("rows, not" in p for p in problems(made.rows, corpus))


def test_yes_no_fillers_are_taken_last_and_a_short_file_says_where_its_share_went():
    facts = ("# Apollo\n\nApollo 11 landed on the Moon on 20 July 1969. The lunar module was named Eagle. Neil "
             "Armstrong and Buzz Aldrin walked on the lunar surface. The mission lasted eight days. The command "
             "module is kept in Washington.\n")
    plain = ("# Coral\n\nCoral reefs are built by tiny animals called polyps. The Great Barrier Reef is visible from "
             "space.\n")
    _, four = _generate([("apollo.md", facts), ("coral.md", plain)], 4)
    coral = [r for r in four.rows if r["metadata"]["source"] == "coral.md"]
    # coral.md's share is 2; it has only yes/no questions: one (every file used), the other from apollo.md's facts
    assert len(four.rows) == 4 and len(coral) == 1 and coral[0]["metadata"]["fact"] == "yes/no"
    assert all(not r["metadata"].get("filler") for r in four.rows if r["metadata"]["source"] == "apollo.md")
    assert any("coral.md: 1 of its 2 questions (the rest taken from the files that had more: apollo.md +1)" in n
               for n in four.notes), four.notes
    _, five = _generate([("apollo.md", facts), ("coral.md", plain)], 5)  # every question the files hold: fillers too
    assert len(five.rows) == 5 and not five.reason
    assert sum(r["metadata"]["fact"] == "yes/no" for r in five.rows if r["metadata"]["source"] == "coral.md") == 2


def test_a_long_file_gets_more_questions_but_does_not_crowd_out_the_others():
    from evaluators.testset import allocate, length_weights

    lengths = {"manual.pdf": 200 * 1800, **{f"page-{i:02d}.txt": 1800 for i in range(12)}}
    by_length = allocate({k: float(v) for k, v in lengths.items()}, 40)
    by_root = allocate(length_weights(lengths), 40)
    assert by_length["manual.pdf"] == 28 and by_root["manual.pdf"] == 22  # 91 % of the text: 22 of 40, not 28
    assert min(v for k, v in by_root.items() if k != "manual.pdf") >= 1 and sum(by_root.values()) == 40
    short = allocate(length_weights({"a": 100, "b": 10000}), 11)
    assert short == {"a": 1, "b": 10}  # 100 times as long, 10 times the questions

"""Markdown scaffolding in a response is not a claim (``evaluators.markdown_lines``): headings,
rules, fences, table header / separator rows and label lines get no sentence and no key; a heading
that states something is still judged; Inspect shows the scaffolding greyed as "not judged"; the
LLM prompt shows it without a key; the trace labeler reads past inline markup."""

from __future__ import annotations

import re

import pytest

from evaluators import TestCase, evaluate, evaluate_batch
from evaluators.export import run_from_json_dict, to_json_dict
from evaluators.labelers.heuristic_features import analyze, strip_markup
from evaluators.labelers.llm import STRUCTURE_NOTE, build_messages
from evaluators.markdown_lines import link_text, reads_as_claim, structure_lines
from evaluators.sentencize import (
    sentences_of,
    sentencize_case,
    sentencize_document,
    sentencize_response,
    split_spans,
    structure_spans,
)
from tests import ui_fixtures as fx
from ui import highlight as hl

DOCS = ("Acme Cloud offers three plans. The Basic plan costs $5 per month and includes 10 GB of storage. "
        "The Pro plan costs $15 per month and includes 100 GB of storage. "
        "The Enterprise plan has custom pricing and unlimited storage.",
        "To install the Acme CLI, run pip install acme-cli. Then log in with acme login. "
        "The CLI requires Python 3.9 or newer.")
QUESTION = "How much do Acme plans cost and how do I install the CLI?"
CLAIMS = ("- The Basic plan costs **$5 per month** and includes 10 GB of storage.",
          "- The Pro plan costs $15 per month and includes 100 GB of storage.",
          "1. Install the Acme CLI with `pip install acme-cli`.",
          "2. Log in with `acme login`.")
MARKDOWN = f"""## Pricing

**Key points:**

{CLAIMS[0]}
{CLAIMS[1]}

| Plan | Price |
|---|---|

---

### Steps to install

{CLAIMS[2]}
{CLAIMS[3]}

```bash
```
"""


def texts(response: str) -> list[str]:
    return [s.text for s in sentencize_response(response)]


# ---- the sentence split -------------------------------------------------------------------------
def test_a_formatted_answer_keeps_only_its_claims_keyed_in_order_with_spans_as_written():
    sents = sentencize_response(MARKDOWN)
    assert [s.text for s in sents] == list(CLAIMS)
    assert [s.key for s in sents] == ["a", "b", "c", "d"]  # keys run on over the claims
    assert all(MARKDOWN[s.start:s.end] == s.text for s in sents)
    assert sentencize_response(MARKDOWN) == sents  # deterministic
    # before: every line with a letter was a sentence (the heading was "a")
    assert MARKDOWN[slice(*split_spans(MARKDOWN, whole_claims=True)[0])] == "## Pricing"


@pytest.mark.parametrize("line", [
    "# Pricing", "## Key features", "###### Steps to install", "### Creating a Schema", "## Pricing ##",
    "### Default Settings:", "## What is RAG", "## Is it free?", "#",
    "**Key points:**", "**Key points**:", "Steps:", "- **For ordinary income:**", "Reviews:", "1. **Add Products:**",
    "**Pricing**", "__Summary__",
    "---", "***", "_ _ _", "|---|:---:|", "| :--- | ---: |",
    "```", "```python", "~~~",
])
def test_a_structure_line_is_no_sentence(line):
    response = f"{line}\n\nThe Basic plan costs $5 per month."
    assert texts(response) == ["The Basic plan costs $5 per month."]
    assert [response[a:b] for a, b in structure_lines(response)] == [line]


@pytest.mark.parametrize("line", [
    "# The Basic plan costs $5",            # a verb between subject and object
    "## The plan includes 10 GB of storage.",
    "### Storage is unlimited on Enterprise",  # a copula
    "**The Basic plan costs $5.**",         # bold, but a sentence
    "- **Restart the router**",              # a bold step in a list is content
    "To reset the TV, follow these steps from the menu:",  # a long label line: the labelers decide
    "Total: 5 users.",
    "**Note:** The Basic plan costs $5.",   # a label followed by its claim
])
def test_a_line_that_states_something_stays_a_sentence(line):
    response = f"{line}\n\nThe Pro plan costs $15."
    assert texts(response)[0] == line
    assert structure_lines(response) == ()


@pytest.mark.parametrize("title,claim", [
    ("Pricing", False), ("Key features", False), ("Key Features", False), ("Supported devices", False),
    ("Steps to install", False), ("How it works", False), ("What is RAG", False), ("Is it free?", False),
    ("Step 1: Create an Index", False), ("The Basic Plan Costs $5", False),  # Title Case reads as a title
    ("The Basic plan costs $5", True), ("Python 3.12 adds pattern matching", True),
    ("Storage is unlimited", True), ("It works.", True), ("**The [Pro plan](https://x.y) costs $15**", True),
])
def test_reads_as_claim(title, claim):
    assert reads_as_claim(title) is claim


def test_setext_headings_and_their_underlines():
    response = "Pricing\n=======\nThe Basic plan costs $5.\n\nThe Pro plan costs $15.\n-------\n\nEnd of story here."
    assert texts(response) == ["The Basic plan costs $5.", "The Pro plan costs $15.", "End of story here."]
    # "The Pro plan costs $15." above a "---" is a heading that states something: still judged
    assert [response[a:b] for a, b in structure_lines(response)] == ["Pricing", "=======", "-------"]


def test_a_rule_after_a_blank_line_does_not_make_the_line_above_a_heading():
    response = "Pricing matters\n\n---\n\nThe Basic plan costs $5."
    assert texts(response) == ["Pricing matters", "The Basic plan costs $5."]


def test_code_between_fences_is_judged_and_holds_no_headings():
    response = "Run this:\n\n```bash\n# install the CLI\npip install acme-cli\n```\nDone, it works now."
    assert texts(response) == ["# install the CLI", "pip install acme-cli", "Done, it works now."]


def test_a_table_keeps_its_rows_and_drops_its_header_and_separator():
    response = "| Plan | Price |\n| --- | --- |\n| Basic | $5 |\n| Pro | $15 |"
    assert texts(response) == ["| Basic | $5 |", "| Pro | $15 |"]


def test_crlf_text_and_a_response_of_scaffolding_only():
    assert texts("## Pricing\r\n\r\nThe Basic plan costs $5.\r\n") == ["The Basic plan costs $5."]
    assert sentencize_response("## Pricing\n\n---\n") == ()  # no claim made: no sentence


def test_documents_keep_their_headings():
    doc = "## Pricing\n\nThe Basic plan costs $5 per month."
    assert [s.text for s in sentencize_document(doc, 0)] == ["## Pricing", "The Basic plan costs $5 per month."]


def test_structure_spans_are_the_lines_outside_the_sentences():
    sc = sentencize_case(TestCase(id="m", question=QUESTION, documents=DOCS, response=MARKDOWN))
    shown = [MARKDOWN[a:b] for a, b in structure_spans(sc)]
    assert shown == ["## Pricing", "**Key points:**", "| Plan | Price |", "|---|---|", "---",
                     "### Steps to install", "```bash", "```"]


# ---- judging ------------------------------------------------------------------------------------
def test_trace_judges_a_formatted_grounded_answer_like_its_plain_text():
    r = evaluate(TestCase(id="md", question=QUESTION, documents=DOCS, response=MARKDOWN), "trace")
    assert r.ok, r.error
    assert [s.key for s in r.labels.sentences] == ["a", "b", "c", "d"]
    assert all(s.level == "full" for s in r.labels.sentences)
    # before this change: 9 sentences (headings "general", the table header and "```bash" unsupported)
    assert r.scores.adherence == 1.0 and r.scores.overall_supported
    assert r.scores.num_response_sentences == 4


def test_a_heading_that_states_a_wrong_fact_is_judged_unsupported():
    resp = "# The Basic plan costs $50 per month\n\nIt includes 10 GB of storage."
    r = evaluate(TestCase(id="h", question=QUESTION, documents=DOCS, response=resp), "trace")
    head = r.labels.sentences[0]
    assert head.key == "a" and head.level != "full", head  # before: "general", fully supported
    assert not r.scores.overall_supported


def test_trace_reads_past_inline_markup():
    marked = analyze("- The **Pro plan** costs *`$15`* per month.")
    bare = analyze("The Pro plan costs $15 per month.")
    assert (marked.content, marked.bigrams, marked.numbers) == (bare.content, bare.bigrams, bare.numbers)
    assert strip_markup("1. **Install** the `acme` CLI") == "Install the acme CLI"


def test_results_files_keep_the_split_the_labels_name():
    run = evaluate_batch([TestCase(id="md", question=QUESTION, documents=DOCS, response=MARKDOWN)], "trace")
    back = run_from_json_dict(to_json_dict(run))
    r = back.results[0]
    assert [(s.key, s.text) for s in sentences_of(r).response_sentences] == list(zip("abcd", CLAIMS))
    assert [s.key for s in r.labels.sentences] == ["a", "b", "c", "d"]


def test_the_llm_prompt_shows_scaffolding_without_a_key_and_plain_answers_as_before():
    user = build_messages(sentencize_case(TestCase(id="m", question=QUESTION, documents=DOCS,
                                                   response=MARKDOWN)))[1]["content"]
    response = user.split("Response:\n")[1].split("\n\n")[0].splitlines()
    assert response == [STRUCTURE_NOTE, "~ ## Pricing", "~ **Key points:**", f"a. {CLAIMS[0]}", f"b. {CLAIMS[1]}",
                        "~ | Plan | Price |", "~ ### Steps to install", f"c. {CLAIMS[2]}", f"d. {CLAIMS[3]}",
                        "~ ```bash"]
    plain = build_messages(sentencize_case(TestCase(id="p", question=QUESTION, documents=DOCS,
                                                    response="The Basic plan costs $5.")))[1]["content"]
    assert "Response:\na. The Basic plan costs $5.\n\n" in plain and "~" not in plain


# ---- Inspect ------------------------------------------------------------------------------------
def test_response_html_shows_scaffolding_greyed_as_not_judged_and_escaped():
    resp = "## Pricing <b>now</b>\n\nThe Basic plan costs $5 per month."
    html = hl.response_html(sentencize_case(TestCase(id="x", question="q", documents=DOCS, response=resp)), None)
    assert f'<span class="rag-struct" title="{hl.NOT_JUDGED}">## Pricing &lt;b&gt;now&lt;/b&gt;</span>' in html
    assert 'data-key="a"' in html and 'data-key="b"' not in html


@pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")
def test_inspect_shows_the_heading_in_the_response_as_not_judged():
    at = fx.inspect_case(TestCase(id="md", question=QUESTION, documents=DOCS, response=MARKDOWN))
    assert not at.exception, at.exception
    html = "".join(h.proto.body for h in at.main.get("html"))
    block = html[html.index('class="rag-response"'):]
    assert "## Pricing" in block and "### Steps to install" in block  # shown, not vanished
    assert block.count('class="rag-struct"') == 8 and hl.NOT_JUDGED in block
    assert [k for k in "abcdef" if f'data-key="{k}" data-level=' in block] == ["a", "b", "c", "d"]


def test_on_the_shared_data_only_structure_lines_leave_the_split():
    import json

    from tests.golden.make_golden import data_files

    files = data_files()
    if not files:
        pytest.skip("../shared/data not present")
    dropped = 0
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines()[:300]:
            text = json.loads(line)["response"]
            before, after = split_spans(text, whole_claims=True), [(s.start, s.end) for s in sentencize_response(text)]
            assert set(after) <= set(before)
            lines = structure_lines(text)
            gone = [sp for sp in before if sp not in after]
            assert all(any(a <= s < b for a, b in lines) for s, _ in gone)
            assert all(not re.search(r"\w", text[a:b]) or any(a <= s < b for s, _ in gone) for a, b in lines)
            dropped += len(gone)
    assert dropped > 20  # the dev sets hold such lines (mtrag, ragbench emanual)


def test_a_link_in_a_response_is_judged_by_its_text_not_its_address():
    docs = ("The Basic plan costs $5 per month. The Pro plan costs $12 per month and adds priority support.",)
    q = "What do the plans cost?"
    linked = ("The Basic plan costs $5 per month ([pricing](https://acme-cloud.example.com/docs/pricing-2024?ref=kb7)).\n"
              "The Pro plan costs $12 per month, see [plans](https://acme-cloud.example.com/plans).")
    bare = "The Basic plan costs $5 per month (pricing).\nThe Pro plan costs $12 per month, see plans."
    wrong = "See [the Pro plan at $99 per month](https://acme-cloud.example.com/plans): it adds priority support."
    run = evaluate_batch([TestCase(id=i, question=q, documents=docs, response=r)
                          for i, r in (("linked", linked), ("bare", bare), ("wrong", wrong))], "trace")
    got = {r.case.id: r.scores for r in run.results}
    # the addresses (acme-cloud, example, kb7, 2024) are not words the answer claims: scored as without them
    assert got["linked"].adherence == got["bare"].adherence == 1.0
    assert got["linked"].overall_supported is True
    # a wrong claim written as a link's text is still a wrong claim
    assert got["wrong"].overall_supported is False
    # an address a document holds stays (evidence like any other words of it); one it does not hold goes
    assert link_text("See [pricing](https://a.example/p) or [docs](https://b.example/d).", ["at https://b.example/d"]
                     ) == "See pricing or [docs](https://b.example/d)."
    # the sentence keeps its text and span as written (Inspect shows the link)
    sc = sentencize_case(TestCase(id="x", question=q, documents=docs, response=linked))
    assert "](https://acme-cloud.example.com/plans)" in sc.response_sentences[1].text

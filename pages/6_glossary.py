"""Glossary: every metric with its formula, range, direction and an example (from the library's
metric declarations, the text docs/metrics.md is generated from)."""

import streamlit as st

from ui import vocab
from ui.glossary import entries

st.title("Metrics glossary")
st.markdown(
    "Every score in this app, from the same declarations as the library's documentation. "
    "**Range** is what one case can score (0 / 1 = a yes/no verdict per case; its mean over cases is "
    "a share). The four **TRACE** metrics and `expected_adherence` are computed for every run, and so are "
    "`declined` and `over_refusal` (**answers**); the **retrieval** metrics (`hit@K`, `recall@K`, `ndcg@K`, …) "
    "for every case that names the passages it should have retrieved; `answer_correctness` and its halves for "
    "every case with a reference answer; the **citations** metrics when the answers cite their documents "
    "([1], [doc2] …); the **tool calls** metrics for an agent's cases; the **ragas** and **Tonic** families "
    "are added on Evaluate. Hover a metric name "
    "elsewhere in the "
    "app for the same text. Other words the pages use (P(supported), gold, AUROC, κ, RMSE, latency, p95, tokens, …) are "
    "under **Other terms on the screens** below; the search finds them too.")

family = st.segmented_control("Family", list(entries.FAMILIES), key="glossary.family", help="Empty: every metric.",
                              format_func=lambda f: entries.FAMILY_NAMES.get(f, f))
query = st.text_input("Find a metric or term", key="glossary.find", placeholder="e.g. Expected adherence, pii, p95",
                      help="By the name a page shows (“Expected adherence”), the internal name "
                           "(`expected_adherence`) or words of what it means.")
df = entries.glossary_frame(family, query)
st.caption("1 metric." if len(df) == 1 else f"{len(df)} metrics." if len(df) else
           "No metric matches: see the other terms below." if query.strip() else "No metric.")
# rows of two cards, not two columns of cards: a phone stacks the columns of each row in turn, so the
# cards read in the frame's order (the TRACE metrics first, together), not a column then the other;
# a family starts a row of its own
for _, fam in df.groupby("family", sort=False):
    records = fam.to_dict("records")
    for pair in (records[i:i + 2] for i in range(0, len(records), 2)):
        for col, row in zip(st.columns(2), pair):
            with col.container(border=True, height="stretch"):
                st.markdown(entries.card_markdown(row))

st.subheader("Reading the TRACE scores")
st.markdown(
    "- **context_relevance** low: the retriever brings back mostly off-topic text.\n"
    "- **context_utilization** low with good relevance: the answer ignores much of the useful text; "
    "**completeness** tells how much of the *relevant* text it used.\n"
    "- **adherence** below 1: some answer sentence is not fully backed by the documents — the "
    "hallucination signal. Sort Results by **expected_adherence**, lowest first, to see the likeliest "
    "hallucinations.")
st.subheader("Other terms on the screens")
st.caption("Words the pages use beside the metrics (hover them where they appear for the same text).")
terms = entries.terms(vocab.TERMS, query)
st.markdown("\n".join(f"- **{t}**: {m}" for t, m in terms.items()) or "No term matches.")
st.subheader("Comparing versions")
st.caption("The words of Compare: how a verdict between two versions is reached.")
cmp_terms = entries.terms(vocab.compare_glossary(), query)
st.markdown("\n".join(f"- **{t}**: {m}" for t, m in cmp_terms.items()) or "No term matches.")
st.subheader("Sentence counts (per case)")
st.dataframe(entries.counts_frame(), hide_index=True, width="stretch")

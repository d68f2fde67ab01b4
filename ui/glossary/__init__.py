"""The Glossary page's own code (``pages/6_glossary.py``): every metric as a card, the other terms
the screens use, the per-case sentence counts.

    from ui.glossary import entries
    for row in entries.glossary_frame("trace", query="Expected adherence").to_dict("records"):
        st.markdown(entries.card_markdown(row))

Modules: ``entries`` (the page's cards and tables, and its search — by the name a screen shows, the
internal name or the words of a definition: pure). The words themselves — names, help texts,
``TERMS`` — are every page's, at the top of ``ui/``: ``vocab``.
"""

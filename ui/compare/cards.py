"""A table that reads on a phone: an HTML table (``st.table``: its cells wrap, never cut) while its box
is wide enough, and one card per row where the box is narrower than :data:`NARROW_PX` — the row's
first cell as the card's heading, then each other cell after its column's name. On a phone no column
is cut or out of sight, and nothing needs a sideways scroll that nothing hints at.

    cards.table(frame, key="versions_metrics")

The switch is a CSS container query on the table's own box (not the window): a table in a column,
or beside the sidebar, turns into cards when it has too little room, whatever the screen. The
column names are ours (never a visitor's text); they are written as CSS strings all the same.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

#: Below this width of its box a table is drawn as cards (Compare's nine columns need ~610 px).
NARROW_PX = 640


def _css_string(text: str) -> str:
    """``text`` as a quoted CSS string."""
    return '"' + " ".join(text.split()).replace("\\", "\\\\").replace('"', '\\"') + '"'


def stylesheet(columns: list[str], key: str) -> str:
    """The ``<style>`` turning the table in the container ``key`` into cards when its box is narrow."""
    box = f".st-key-{key}"
    rows = f"{box} tbody tr"
    labels = "".join(f"{rows} > :nth-child({i + 1})::before"
                     f"{{content:{_css_string(name)};opacity:.65;margin-right:.35em}}"
                     for i, name in enumerate(columns) if i)
    return ("<style>"
            f"{box}{{container-type:inline-size}}"
            f"@container (max-width:{NARROW_PX - 1}px){{"
            f"{box} table,{box} tbody,{rows}{{display:block;width:100%;min-width:0}}"
            f"{box} thead{{display:none}}"
            f"{rows}{{padding:.5rem .75rem;border-bottom:1px solid rgba(128,128,128,.25)}}"
            # a cell is a unit (its column's name, then its value), lines break between units
            f"{rows} > *{{display:inline-block;border:none;padding:0;margin:0 1rem .1rem 0;background:none;"
            f"white-space:normal;vertical-align:top}}"
            f"{rows} > :first-child{{display:block;font-weight:600;margin-bottom:.2rem}}"
            f"{labels}}}</style>")


def table(frame: pd.DataFrame, key: str) -> None:
    """Draw ``frame`` (no index) as a table that becomes cards on a narrow box."""
    st.html(stylesheet([str(c) for c in frame.columns], key))
    with st.container(key=key):
        st.table(frame, hide_index=True)

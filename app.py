"""Streamlit entry point: a thin router over the pages plus the shared sidebar."""

import streamlit as st

from ui import sidebar

st.set_page_config(page_title="RAG evaluation dashboard", page_icon="🔎", layout="wide")

PAGES = [
    st.Page("pages/1_upload.py", title="Upload", icon=":material/upload_file:", url_path="upload", default=True),
    st.Page("pages/2_evaluate.py", title="Evaluate", icon=":material/play_circle:", url_path="evaluate"),
    st.Page("pages/3_results.py", title="Results", icon=":material/bar_chart:", url_path="results"),
    st.Page("pages/4_inspect.py", title="Inspect", icon=":material/manage_search:", url_path="inspect"),
    st.Page("pages/5_compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
]

page = st.navigation(PAGES)
sidebar.render()
page.run()

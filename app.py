"""Streamlit entry point: a thin router over the pages plus what every page shares — the sidebar,
and the progress of this visitor's background runs (with Cancel)."""

import streamlit as st

from ui import jobs, layout, state
from ui.shell import sidebar

st.set_page_config(page_title="RAG evaluation dashboard", page_icon=layout.PAGE_ICON, layout="wide")

PAGES = [
    st.Page("pages/0_start.py", title="Start", icon=":material/home:", url_path="start", default=True),
    st.Page("pages/1_upload.py", title="Upload", icon=":material/upload_file:", url_path="upload"),
    st.Page("pages/1_testset.py", title="Make a test set", icon=":material/quiz:", url_path="testset"),
    st.Page("pages/1_run_app.py", title="Run your app", icon=":material/rocket_launch:", url_path="run_app"),
    st.Page("pages/2_evaluate.py", title="Evaluate", icon=":material/play_circle:", url_path="evaluate"),
    st.Page("pages/3_results.py", title="Results", icon=":material/bar_chart:", url_path="results"),
    st.Page("pages/4_inspect.py", title="Inspect", icon=":material/manage_search:", url_path="inspect"),
    st.Page("pages/5_compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
    st.Page("pages/6_glossary.py", title="Glossary", icon=":material/menu_book:", url_path="glossary"),
]

page = st.navigation(PAGES)
jobs.file_finished(on_evaluate=page.url_path == "evaluate")
state.clear_on_screen()  # the page says which run it shows (the sidebar's "Current run")
sidebar.render()
status = st.sidebar.container()  # filled after the page, so it reflects what the page did
jobs.progress_area()
layout.run_page(page)
with status:
    sidebar.render_status()

"""Streamlit runs a page file alone — without app.py's st.navigation, shared sidebar and progress of
background runs — while it believes the app uses the legacy ``pages/`` folder: on the first runs of
a fresh server process (a tab reconnecting to /evaluate after a restart). ``ui.layout`` reruns such
a run through app.py, keeping a button click made in it. AppTest reproduces the legacy mode on every
run after the first (no ``app_py_every_run`` fixture here, on purpose)."""

import pytest
from streamlit.testing.v1 import AppTest

from tests import ui_fixtures as fx
from ui import state

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env")


def test_a_page_run_alone_is_rerun_through_app_py_and_keeps_the_click():
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.session_state[state._OWNER] = "test-visitor-legacy-mode"
    at.run()
    at.button(key="start.sample").click().run()  # a click in a run Streamlit starts as a bare page
    assert not at.exception, at.exception
    assert len(at.session_state[state._DATA].cases) > 0  # the click was not lost ...
    assert at.title[0].value == "Evaluate" and at.button(key="evaluate.run")  # ... and opened Evaluate
    assert any(s.value.startswith("LLM") for s in at.sidebar.subheader)  # app.py's sidebar is there
    at.switch_page("pages/1_upload.py").run()
    assert not at.exception, at.exception
    assert int({m.label: m.value for m in at.metric}["Cases ready"]) > 0
    assert any(s.value.startswith("LLM") for s in at.sidebar.subheader)

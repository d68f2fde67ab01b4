"""Fixtures of the dashboard tests: a small, model-free labeler, method ``ui_fake`` (registered per
test by the ``fake_method`` fixture)
(word overlap; deterministic), runs built with it through the real pipeline, and a run store in a
tmp dir. The dashboard's own code paths (chunking, merging, pages) run unchanged on top."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Sequence

import pytest

from evaluators.methods import METHODS, BaseMethod, MethodSpec
from evaluators.options import EvalOptions
from evaluators.pipeline import evaluate_batch
from evaluators.types import LabelOutcome, SentenceLabels, SentenceSupport, SentencizedCase, TestCase

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
_WORD = re.compile(r"[a-z0-9]{3,}")

#: Tests may clear this to make ``ui_fake`` block (to exercise cancel and runs that go on); set by
#: default. With ``HOLD_AFTER = n`` only chunks after the first n wait for it.
GATE = threading.Event()
GATE.set()
HOLD_AFTER: int | None = None
#: With ``TICK_HOLD = n`` the labeler ticks after every case and waits for ``GATE`` after n cases
#: of a chunk (a chunk that is going on, with cases finished inside it).
TICK_HOLD: int | None = None
CALLS: list[int] = []


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class FakeMethod(BaseMethod):
    """Relevant = doc sentences sharing a word with the question; a response sentence is fully
    supported when >= 60% of its words occur in one doc sentence, partially when >= 30%."""

    def label(self, items: Sequence[SentencizedCase], options: EvalOptions, tick) -> list[LabelOutcome]:
        if TICK_HOLD is not None:
            out = []
            for i, it in enumerate(items):
                if i == TICK_HOLD:
                    GATE.wait(timeout=30)
                out.extend(self._label([it]))
                tick(1)
            CALLS.append(len(items))
            return out
        if HOLD_AFTER is None or len(CALLS) >= HOLD_AFTER:
            GATE.wait(timeout=30)
        CALLS.append(len(items))
        return self._label(items)

    def _label(self, items: Sequence[SentencizedCase]) -> list[LabelOutcome]:
        out = []
        for it in items:
            q = words(it.case.question)
            docs = {s.key: words(s.text) for s in it.doc_sentences}
            relevant = tuple(k for k, w in docs.items() if w & q)
            sents, used = [], set()
            for s in it.response_sentences:
                w = words(s.text) or {"_"}
                best_key, best = None, 0.0
                for k, dw in docs.items():
                    share = len(w & dw) / len(w)
                    if share > best:
                        best_key, best = k, share
                keys = (best_key,) if best_key and best >= 0.3 else ()
                used.update(keys)
                sents.append(SentenceSupport(key=s.key, supporting_keys=keys, fully_supported=best >= 0.6,
                                             explanation=f"best overlap {best:.2f} with {best_key}",
                                             score=best))
            out.append(LabelOutcome(labels=SentenceLabels(
                method="ui_fake", document_keys=it.doc_keys, relevant_keys=relevant,
                utilized_keys=tuple(k for k in it.doc_keys if k in used), sentences=tuple(sents),
                overall_supported=all(s.fully_supported for s in sents),
                overall_explanation="word-overlap test labeler")))
        return out


FAKE_SPEC = MethodSpec("ui_fake", "UI test labeler", "Word overlap (tests only).", False,
                       "tests.ui_fixtures:FakeMethod")


@pytest.fixture
def fake_method(monkeypatch):
    """Register ``ui_fake`` for one test only (the method registry is process-wide); its gate
    open and its call log empty."""
    global HOLD_AFTER, TICK_HOLD
    monkeypatch.setitem(METHODS._items, "ui_fake", FAKE_SPEC)
    GATE.set()
    HOLD_AFTER = TICK_HOLD = None
    CALLS.clear()
    yield FAKE_SPEC
    GATE.set()
    HOLD_AFTER = TICK_HOLD = None

XSS_DOC = 'Paris is the capital of France. <img src=x onerror=alert(1)> <script>window.__xss=1</script>'


def sample_cases() -> list[TestCase]:
    return [
        TestCase(id="c1", question="What is the capital of France?",
                 response="The capital of France is Paris. It has ten million dragons.",
                 documents=(XSS_DOC, "Lyon is a large city in France."),
                 labels={"hallucinated": True}),
        TestCase(id="c2", question="When did the Berlin Wall fall?",
                 response="The Berlin Wall fell in 1989.",
                 documents=("The Berlin Wall fell on 9 November 1989. Germany reunified in 1990.",),
                 labels={"hallucinated": False}),
        TestCase(id="c3", question="What do plants produce?",
                 response="Plants produce oxygen during photosynthesis.",
                 documents=("During photosynthesis plants produce oxygen and glucose.",),
                 labels={"hallucinated": False}),
        TestCase(id="c4", question="Empty?", response="   ", documents=("Nothing here.",),
                 labels={"hallucinated": True}),
    ]


def fake_run(cases: Sequence[TestCase] | None = None, **kw):
    return evaluate_batch(list(cases or sample_cases()), "ui_fake", **kw)


def inspect_case(case: TestCase, owner: str = "test-visitor-token-0001"):
    """An AppTest of Inspect showing ``case`` (the only case of a run held in the session), run; the
    caller asserts on it (``at.main.get("html")`` holds the response and documents)."""
    from ui import state

    return open_page("pages/4_inspect.py", owner, query={"case": case.id},
                     **{state._RUNS: {"run0": fake_run([case])}, state._CURRENT: "run0"})


def open_page(page: str, owner: str, query: dict[str, str] | None = None, **seed):
    """An AppTest of the dashboard as visitor ``owner`` with ``seed`` in its session (and ``query`` in
    its address), run, then switched to ``page`` and run."""
    from streamlit.testing.v1 import AppTest

    from ui import state

    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[state._OWNER] = owner
    for k, v in seed.items():
        at.session_state[k] = v
    at.query_params.update(query or {})
    at.run()
    at.switch_page(page).run()
    return at


@pytest.fixture
def tmp_store(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite3"
    monkeypatch.setenv("RAG_EVAL_STORE", str(path))
    return path


@pytest.fixture
def no_llm_env(monkeypatch):
    from evaluators.llm.settings import KEY_ENV, OWNER_BASE_URL_ENV

    for k in (*KEY_ENV.values(), OWNER_BASE_URL_ENV):
        monkeypatch.delenv(k, raising=False)


@pytest.fixture
def app_py_every_run(monkeypatch):
    """Make AppTest run app.py (``st.navigation``, the shared sidebar, the progress of background
    runs) on every run, as the server does. Without this, AppTest treats the ``pages/`` folder as
    a legacy multipage app on each run (it resets ``PagesManager.uses_pages_directory``), so after
    ``switch_page`` it runs the page file alone and skips app.py."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.fixture
def jobs_done():
    """``jobs_done(at)``: wait until the server's job queue is idle, then rerun the app (which
    files the ended runs, as the progress fragment's refresh would in a browser)."""
    def wait(at, timeout: float = 60):
        from ui import resources

        assert resources.queue().wait_idle(timeout), "background runs did not finish"
        at.run()
        return at
    return wait


def open_expander(at, key: str):
    """Open the expander ``key`` (``on_change="rerun"``: its content is built only while open) and
    rerun, as a click on it does."""
    at.session_state[key] = True
    return at.run()


def open_tab(at, key: str, label: str):
    """Open the tab ``label`` of the tabs ``key`` (``on_change="rerun"``: only the open tab's content
    is built) and rerun, as a click on the tab does."""
    at.session_state[key] = label
    return at.run()

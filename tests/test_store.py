"""Run history (evaluators/store.py): round trips, listing, deletion, and no key ever stored."""

import sqlite3

import pytest

from evaluators.llm.settings import LLMSettings
from evaluators.options import EvalOptions
from evaluators.store import RunStore, default_path
from evaluators.types import RunResult
from tests.ui_fixtures import fake_run

pytestmark = pytest.mark.usefixtures("fake_method")


def test_save_load_round_trip(tmp_path):
    store = RunStore(tmp_path / "h.sqlite3")
    run = fake_run()
    rid = store.save(run, "first")
    back = store.load(rid)
    assert isinstance(back, RunResult)
    assert back == run
    assert back.means() == run.means()


def test_list_newest_first_with_summary_and_delete(tmp_path):
    store = RunStore(tmp_path / "h.sqlite3")
    a = store.save(fake_run(), "a")
    b = store.save(fake_run(), None)
    listed = store.list()
    assert [r["id"] for r in listed] == [b, a]
    assert listed[1]["name"] == "a" and listed[0]["name"].startswith("ui_fake ")
    first = listed[0]
    assert first["num_cases"] == 4 and first["num_scored"] == 3
    assert first["means"]["adherence"] == pytest.approx(fake_run().means()["adherence"])
    assert store.delete(a) is True
    assert store.delete(a) is False
    assert [r["id"] for r in store.list()] == [b]
    with pytest.raises(KeyError, match=a):
        store.load(a)
    assert len(store) == 1


def test_path_from_env(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "x" / "env.sqlite3"))
    assert default_path() == tmp_path / "x" / "env.sqlite3"
    store = RunStore()
    store.save(fake_run())
    assert (tmp_path / "x" / "env.sqlite3").is_file()


def test_api_key_is_never_stored(tmp_path):
    secret = "sk-test-SECRET-0123456789"
    opts = EvalOptions(llm=LLMSettings(provider="openai", model="m", api_key=secret))
    run = fake_run(options=opts)
    assert run.settings["llm"]["model"] == "m"  # the settings are kept ...
    path = tmp_path / "h.sqlite3"
    store = RunStore(path)
    rid = store.save(run, "with llm")
    raw = path.read_bytes()
    assert secret.encode() not in raw  # ... the key is not
    with sqlite3.connect(path) as con:
        dump = "\n".join(str(row) for row in con.execute("SELECT * FROM runs"))
    assert secret not in dump and "api_key" not in dump
    assert secret not in store.load(rid).model_dump_json()


def test_refuses_a_payload_carrying_a_secret(tmp_path):
    run = fake_run().model_copy(update={"settings": {"llm": {"api_key": "sk-leak"}}})
    store = RunStore(tmp_path / "h.sqlite3")
    with pytest.raises(ValueError, match="secret"):
        store.save(run)
    assert len(store) == 0

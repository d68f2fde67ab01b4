"""``$RAG_EVAL_LLM_CACHE`` moves or disables the default LLM reply cache."""

from __future__ import annotations

from evaluators.llm.cache import open_cache
from evaluators.paths import ENV_LLM_CACHE, llm_cache_path


def test_env_moves_the_default_cache(tmp_path, monkeypatch):
    target = tmp_path / "sub" / "replies.sqlite3"
    monkeypatch.setenv(ENV_LLM_CACHE, str(target))
    assert llm_cache_path() == target
    cache = open_cache(None)
    assert cache is not None and cache.path == target and target.exists()
    cache.put("k", "structured", "m", "v")
    assert open_cache(None).get("k")[0] == "v"  # one shared instance per file


def test_env_off_disables_and_explicit_path_wins(tmp_path, monkeypatch):
    for off in ("off", "0", "OFF", "none"):
        monkeypatch.setenv(ENV_LLM_CACHE, off)
        assert llm_cache_path() is None and open_cache(None) is None
    explicit = tmp_path / "explicit.sqlite3"
    assert open_cache(explicit).path == explicit  # settings.cache_path beats the environment
    assert open_cache("") is None


def test_unset_env_is_the_user_cache_dir(monkeypatch):
    monkeypatch.delenv(ENV_LLM_CACHE, raising=False)
    p = llm_cache_path()
    assert p is not None and p.name == "llm_cache.sqlite3" and "rag-evaluators" in str(p)


def test_tests_never_touch_the_user_cache():
    # conftest gives every test a private file (a reused loopback port once hit an old reply)
    p = llm_cache_path()
    assert p is not None and "pytest" in str(p)

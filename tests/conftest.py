"""Shared pytest set-up: everything offline."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# never the user's on-disk embedding cache (tests of the cache pass their own temp file)
os.environ.setdefault("RAG_EVAL_EMBED_CACHE", "off")

ROOT = Path(__file__).resolve().parents[1]  # importable through pyproject's pythonpath = ["."]

# Fixture modules of each area (add yours here).
pytest_plugins: list[str] = ["tests.llm_server", "tests.ui_fixtures", "tests.browser_fixtures", "tests.trace_fixtures"]


@dataclass(frozen=True)
class InstanceSpec:
    """A method spec whose ``build()`` returns a ready labeler instance (test stand-ins)."""

    id: str
    name: str
    description: str
    needs_llm: bool
    impl: Any

    def build(self):
        return self.impl


@pytest.fixture
def register_method(monkeypatch):
    """``register_method(id, impl, name=id, description="", needs_llm=False)``: add a labeler
    instance to the method registry for one test only (the registry is process-wide)."""
    from evaluators.methods import METHODS

    def register(method_id: str, impl: Any, name: str | None = None, description: str = "",
                 needs_llm: bool = False) -> InstanceSpec:
        spec = InstanceSpec(method_id, name or method_id, description, needs_llm, impl)
        monkeypatch.setitem(METHODS._items, method_id, spec)
        return spec
    return register


@pytest.fixture(autouse=True)
def _private_user_files(tmp_path, monkeypatch):
    """Every test gets its own LLM reply cache and run history, never the user's. Loopback servers
    take a random port, which is part of the cache key, so a port reused by an earlier run (or
    test) would otherwise answer from that run's replies and the server under test would see no
    request; ``tmp_store`` (ui_fixtures) still names the history file for tests that read it."""
    from evaluators.paths import ENV_LLM_CACHE, ENV_STORE

    monkeypatch.setenv(ENV_LLM_CACHE, str(tmp_path / "llm_cache.sqlite3"))
    monkeypatch.setenv(ENV_STORE, str(tmp_path / "default_runs.sqlite3"))


def pytest_collection_modifyitems(config, items):
    """Under xdist (``scripts/dev.sh test``: ``-n 2 --dist loadfile --no-loadscope-reorder``), the
    files whose tests are marked ``browser`` or ``slow`` are handed out first, those with the most
    such tests first; the many short files come after and fill both workers' ends. (xdist's own
    order, the files with the most tests first, left the one-test browser walks for last: one worker
    ran them while the other had finished, 596 s against 524 s of tests.) The tests of a file keep
    their order; a run without xdist keeps the collection's order."""
    if not hasattr(config, "workerinput"):
        return
    heavy: dict[str, int] = {}
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        first.setdefault(item.fspath.strpath, i)
        if item.get_closest_marker("browser") or item.get_closest_marker("slow"):
            heavy[item.fspath.strpath] = heavy.get(item.fspath.strpath, 0) + 1
    items.sort(key=lambda it: (-heavy.get(it.fspath.strpath, 0), first[it.fspath.strpath]))

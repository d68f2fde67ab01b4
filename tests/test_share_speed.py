"""What keeps a shared link's first metrics quick in a fresh browser (issue 47, item 9; the time itself
is measured in bench/share_link.py, never in a test): Streamlit's magic is off, and no page relies on
it. (That Results opens on its cases, not its charts, is tests/test_compare_walk_logic.py's.)"""

from __future__ import annotations

import ast
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_magic_is_off():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["runner"]["magicEnabled"] is False


def _bare_expressions(path: Path) -> list[str]:
    """Statements that magic would have written to the page: a bare value (not a call, not a
    docstring), which does nothing with magic off."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for i, stmt in enumerate(body):
            calls = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)
            if not isinstance(stmt, ast.Expr) or isinstance(stmt.value, calls):
                continue
            if i == 0 and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                continue  # a docstring
            if isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis:
                continue
            out.append(f"{path.name}:{stmt.lineno}: {ast.unparse(stmt)[:60]}")
    return out


def test_no_page_relies_on_magic():
    files = [ROOT / "app.py", ROOT / "serve.py", *sorted((ROOT / "pages").glob("*.py"))]
    assert not [x for f in files for x in _bare_expressions(f)]


def test_the_check_sees_a_bare_value(tmp_path):
    page = tmp_path / "p.py"
    page.write_text('"""doc"""\nimport streamlit as st\nx = 1\nx\nst.write(x)\n')
    assert _bare_expressions(page) == ["p.py:4: x"]



def test_a_starting_server_imports_the_pages_in_the_background(monkeypatch):
    """serve.py starts the warm-up; its thread imports the chart libraries and every page module of
    ui/ (the evaluation's model runtime is not among them: it lives in the worker process), and a
    module that fails to import does not stop the others (it fails on its page, with its message)."""
    from ui.serving import warm

    serve = ast.parse((ROOT / "serve.py").read_text(encoding="utf-8"))
    calls = [ast.unparse(n.value) for n in serve.body if isinstance(n, ast.Expr)]
    assert "warm.in_background()" in calls
    names = warm._ui_modules()
    assert {"ui.results.results_view", "ui.compare.versions", "ui.shell.sidebar", "ui.share"} <= set(names)
    assert "ui.serving.warm" not in names and "onnxruntime" not in warm.PAGE_LIBS
    asked = []

    def fake_import(name):
        asked.append(name)
        if name == "ui.shell.sidebar":
            raise ImportError("broken on purpose")

    monkeypatch.setattr(warm.importlib, "import_module", fake_import)
    t = warm.in_background()
    t.join(30)
    assert not t.is_alive() and t.daemon
    assert asked == [*warm.PAGE_LIBS, *names]

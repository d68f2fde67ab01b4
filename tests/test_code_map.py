"""README's "Code map" names every library module and package, and every path it names exists; the README
stays a front page (at most 300 lines) that links every page of docs/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _code_map() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^## Code map\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, 'README.md has no "## Code map" section'
    return m.group(1)


def test_every_path_in_the_code_map_exists():
    tops = ("evaluators/", "pages/", "ui/", "tests/", "bench/", "data/", "scripts/", "app.py", "pyproject.toml")
    paths = [p for p in re.findall(r"`([\w./-]+)`", _code_map()) if p.startswith(tops)]
    assert len(paths) > 20
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"the Code map names paths that do not exist: {missing}"


def test_every_library_module_is_in_the_code_map():
    section = _code_map()
    modules = [p for p in sorted((ROOT / "evaluators").iterdir())
               if (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
               or (p.is_dir() and (p / "__init__.py").exists())]
    absent = [p.name for p in modules if f"evaluators/{p.name}" not in section]
    assert not absent, f"add these to README's Code map: {absent}"


def test_the_readme_is_a_front_page_that_links_every_doc():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    n = len(text.splitlines())
    assert n <= 300, f"README.md has {n} lines: keep it a front page (<= 300), move detail to docs/"
    unlinked = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if f"(docs/{p.name})" not in text]
    assert not unlinked, f"README.md links no page of docs/ named {unlinked}"

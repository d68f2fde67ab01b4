"""The house flows one way: the import graph of the library (``evaluators/``), of ``bench/`` and of
the dashboard (``ui/``) has no cycle, between modules or between packages; the library never imports
the dashboard (``ui/``, ``pages/``, ``app.py``) or Streamlit; the types layer imports nothing of the
project; and no module takes another module's private names.

The dashboard's rooms: every package under ``ui/`` is one page's own code, named after its page file
(``pages/4_inspect.py`` -> ``ui/inspect/``), and every page has one — but for the shared packages
named in :data:`SHARED_UI_PACKAGES` (``ui/serving/``, ``serve.py``'s; ``ui/shell/``, ``app.py``'s;
``ui/highlight/``, Inspect's and Compare's), which count as shared modules. A module at the top of
``ui/`` is there because several use it: two rooms at least (pages, entries, other shared modules);
one used by a single room belongs in that room's package. A page's package and its page
file import the shared modules at the top of ``ui/`` and that page's package alone, never another
page's; the shared modules and ``app.py`` import no page's package; nothing imports ``pages/``.

Every import counts, wherever it stands (module top, inside a function, under ``TYPE_CHECKING``):
a lazy import is still a dependency. The graph is read from the source with ``ast``; nothing is run.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = "evaluators"
DASHBOARD = ("ui", "pages", "app", "serve")
#: Modules that may import nothing of the project (the bottom of the house).
NOTHING_BELOW = ("evaluators.types",)
#: Packages under ``ui/`` that are no page's own code: shared, like the modules at the top of ``ui/``.
SHARED_UI_PACKAGES = {"serving", "shell", "highlight"}


@dataclass
class Graph:
    #: module -> {imported module: first line that imports it}
    edges: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    #: (module, line, "imported.module._name") for every private name taken from another module
    private: list[tuple[str, int, str]] = field(default_factory=list)
    #: (module, line, top-level name) of imports of third-party packages
    external: list[tuple[str, int, str]] = field(default_factory=list)


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    files = [ROOT / "app.py", ROOT / "serve.py"]
    for top in (LIBRARY, "bench", "ui", "pages"):
        files += sorted((ROOT / top).rglob("*.py"))
    return {module_name(p): p for p in files if p.exists() and "__pycache__" not in p.parts}


def _is_package(mod: str, modules: dict[str, Path]) -> bool:
    return modules[mod].name == "__init__.py"


def _resolve_from(mod: str, node: ast.ImportFrom, modules: dict[str, Path]) -> str | None:
    if node.level:
        pkg = mod.split(".") if _is_package(mod, modules) else mod.split(".")[:-1]
        if node.level > 1:
            pkg = pkg[: len(pkg) - (node.level - 1)]
        base = ".".join(pkg + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return base or None


def build_graph(modules: dict[str, Path]) -> Graph:
    g = Graph()
    for mod, path in modules.items():
        g.edges.setdefault(mod, {})
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bound: dict[str, str] = {}  # local name -> project module it names

        def add(target: str, line: int, _mod: str = mod) -> None:
            if target != _mod:
                g.edges[_mod].setdefault(target, line)

        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.name
                    if name in modules or name.split(".")[0] in {LIBRARY, "bench", "ui", "pages"}:
                        target = name
                        while target not in modules and "." in target:
                            target = target.rsplit(".", 1)[0]
                        if target in modules:
                            add(target, node.lineno)
                            bound[alias.asname or name.split(".")[0]] = target if alias.asname else name.split(".")[0]
                    else:
                        g.external.append((mod, node.lineno, name.split(".")[0]))
            elif isinstance(node, ast.ImportFrom):
                base = _resolve_from(mod, node, modules)
                if base is None:
                    continue
                if base not in modules and base.split(".")[0] not in {LIBRARY, "bench", "ui", "pages"}:
                    g.external.append((mod, node.lineno, base.split(".")[0]))
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in modules:  # `from pkg import module`
                        add(sub, node.lineno)
                        bound[alias.asname or alias.name] = sub
                    elif base in modules:
                        add(base, node.lineno)
                        if alias.name.startswith("_") and not alias.name.startswith("__"):
                            g.private.append((mod, node.lineno, f"{base}.{alias.name}"))
        for node in ast.walk(tree):  # `module._name` on a module this one imported
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound and node.attr.startswith("_") and not node.attr.startswith("__")
                    and bound[node.value.id] in modules and bound[node.value.id] != mod):
                g.private.append((mod, node.lineno, f"{bound[node.value.id]}.{node.attr}"))
    return g


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        work = [(v, iter(sorted(edges.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def describe(comp: list[str], edges: dict[str, dict[str, int]]) -> str:
    inside = set(comp)
    arrows = [f"    {a} -> {b} (line {line})" for a in comp for b, line in sorted(edges.get(a, {}).items())
              if b in inside]
    return "cycle of " + ", ".join(comp) + ":\n" + "\n".join(arrows)


def unit(mod: str) -> str:
    """The package a library module belongs to (``evaluators.llm.client`` -> ``evaluators.llm``);
    a top-level module is its own unit."""
    parts = mod.split(".")
    return ".".join(parts[:2])


def collapse(edges: dict[str, dict[str, int]], keep: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for a, targets in edges.items():
        if not a.startswith(keep):
            continue
        ua = unit(a)
        out.setdefault(ua, {})
        for b, line in targets.items():
            if b.startswith(keep) and unit(b) != ua and a != keep and b != keep:
                out[ua].setdefault(unit(b), line)
    return out


@pytest.fixture(scope="module")
def graph():
    modules = project_modules()
    return modules, build_graph(modules)


def _scoped(edges: dict[str, dict[str, int]], prefix: str) -> dict[str, dict[str, int]]:
    return {a: {b: n for b, n in t.items() if b.split(".")[0] == prefix}
            for a, t in edges.items() if a.split(".")[0] == prefix}


@pytest.mark.parametrize("prefix", [LIBRARY, "bench", "ui"])
def test_no_module_cycles(graph, prefix):
    _, g = graph
    edges = _scoped(g.edges, prefix)
    found = cycles(edges)
    assert not found, "import cycles:\n" + "\n".join(describe(c, edges) for c in found)


def test_no_cycles_between_library_packages(graph):
    """A package (``llm/``, ``families/``, ``encoder/`` ...) is one room: imports between rooms run one
    way too (the package's ``__init__`` re-exporting its own modules is inside the room)."""
    _, g = graph
    edges = collapse(_scoped(g.edges, LIBRARY), LIBRARY)
    found = cycles(edges)
    assert not found, "package cycles:\n" + "\n".join(describe(c, edges) for c in found)


def test_no_cycles_between_ui_packages(graph):
    """A page's package (``ui/inspect/``) and each shared module (``ui/state.py``) is one room of the
    dashboard: imports between them run one way too."""
    _, g = graph
    edges = collapse(_scoped(g.edges, "ui"), "ui")
    found = cycles(edges)
    assert not found, "ui package cycles:\n" + "\n".join(describe(c, edges) for c in found)


# ---- the dashboard's rooms: one package per page ---------------------------------------------------
def page_rooms(modules: dict[str, Path]) -> tuple[set[str], set[str]]:
    """(the pages' names, from ``pages/N_name.py``; the packages directly under ``ui/``)."""
    pages = {m.split(".", 1)[1].split("_", 1)[1] for m in modules if m.startswith("pages.")}
    packages = {m.split(".")[1] for m in modules
                if m.startswith("ui.") and m.count(".") == 1 and modules[m].name == "__init__.py"}
    return pages, packages - SHARED_UI_PACKAGES


def room(mod: str, pages: set[str]) -> str | None:
    """The page whose room ``mod`` is in: ``ui.inspect.review_view`` and ``pages.4_inspect`` ->
    ``inspect``; a shared module (``ui.state``), ``app`` or the library -> None."""
    parts = mod.split(".")
    if parts[0] == "pages" and len(parts) > 1:
        return parts[1].split("_", 1)[-1]
    if parts[0] == "ui" and len(parts) > 1 and parts[1] in pages:
        return parts[1]
    return None


def room_violations(edges: dict[str, dict[str, int]], pages: set[str]) -> list[str]:
    """Imports that cross the dashboard's rooms: a page (file or package) importing another page's
    package, a shared module or ``app`` importing any page's package, anything importing ``pages/``."""
    bad = []
    for a, targets in sorted(edges.items()):
        if a.split(".")[0] not in DASHBOARD:
            continue
        mine = room(a, pages)
        for b, line in sorted(targets.items()):
            if b.split(".")[0] == "pages":
                bad.append(f"{a} imports {b} (line {line}): page files are entry points, never imported")
                continue
            theirs = room(b, pages) if b.split(".")[0] == "ui" else None
            if theirs is not None and theirs != mine:
                who = f"the {mine} page" if mine else "a shared module"
                bad.append(f"{a} imports {b} (line {line}): {who} reaches into the {theirs} page's package "
                           "(move what both use to a shared module at the top of ui/)")
    return bad


def test_every_page_has_a_package_and_every_ui_package_is_a_pages(graph):
    modules, _ = graph
    pages, packages = page_rooms(modules)
    assert len(pages) >= 7
    assert not SHARED_UI_PACKAGES & pages, "a shared ui/ package is named like a page"
    assert all((ROOT / "ui" / p / "__init__.py").exists() for p in SHARED_UI_PACKAGES)
    assert packages - pages == set(), (f"ui/ packages named after no page in pages/: {sorted(packages - pages)} "
                                       "(a page's own code goes in ui/<page>/, shared code at the top of ui/)")
    assert pages - packages == set(), f"pages without a package of their own in ui/: {sorted(pages - packages)}"


def top_users(edges: dict[str, dict[str, int]], pages: set[str]) -> dict[str, set[str]]:
    """Each module at the top of ``ui/`` (``ui.state``, not a package) -> the rooms that import it: a
    page's name, ``app`` / ``serve``, a shared package (``ui.serving``) or another top module."""
    def user(mod: str) -> str:
        parts = mod.split(".")
        if parts[0] == "ui" and len(parts) > 2:  # inside a package: the package is the room
            return room(mod, pages) or ".".join(parts[:2])
        return room(mod, pages) or mod
    tops = {m for m in edges if m.startswith("ui.") and m.count(".") == 1
            and (ROOT / "ui" / f"{m.split('.')[1]}.py").exists()}
    users: dict[str, set[str]] = {m: set() for m in tops}
    for a, targets in edges.items():
        if a.split(".")[0] not in DASHBOARD:
            continue
        for b in targets:
            if b in users and user(a) != b:
                users[b].add(user(a))
    return users


def test_the_top_of_ui_keeps_only_what_several_rooms_share(graph):
    modules, g = graph
    pages, _ = page_rooms(modules)
    lonely = {m: sorted(u) for m, u in top_users(g.edges, pages).items() if len(u) < 2}
    assert not lonely, ("modules at the top of ui/ that serve one room only (move each into that room's "
                        f"package): {lonely}")


def test_no_page_reaches_into_another_pages_package(graph):
    modules, g = graph
    pages, _ = page_rooms(modules)
    bad = room_violations(g.edges, pages)
    assert not bad, "imports across the dashboard's rooms:\n" + "\n".join(bad)


def test_library_never_imports_the_dashboard(graph):
    modules, g = graph
    bad = [f"{a} imports {b} (line {line})" for a, t in g.edges.items() if a.split(".")[0] == LIBRARY
           for b, line in t.items() if b.split(".")[0] in DASHBOARD]
    bad += [f"{a} imports {name} (line {line})" for a, line, name in g.external
            if a.split(".")[0] == LIBRARY and name == "streamlit"]
    assert not bad, "the library must not know the UI:\n" + "\n".join(bad)


def test_the_types_layer_imports_nothing_of_the_project(graph):
    modules, g = graph
    for mod in NOTHING_BELOW:
        assert mod in modules
        assert not g.edges[mod], f"{mod} imports {sorted(g.edges[mod])}"


def test_no_module_takes_another_modules_private_names(graph):
    _, g = graph
    bad = [f"{a} line {line}: {name}" for a, line, name in g.private
           if a.split(".")[0] in (LIBRARY, "bench", "ui", "pages")]
    assert not bad, "private names taken across modules:\n" + "\n".join(sorted(bad))


def test_the_checker_sees_a_cycle_and_a_private_name(tmp_path):
    """The checks above can fail: a two-module cycle and a private import are found and named."""
    edges = {"evaluators.a": {"evaluators.b": 3}, "evaluators.b": {"evaluators.a": 7}, "evaluators.c": {}}
    found = cycles(edges)
    assert found == [["evaluators.a", "evaluators.b"]]
    assert "evaluators.a -> evaluators.b (line 3)" in describe(found[0], edges)
    collapsed = collapse({"evaluators.p.x": {"evaluators.q.y": 1}, "evaluators.q.y": {"evaluators.p.z": 2},
                          "evaluators.p.z": {}}, LIBRARY)
    assert cycles(collapsed) == [["evaluators.p", "evaluators.q"]]


def test_the_checker_sees_the_dashboards_rooms_crossed():
    """The room checks can fail: a ui cycle, a page package taking another page's, a shared module
    taking a page's, and an import of a page file are each found and named; a page's own and shared
    imports pass."""
    pages = {"results", "inspect"}
    edges = {
        "ui.state": {"ui.history": 4}, "ui.history": {"ui.state": 9},            # a cycle between rooms
        "ui.results.results_view": {"ui.inspect.inspect_view": 12, "ui.state": 3, "ui.results.exports": 5},
        "ui.share": {"ui.inspect": 7},                                          # shared -> a page's package
        "ui.inspect.inspect_view": {"ui.share": 2, "ui.inspect.review_view": 3},
        "pages.4_inspect": {"ui.inspect.inspect_view": 8, "ui.results.results_view": 9},
        "ui.jobs": {"pages.2_evaluate": 1},
    }
    found = cycles(collapse(edges, "ui"))  # (share <-> inspect closes a second one)
    assert ["ui.history", "ui.state"] in found and ["ui.inspect", "ui.share"] in found and len(found) == 2
    assert cycles(_scoped(edges, "ui")) == [["ui.history", "ui.state"]]
    bad = room_violations(edges, pages)
    assert len(bad) == 4, bad
    assert any(b.startswith("ui.results.results_view imports ui.inspect.inspect_view (line 12): the results page")
               for b in bad)
    assert any(b.startswith("ui.share imports ui.inspect (line 7): a shared module") for b in bad)
    assert any(b.startswith("pages.4_inspect imports ui.results.results_view (line 9): the inspect page") for b in bad)
    assert any(b.startswith("ui.jobs imports pages.2_evaluate") for b in bad)
    assert room("pages.4_inspect", pages) == "inspect" and room("ui.inspect.review_view", pages) == "inspect"
    assert room("ui.state", pages) is None and room("app", pages) is None

"""JSON documents -> facts: one per leaf value, one per sentence of a long text value.

A leaf is a scalar (string, number, boolean, null) or an empty object / array; its fact reads
``path › key: value`` and spans ``"key": value`` in the source (an array item: the item). A string
value of two or more sentences (a review's text) becomes one fact per sentence, each spanning that
sentence inside the string and read under its path (``reviews[0] › text: Great coffee.``). A JSON
Lines document and a top-level array number their records (``[2] › name: Blue Fin``). The walk keeps
an explicit stack: a document nested 1,000 deep is no different from a flat one.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .facts import Fact, fact_text, path_text
from .jsonscan import Node, Scan, source_offsets

#: Splits a text into sentence spans (``evaluators.sentencize.split_spans``; passed in by the caller).
Splitter = Callable[[str], Sequence[tuple[int, int]]]


def plain(node: Node) -> Any:
    """The Python value of a node tree (for a tree view; iterative)."""
    if node.kind == "scalar":
        return node.value
    out: Any = {} if node.kind == "object" else []
    stack: list[tuple[Node, Any]] = [(node, out)]
    while stack:
        n, target = stack.pop()
        for key, _, child in n.items:
            if child.kind == "scalar":
                val: Any = child.value
            else:
                val = {} if child.kind == "object" else []
                stack.append((child, val))
            if isinstance(target, dict):
                target[key] = val
            else:
                target.append(val)
    return out


#: A path as a linked list (step, parent): a step deeper costs one pair, not a copy of the path.
_Link = tuple[str | int, "_Link"] | None


def _path(link: _Link) -> tuple[str | int, ...]:
    steps: list[str | int] = []
    while link is not None:
        steps.append(link[0])
        link = link[1]
    return tuple(reversed(steps))


def facts_of(text: str, scan: Scan, split: Splitter | None = None) -> list[Fact]:
    """The facts of a scanned JSON document in text order (empty when it holds no leaf). Linear
    in the text however deep it nests."""
    roots = scan.roots
    out: list[Fact] = []
    # (node, path, span start) — pushed in reverse so facts come out in text order
    stack: list[tuple[Node, _Link, int]] = []
    if len(roots) == 1:
        stack.append((roots[0], None, roots[0].start))
    else:
        stack.extend((r, (i, None), r.start) for i, r in reversed(list(enumerate(roots))))
    while stack:
        node, link, start = stack.pop()
        if node.kind != "scalar" and node.items:
            kids: list[tuple[Node, _Link, int]] = []
            for i, (key, key_start, child) in enumerate(node.items):
                step: str | int = key if node.kind == "object" and key is not None else i
                kids.append((child, (step, link), key_start if key_start >= 0 else child.start))
            stack.extend(reversed(kids))
            continue
        if link is None:  # a bare scalar or an empty root: no fact
            continue
        path = _path(link)
        if node.kind == "scalar":
            out.extend(_leaf(text, node, path, start, split))
        else:
            out.append(Fact(path, {} if node.kind == "object" else [], "field", fact_text(path, plain(node)),
                            start, node.end))
    return out


def _leaf(text: str, node: Node, path: tuple[str | int, ...], start: int, split: Splitter | None
          ) -> list[Fact]:
    value = node.value
    raw = text[node.start:node.end] if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    whole = Fact(path, value, "field", fact_text(path, value, raw), start, node.end)
    if not isinstance(value, str) or split is None or not node.quoted or len(value) < 40:
        return [whole]
    pieces = [(s, e) for s, e in split(value) if e > s]
    if len(pieces) < 2:
        return [whole]
    offsets = source_offsets(text, node)
    head = path_text(path)
    out: list[Fact] = []
    for s, e in pieces:
        a, b = offsets[s], offsets[min(e, len(offsets) - 1)]
        if b <= a:
            continue
        out.append(Fact(path, value[s:e], "text", f"{head}: {value[s:e]}", a, b))
    if not out:
        return [whole]
    # the first piece also carries the key, so the highlight starts at it
    out[0] = Fact(out[0].path, out[0].value, out[0].kind, out[0].text, start, out[0].end)
    return out

"""Which main-content extractor keeps a page's text and drops its menus: inscriptis on the whole page
(what the reader used before), readability-lxml (then inscriptis on the article it keeps), and
trafilatura (its Markdown output), on crawled pages.

    python -m bench.research.html_extractors [--seeds 0 1 2 3 4] [--write html_extractors]

Pages: MTRAG-UN's passages (12 per seed, 1,500–4,000 characters, ``bench.pages_data``) each put in its
site's chrome in all three markups of ``evaluators.testing.crawled_pages`` (HTML5 landmarks, ``div``
soup, a blog theme), and the hand-written pages of ``tests/pages/*.html``. Measured per extractor:

* **kept** — the share of the content's sentences found in the output (whitespace, case, Markdown
  link syntax aside);
* **leaked** — the share of the chrome's lines (menus, breadcrumbs, footer, cookie banner, "Was
  this topic helpful?", a forum's list of other questions) found as a line of the output;
* pages where the extractor gave nothing, and the time per page.

trafilatura is not a dependency of the project (it pulls ~50 MB: babel, dateparser...); this bench
skips it when it is not installed. Results: ``bench/research/results/<name>.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]


def _norm(text: str) -> str:
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(re.findall(r"\w+", text.lower()))


def _inscriptis(markup: str) -> str:
    import inscriptis
    from inscriptis.model.config import ParserConfig

    return inscriptis.get_text(markup, ParserConfig(display_links=False, display_images=False))


def _readability(markup: str) -> str:
    from readability import Document

    doc = Document(markup)
    return doc.short_title() + "\n\n" + _inscriptis(doc.summary(html_partial=True))


def _trafilatura(markup: str) -> str:
    import trafilatura

    return trafilatura.extract(markup, include_tables=True, include_comments=False, output_format="markdown") or ""


def extractors() -> dict[str, Callable[[str], str]]:
    out: dict[str, Callable[[str], str]] = {"inscriptis (whole page)": _inscriptis}
    try:
        import readability  # noqa: F401

        out["readability-lxml"] = _readability
    except ImportError:
        pass
    try:
        import trafilatura  # noqa: F401

        out["trafilatura"] = _trafilatura
    except ImportError:
        pass
    return out


def _sentences(text: str) -> list[str]:
    from evaluators.sentencize import split_spans

    plain = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)
    out = []
    for block in re.split(r"\n\s*\n|\n(?=\s*[*-] )", plain):
        for a, b in split_spans(block):
            s = _norm(block[a:b])
            if len(s.split()) >= 3:
                out.append(s)
    return out


def _fixture_truth(markup: str) -> tuple[list[str], list[str]]:
    """Content sentences (the page's main / #content element) and chrome lines (the rest) of a
    hand-written page."""
    import lxml.html

    tree = lxml.html.fromstring(markup)
    main = (tree.xpath("//main") or tree.xpath("//*[@id='content']"))[0]
    content = _sentences("\n\n".join(" ".join(e.text_content().split()) for e in main.iter("p", "h1", "h2", "h3")))
    main.getparent().remove(main)
    for bad in tree.xpath("//head|//script|//style"):
        bad.getparent().remove(bad)
    chrome = [" ".join(e.text_content().split()) for e in tree.iter("a", "p", "div", "h2", "h3", "span", "li")
              if e.text_content().strip() and len(e) == 0]
    return content, [c for c in chrome if _norm(c)]


def measure(pages: list[tuple[str, str, list[str], list[str]]], fn: Callable[[str], str]) -> dict[str, Any]:
    kept = total = leaked = chrome = empty = 0
    t = time.perf_counter()
    worst: list[tuple[float, str]] = []
    for name, markup, content, lines in pages:
        out = fn(markup)
        if not out.strip():
            empty += 1
        body = " " + _norm(out) + " "
        out_lines = {_norm(ln) for ln in out.splitlines() if _norm(ln)}
        k = sum(f" {s} " in body for s in content)
        lk = sum(_norm(c) in out_lines for c in lines)
        kept, total, leaked, chrome = kept + k, total + len(content), leaked + lk, chrome + len(lines)
        worst.append((k / max(1, len(content)), name))
    dt = time.perf_counter() - t
    worst.sort()
    return {"kept": round(kept / max(1, total), 4), "leaked": round(leaked / max(1, chrome), 4),
            "content_sentences": total, "chrome_lines": chrome, "empty_pages": empty, "pages": len(pages),
            "ms_per_page": round(1000 * dt / max(1, len(pages)), 1),
            "least_kept": [f"{n}: {v:.2f}" for v, n in worst[:5]]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2, 3, 4])
    ap.add_argument("--write", default=None)
    args = ap.parse_args(argv)
    from bench import machine
    from bench.pages_data import CORPUS, as_page, corpus_rows, pick
    from evaluators.testing.crawled_pages import STYLES, chrome_lines, page_html

    pages: list[tuple[str, str, list[str], list[str]]] = []
    if CORPUS.is_file():
        rows = corpus_rows()
        seen: set[str] = set()
        for seed in args.seeds:
            for r in pick(rows, seed):
                if r["id"] in seen:
                    continue
                seen.add(r["id"])
                page = as_page(r, r["id"])
                content = _sentences(page.body)
                for style in STYLES:
                    pages.append((f"{r['id']}/{style}", page_html(page, style), content, chrome_lines(page.site)))
    for f in sorted((ROOT / "tests" / "pages").glob("*.html")):
        markup = f.read_text(encoding="utf-8")
        content, lines = _fixture_truth(markup)
        pages.append((f.name, markup, content, lines))
    result = {"what": __doc__.splitlines()[0], "cpu": machine.cpu_shared(), "pages": len(pages),
              "extractors": {name: measure(pages, fn) for name, fn in extractors().items()}}
    print(json.dumps(result, indent=1))
    if args.write:
        out = ROOT / "bench" / "research" / "results" / f"{args.write}.json"
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Web pages as a crawler leaves them, for tests and benchmarks of reading pages as pages: the page's
own text inside a site's chrome — a skip link, a top menu, breadcrumbs, a side menu, a cookie banner,
"Was this helpful?", share buttons, a footer of links and a copyright line, and (on a forum) a list
of other questions' titles. Written as HTML (three markups: HTML5 landmarks, bare ``div`` soup with
class names, a blog theme), as a PDF printed from that HTML by Chromium, and as the text dump a
crawler writes of the whole page (menus included, one line per block).

    from evaluators.testing.crawled_pages import Page, write_pages
    pages = [Page("fiqa-01", "How are dividends taxed?", body_markdown, site="forum")]
    write_pages(pages, folder, kinds=["txt", "html", "pdf"])

The chrome is written here, by hand, after the pages of a cloud provider's documentation and of a
question-and-answer forum; nothing is fetched.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .document_files import print_all, write_docx

#: The sites whose chrome a page can be given.
SITES = ("docs", "forum", "gov")
#: The markups an HTML page can be written in.
STYLES = ("landmarks", "divs", "blog")


@dataclass(frozen=True)
class Page:
    name: str
    title: str
    #: The page's own content, as Markdown (links, lists, images as a crawler's converter writes them).
    body: str
    site: str = "docs"


_CHROME = {
    "docs": {
        "brand": "IBM Cloud Docs",
        "top": ["Catalog", "Docs", "Pricing", "Support", "Manage", "Log in", "Contact Us"],
        "crumbs": ["Home", "Docs", "Services"],
        "side": ["Getting started", "Tutorials", "How-to guides", "API reference", "CLI reference",
                 "Release notes", "FAQs", "Troubleshooting", "Related links"],
        "after": ["Was this topic helpful?", "Yes", "No", "Feedback", "Edit topic", "On this page"],
        "foot": ["Contact IBM", "Privacy", "Terms of use", "Accessibility", "Cookie preferences", "Sitemap"],
        "copy": "© Copyright IBM Corporation 2024. All rights reserved.",
        "cookie": "We use cookies to give you the best experience on our website. By continuing to browse, "
                  "you agree to our use of cookies. Accept all cookies | Manage preferences",
        "others": [],
    },
    "forum": {
        "brand": "Personal Finance & Money Stack Exchange",
        "top": ["Home", "Questions", "Tags", "Users", "Unanswered", "Ask Question", "Log in", "Sign up"],
        "crumbs": [],
        "side": ["Linked", "Related", "Featured on Meta"],
        "after": ["Share", "Improve this answer", "Follow", "answered Mar 3, 2014 at 14:10", "Add a comment",
                  "Your Answer", "Sign up or log in", "Post as a guest", "Name", "Email",
                  "By clicking “Post Your Answer”, you agree to our terms of service and acknowledge you have "
                  "read our privacy policy.", "Not the answer you're looking for? Browse other questions tagged "
                  "taxes investing or ask your own question."],
        "foot": ["About", "Press", "Work Here", "Legal", "Privacy Policy", "Terms of Service", "Contact Us",
                 "Cookie Settings", "Cookie Policy"],
        "copy": "Site design / logo © 2024 Stack Exchange Inc; user contributions licensed under CC BY-SA.",
        "cookie": "Your privacy: by clicking “Accept all cookies”, you agree Stack Exchange can store cookies on "
                  "your device and disclose information in accordance with our Cookie Policy. Accept all cookies "
                  "Necessary cookies only Customize settings",
        "others": ["Is it better to pay off a car loan early or invest the money?",
                   "How do I report a 1099-B with no cost basis?",
                   "Should I keep an emergency fund in a money market account?",
                   "Why do stock prices drop after a dividend is paid?",
                   "Can I contribute to a Roth IRA and a 401(k) in the same year?",
                   "What happens to my options if the company is acquired?"],
    },
    "gov": {
        "brand": "California Courts",
        "top": ["Home", "Self-Help", "Forms & Rules", "Find Your Court", "Programs", "News", "Contact Us",
                "Español", "Search"],
        "crumbs": ["Home", "Self-Help Guide"],
        "side": ["Start here", "Forms", "Fee waivers", "Find legal help", "Court locations", "Jobs"],
        "after": ["Share this page", "Facebook", "Twitter", "Email", "Print", "Last updated: January 4, 2024"],
        "foot": ["Accessibility", "Privacy", "Terms of Use", "Careers", "Contact Us", "Site Map"],
        "copy": "Copyright © 2024 Judicial Council of California",
        "cookie": "This website uses cookies to improve your experience. We'll assume you're ok with this. "
                  "Accept Read more",
        "others": [],
    },
}


def _chrome(site: str) -> dict:
    return _CHROME.get(site, _CHROME["docs"])


def _md_html(body: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(body)


def _links(items: Sequence[str], cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<ul{attr}>" + "".join(f'<li><a href="/{html.escape(i.lower().replace(" ", "-"))}">'
                                   f'{html.escape(i)}</a></li>' for i in items) + "</ul>"


def page_html(page: Page, style: str = "landmarks") -> str:
    """The page in its site's chrome, in one of :data:`STYLES`."""
    c = _chrome(page.site)
    t = html.escape(page.title)
    content = (f"<h1>{t}</h1>\n" if t else "") + _md_html(page.body)
    crumbs = " &gt; ".join(f'<a href="/">{html.escape(x)}</a>' for x in c["crumbs"])
    crumbs += f" &gt; {t}" if c["crumbs"] else ""
    others = (f"<h4>Hot Network Questions</h4>{_links(c['others'])}" if c["others"] else "")
    after = "".join(f"<span>{html.escape(a)}</span> " for a in c["after"])
    cookie = f'<div class="cookie-banner">{html.escape(c["cookie"])}</div>'
    full = f"{t} | {html.escape(c['brand'])}" if t else html.escape(c["brand"])
    head = (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{full}</title>"
            "<style>body{font-family:sans-serif;font-size:11pt}</style></head><body>")
    if style == "landmarks":
        return (f"{head}<a href=\"#main\">Skip to main content</a><header><div class=\"logo\">{html.escape(c['brand'])}"
                f"</div><nav aria-label=\"Main\">{_links(c['top'])}</nav></header>"
                f"<nav aria-label=\"Breadcrumb\" class=\"breadcrumbs\">{crumbs}</nav>"
                f"<aside><nav>{_links(c['side'])}</nav>{others}</aside>"
                f"<main id=\"main\"><article>{content}</article><div class=\"page-feedback\">{after}</div></main>"
                f"<footer>{_links(c['foot'])}<p>{html.escape(c['copy'])}</p></footer>{cookie}</body></html>")
    if style == "divs":
        return (f"{head}<div id=\"wrapper\"><div class=\"topbar\"><div class=\"brand\">{html.escape(c['brand'])}</div>"
                f"{_links(c['top'], 'menu')}</div><div class=\"crumbs\">{crumbs}</div><div class=\"row\">"
                f"<div class=\"col-3 leftcol\">{_links(c['side'], 'sidemenu')}{others}</div>"
                f"<div class=\"col-9 content\">{content}<div class=\"tools\">{after}</div></div></div>"
                f"<div class=\"bottom\">{_links(c['foot'], 'footer-links')}<div class=\"copy\">{html.escape(c['copy'])}"
                f"</div></div></div>{cookie}</body></html>")
    if style == "blog":
        return (f"{head}<div class=\"site\"><div class=\"site-header\"><p class=\"site-title\">"
                f"{html.escape(c['brand'])}</p><div class=\"menu-primary\">{_links(c['top'])}</div></div>"
                f"<div class=\"site-content\"><div class=\"entry\"><p class=\"crumbs\">{crumbs}</p>"
                f"<div class=\"entry-content\">{content}</div><div class=\"sharedaddy\">{after}</div></div>"
                f"<div class=\"widget-area\"><div class=\"widget\">{_links(c['side'])}</div>"
                f"<div class=\"widget\">{others}</div></div></div>"
                f"<div class=\"site-footer\">{_links(c['foot'])}<p>{html.escape(c['copy'])}</p></div></div>"
                f"{cookie}</body></html>")
    raise ValueError(f"unknown style {style!r}; one of {', '.join(STYLES)}")


def page_text(page: Page) -> str:
    """The whole page as a crawler's text dump: every menu item, link and line on a line of its own,
    the content's Markdown as it is."""
    c = _chrome(page.site)
    lines = ["Skip to main content", c["brand"], *c["top"]]
    if c["crumbs"]:
        lines.append(" > ".join([*c["crumbs"], page.title or "Answer"]))
    top = "\n".join(lines)
    tail = [*c["after"], *(["Hot Network Questions", *c["others"]] if c["others"] else []), *c["side"], *c["foot"],
            c["copy"], c["cookie"]]
    title = f"{page.title}\n\n" if page.title else ""
    return f"{top}\n\n{title}{page.body.strip()}\n\n" + "\n".join(tail) + "\n"


def chrome_lines(site: str) -> list[str]:
    """Every line of a site's chrome (what a reader must drop), for measuring an extractor."""
    c = _chrome(site)
    return [c["brand"], *c["top"], *c["side"], *c["after"], *c["foot"], c["copy"], c["cookie"], *c["others"]]


def write_pages(pages: Sequence[Page], folder: str | Path, kinds: Sequence[str], seed: int = 0) -> list[Path]:
    """Write page ``i`` as ``kinds[i]`` (txt: the crawler's text dump; md: the content's Markdown under
    its title; html: the page in its chrome, a markup drawn by the seed; pdf: that HTML printed by
    Chromium; docx: the title and the content's paragraphs). Returns the paths in order."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    paths: list[Path] = []
    to_print: list[tuple[Path, Path]] = []
    for page, kind in zip(pages, kinds):
        path = out / f"{page.name}.{kind}"
        if kind == "txt":
            path.write_text(page_text(page), encoding="utf-8")
        elif kind == "md":
            title = f"# {page.title}\n\n" if page.title else ""
            path.write_text(f"{title}{page.body.strip()}\n", encoding="utf-8")
        elif kind in ("html", "pdf"):
            markup = page_html(page, rng.choice(STYLES))
            if kind == "html":
                path.write_text(markup, encoding="utf-8")
            else:
                src = out / f".{page.name}.print.html"
                src.write_text(markup, encoding="utf-8")
                to_print.append((src, path))
        elif kind == "docx":
            write_docx(path, page.title, [b for b in page.body.split("\n\n") if b.strip()])
        else:
            raise ValueError(f"unknown kind {kind!r}")
        paths.append(path)
    print_all(to_print)
    return paths

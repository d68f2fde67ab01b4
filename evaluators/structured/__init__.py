"""Structured documents — JSON records and tables — read as facts and judged fact by fact.

    from evaluators.structured import Record, check, parse
    st = parse('{"name": "Blue Fin", "attributes": {"WiFi": "no"}}')
    [f.text for f in st.facts]          # ['name: Blue Fin', 'attributes › WiFi: no']
    st.facts[1].start, st.facts[1].end  # where '"WiFi": "no"' sits in the original text
    check("Blue Fin offers free WiFi.", Record.of(st.facts))
    # [Finding(verdict='contradicts', facts=(1,), claimed='WiFi', said='attributes › WiFi: no')]

``parse`` returns None for prose (and for anything it cannot read: it never raises), so callers
split prose as before. ``evaluators.sentencize`` makes the facts a document's keyed sentences; the
``trace`` labeler checks every response sentence with ``check``.

Modules (private; this package's surface is below): ``detect`` (which documents are structured,
and the lenient fallbacks), ``jsonscan`` (a JSON reader that keeps every value's place in the text,
lenient, without recursion), ``json_facts`` (JSON -> one fact per leaf and per sentence of a long
text), ``tables`` (Markdown, HTML and CSV tables -> one fact per row), ``facts`` (the ``Fact`` /
``Structure`` / ``Finding`` types and how a fact reads), ``values`` (values compared as values:
yes / no, numbers with units and rounding, times, dates, enumerations), ``claims`` (a response
sentence against a record's fields), ``hours`` (opening days and times).
"""

from __future__ import annotations

from .claims import Record, check
from .detect import is_structured, parse
from .facts import Fact, Finding, Structure, humanize, path_text, value_text

__all__ = ["Fact", "Finding", "Record", "Structure", "check", "humanize", "is_structured", "parse", "path_text",
           "value_text"]

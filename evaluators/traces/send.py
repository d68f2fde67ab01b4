"""Send the annotations of a run straight to a Phoenix server (its REST API, over httpx):
``POST /v1/span_annotations`` and ``POST /v1/document_annotations``, 100 at a time, synchronously
so every failure is known. Annotations are upserted by Phoenix (same span, name and identifier):
sending twice updates them.

Keys: the caller passes the key (a password field, or the environment when the address also came
from the environment); this module never reads one, so a key can never follow an address someone
typed. A span the server does not know (the trace was not sent to it, or another project) is
reported by id and the rest are still sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..types import RunResult
from .annotations import SOURCE, document_rows, root_rows

_CHUNK = 100
_MISSING = re.compile(r"Spans with IDs (.+) do not exist")
_OUT_OF_BOUNDS = re.compile(r"Document position (\d+) is out of bounds for span (\w+)")


class PhoenixSendError(Exception):
    """The server could not be reached or refused the annotations (the message says why)."""


@dataclass
class SendReport:
    """What was sent: counts, the span ids Phoenix does not know, and problems."""

    url: str
    span_annotations: int = 0
    document_annotations: int = 0
    unknown_spans: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def text(self) -> str:
        s = (f"sent {self.span_annotations} span annotation(s) and {self.document_annotations} document "
             f"annotation(s) to {self.url}")
        if self.unknown_spans:
            s += (f"; {len(self.unknown_spans)} span id(s) are not on that server (e.g. "
                  f"{', '.join(self.unknown_spans[:3])}): were these traces sent to it?")
        if self.problems:
            s += "; " + "; ".join(self.problems[:3])
        return s


def check_url(url: str) -> str:
    """``url`` without a trailing slash; ValueError unless it is http(s)://host[:port][/path]."""
    u = (url or "").strip()
    parts = urlsplit(u)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not a Phoenix address; give http://host:port (e.g. http://127.0.0.1:6006)")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"{url!r}: give the server address only (no query, fragment or user name)")
    return u.rstrip("/")


def _span_payload(x: dict[str, Any]) -> dict[str, Any]:
    result = {k: v for k, v in (("label", x.get("label")), ("score", x.get("score")),
                                ("explanation", x.get("explanation"))) if v is not None and v == v}
    return {"span_id": x["span_id"], "name": x["name"], "annotator_kind": x["annotator_kind"],
            "result": result, "metadata": {"source": SOURCE, "trace_id": str(x.get("trace_id"))},
            "identifier": ""}


def _doc_payload(x: dict[str, Any]) -> dict[str, Any]:
    return {**_span_payload(x), "document_position": int(x["document_position"])}


def _post(client: Any, url: str, body: list[dict[str, Any]], report: SendReport) -> int:
    """POST one chunk; on 'spans do not exist' drop those spans (on 'document position out of
    bounds' that document) and send the rest again."""
    import httpx

    for _ in range(3):
        if not body:
            return 0
        try:
            resp = client.post(url, params={"sync": "true"}, json={"data": body})
        except httpx.HTTPError as exc:
            raise PhoenixSendError(f"cannot reach {report.url}: {type(exc).__name__}: {exc}") from None
        if resp.status_code < 300:
            return len(body)
        detail = _detail(resp)
        oob = _OUT_OF_BOUNDS.search(detail) if resp.status_code == 422 else None
        if oob is not None:  # the span holds fewer documents than the trace file said
            pos, sid = int(oob.group(1)), oob.group(2)
            report.problems.append(f"span {sid} has no document at position {pos} on that server")
            body = [b for b in body if not (b["span_id"] == sid and b.get("document_position") == pos)]
            continue
        m = _MISSING.search(detail) if resp.status_code == 404 else None
        if m is None:
            if resp.status_code in (401, 403):
                raise PhoenixSendError(f"{report.url} refused the annotations ({resp.status_code}): it needs "
                                       "an API key (give one for this address)")
            if resp.status_code == 404 and "span" not in detail.lower():
                raise PhoenixSendError(f"{url} answered 404: is {report.url} a Phoenix server?")
            report.problems.append(f"{resp.status_code} from {url.rsplit('/', 1)[-1]}: {detail[:300]}")
            return 0
        gone = {s.strip() for s in m.group(1).split(",")}
        report.unknown_spans += sorted(gone - set(report.unknown_spans))
        body = [b for b in body if b["span_id"] not in gone]
    return 0


def _detail(resp: Any) -> str:
    """Phoenix's error message: ``{"detail": …}`` or a short plain-text line; of any other reply
    only its type (an address typed by a visitor must not make the dashboard a reader of other
    servers' pages)."""
    ctype = resp.headers.get("content-type", "").split(";")[0].strip() or "untyped"
    try:
        d = resp.json()
    except ValueError:
        text = resp.text.strip()
        if ctype == "text/plain" and len(text) <= 1000 and "<" not in text:
            return text
        return f"a {ctype} reply, not Phoenix's"
    return str(d.get("detail")) if isinstance(d, dict) and "detail" in d else "an unexpected JSON reply"


def send_to_phoenix(url: str, run: RunResult, *, api_key: str | None = None, timeout_s: float = 30.0,
                    documents: bool = True) -> SendReport:
    """Send the span (and document) annotations of ``run``'s traced cases to the Phoenix server at
    ``url``. ``api_key`` goes in the Authorization header, to this address only."""
    import httpx

    base = check_url(url)
    report = SendReport(url=base)
    spans = [_span_payload(x) for x in root_rows(run) if x["span_id"]]
    docs = [_doc_payload(x) for x in document_rows(run)] if documents else []
    if not spans and not docs:
        return report
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(timeout=timeout_s, headers=headers, follow_redirects=False, trust_env=False) as client:
        for i in range(0, len(spans), _CHUNK):
            report.span_annotations += _post(client, f"{base}/v1/span_annotations", spans[i:i + _CHUNK], report)
        unknown = set(report.unknown_spans)
        docs = [d for d in docs if d["span_id"] not in unknown]
        for i in range(0, len(docs), _CHUNK):
            report.document_annotations += _post(client, f"{base}/v1/document_annotations",
                                                 docs[i:i + _CHUNK], report)
    return report

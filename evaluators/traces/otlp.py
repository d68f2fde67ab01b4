"""OTLP JSON -> spans: the OpenTelemetry Collector's file exporter (one ``{"resourceSpans": …}``
request per line), one such request as a JSON document, or a list of them. Attributes are
OpenInference's, or the OpenTelemetry GenAI conventions' (read through :mod:`.genai`).

Both JSON encodings are read: the OTLP/JSON one (ids in hex, ``kind`` a number) and the plain
protobuf JSON mapping (``MessageToJson``: ids in base64, enum names), with camelCase or the proto's
snake_case field names. Attribute values are ``{"stringValue": …}``, ``{"intValue": "5"}``,
``{"arrayValue": {"values": […]}}``, ``{"kvlistValue": …}`` … (AnyValue).

A damaged record (a truncated last line, a file cut short) does not lose the rest: its complete
spans are still read one by one, and the trace whose span was cut is marked as damaged (skipped
with the record named) instead of being scored from a part of it.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, Iterator

from .genai import as_openinference, is_genai
from .model import Issue, Span
from .openinference import span_from_attributes
from .values import timestamp

_HEX = re.compile(r"^[0-9a-fA-F]+$")
_SPANS_KEY = re.compile(r'(?<!\\)"spans"\s*:\s*\[')
_TRACE_ID_IN = re.compile(r'"(?:traceId|trace_id)"\s*:\s*"([^"]*)"')
_HEAD = re.compile(r'^\s*\[?\s*\{\s*"(resourceSpans|resource_spans)"')


def looks_like_otlp(text: str) -> bool:
    """The text starts like an OTLP JSON export (``{"resourceSpans": …`` or a list / lines of them)."""
    return bool(_HEAD.match(text[:4096].lstrip("\ufeff")))


def _get(d: dict[str, Any], camel: str, snake: str) -> Any:
    v = d.get(camel)
    return d.get(snake) if v is None else v


def hex_id(v: Any, size: int) -> str | None:
    """An OTLP id in hex (OTLP/JSON) or base64 (protobuf JSON mapping) -> lower-case hex; None when
    missing, empty or all zeros (what OTLP writes for 'no parent')."""
    if not isinstance(v, str) or not v.strip():
        return None
    s = v.strip()
    if len(s) == 2 * size and _HEX.match(s):
        out = s.lower()
    else:
        try:
            raw = base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{s!r} is neither {2 * size} hex digits nor base64 of {size} bytes") from None
        if len(raw) != size:
            raise ValueError(f"{s!r} decodes to {len(raw)} bytes, expected {size}")
        out = raw.hex()
    return None if set(out) == {"0"} else out


def any_value(v: Any) -> Any:
    """An OTLP AnyValue -> a Python value."""
    if not isinstance(v, dict):
        return v
    if "stringValue" in v:  # by far the most common
        return v["stringValue"]
    for camel, snake in (("string_value", "string_value"), ("boolValue", "bool_value"),
                         ("doubleValue", "double_value")):
        if camel in v or snake in v:
            return _get(v, camel, snake)
    if "intValue" in v or "int_value" in v:
        x = _get(v, "intValue", "int_value")
        try:
            return int(x)
        except (TypeError, ValueError):
            return x
    if "arrayValue" in v or "array_value" in v:
        arr = _get(v, "arrayValue", "array_value") or {}
        return [any_value(x) for x in (arr.get("values") or [])]
    if "kvlistValue" in v or "kvlist_value" in v:
        kv = _get(v, "kvlistValue", "kvlist_value") or {}
        return {x.get("key"): any_value(x.get("value")) for x in (kv.get("values") or []) if isinstance(x, dict)}
    if "bytesValue" in v or "bytes_value" in v:
        return _get(v, "bytesValue", "bytes_value")
    return None


def attributes(kvs: Any) -> dict[str, Any]:
    if not isinstance(kvs, list):
        return {}
    return {kv["key"]: any_value(kv.get("value")) for kv in kvs if isinstance(kv, dict) and "key" in kv}


_ERROR_CODES = ("STATUS_CODE_ERROR", 2, "2", "ERROR")


def span_of(d: dict[str, Any], record: int | None, resource: dict[str, Any]) -> Span:
    """One OTLP span object -> a Span (ValueError naming the field when an id is unusable)."""
    name = str(d.get("name") or "")
    try:
        tid = hex_id(_get(d, "traceId", "trace_id"), 16)
    except ValueError as exc:
        raise ValueError(f"span {name!r}: traceId {exc}") from None
    if tid is None:
        raise ValueError(f"span {name!r} has no traceId")
    try:
        sid = hex_id(_get(d, "spanId", "span_id"), 8)
        parent = hex_id(_get(d, "parentSpanId", "parent_span_id"), 8)
    except ValueError as exc:
        raise ValueError(f"span {name!r} of trace {tid}: {exc}") from None
    if sid is None:
        raise ValueError(f"span {name!r} of trace {tid} has no spanId")
    attrs = attributes(d.get("attributes"))
    if is_genai(attrs):  # the OpenTelemetry GenAI conventions: read as the OpenInference they stand for
        attrs = as_openinference(attrs)
    status = d.get("status") or {}
    code = status.get("code") if isinstance(status, dict) else None
    span = span_from_attributes(
        attrs, trace_id=tid, span_id=sid, parent_id=parent, name=name,
        start=timestamp(_get(d, "startTimeUnixNano", "start_time_unix_nano")),
        end=timestamp(_get(d, "endTimeUnixNano", "end_time_unix_nano")),
        status="ERROR" if code in _ERROR_CODES else "",
        status_message=str(status.get("message") or "") if isinstance(status, dict) else "", record=record)
    if resource.get("service.name") and "service.name" not in span.attributes:
        span.attributes["service.name"] = resource["service.name"]
    return span


def _requests(obj: Any) -> Iterator[dict[str, Any]]:
    """The ExportTraceServiceRequest objects in a parsed document (one, or a list of them)."""
    if isinstance(obj, dict):
        yield obj
    elif isinstance(obj, list):
        for x in obj:
            if isinstance(x, dict):
                yield x


def spans_of_request(req: dict[str, Any], record: int | None) -> tuple[list[Span], list[Issue]]:
    """The spans of one ``{"resourceSpans": …}`` object (or of one resourceSpans element)."""
    spans: list[Span] = []
    issues: list[Issue] = []
    blocks = _get(req, "resourceSpans", "resource_spans")
    if blocks is None and (_get(req, "scopeSpans", "scope_spans") is not None):
        blocks = [req]  # one element of resourceSpans on its own
    if not isinstance(blocks, list):
        keys = ", ".join(list(req)[:8]) or "none"
        issues.append(Issue(f"not an OTLP trace request: no resourceSpans list (keys: {keys})", record=record))
        return spans, issues
    n = 0
    for block in blocks:
        if not isinstance(block, dict):
            continue
        resource = attributes((block.get("resource") or {}).get("attributes"))
        for scope in _get(block, "scopeSpans", "scope_spans") or []:
            for d in (scope.get("spans") or []) if isinstance(scope, dict) else []:
                n += 1
                if not isinstance(d, dict):
                    issues.append(Issue(f"span {n} is not an object", record=record))
                    continue
                try:
                    spans.append(span_of(d, record, resource))
                except ValueError as exc:
                    issues.append(Issue(f"{exc}; this span is left out", record=record))
    return spans, issues


def salvage(text: str, record: int | None, error: json.JSONDecodeError
            ) -> tuple[list[Span], list[Issue], dict[str, str]]:
    """The complete spans of a damaged record, read one by one, and the traces the damage touched
    ({trace id: why}): the span where reading stopped is cut, so its trace is incomplete."""
    dec = json.JSONDecoder()
    spans: list[Span] = []
    issues: list[Issue] = []
    damaged: dict[str, str] = {}
    one_line = "\n" not in text.rstrip("\n")  # a JSONL record: its line number is the record's
    line = record if one_line and record is not None else text.count("\n", 0, error.pos) + 1
    where = f"line {line}, column {error.pos - (text.rfind(chr(10), 0, error.pos) + 1) + 1}"
    what = f"malformed or truncated JSON at {where} ({error.msg})"
    pos, cuts = 0, []
    for m in _SPANS_KEY.finditer(text):
        if m.start() < pos:
            continue
        pos = m.end()
        while True:
            while pos < len(text) and text[pos] in " \t\r\n,":
                pos += 1
            if pos >= len(text) or text[pos] == "]":
                break
            try:
                obj, pos = dec.raw_decode(text, pos)
            except (json.JSONDecodeError, RecursionError):
                cuts.append(pos)
                break
            if isinstance(obj, dict):
                try:
                    spans.append(span_of(obj, record, {}))
                except ValueError as exc:
                    issues.append(Issue(f"{exc}; this span is left out", record=record))
    reason = f"the file is damaged inside this trace ({what}); export it again"
    for cut in cuts or [error.pos]:
        end = text.find('"spans"', cut + 1)
        for tid in _TRACE_ID_IN.findall(text[cut:end if end > cut else cut + 200_000]):
            try:
                h = hex_id(tid, 16)
            except ValueError:
                continue
            if h:
                damaged[h] = reason
    lost = "" if damaged else "; the span cut there carries no readable trace id"
    issues.append(Issue(f"{what}: {len(spans)} complete span(s) read from this record{lost}", record=record))
    return spans, issues, damaged


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) without copying the whole text again (a 50 MB export is read once)."""
    start, n = 0, 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        n += 1
        yield n, text[start:end]
        start = end + 1


def read_otlp_text(text: str) -> tuple[list[Span], list[Issue], dict[str, str]]:
    """Spans, problems and damaged traces of an OTLP JSON / JSONL text."""
    spans: list[Span] = []
    issues: list[Issue] = []
    damaged: dict[str, str] = {}
    body = text[1:] if text.startswith("\ufeff") else text
    try:
        obj = json.loads(body)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        if "Extra data" not in exc.msg:  # one document, damaged: keep what is complete
            return salvage(body, 1, exc)
        obj = None
    if obj is not None:
        for i, req in enumerate(_requests(obj), start=1):
            s, iss = spans_of_request(req, i if isinstance(obj, list) else 1)
            spans += s
            issues += iss
        return spans, issues, damaged
    for lineno, line in _lines(body):  # JSONL: one request per line
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError as exc:
            s, iss, dmg = salvage(line, lineno, exc)
            spans += s
            issues += iss
            damaged.update(dmg)
            continue
        except RecursionError:
            issues.append(Issue("line is nested too deeply to read", record=lineno))
            continue
        if not isinstance(req, dict):
            issues.append(Issue(f"line holds a {type(req).__name__}, expected an OTLP request object",
                                record=lineno))
            continue
        s, iss = spans_of_request(req, lineno)
        spans += s
        issues += iss
    return spans, issues, damaged


def read_otlp_records(records: list[tuple[int, dict[str, Any]]]) -> tuple[list[Span], list[Issue]]:
    """Spans of already-parsed records (each a request, or a resourceSpans element)."""
    spans: list[Span] = []
    issues: list[Issue] = []
    for row, rec in records:
        s, iss = spans_of_request(rec, row)
        spans += s
        issues += iss
    return spans, issues

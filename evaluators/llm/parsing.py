"""Turn a model's reply text into a validated pydantic object.

Steps: strip code fences and any prose around the outermost JSON object; ``json.loads``; if that
fails, repair near-JSON with ``json_repair`` (unclosed brackets of a truncated reply, single quotes,
trailing commas, comments) and record that it was repaired; validate against the schema.
A failure raises :class:`ReplyError` whose message is short enough to send back to the model.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


class ReplyError(ValueError):
    """The reply is not usable; the message says why (sent back to the model on a re-ask)."""


def extract_json_text(text: str) -> tuple[str, list[str]]:
    """The JSON part of ``text`` and notes about what was stripped."""
    notes: list[str] = []
    s = (text or "").strip()
    if "<think>" in s.lower():
        s = _THINK.sub("", s).strip()
        notes.append("removed a <think> block")
    m = _FENCE.search(s)
    if m and "```" in s:
        s = m.group(1).strip()
        notes.append("stripped a code fence")
    start = s.find("{")
    if start > 0:
        notes.append("dropped text before the JSON object")
        s = s[start:]
    end = s.rfind("}")
    if start >= 0 and 0 <= end < len(s) - 1 and s[end + 1 :].strip():
        # trailing prose after a complete object (keep it when the object may be truncated)
        try:
            json.loads(s[: end + 1])
            s = s[: end + 1]
            notes.append("dropped text after the JSON object")
        except (ValueError, RecursionError):
            pass
    return s, notes


def load_json_object(text: str) -> tuple[dict[str, Any], list[str]]:
    s, notes = extract_json_text(text)
    if not s:
        raise ReplyError("the reply is empty; expected one JSON object")
    try:
        obj = json.loads(s)
    except RecursionError:  # nesting past the interpreter's limit: json-repair would hit it too
        raise ReplyError("the reply is nested too deeply; answer with one flat JSON object") from None
    except ValueError as exc:
        from json_repair import repair_json

        try:
            obj = repair_json(s, return_objects=True)
        except Exception:  # noqa: BLE001 - json_repair gives up in odd ways
            obj = None
        if not isinstance(obj, dict) or not obj:
            raise ReplyError(f"the reply is not valid JSON ({_where(exc)})") from None
        notes.append(f"repaired malformed JSON ({_where(exc)})")
    if not isinstance(obj, dict):
        raise ReplyError(f"expected one JSON object, got a JSON {type(obj).__name__}")
    return obj, notes


def format_validation_error(exc: ValidationError, limit: int = 8) -> str:
    parts = []
    for err in exc.errors()[:limit]:
        loc = ".".join(str(x) for x in err.get("loc", ())) or "(root)"
        parts.append(f"{loc}: {err.get('msg')}")
    more = len(exc.errors()) - limit
    if more > 0:
        parts.append(f"... and {more} more")
    return "; ".join(parts)


def _where(exc: ValueError) -> str:
    """"<message> at position <n>" of a JSONDecodeError (its text for any other ValueError)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at position {exc.pos}"
    return str(exc)


def parse_reply(text: str, schema: type[M]) -> tuple[M, list[str]]:
    obj, notes = load_json_object(text)
    try:
        return schema.model_validate(obj), notes
    except ValidationError as exc:
        raise ReplyError(f"the JSON does not match the required shape: {format_validation_error(exc)}") from None

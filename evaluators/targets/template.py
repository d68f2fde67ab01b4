"""Filling a target's request from a question row and the environment, and keeping what was filled
in from ever being shown.

Contract:

* ``"{column}"`` — any column of the question row (``{id}`` is the case id, unique in the file). A
  string that is exactly ``"{column}"`` takes the row's value with its JSON type (``"{history}"``
  the history list, ``"{k}"`` a number; a missing value is ``null``); inside a longer string the
  value is text (JSON for a list / object; missing: empty), URL-encoded in the URL. ``{{`` and
  ``}}`` are literal braces. Filled values are never read again as templates.
* Besides its columns, every row offers :data:`BUILT_IN`: ``{id}``, ``{question}``, and
  ``{messages}`` — the conversation as chat messages, each earlier turn ``{"role": "user" |
  "assistant", "content"}`` and the question appended as the last user message (a question without
  history: that one message); a column of the question file named ``messages`` is taken instead
  (:func:`row_values`).
* ``${VAR}`` — the environment variable, read at call time, in the URL, a header, the body or the
  query. Only the owner's targets expand them (:class:`~.policy.TargetPolicy`); a variable that is
  not set is a :class:`~.errors.TargetError` naming the variable and the field, before any call.
* :class:`~.secrets.Secrets` — every ``${VAR}`` value filled in, and the header values of credential
  headers (``Authorization``, ``Cookie``, names with key / token / secret / password / session /
  signature) are added to it; it masks them (``***``) in every form (:mod:`.secrets`) before any text
  is written, logged or raised. Header values are never written or printed at all.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Iterator, Mapping
from urllib.parse import quote

from .errors import TargetError
from .secrets import Secrets

VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_TOKEN = re.compile(r"\$\{(?P<var>[A-Za-z_][A-Za-z0-9_]*)\}|(?P<open>\{\{)|(?P<close>\}\})|\{(?P<col>[^{}]+)\}")
_EXACT = re.compile(r"^\{([^{}]+)\}$")
_CREDENTIAL = re.compile(r"auth|cookie|key|token|secret|passw|session|signature|credential", re.I)
#: Values every question row offers besides its columns (see the module doc).
BUILT_IN = ("id", "question", "messages")
_ROLES = {"user": "user", "agent": "assistant"}


def chat_messages(history: Iterable[Any], question: str) -> list[dict[str, str]]:
    """The earlier turns (``Turn``: speaker, text) as chat messages, the question appended."""
    out = [{"role": _ROLES.get(t.speaker, "user"), "content": t.text} for t in history]
    out.append({"role": "user", "content": question})
    return out


def row_values(q: Any) -> dict[str, Any]:
    """What ``{column}`` reads for one question (a ``QuestionRow``): its columns and :data:`BUILT_IN`."""
    out = {**q.row, "id": q.id, "question": q.question}
    if "messages" not in q.row:
        out["messages"] = chat_messages(q.case.history, q.question)
    return out


def is_credential_header(name: str) -> bool:
    return bool(_CREDENTIAL.search(name))


def walk_strings(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """(where, string) of every string inside a JSON template value."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from walk_strings(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk_strings(v, f"{where}[{i}]")


def http_templates(http: Any) -> Iterator[tuple[str, str]]:
    """(field, string) of every template string of an ``HttpSpec``."""
    yield "http.url", http.url
    for k, v in http.headers.items():
        yield f"http.headers.{k}", v
    yield from walk_strings(http.body, "http.body")
    yield from walk_strings(http.query, "http.query")


def variables(http: Any) -> list[tuple[str, str]]:
    """(variable, field) of every ``${VAR}`` in an ``HttpSpec``."""
    return [(m.group(1), where) for where, s in http_templates(http) for m in VAR.finditer(s)]


def columns_used(http: Any) -> list[tuple[str, str]]:
    """(column, field) of every ``{column}`` in an ``HttpSpec``."""
    out = []
    for where, s in http_templates(http):
        for m in _TOKEN.finditer(s):
            if m.group("col") is not None:
                out.append((m.group("col"), where))
    return out


def check_environment(http: Any, source: str, environ: Mapping[str, str]) -> None:
    """A :class:`TargetError` naming the first ``${VAR}`` that is not set (never a value)."""
    for var, where in variables(http):
        if var not in environ:
            raise TargetError(source, f"{where} uses ${{{var}}}, which is not set in the environment", field=where)


class Filler:
    """Fills template values from one question row and the environment, recording secrets."""

    def __init__(self, row: Mapping[str, Any], environ: Mapping[str, str], secrets: Secrets) -> None:
        self.row = row
        self.environ = environ
        self.secrets = secrets

    def as_text(self, value: Any) -> str:
        """A filled value as text: JSON for a list / object / number, empty for a missing value."""
        if value is None:
            return ""
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    def string(self, s: str, url: bool = False) -> str:
        def sub(m: re.Match[str]) -> str:
            if m.group("var") is not None:
                value = self.environ[m.group("var")]
                self.secrets.add(value)
                return value
            if m.group("open") is not None:
                return "{"
            if m.group("close") is not None:
                return "}"
            text = self.as_text(self.row.get(m.group("col")))
            return quote(text, safe="") if url else text

        return _TOKEN.sub(sub, s)

    def value(self, v: Any) -> Any:
        """A JSON template value filled (see the module doc)."""
        if isinstance(v, str):
            m = _EXACT.match(v)
            if m is not None:
                return self.row.get(m.group(1))
            return self.string(v)
        if isinstance(v, dict):
            return {k: self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        out = {}
        for k, v in headers.items():
            filled = self.string(v)
            if is_credential_header(k) or VAR.search(v):
                self.secrets.add_header(filled)  # "Bearer <token>": the token alone too; Basic decoded
            out[k] = filled
        return out

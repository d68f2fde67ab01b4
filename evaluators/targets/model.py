"""The target file: how to call one version of an app (YAML, or JSON).

Contract: :func:`load_target` reads a file and returns a checked :class:`Target`, or raises
:class:`TargetError` naming the file and the field (a missing or unknown field, a wrong type, a
JMESPath that does not parse, a file that is not YAML / JSON) — never quoting a value of the file,
which may hold a credential. The :class:`TargetPolicy` given (default: the owner's) is applied at
load: a target it refuses raises :class:`TargetRefused` (a ``TargetError``). Nothing is called and
no ``${VAR}`` is read here: variables are expanded at call time (:mod:`.template`).

A target is HTTP::

    name: v2                       # default: the file's stem
    http:
      url: http://127.0.0.1:8000/ask
      method: POST                 # GET | POST | PUT | PATCH; default POST
      headers: {Authorization: "Bearer ${APP_TOKEN}"}
      body: {question: "{question}", history: "{history}", k: 5}
      query: {}                    # URL parameters, filled like the body
      timeout_s: 30
    answer: answer                 # JMESPath into the JSON reply (required)
    contexts: sources[*].text      # optional: the passages, in the app's order
    context_ids: sources[*].id     # optional: their ids
    usage: usage                   # optional: token counts, kept as given
    concurrency: 8
    retries: 3                     # 429 / 5xx / timeouts / connection errors, honouring Retry-After
    rpm: 600                       # optional: at most this many calls a minute
    match: id                      # optional: how retrieval is scored (id | text), else decided per run

or Python: ``python: package.module:function`` (sync or async; called ``function(row, **args)`` with
the question row as a dict and the file's ``args: {k: 4}``; imported into the evaluator's own Python,
:mod:`.function`), returning ``{"answer", "contexts": [text or {"id", "text"}], "usage"}``, the answer
as text, or a framework's objects (a LlamaIndex ``Response``, LangChain documents:
:mod:`.objects`). The JMESPath fields then default to the first of the usual names
(:data:`.extract.PYTHON_DEFAULTS`) and may be given to read another shape.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import jmespath
from pydantic import ValidationError

from .errors import TargetError, TargetRefused
from .extract import PYTHON_DEFAULTS, FirstOf
from .policy import TargetPolicy
from .spec import HttpSpec, TargetSpec

__all__ = ["HttpSpec", "Target", "TargetError", "TargetRefused", "TargetSpec", "load_target", "load_targets",
           "target_from_dict"]

#: JMESPath fields (a Python target's defaults: :data:`.extract.PYTHON_DEFAULTS`).
PATH_FIELDS = ("answer", "contexts", "context_ids", "usage", "tool_calls")


@dataclass(frozen=True)
class Target:
    """A checked target: its spec, its name, where it came from and the policy it was checked with.
    Built by :func:`load_target` / :func:`target_from_dict` (the policy is applied on construction)."""

    spec: TargetSpec
    name: str
    source: str
    policy: TargetPolicy = field(default_factory=TargetPolicy.owner)
    paths: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.policy.check(self.spec, self.source)
        compiled: dict[str, Any] = {}
        for fld in PATH_FIELDS:
            expr = getattr(self.spec, fld)
            if expr is None:
                if self.spec.python and fld in PYTHON_DEFAULTS:
                    compiled[fld] = FirstOf(PYTHON_DEFAULTS[fld])
                continue
            try:
                compiled[fld] = jmespath.compile(expr)
            except jmespath.exceptions.JMESPathError as exc:
                detail = str(exc).splitlines()[0]
                raise TargetError(self.source, f"{fld}: {expr!r} is not a JMESPath expression ({detail})",
                                  field=fld) from None
        object.__setattr__(self, "paths", compiled)

    @property
    def kind(self) -> str:
        return "http" if self.spec.http is not None else "python"

    def at(self, url: str) -> Target:
        """The same HTTP target calling ``url`` (e.g. the sample app on the port it got), checked
        again by the policy."""
        if self.spec.http is None:
            raise TargetError(self.source, "a Python target has no URL", field="http.url")
        spec = self.spec.model_copy(update={"http": self.spec.http.model_copy(update={"url": url})})
        return Target(spec, self.name, self.source, self.policy)


def _field_name(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc)


def _explain(exc: ValidationError, source: str) -> TargetError:
    """The first problem of a validation error, naming the field — never quoting the value."""
    err = exc.errors(include_input=False, include_url=False)[0]
    loc = tuple(err.get("loc") or ())
    name = _field_name(loc)
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        parent = HttpSpec if loc[:1] == ("http",) else TargetSpec
        known = list(parent.model_fields)
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return TargetError(source, f"unknown field {name!r}{hint} (fields: {', '.join(known)})", field=name)
    if kind == "missing":
        return TargetError(source, f"field {name!r} is missing", field=name)
    msg = str(err.get("msg", "invalid value"))
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if not loc:
        return TargetError(source, msg)
    return TargetError(source, f"field {name!r}: {msg}", field=name)


def target_from_dict(data: Any, source: str = "target", policy: TargetPolicy | None = None,
                     default_name: str | None = None) -> Target:
    """A checked :class:`Target` from the parsed content of a target file (or a dict built by a
    form): :class:`TargetError` naming ``source`` and the field when it is not a valid target,
    :class:`TargetRefused` when ``policy`` refuses it."""
    if not isinstance(data, dict):
        raise TargetError(source, f"expected a mapping of fields (name, http, answer, …), got {_kind(data)}")
    try:
        spec = TargetSpec.model_validate(data)
    except ValidationError as exc:
        raise _explain(exc, source) from None
    if spec.http is not None and not spec.answer:
        raise TargetError(source, "field 'answer' is missing: the JMESPath of the answer in the app's JSON reply "
                                  "(e.g. answer: answer)", field="answer")
    name = spec.name or default_name or Path(source).stem or "target"
    return Target(spec, name, source, policy or TargetPolicy.owner())


def _kind(v: Any) -> str:
    return {list: "a list", str: "text", type(None): "nothing"}.get(type(v), f"a {type(v).__name__}")


def load_target(path: str | Path, policy: TargetPolicy | None = None) -> Target:
    """Read a target file (``.yaml`` / ``.yml`` / ``.json``; see the module doc)."""
    p = Path(path)
    source = str(path)
    if not p.is_file():
        raise TargetError(source, "file not found" if not p.exists() else "not a file")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise TargetError(source, f"cannot read it ({type(exc).__name__})") from None
    return target_from_dict(parse_text(text, source), source, policy, default_name=p.stem)


def load_targets(path: str | Path, policy: TargetPolicy | None = None) -> list[Target]:
    """The targets of a file holding one target, a list of them, or ``{targets: [...]}`` (an owner's
    targets file): each checked as :func:`load_target` checks one, named (``name`` is required when
    there are several), names unique."""
    p = Path(path)
    source = str(path)
    if not p.is_file():
        raise TargetError(source, "file not found" if not p.exists() else "not a file")
    try:
        data = parse_text(p.read_text(encoding="utf-8-sig"), source)
    except (OSError, UnicodeDecodeError) as exc:
        raise TargetError(source, f"cannot read it ({type(exc).__name__})") from None
    if isinstance(data, dict) and set(data) == {"targets"}:
        data = data["targets"]
    if not isinstance(data, list):
        return [target_from_dict(data, source, policy, default_name=p.stem)]
    if not data:
        raise TargetError(source, "no targets in the file")
    out: list[Target] = []
    for i, item in enumerate(data, start=1):
        where = f"{source} (target {i})"
        if not isinstance(item, dict) or not item.get("name"):
            raise TargetError(where, "field 'name' is missing: each target of a list is named", field="name")
        t = target_from_dict(item, where, policy)
        if any(o.name == t.name for o in out):
            raise TargetError(where, f"name {t.name!r} is given twice", field="name")
        out.append(t)
    return out


def parse_text(text: str, source: str) -> Any:
    """The content of a target file: JSON when it parses as JSON, else YAML (errors name the line,
    never quote it)."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "[") and Path(source).suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise TargetError(source, f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise TargetError(source, f"not valid YAML ({problem}{where})") from None

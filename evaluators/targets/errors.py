"""The errors of a target: a file or setting that cannot be used (:class:`TargetError`, exit 2 in the
CLI) and a target the deployment's policy refuses (:class:`TargetRefused`).

Contract: every message names where the problem is (the target file, the field) and never holds a
header value or the value of a ``${VAR}``."""

from __future__ import annotations


class TargetError(ValueError):
    """A target that cannot be used: names the file (or form) and the field."""

    def __init__(self, source: str, message: str, field: str | None = None) -> None:
        self.source = source
        self.field = field
        self.message = message
        super().__init__(f"{source}: {message}" if source else message)


class TargetRefused(TargetError):
    """A target this deployment does not call for whoever asked (a visitor's Python target, a
    ``${VAR}`` in a typed target, an address the typed-URL rules refuse)."""

"""The owner's targets of a deployment: the targets file named by the owner setting
``RAG_EVAL_TARGETS`` (read like the keys: Streamlit secrets first, then the environment).

Contract:

* :func:`owner_targets_file` — the file the setting names (None when unset); a relative path is
  taken from the server's working folder (the app's root on a Space).
* :func:`load_owner_targets` — its targets (one, a list, or ``{targets: [...]}``), loaded with the
  owner's policy (:meth:`TargetPolicy.owner`: Python targets, ``${VAR}``, any address); a file that
  cannot be used raises :class:`~.errors.TargetError` naming the setting, the file and the field —
  never a value of the file.
* :func:`owner_environ` — what the owner's ``${VAR}`` are read from at call time: the environment,
  with the deployment's secrets (simple values) over it, so a key kept in Streamlit secrets reaches
  the owner's own app and nothing else.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..llm.settings import owner_setting
from .errors import TargetError
from .model import Target, load_targets
from .policy import TargetPolicy

#: The owner setting naming the targets file a dashboard offers its visitors.
OWNER_TARGETS_ENV = "RAG_EVAL_TARGETS"


def owner_targets_file(environ: Mapping[str, str] | None = None,
                       secrets: Mapping[str, object] | None = None) -> str | None:
    """The targets file the owner named (``RAG_EVAL_TARGETS``), or None."""
    return owner_setting(OWNER_TARGETS_ENV, environ, secrets)


def load_owner_targets(environ: Mapping[str, str] | None = None,
                       secrets: Mapping[str, object] | None = None) -> list[Target]:
    """The owner's targets ([] when the setting is unset); :class:`TargetError` when the file
    cannot be used (its message names ``RAG_EVAL_TARGETS`` and the file)."""
    name = owner_targets_file(environ, secrets)
    if name is None:
        return []
    try:
        return load_targets(Path(name).expanduser(), TargetPolicy.owner())
    except TargetError as exc:
        raise TargetError(f"{OWNER_TARGETS_ENV} ({exc.source})", exc.message, field=exc.field) from None


def owner_environ(secrets: Mapping[str, object] | None = None,
                  environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the owner's targets read ``${VAR}`` from: ``environ`` (default
    ``os.environ``) with the string / number values of ``secrets`` over it."""
    env = dict(os.environ if environ is None else environ)
    if secrets is not None:
        try:
            items = list(secrets.items())
        except Exception:  # noqa: BLE001 - a missing secrets.toml raises on access
            items = []
        for k, v in items:
            if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                env[str(k)] = str(v)
    return env


__all__ = ["OWNER_TARGETS_ENV", "load_owner_targets", "owner_environ", "owner_targets_file"]

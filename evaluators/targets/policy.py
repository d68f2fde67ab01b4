"""Who may call what: the policy a target is loaded and run under.

Contract: :meth:`TargetPolicy.check` raises :class:`~.errors.TargetRefused` (naming the field and
why) for a target the policy does not allow; :meth:`TargetPolicy.check_url` for an address it does
not call. :class:`~.model.Target` applies ``check`` when it is built and the runner applies
``check_url`` again before the first call (a host name may resolve elsewhere by then), so a refused
target never sends a request.

* :meth:`TargetPolicy.owner` — the owner's targets (the CLI, the library, a targets file named in
  the deployment's settings): Python targets, ``${VAR}`` from the environment, any address.
* :meth:`TargetPolicy.visitor` — a target someone typed on a public deployment: no Python target
  (it would run their code on the server), no ``${VAR}`` (a key from the environment or the
  deployment's secrets never goes to an address a visitor typed), and the URL checked by the
  typed-URL rules of :mod:`evaluators.net` with loopback and private ranges refused unless the owner
  allows them (``RAG_EVAL_TYPED_PRIVATE_URLS=on``; ``RAG_EVAL_TYPED_URLS=off`` refuses every typed
  address) — loopback alone allowed when the server listens on loopback only
  (``visitor(server_address=...)``: the dashboard on one's own computer). Such a target may not ask
  for redirects to be followed.

Any target's redirects are followed only when it says so (``http.follow_redirects``; :mod:`.redirects`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping
from urllib.parse import urlsplit

from ..net import AddressRefused, check_typed_url, listens_on_loopback_only, private_urls_allowed
from .errors import TargetRefused
from .spec import TargetSpec
from .template import VAR, http_templates


@dataclass(frozen=True)
class TargetPolicy:
    """What a target may do (see the module doc). Build with :meth:`owner` or :meth:`visitor`."""

    allow_python: bool = True
    expand_env: bool = True
    #: Check the URL with the typed-URL rules (an address someone typed).
    typed_url: bool = False
    #: With ``typed_url``: loopback and private ranges allowed.
    allow_private: bool = True
    #: With ``typed_url``: loopback allowed (None: as ``allow_private``).
    allow_loopback: bool | None = None
    #: A target may ask for redirects to be followed (``http.follow_redirects``).
    follow_redirects: bool = True
    #: The environment the owner's switches are read from (None: ``os.environ``).
    environ: Mapping[str, str] | None = None

    @classmethod
    def owner(cls) -> TargetPolicy:
        return cls()

    @classmethod
    def visitor(cls, environ: Mapping[str, str] | None = None, *, server_address: str | None = None) -> TargetPolicy:
        """A visitor's target. ``server_address``: where the dashboard listens (Streamlit's
        ``server.address``); loopback only lets typed loopback addresses through."""
        private = private_urls_allowed(environ)
        return cls(allow_python=False, expand_env=False, typed_url=True, allow_private=private,
                   allow_loopback=private or listens_on_loopback_only(server_address), follow_redirects=False,
                   environ=environ)

    def check(self, spec: TargetSpec, source: str) -> None:
        if spec.python is not None and not self.allow_python:
            raise TargetRefused(source, "Python targets run code on this server: only its owner's targets may "
                                        "be Python; give an HTTP target", field="python")
        if spec.http is None:
            return
        if spec.http.follow_redirects and not self.follow_redirects:
            raise TargetRefused(source, "redirects are not followed for a target typed here: give the address "
                                        "the app answers at", field="http.follow_redirects")
        if not self.expand_env:
            for where, text in http_templates(spec.http):
                m = VAR.search(text)
                if m:
                    raise TargetRefused(source, f"{where} uses ${{{m.group(1)}}}: environment variables are not "
                                                "read for a target typed here (keys stay with the owner's "
                                                "targets); type the value itself", field=where)
        self.check_url(spec.http.url, source)

    def check_url(self, url: str, source: str) -> None:
        if not self.typed_url:
            return
        if "{" in urlsplit(url).netloc:
            raise TargetRefused(source, "the host of a typed URL cannot come from the question file", field="http.url")
        try:
            check_typed_url(url, "the app's URL", self.environ, allow_private=self.allow_private,
                            allow_loopback=self.allow_loopback)
        except AddressRefused as exc:
            raise TargetRefused(source, str(exc), field="http.url") from None

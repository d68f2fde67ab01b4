"""Redirects: never followed unless the target says so, and then only what keeps the request whole.

Contract of :func:`next_hop` (given a redirect reply; it returns the next request's URL and whether
the target's headers go along, or raises :class:`RedirectRefused` whose message names the status
and where the app pointed, masked by the caller):

* Without ``http.follow_redirects`` no redirect is followed: the reply is the question's error.
* With it, only 307 and 308 (the method and the body are kept); 301 / 302 / 303 are refused (a
  client turns them into a GET without the body, and the app would then answer an empty question).
* At most :data:`MAX_HOPS` hops; a hop leads to the URL's own origin (scheme, host, port) or to
  one of ``http.redirect_origins``; the target's headers are sent only while every hop stays on
  the URL's own origin.
* Each hop's address is checked before anything is sent to it (:func:`evaluators.net.check_address`:
  link-local and cloud-metadata addresses are refused for every target; loopback / private ones as
  the policy says for a visitor's), and the connection to another origin is made by a guarded
  transport that checks the address it connects to (:mod:`.guard`), so a name that resolves
  elsewhere a second later is refused too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import httpx

from ..net import AddressRefused, check_address
from .policy import TargetPolicy

#: Status codes of a redirect.
REDIRECTS = frozenset({301, 302, 303, 307, 308})
#: Statuses that keep the method and the body.
KEEP_METHOD = frozenset({307, 308})
MAX_HOPS = 5


class RedirectRefused(Exception):
    """A redirect not followed (the message says why)."""


@dataclass(frozen=True)
class Hop:
    url: httpx.URL
    #: The hop stays on the target URL's own origin: its headers go along.
    same_origin: bool


def origin(url: httpx.URL | str) -> tuple[str, str, int | None]:
    u = httpx.URL(url) if isinstance(url, str) else url
    default = {"http": 80, "https": 443}.get(u.scheme)
    return u.scheme, (u.host or "").lower(), u.port or default


def origins(values: Sequence[str]) -> set[tuple[str, str, int | None]]:
    """The origins a target allows, as :func:`origin` gives them."""
    return {origin(v.strip()) for v in values if v.strip()}


def next_hop(status: int, location: str | None, current: httpx.URL, start: httpx.URL, hops: int, *,
             follow: bool, allowed: set[tuple[str, str, int | None]], policy: TargetPolicy,
             headers_kept: bool, show: Callable[[str], str] = str) -> Hop:
    """The next hop of a redirect reply (see the module doc). ``show``: how an address is written in
    a message (the caller masks secrets and shortens it)."""
    said = f"{status} {httpx.codes.get_reason_phrase(status)}".strip()
    if not location:
        raise RedirectRefused(f"the app answered {said} without a Location")
    try:
        target = current.join(location)
    except httpx.InvalidURL:
        raise RedirectRefused(f"the app answered {said} to an address that cannot be read") from None
    where = f"{said} to {show(str(target))}"
    if not follow:
        raise RedirectRefused(f"the app answered {where}: redirects are not followed unless the target sets "
                              "http.follow_redirects (or give the address it redirects to)")
    if status not in KEEP_METHOD:
        raise RedirectRefused(f"the app answered {where}: only 307 / 308 are followed (a {status} turns the "
                              "request into a GET without its body)")
    if hops >= MAX_HOPS:
        raise RedirectRefused(f"the app answered {where}: more than {MAX_HOPS} redirects in a row")
    if target.scheme not in ("http", "https"):
        raise RedirectRefused(f"the app answered {where}: not an http(s) address")
    same = origin(target) == origin(start)
    if not same and origin(target) not in allowed:
        raise RedirectRefused(f"the app answered {where}: another origin than the target's, not in "
                              "http.redirect_origins")
    try:
        check_address(str(target), "the redirect", allow_private=policy.allow_private or not policy.typed_url,
                      allow_loopback=policy.allow_loopback if policy.typed_url else True)
    except AddressRefused as exc:
        raise RedirectRefused(f"the app answered {where}, refused before connecting: {exc}") from None
    return Hop(target, same and headers_kept)

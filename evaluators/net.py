"""Addresses someone typed — an LLM base URL, a Phoenix address, an app to run — that this server
then sends requests to. On a public deployment a visitor must not turn the server against its own
cloud: link-local addresses (``169.254.0.0/16``, ``fe80::/10``: the metadata services of AWS, GCP,
Azure, …) and the metadata host names are refused, whatever the name resolves to first. The owner can
refuse typed addresses altogether with ``RAG_EVAL_TYPED_URLS=off`` (then only the official
endpoints and the owner's own ``RAG_EVAL_BASE_URL`` / ``PHOENIX_BASE_URL`` are used). Addresses
the owner configured are never checked here.

An app a visitor asks the server to call (``evaluators.targets``, ``allow_private=False``) is held
to more: loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), shared (100.64/10) and
unspecified addresses are refused too — the server's own neighbours — unless the owner allows them
with ``RAG_EVAL_TYPED_PRIVATE_URLS=on`` (:func:`private_urls_allowed`). Loopback alone is allowed
(``allow_loopback``) when the server itself listens on loopback only
(:func:`listens_on_loopback_only`: the dashboard on one's own computer, reachable from it alone,
so whoever types an address there already reaches its loopback).

:func:`check_address` applies the address rules alone (no ``RAG_EVAL_TYPED_URLS`` switch): a redirect
hop of any target is checked with it."""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Mapping
from urllib.parse import urlsplit

ENV_TYPED_URLS = "RAG_EVAL_TYPED_URLS"
#: The owner's switch letting visitors' typed app addresses reach loopback and private ranges.
ENV_TYPED_PRIVATE_URLS = "RAG_EVAL_TYPED_PRIVATE_URLS"
#: Host names of cloud metadata services (besides their link-local addresses).
METADATA_HOSTS = frozenset({"metadata", "metadata.google.internal", "metadata.goog", "instance-data",
                            "instance-data.ec2.internal"})


class AddressRefused(ValueError):
    """A typed address this deployment does not send requests to (the message says why)."""


def typed_urls_allowed(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return (env.get(ENV_TYPED_URLS) or "").strip().lower() not in {"0", "off", "false", "no"}


def private_urls_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the owner lets typed app addresses reach loopback / private ranges (default: no)."""
    env = os.environ if environ is None else environ
    return (env.get(ENV_TYPED_PRIVATE_URLS) or "").strip().lower() in {"1", "on", "true", "yes"}


def listens_on_loopback_only(address: str | None) -> bool:
    """Whether a server bound to ``address`` (Streamlit's ``server.address``) can be reached from its
    own machine only: a loopback address, or a name that resolves to loopback addresses alone. Unset
    or empty (every interface, Streamlit's default), ``0.0.0.0`` or ``::``: no."""
    host = (address or "").strip().strip("[]").lower().rstrip(".")
    if not host:
        return False
    found = _addresses(host)
    return bool(found) and all((getattr(ip, "ipv4_mapped", None) or ip).is_loopback for ip in found)


def _addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []  # not resolvable: the request itself will say so
    out = []
    for info in infos:
        try:
            out.append(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]))
        except ValueError:
            continue
    return out


def check_typed_url(url: str, what: str, environ: Mapping[str, str] | None = None, *,
                    allow_private: bool = True, allow_loopback: bool | None = None) -> None:
    """Raise :class:`AddressRefused` (naming ``what`` and the reason) unless a request may go to
    ``url``, an address someone typed. ``allow_private=False``: loopback, private, shared and
    unspecified addresses are refused too (the message names the owner's switch), loopback
    excepted with ``allow_loopback``."""
    if not typed_urls_allowed(environ):
        raise AddressRefused(f"{what}: this deployment sends no requests to typed addresses "
                             f"({ENV_TYPED_URLS}=off); use the endpoints its owner configured")
    check_address(url, what, allow_private=allow_private, allow_loopback=allow_loopback)


def check_address(url: str, what: str, *, allow_private: bool = True, allow_loopback: bool | None = None) -> None:
    """The address rules of :func:`check_typed_url` without its switch: link-local and metadata hosts
    always refused; loopback / private ones unless allowed. Resolves the name."""
    parts = urlsplit((url or "").strip())
    host = (parts.hostname or "").lower().rstrip(".")
    if parts.scheme not in ("http", "https") or not host:
        raise AddressRefused(f"{what}: {url!r} is not an http(s) address")
    if host in METADATA_HOSTS:
        raise AddressRefused(f"{what}: {host} is a cloud metadata service: refused")
    for ip in _addresses(host):
        why = refusal(host, ip, allow_private=allow_private, allow_loopback=allow_loopback)
        if why:
            raise AddressRefused(f"{what}: {why}")


def refusal(host: str, ip: ipaddress.IPv4Address | ipaddress.IPv6Address, *, allow_private: bool,
            allow_loopback: bool | None = None) -> str | None:
    """Why a typed address may not be called at ``ip`` (one of ``host``'s addresses), or None. The one
    rule :func:`check_typed_url` applies to a URL and a guarded connection applies when it connects.
    ``allow_loopback`` (default: as ``allow_private``) lets loopback through alone."""
    mapped = getattr(ip, "ipv4_mapped", None) or ip
    if mapped.is_link_local:
        return f"{host} is a link-local address ({ip}, where cloud metadata services live): refused"
    if mapped.is_loopback and (allow_private if allow_loopback is None else allow_loopback):
        return None
    if not allow_private and _private(mapped):
        return (f"{host} is a loopback or private address ({ip}): refused for addresses typed here (the owner "
                f"may allow them with {ENV_TYPED_PRIVATE_URLS}=on; loopback is allowed when the dashboard "
                "listens on loopback only, e.g. streamlit run serve.py --server.address 127.0.0.1)")
    return None


_SHARED = ipaddress.ip_network("100.64.0.0/10")


def _private(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (ip.is_loopback or ip.is_private or ip.is_unspecified or ip.is_reserved or ip.is_multicast
            or (ip.version == 4 and ip in _SHARED))

"""Addresses someone typed — an LLM base URL, a Phoenix address — that this server then sends
requests to. On a public deployment a visitor must not turn the server against its own cloud:
link-local addresses (``169.254.0.0/16``, ``fe80::/10``: the metadata services of AWS, GCP, Azure,
…) and the metadata host names are refused, whatever the name resolves to first. The owner can
refuse typed addresses altogether with ``RAG_EVAL_TYPED_URLS=off`` (then only the official
endpoints and the owner's own ``RAG_EVAL_BASE_URL`` / ``PHOENIX_BASE_URL`` are used). Addresses
the owner configured are never checked here.

An app a visitor asks the server to call (``evaluators.targets``, ``allow_private=False``) is held
to more: loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), shared (100.64/10) and
unspecified addresses are refused too — the server's own neighbours — unless the owner allows them
with ``RAG_EVAL_TYPED_PRIVATE_URLS=on`` (:func:`private_urls_allowed`)."""

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
                    allow_private: bool = True) -> None:
    """Raise :class:`AddressRefused` (naming ``what`` and the reason) unless a request may go to
    ``url``, an address someone typed. ``allow_private=False``: loopback, private, shared and
    unspecified addresses are refused too (the message names the owner's switch)."""
    if not typed_urls_allowed(environ):
        raise AddressRefused(f"{what}: this deployment sends no requests to typed addresses "
                             f"({ENV_TYPED_URLS}=off); use the endpoints its owner configured")
    parts = urlsplit((url or "").strip())
    host = (parts.hostname or "").lower().rstrip(".")
    if parts.scheme not in ("http", "https") or not host:
        raise AddressRefused(f"{what}: {url!r} is not an http(s) address")
    if host in METADATA_HOSTS:
        raise AddressRefused(f"{what}: {host} is a cloud metadata service: refused")
    for ip in _addresses(host):
        mapped = getattr(ip, "ipv4_mapped", None) or ip
        if mapped.is_link_local:
            raise AddressRefused(f"{what}: {host} is a link-local address ({ip}, where cloud metadata services "
                                 "live): refused")
        if not allow_private and _private(mapped):
            raise AddressRefused(f"{what}: {host} is a loopback or private address ({ip}): refused for "
                                 f"addresses typed here (the owner may allow them with {ENV_TYPED_PRIVATE_URLS}=on)")


_SHARED = ipaddress.ip_network("100.64.0.0/10")


def _private(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (ip.is_loopback or ip.is_private or ip.is_unspecified or ip.is_reserved or ip.is_multicast
            or (ip.version == 4 and ip in _SHARED))

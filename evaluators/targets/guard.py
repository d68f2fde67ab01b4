"""The connection a visitor's target makes, checked when it is made — not only when the URL is read.

Contract: :func:`guarded_transport` gives an httpx transport whose every TCP connection resolves the
host itself, checks each address it got with the typed-URL rules (:func:`evaluators.net.refusal`:
link-local and metadata always, loopback / private unless the owner allows them) and connects to an
allowed address, never to the name again. A name that resolved to a public address when the target
was loaded and to ``127.0.0.1`` a second later (DNS rebinding) is refused at the connection, with the
reason in the error. TLS still verifies the certificate against the host name (httpcore passes it as
the server name). How much of a reply is read is :mod:`.reply`'s.

It is used for targets loaded under :meth:`TargetPolicy.visitor`, and for a followed redirect to
another origin of any target (:mod:`.redirects`: there link-local addresses are refused for the
owner's targets too); the owner's targets otherwise connect as usual.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from typing import Any, Iterable

import httpcore
import httpx

from ..net import refusal


class _GuardedBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, allow_private: bool, allow_loopback: bool | None) -> None:
        self.allow_private = allow_private
        self.allow_loopback = allow_loopback
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from None
        allowed: list[str] = []
        for info in infos:
            addr = str(info[4][0]).split("%", 1)[0]
            why = refusal(host, ipaddress.ip_address(addr), allow_private=self.allow_private,
                          allow_loopback=self.allow_loopback)
            if why:
                raise httpcore.ConnectError(f"refused at connection time: {why}")
            allowed.append(addr)
        if not allowed:
            raise httpcore.ConnectError(f"{host} resolves to no address")
        last: Exception | None = None
        for addr in dict.fromkeys(allowed):  # each checked address in turn (localhost: ::1, then 127.0.0.1)
            try:
                return await self.inner.connect_tcp(addr, port, timeout=timeout, local_address=local_address,
                                                    socket_options=socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not for typed targets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def guarded_transport(*, allow_private: bool, allow_loopback: bool | None = None,
                      verify: ssl.SSLContext | bool = True) -> httpx.AsyncHTTPTransport:
    """An httpx transport (one connection) whose connections are checked as the module doc says."""
    transport = httpx.AsyncHTTPTransport(verify=verify, trust_env=False,
                                         limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))
    ctx = verify if isinstance(verify, ssl.SSLContext) else httpx.create_ssl_context(verify=verify)
    # httpx builds its pool without a way to give it a network backend: the same pool, with ours
    transport._pool = httpcore.AsyncConnectionPool(ssl_context=ctx, max_connections=1,
                                                   max_keepalive_connections=1,
                                                   network_backend=_GuardedBackend(allow_private, allow_loopback))
    return transport

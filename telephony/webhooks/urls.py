"""Where deliveries may go: https:// URLs without credentials, to addresses the networks allow, that
answer an HTTPS request when the webhook is saved.

`[webhooks] allow_http_loopback` also allows http:// to loopback addresses (local development), and
`[webhooks] ca_file` adds CA certificates to trust beside the system's. A URL holding a user name or
password is refused (it would be stored and shown in clear). Link-local addresses and the cloud
metadata services (`ALWAYS_DENIED`) and the networks `[webhooks] deny_networks` lists are refused,
unless `[webhooks] allow_networks` lists them; a name is resolved and refused when any of its
addresses is, when the webhook is saved and again at each delivery (`GuardedResolver`, which the
sender's connections resolve through, so a name that changes its address later is caught too).

A URL is probed with a HEAD request when it is saved: any HTTP answer will do (a receiver that takes
only POST answers 405). No answer is a 400 naming `url`; the reason (cannot connect, certificate not
trusted, TLS handshake failed, timeout) is said only for a loopback receiver, the developer's own
machine, and a certificate's trust only when `ca_file` is set: elsewhere the reasons would map the
server's network for whoever saves URLs. Redirects are never followed, at save time or when delivering.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from ..config import Webhooks
from ..domain.errors import Invalid

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})
PROBE_SECONDS = 5.0
ALWAYS_DENIED = ("169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "100.100.100.200/32", "0.0.0.0/8", "::/128")
"""Link-local networks (where cloud metadata services answer, 169.254.169.254), the metadata services
outside them (AWS's IPv6 one, Alibaba Cloud's), and the addresses that name no host (a connection to
0.0.0.0 reaches this one, whatever `deny_networks` says of loopback): refused unless `allow_networks`
lists them."""
NOT_ALLOWED = "Webhooks may not be sent to this address."
SILENT = "The URL does not answer HTTPS requests."
UNTRUSTED = "its certificate is not trusted"
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def ssl_context(settings: Webhooks) -> ssl.SSLContext:
    """The system's trusted CAs, and `ca_file`'s when set."""
    context = ssl.create_default_context()
    if settings.ca_file:
        context.load_verify_locations(cafile=settings.ca_file)
    return context


class Networks:
    """The addresses deliveries may reach: every one but `ALWAYS_DENIED`'s and `deny_networks`',
    unless `allow_networks` lists it (an IPv4 address written as IPv6, `::ffff:a.b.c.d`, is itself)."""

    def __init__(self, settings: Webhooks) -> None:
        self._denied = _networks((*ALWAYS_DENIED, *settings.deny_networks))
        self._allowed = _networks(settings.allow_networks)

    def refuses(self, address: Address) -> bool:
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in n for n in self._denied) and not any(address in n for n in self._allowed)


def _networks(texts: Iterable[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(text, strict=False) for text in texts]


def literal(host: str) -> Address | None:
    """The address a URL's host writes out (`[fe80::1%eth0]` included); None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def _loopback(host: str) -> bool:
    address = literal(host)
    return host.lower() in LOOPBACK_NAMES if address is None else address.is_loopback


def allowed(url: str, settings: Webhooks) -> str:
    """The URL when the rules allow it, short of resolving its name; `Invalid` naming `url` otherwise."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise Invalid.field("url", "This is not a valid URL.") from None
    if not host or parts.scheme not in ("https", "http") or len(url) > 2048:
        raise Invalid.field("url", "This is not a valid https:// URL.")
    if parts.username is not None or parts.password is not None:
        raise Invalid.field("url", "A webhook URL must not hold a user name or password.")
    if parts.scheme == "http" and not (settings.allow_http_loopback and _loopback(host)):
        raise Invalid.field("url", "Only https:// URLs are supported.")
    address = literal(host)
    if address is not None and Networks(settings).refuses(address):
        raise Invalid.field("url", NOT_ALLOWED)
    return url


def displayed(url: str) -> str:
    """A URL as it is shown: the password a URL saved before they were refused holds is masked."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{parts.netloc.rpartition('@')[2]}"))


class Refused(OSError):
    """A name resolves to an address the networks refuse."""


class GuardedResolver(AbstractResolver):
    """The default resolver, refusing a name any of whose addresses the networks refuse: every
    connection of the sender and the probe resolves through it, so the check holds at each delivery."""

    def __init__(self, networks: Networks) -> None:
        self._networks = networks
        self._inner = DefaultResolver()

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
                      ) -> list[ResolveResult]:  # fmt: skip
        found = await self._inner.resolve(host, port, family)
        if any(self._networks.refuses(ipaddress.ip_address(r["host"])) for r in found):
            raise Refused(f"{host} resolves to an address webhooks may not reach")
        return found

    async def close(self) -> None:
        await self._inner.close()


def session(settings: Webhooks, **limits: Any) -> aiohttp.ClientSession:
    """A client session for webhooks: the CAs to trust, and names resolved through the guard."""
    connector = aiohttp.TCPConnector(ssl=ssl_context(settings), resolver=GuardedResolver(Networks(settings)),
                                     **limits)  # fmt: skip
    return aiohttp.ClientSession(connector=connector)


def refusal(url: str, networks: Networks) -> str | None:
    """Why a delivery may not go to `url` now (its address is refused), or None. A name is checked by
    the resolver when connecting."""
    address = literal(urlsplit(url).hostname or "")
    return "address not allowed" if address is not None and networks.refuses(address) else None


async def checked(url: str, settings: Webhooks, client: aiohttp.ClientSession) -> str:
    """The URL when the rules allow it and it answers an HTTPS request now; `Invalid` naming `url`
    and, for a loopback receiver, the reason otherwise."""
    allowed(url, settings)
    parts = urlsplit(url)
    try:
        found = await GuardedResolver(Networks(settings)).resolve(parts.hostname or "", parts.port or 443,
                                                                  socket.AF_UNSPEC)  # fmt: skip
    except Refused:
        raise Invalid.field("url", NOT_ALLOWED) from None
    except OSError:
        raise Invalid.field("url", SILENT) from None
    loopback = all(ipaddress.ip_address(r["host"]).is_loopback for r in found)
    reason = await _probe(url, client)
    if reason is None:
        return url
    if loopback or (reason == UNTRUSTED and settings.ca_file):
        raise Invalid.field("url", f"The URL does not answer HTTPS requests: {reason}.")
    raise Invalid.field("url", SILENT)


async def _probe(url: str, client: aiohttp.ClientSession) -> str | None:
    """Why the URL does not answer an HTTP(S) request now; None when it does."""
    try:
        async with client.head(url, allow_redirects=False, timeout=aiohttp.ClientTimeout(total=PROBE_SECONDS)):
            return None
    except aiohttp.ClientConnectorCertificateError:
        return UNTRUSTED
    except aiohttp.ClientSSLError:
        return "its TLS handshake failed"
    except TimeoutError:
        return "it did not answer in time"
    except aiohttp.InvalidURL:
        return "it is not a valid URL"
    except aiohttp.ClientError:
        return "it cannot be connected to"

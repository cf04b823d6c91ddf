"""Where deliveries may go: https:// URLs that answer an HTTPS request when the webhook is saved.

`[webhooks] allow_http_loopback` also allows http:// to loopback addresses (local development), and
`[webhooks] ca_file` adds CA certificates to trust beside the system's. A URL is probed with a HEAD
request when it is saved: any HTTP answer will do (a receiver that takes only POST answers 405), no
answer is a 400 naming the reason (not https, cannot connect, certificate not trusted, timeout).
Redirects are never followed, at save time or when delivering.
"""

from __future__ import annotations

import ipaddress
import ssl
from urllib.parse import urlsplit

import aiohttp

from ..config import Webhooks
from ..domain.errors import Invalid

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})
PROBE_SECONDS = 5.0


def ssl_context(settings: Webhooks) -> ssl.SSLContext:
    """The system's trusted CAs, and `ca_file`'s when set."""
    context = ssl.create_default_context()
    if settings.ca_file:
        context.load_verify_locations(cafile=settings.ca_file)
    return context


def _loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed(url: str, settings: Webhooks) -> str:
    """The URL when the rules allow it; `Invalid` naming `url` and the reason otherwise."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise Invalid.field("url", "This is not a valid URL.") from None
    if not host or parts.scheme not in ("https", "http") or len(url) > 2048:
        raise Invalid.field("url", "This is not a valid https:// URL.")
    if parts.scheme == "http" and not (settings.allow_http_loopback and _loopback(host)):
        raise Invalid.field("url", "Only https:// URLs are supported.")
    return url


async def probe(url: str, session: aiohttp.ClientSession) -> None:
    """Check that the URL answers an HTTP(S) request now; `Invalid` naming the reason otherwise."""
    try:
        async with session.head(url, allow_redirects=False, timeout=aiohttp.ClientTimeout(total=PROBE_SECONDS)):
            return
    except aiohttp.ClientConnectorCertificateError:
        reason = "its certificate is not trusted"
    except aiohttp.ClientSSLError:
        reason = "its TLS handshake failed"
    except TimeoutError:
        reason = "it did not answer in time"
    except aiohttp.InvalidURL:
        reason = "it is not a valid URL"
    except aiohttp.ClientError:
        reason = "it cannot be connected to"
    raise Invalid.field("url", f"The URL does not answer HTTPS requests: {reason}.")

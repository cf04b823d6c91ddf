"""The one address a media call's ICE agent gathers host candidates on.

aioice gathers a host candidate on every interface of the machine but loopback (and, with a STUN
server, a reflexive one). A media call offers exactly one: the address its client reached the
server at (`127.0.0.1` when both run on one machine), so the client is never sent addresses of
networks it does not share, and no STUN or TURN server is asked. aioice reads the machine's
addresses through one module function; `install` replaces it, once per process, by one that answers
`only()`'s address inside the block that gathers, and the machine's addresses anywhere else (each
call's gathering runs in tasks that copy the context of the block).
"""

from __future__ import annotations

import contextlib
import contextvars
import ipaddress
from collections.abc import Callable, Iterator

from aioice import ice

_HOST: contextvars.ContextVar[str | None] = contextvars.ContextVar("telephony_media_host", default=None)


def install() -> None:
    """Have aioice gather on the address `only()` names, where one is named (idempotent)."""
    if getattr(ice.get_host_addresses, "telephony", False):
        return
    machine: Callable[[bool, bool], list[str]] = ice.get_host_addresses

    def host_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
        host = _HOST.get()
        return [host] if host is not None else machine(use_ipv4, use_ipv6)

    host_addresses.telephony = True  # type: ignore[attr-defined]
    ice.get_host_addresses = host_addresses


@contextlib.contextmanager
def only(host: str) -> Iterator[None]:
    """Inside the block, ICE agents gather a host candidate on `host` only."""
    token = _HOST.set(plain(host))
    try:
        yield
    finally:
        _HOST.reset(token)


def plain(host: str) -> str:
    """An IPv4 address mapped into IPv6 (`::ffff:127.0.0.1`) as IPv4, any other address as it is."""
    address = ipaddress.ip_address(host.split("%")[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)

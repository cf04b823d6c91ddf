"""Datagrams on a media port from an address the call's ICE agent does not know are dropped.

aioice hands every datagram that is not STUN to the DTLS and SRTP layers, whatever address it came
from; in aiortc 1.16 a single empty or malformed one during the DTLS handshake ends the call's media
(its handshake task raises). The guard, installed once per process on aioice's socket protocol,
passes STUN to the ICE agent as before (which checks its credentials), and any other datagram only
when it comes from an address of a candidate pair of that socket: a candidate the phone's answer
named, or one an authenticated ICE check from the phone revealed (RFC 8445 §7.3.1.3). An empty
datagram is dropped. A packet forged with a known candidate's source address still reaches DTLS.
"""

from __future__ import annotations

from typing import Any

from aioice import ice

STUN_HEADER = 20


def install() -> None:
    """Guard aioice's sockets (idempotent)."""
    received = ice.StunProtocol.datagram_received
    if getattr(received, "telephony", False):
        return

    def datagram_received(self: ice.StunProtocol, data: bytes | str, addr: tuple[Any, ...]) -> None:
        if not data:
            return
        if _stun(data) or _known(self, (addr[0], addr[1])):
            received(self, data, addr)

    datagram_received.telephony = True  # type: ignore[attr-defined]
    ice.StunProtocol.datagram_received = datagram_received  # type: ignore[method-assign]


def _stun(data: bytes | str) -> bool:
    """RFC 7983's demultiplexing: a STUN message starts with a byte of 0 to 3."""
    return len(data) >= STUN_HEADER and isinstance(data, bytes) and data[0] < 4


def _known(protocol: ice.StunProtocol, addr: tuple[Any, Any]) -> bool:
    pairs = getattr(protocol.receiver, "_check_list", ())
    return any(pair.protocol is protocol and pair.remote_addr == addr for pair in pairs)

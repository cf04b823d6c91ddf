"""A libpcap capture of SIP messages as UDP datagrams between two documentation addresses.

Every message fits: times are bounded to what the format holds (1970 to 2106) and a message longer
than the snapshot length is cut to it."""

from __future__ import annotations

import struct

from .sip import SipMessage

SNAPLEN = 65535
_GLOBAL = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, SNAPLEN, 1)  # Ethernet link type
ADDRESSES = (bytes((192, 0, 2, 10)), bytes((198, 51, 100, 20)))
LAST_SECOND = 2**32 - 1
"""A capture's times are 32-bit seconds since the epoch: later ones are written as this one."""
MAX_PAYLOAD = SNAPLEN - 42
"""The most SIP text a frame carries: Ethernet, IPv4 and UDP headers take 42 bytes of the snapshot length."""


def _checksum(header: bytes) -> int:
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _frame(payload: bytes, outbound: bool) -> bytes:
    payload = payload[:MAX_PAYLOAD]
    src, dst = ADDRESSES if outbound else ADDRESSES[::-1]
    udp = struct.pack("!HHHH", 5060, 5060, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", _checksum(ip)) + ip[12:]
    ethernet = bytes.fromhex("0200000000020200000000010800")
    return ethernet + ip + udp


def capture(messages: list[SipMessage]) -> bytes:
    out = [_GLOBAL]
    first_source = messages[0].source if messages else ""
    for message in messages:
        frame = _frame(message.text.encode(), message.source == first_source)
        seconds = min(max(message.at.timestamp(), 0.0), LAST_SECOND)
        out.append(struct.pack("<IIII", int(seconds), int(seconds % 1 * 1e6), len(frame), len(frame)) + frame)
    return b"".join(out)

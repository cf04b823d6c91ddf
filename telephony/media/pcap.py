"""A libpcap capture of SIP messages: each an Ethernet/IPv4/UDP frame from its source address to its
target address, port 5060 to 5060, at its time to the microsecond.

Every message fits: times are bounded to what the format holds (1970 to 2106) and a message longer
than the snapshot length is cut to it."""

from __future__ import annotations

import ipaddress
import struct
from collections.abc import Sequence
from datetime import timedelta

from .sipmessage import EPOCH, SIP_PORT, SipMessage

SNAPLEN = 65535
_GLOBAL = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, SNAPLEN, 1)  # Ethernet link type
LAST_SECOND = 2**32 - 1
"""A capture's times are 32-bit seconds since the epoch: later ones are written as this one."""
MAX_PAYLOAD = SNAPLEN - 42
"""The most SIP text a frame carries: Ethernet, IPv4 and UDP headers take 42 bytes of the snapshot length."""


def _checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071) of `data`, padded to whole 16-bit words."""
    data += bytes(len(data) % 2)
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _frame(payload: bytes, source: str, target: str) -> bytes:
    payload = payload[:MAX_PAYLOAD]
    src, dst = ipaddress.IPv4Address(source).packed, ipaddress.IPv4Address(target).packed
    udp = struct.pack("!HHHH", SIP_PORT, SIP_PORT, 8 + len(payload), 0) + payload
    udp_sum = _checksum(src + dst + struct.pack("!BBH", 0, 17, len(udp)) + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", udp_sum) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", _checksum(ip)) + ip[12:]
    ethernet = bytes.fromhex("0200000000020200000000010800")
    return ethernet + ip + udp


def _time(message: SipMessage) -> tuple[int, int]:
    """Seconds and microseconds since the epoch, within what the format holds."""
    seconds, micros = divmod((message.at - EPOCH) // timedelta(microseconds=1), 1_000_000)
    if seconds < 0:
        return 0, 0
    return (seconds, micros) if seconds <= LAST_SECOND else (LAST_SECOND, 0)


def capture(messages: Sequence[SipMessage]) -> bytes:
    """The capture of `messages`, in their order."""
    out = [_GLOBAL]
    for message in messages:
        frame = _frame(message.text.encode(), message.source_address, message.target_address)
        out.append(struct.pack("<IIII", *_time(message), len(frame), len(frame)) + frame)
    return b"".join(out)

"""Real readers for the files the server renders, for any test that fetches them.

`decode_mp3` decodes every sample with libsndfile (libmpg123 inside, bundled by the `soundfile`
wheel); `read_pcap` reads a capture with dpkt: the pcap records, then Ethernet, IPv4 and UDP
(lengths and both checksums recomputed by dpkt must match), then the SIP message (dpkt.sip). Each
raises AssertionError, or the library's own error, when the bytes are not what they claim.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import dpkt
import numpy
import soundfile

SIP_PORT = 5060


def decode_mp3(data: bytes) -> tuple[int, int, int]:
    """(sample rate, frames, largest absolute sample) of MP3 bytes, every frame decoded."""
    with soundfile.SoundFile(io.BytesIO(data)) as audio:
        assert audio.format == "MP3", audio.format
        samples = audio.read(dtype="int16", always_2d=True)
        rate = audio.samplerate
    loudest = int(numpy.abs(samples.astype(numpy.int32)).max()) if len(samples) else 0
    return rate, len(samples), loudest


@dataclass(frozen=True)
class PcapSip:
    """One SIP message of a capture as the reader saw it."""

    at: float
    src: str
    dst: str
    first_line: str
    headers: dict[str, str | list[str]]
    """Header names in lower case, as dpkt gives them; a repeated header is a list."""
    body: bytes

    @property
    def method(self) -> str | None:
        return None if self.first_line.startswith("SIP/") else self.first_line.split(" ", 1)[0]

    @property
    def status(self) -> int | None:
        return int(self.first_line.split(" ", 2)[1]) if self.first_line.startswith("SIP/") else None

    def header(self, name: str) -> str:
        value = self.headers[name.lower()]
        assert isinstance(value, str), f"{name} is repeated: {value}"
        return value


def _sip(payload: bytes) -> tuple[str, dict, bytes]:
    if payload.startswith(b"SIP/"):
        response = dpkt.sip.Response(payload)
        return f"SIP/{response.version} {response.status} {response.reason}", response.headers, response.body
    request = dpkt.sip.Request(payload)
    return f"{request.method} {request.uri} SIP/{request.version}", request.headers, request.body


def _checked_ip(frame: bytes) -> dpkt.ip.IP:
    """The IPv4 packet of an Ethernet frame, its lengths and checksums checked against dpkt's own."""
    ethernet = dpkt.ethernet.Ethernet(frame)
    ip = ethernet.data
    assert isinstance(ip, dpkt.ip.IP) and ip.v == 4, "not IPv4"
    assert isinstance(ip.data, dpkt.udp.UDP), "not UDP"
    assert ip.len == len(bytes(ip)) and ip.data.ulen == len(bytes(ip.data)), "lengths disagree"
    again = dpkt.ip.IP(bytes(ip))
    again.sum = again.data.sum = 0  # dpkt recomputes both when packing
    recomputed = dpkt.ip.IP(bytes(again))
    assert (recomputed.sum, recomputed.data.sum) == (ip.sum, ip.data.sum), "bad checksum"
    return ip


def read_pcap(data: bytes) -> list[PcapSip]:
    """Every SIP message of a libpcap capture of Ethernet frames, in the file's order."""
    reader = dpkt.pcap.Reader(io.BytesIO(data))
    assert reader.datalink() == dpkt.pcap.DLT_EN10MB, reader.datalink()
    messages = []
    for at, frame in reader:
        ip = _checked_ip(frame)
        udp = ip.data
        assert (udp.sport, udp.dport) == (SIP_PORT, SIP_PORT), (udp.sport, udp.dport)
        first_line, headers, body = _sip(bytes(udp.data))
        messages.append(PcapSip(float(at), dpkt.utils.inet_to_str(ip.src), dpkt.utils.inet_to_str(ip.dst),
                                first_line, dict(headers), bytes(body)))  # fmt: skip
    return messages

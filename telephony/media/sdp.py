"""SDP bodies for the offers and answers of a rendered SIP dialogue.

A party's codec name maps to its RTP payload type and `rtpmap` (PCMU 0, PCMA 8, G722 9, opus 111,
dynamic); a name this server does not know, or none, is PCMU. Every body also offers RFC 4733
telephone events on payload type 101.
"""

from __future__ import annotations

import re

CODECS = {
    "PCMU": (0, "PCMU/8000"),
    "PCMA": (8, "PCMA/8000"),
    "G722": (9, "G722/8000"),
    "OPUS": (111, "opus/48000/2"),
}
_ALIASES = {"G711U": "PCMU", "ULAW": "PCMU", "G711A": "PCMA", "ALAW": "PCMA"}
DTMF = 101
DIRECTIONS = ("sendrecv", "sendonly", "recvonly", "inactive")


def codec_name(codec: object) -> str:
    """The canonical name of a codec as a party describes it ("g.711a", "opus/48000"): a key of `CODECS`."""
    if not isinstance(codec, str):
        return "PCMU"
    name = re.sub(r"[^A-Z0-9]", "", codec.split("/")[0].upper())
    name = _ALIASES.get(name, name)
    return name if name in CODECS else "PCMU"


def body(address: str, port: int, codec: object, *, direction: str = "sendrecv", session: int = 0,
         version: int = 0) -> str:  # fmt: skip
    """An audio offer or answer from `address`:`port` in one codec, with the stream's direction."""
    payload, rtpmap = CODECS[codec_name(codec)]
    lines = [
        "v=0",
        f"o=- {session} {version} IN IP4 {address}",
        "s=telephony",
        f"c=IN IP4 {address}",
        "t=0 0",
        f"m=audio {port} RTP/AVP {payload} {DTMF}",
        f"a=rtpmap:{payload} {rtpmap}",
        f"a=rtpmap:{DTMF} telephone-event/8000",
        f"a=fmtp:{DTMF} 0-16",
        "a=ptime:20",
        f"a={direction if direction in DIRECTIONS else 'sendrecv'}",
    ]
    return "\r\n".join(lines) + "\r\n"

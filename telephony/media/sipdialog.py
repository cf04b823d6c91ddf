"""One SIP dialog between this server and a party, written as RFC 3261 messages.

A `Dialog` keeps what stays the same across its messages (Call-ID, both tags, the RTP ports) and
what moves on (the CSeq, one counter for the dialog: each new request takes the next number, a
CANCEL or an ACK repeats its INVITE's). A request opens a `Transaction`; its responses copy the
request's Via, From, To and CSeq and add the answering side's tag. Branches, tags and ports are
derived from the Call-ID, so the same dialog renders the same bytes every time.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime

from . import sdp
from .parties import Endpoint
from .sipmessage import SIP_PORT, SipMessage

SDP = "application/sdp"
SIPFRAG = "message/sipfrag;version=2.0"
ALLOW = "INVITE, ACK, CANCEL, BYE, REFER, NOTIFY, OPTIONS"
_CONTACT_ON = frozenset({"INVITE", "REFER", "NOTIFY"})


def _hash(*parts: object) -> int:
    return zlib.crc32(" ".join(map(str, parts)).encode())


@dataclass(frozen=True)
class Transaction:
    """A request as its responses need it."""

    method: str
    cseq: int
    via: str
    from_: str
    to: str
    from_us: bool


class Dialog:
    """A leg's dialog: `us` is this server as the leg sees it, `them` the party; `established` when it was set
    up before the messages to render (its first INVITE is then a re-INVITE)."""

    def __init__(self, call_id: str, leg: str, us: Endpoint, them: Endpoint, *, established: bool = False) -> None:
        self.call_id, self.leg, self.us, self.them = call_id, leg, us, them
        self.cseq = 0
        self._branches = 0
        self._tags = {True: f"{_hash(call_id, 'us'):08x}", False: f"{_hash(call_id, 'them'):08x}"}
        self._ports = {True: 10_000 + 2 * (_hash(call_id) % 5000), False: 20_000 + 2 * (_hash(call_id) % 5000)}
        self._sdp_versions = {True: 0, False: 0}
        self._invited = established

    def _via(self, sender: Endpoint) -> str:
        self._branches += 1
        return f"SIP/2.0/UDP {sender.address}:{SIP_PORT};branch=z9hG4bK{_hash(self.call_id, self._branches):08x}"

    def _side(self, from_us: bool) -> Endpoint:
        return self.us if from_us else self.them

    def sdp(self, from_us: bool, direction: str = "sendrecv") -> str:
        """An offer or answer from one side, in the party's codec; each one a new version."""
        version = self._sdp_versions[from_us]
        self._sdp_versions[from_us] += 1
        side = self._side(from_us)
        return sdp.body(side.address, self._ports[from_us], self.them.codec, direction=direction,
                        session=_hash(self.call_id, from_us) % 10**9, version=version)  # fmt: skip

    def request(self, at: datetime, method: str, *, from_us: bool = True, body: str = "", content_type: str = SDP,
                headers: tuple[tuple[str, str], ...] = (), of: Transaction | None = None,
                answered: bool = False) -> tuple[SipMessage, Transaction]:  # fmt: skip
        """A new request; a CANCEL or an ACK names the INVITE it is `of` (and whether that was `answered`,
        whose ACK is a transaction of its own)."""
        sender, receiver = self._side(from_us), self._side(not from_us)
        if of is not None:
            cseq, from_, to = of.cseq, of.from_, of.to
            via = self._via(sender) if method == "ACK" and answered else of.via
            if method == "ACK":
                to = receiver.name_addr(self._tags[not from_us])
        else:
            self.cseq += 1
            cseq, via = self.cseq, self._via(sender)
            from_ = sender.name_addr(self._tags[from_us])
            to = receiver.name_addr(None if method == "INVITE" and not self._invited else self._tags[not from_us])
            self._invited = self._invited or method == "INVITE"
        fields = [("Via", via), ("Max-Forwards", "70"), ("From", from_), ("To", to), ("Call-ID", self.call_id),
                  ("CSeq", f"{cseq} {method}")]  # fmt: skip
        if method in _CONTACT_ON:
            fields.append(("Contact", f"<{sender.uri}>"))
        if method == "INVITE":
            fields.append(("Allow", ALLOW))
        fields += headers
        transaction = Transaction(method, cseq, via, from_, to, from_us)
        return self._message(at, f"{method} {receiver.uri} SIP/2.0", from_us, fields, body, content_type), transaction

    def response(self, at: datetime, request: Transaction, code: int, reason: str, *, body: str = "",
                 content_type: str = SDP) -> SipMessage:  # fmt: skip
        """The answer to `request` from the other side."""
        from_us = not request.from_us
        to = request.to
        if code != 100 and ";tag=" not in to:
            to += f";tag={self._tags[from_us]}"
        fields = [("Via", request.via), ("From", request.from_), ("To", to), ("Call-ID", self.call_id),
                  ("CSeq", f"{request.cseq} {request.method}")]  # fmt: skip
        if request.method in _CONTACT_ON and code != 100 and code < 300:
            fields.append(("Contact", f"<{self._side(from_us).uri}>"))
        if request.method == "INVITE" and code == 200:
            fields.append(("Allow", ALLOW))
        return self._message(at, f"SIP/2.0 {code} {reason}", from_us, fields, body, content_type)

    def _message(self, at: datetime, first_line: str, from_us: bool, fields: list[tuple[str, str]], body: str,
                 content_type: str) -> SipMessage:  # fmt: skip
        sender, receiver = self._side(from_us), self._side(not from_us)
        if sender.ua:
            fields.append(("User-Agent", sender.ua))
        if body:
            fields.append(("Content-Type", content_type))
        fields.append(("Content-Length", str(len(body.encode()))))
        text = "\r\n".join([first_line, *(f"{name}: {value}" for name, value in fields)]) + "\r\n\r\n" + body
        return SipMessage(at, sender.number, receiver.number, text, self.leg, sender.address, receiver.address)

"""A SIP message as the files show it, and the addresses the parties of a call use.

A message knows its time, its leg ("src", "dst"; empty for a record's ladder), who sent it to whom
(`source`, `target`: a number, or this server as the dialog shows it) and their IPv4 addresses, all
documentation addresses (RFC 5737) unless a party's contact names its own. Every port is 5060.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

PLATFORM_ADDRESS = "192.0.2.10"
"""Where this server's SIP messages come from."""
CLIENT_ADDRESS = "198.51.100.20"
"""A SIP client with no address of its own."""
CARRIER_ADDRESS = "203.0.113.5"
"""The carrier gateway every public number is reached through."""
SIP_PORT = 5060
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class SipMessage:
    at: datetime
    source: str
    target: str
    text: str
    leg: str = ""
    source_address: str = PLATFORM_ADDRESS
    target_address: str = CLIENT_ADDRESS

    @property
    def first_line(self) -> str:
        """The request line or status line."""
        return self.text.split("\r\n", 1)[0]

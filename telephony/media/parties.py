"""Where a call's party is on the network, and what it says about itself in SIP headers.

A party is the dict a `call.placed` event holds: `{number, id, name, ua, contact, codec, user_id}`.
A SIP client whose `contact` names an IPv4 host is reached there; another client (a `user_id`, a
`contact` with a host name, or a short extension) at `CLIENT_ADDRESS`; a public number through the
carrier gateway. Every port is 5060. Text from a party is cleaned before it reaches a header: no
control characters, at most 128 characters, and only URI characters in a number.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .sipmessage import CARRIER_ADDRESS, CLIENT_ADDRESS, PLATFORM_ADDRESS, SIP_PORT

_CONTACT = re.compile(r"^<?sips?:(?:([^@;>]+)@)?([^:;>]+)")
_NOT_USER = re.compile(r"[^A-Za-z0-9+\-_.!~*'()&=$,?/]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_LONGEST = 128


@dataclass(frozen=True)
class Endpoint:
    """One side of a SIP dialog: its user part, display name, address, URI, User-Agent and codec."""

    number: str
    name: str | None
    address: str
    ua: str | None
    codec: object = None
    contact_user: str | None = None

    @property
    def uri(self) -> str:
        """Where requests to this endpoint go: its contact, or its number at its address."""
        return f"sip:{self.contact_user or self.number}@{self.address}:{SIP_PORT}"

    def name_addr(self, tag: str | None = None) -> str:
        """The From/To value naming this endpoint, with its dialog tag once it has one."""
        shown = f'"{self.name}" ' if self.name else ""
        return f"{shown}<sip:{self.number}@{self.address}>" + (f";tag={tag}" if tag else "")


def text(value: object) -> str | None:
    """A party's free text fit for a header: None when empty or not text."""
    if not isinstance(value, str):
        return None
    cleaned = _CONTROL.sub(" ", value).strip()[:_LONGEST]
    return cleaned or None


def user_part(value: object, default: str = "anonymous") -> str:
    """A number or extension as the user part of a SIP URI."""
    cleaned = _NOT_USER.sub("", value if isinstance(value, str) else "")[:_LONGEST]
    return cleaned or default


def display(value: object) -> str | None:
    """A display name fit for a quoted string."""
    shown = text(value)
    return shown.replace("\\", "").replace('"', "'") if shown else None


def is_user(party: object) -> bool:
    """Whether the party is one of the customer's users (their SIP client), not an outside number."""
    if not isinstance(party, Mapping):
        return False
    return party.get("user_id") is not None or text(party.get("contact")) is not None


def _contact(contact: object) -> tuple[str | None, str] | None:
    """The user part and IPv4 host of a contact URI; None when it names no IPv4 host."""
    match = _CONTACT.match(contact) if isinstance(contact, str) else None
    if match is None:
        return None
    try:
        host = str(ipaddress.IPv4Address(match.group(2)))
    except ValueError:
        return None
    return (user_part(match.group(1)) if match.group(1) else None), host


def _public(number: str) -> bool:
    return number.startswith("+") or sum(c.isdigit() for c in number) >= 7


def endpoint(party: object) -> Endpoint:
    """The network side of a party."""
    fields: Mapping = party if isinstance(party, Mapping) else {}
    number = user_part(fields.get("number") or fields.get("id"))
    user, host = _contact(fields.get("contact")) or (None, None)
    if host is None:
        host = CLIENT_ADDRESS if is_user(fields) or not _public(number) else CARRIER_ADDRESS
    return Endpoint(number, display(fields.get("name")), host, text(fields.get("ua")), fields.get("codec"), user)


def platform(number: object, name: object = None) -> Endpoint:
    """This server as it shows itself in one dialog: as `number` (a caller id, a dialled number)."""
    return Endpoint(user_part(number, "telephony"), display(name), PLATFORM_ADDRESS, "telephony")

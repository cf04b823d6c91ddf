"""SMS as carriers count them: encoding, length and parts; and how a simulated SMS is delivered.

A text of GSM 03.38 characters goes as GSM-7: each basic character is one septet, each character of
the extension table (`^ { } [ ] ~ | € \\` and form feed) two (an escape and the character). It fits
one SMS up to 160 septets; a longer one is split into parts of 153 (the rest is the concatenation
header), never splitting an escaped character. Any other text goes as UCS-2: 70 UTF-16 units in
one SMS, parts of 67 beyond, never splitting a surrogate pair (an emoji).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

BASIC = set(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
EXTENSION = set("^{}\\[~]|€\f")
GSM7, UCS2 = "GSM-7", "UCS-2"
SINGLE = {GSM7: 160, UCS2: 70}
PART = {GSM7: 153, UCS2: 67}
FAILURES = ("unknown subscriber", "absent subscriber", "network failure")
"""Why a simulated SMS is not delivered."""


@dataclass(frozen=True)
class Counted:
    """A text as it goes: its encoding, its length in septets or UTF-16 units, and its parts."""

    encoding: str
    length: int
    parts: int


def counted(text: str) -> Counted:
    if all(c in BASIC or c in EXTENSION for c in text):
        units = [2 if c in EXTENSION else 1 for c in text]
        encoding = GSM7
    else:
        units = [len(c.encode("utf-16-le")) // 2 for c in text]
        encoding = UCS2
    length = sum(units)
    if length <= SINGLE[encoding]:
        return Counted(encoding, length, 1 if text else 0)
    parts, room = 1, PART[encoding]
    for unit in units:
        if unit > room:
            parts, room = parts + 1, PART[encoding]
        room -= unit
    return Counted(encoding, length, parts)


@dataclass(frozen=True)
class Delivery:
    """What happens to a sent SMS: sent after `sent_seconds`, then delivered or failed (`reason`)."""

    sent_seconds: float
    final_seconds: float
    delivered: bool
    reason: str | None = None


def delivery(seed: int, sms_id: int, failure_rate: float, sent_seconds: float, delivered_seconds: float) -> Delivery:
    """The simulated fate of an SMS, drawn from the seed and its id (the same for the same seed)."""
    rng = random.Random(f"{seed}:sms:{sms_id}")
    failed = rng.random() < failure_rate
    reason = rng.choice(FAILURES) if failed else None
    return Delivery(sent_seconds, sent_seconds + delivered_seconds, not failed, reason)

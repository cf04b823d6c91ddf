"""What each stored kind is called in messages: `CDR 7 not found`, `queue_id: Queue 3 not found`.

One word per kind, as the platform's own pages name the records (the spec's resource names, in
everyday words), so every refusal naming a record reads the same whatever route it comes from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

NOUNS: Mapping[str, str] = MappingProxyType({
    "customer": "Customer", "user": "User", "token": "API token",
    "contact": "Contact", "conference": "Conference", "ddi": "Number", "queue": "Queue", "ringgroup": "Ring group",
    "pickupgroup": "Pickup group", "routingrule": "Routing rule", "ivr": "IVR", "campaign": "Call tracking campaign",
    "queuegroup": "Queue group", "usergroup": "User group", "usergrouppolicy": "User group policy",
    "sms": "SMS", "fax": "Fax", "vmannouncement": "Announcement", "cannedresponse": "Canned response",
    "chat": "Chat", "chatmsg": "Chat message", "cdr": "CDR", "monitor": "Recording", "msdr": "MSDR",
    "voicemessage": "Voicemail message", "calllabel": "Call label", "webcall": "Web call", "call": "Call",
    "mediasession": "Media session", "cmbsetting": "Call Me Back setting", "cmbwebsite": "Call Me Back website",
    "cmbvisitor": "Call Me Back visitor", "cmbcdr": "Call Me Back call", "cmbbutton": "Call Me Back button",
    "transaction": "Transaction", "conversation": "Conversation", "balance": "Balance", "tariffcard": "Tariff card",
    "reportschedule": "Report schedule", "webhook": "Webhook", "delivery": "Delivery",
})  # fmt: skip


def noun(kind: str) -> str:
    """The word for a record of `kind`."""
    return NOUNS.get(kind, kind.capitalize())


def not_found(kind: str, *ids: object) -> str:
    """`CDR 7 not found`; several ids: `CDR 7, 9 not found`."""
    return f"{noun(kind)} {', '.join(map(str, ids))} not found"


def missing(kind: str, ids: Sequence[object], field: str | None = None) -> list[tuple[str | None, str]]:
    """A problem per id of `kind` that names nothing (`field`: where the request named it)."""
    return [(field, not_found(kind, id_)) for id_ in ids]

"""Conversations: one unified history of a customer's calls, SMS, faxes and chats.

A document table fed by the events that make the CDRs, SMS, faxes and chats (a projection of the
same events, never a copy of the other tables): one conversation per CDR, SMS, fax and chat,
`{id, created_at, channel, src, dst, duration, type, user_id, source_id}` where `type` is `in`, `out`
or `missed` and `source_id` the id of the record it stands for. It is a derived table
(`documents.DerivedTable`): each conversation is named by its record (`cdr:<id>`, `sms:<id>` ...) and
takes the next id when it is made, so ids grow in the order things happened across channels, and a
replay gives the same ones. Clearing a kind's records (`DELETE /cdrs`, `DELETE /sms`) clears its
conversations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from .documents.changes import Clear, Patch, Put
from .documents.names import source
from .documents.projection import DocumentChange, Feed
from .domain.events import RESOURCES, Event
from .domain.events.resources import ResourceCleared, ResourceCreated, ResourceUpdated
from .eventlog import RecordedEvent

CHANNELS = ("call", "sms", "fax", "chat")
KINDS = {"call": "cdr", "sms": "sms", "fax": "fax", "chat": "chat"}
"""The kind of the records of each channel."""
CDR_TYPES = {"I": "in", "O": "out", "M": "missed"}
DIRECTIONS = {"in": "in", "out": "out", 1: "in", 2: "out"}
"""An SMS's or a fax's `type` (a direction name or code) as a conversation's."""


def conversation(channel: str, record: dict[str, Any], customer_id: int) -> DocumentChange:
    """The conversation of a record of `channel` (a CDR's, an SMS's, a fax's or a chat's body), named by
    its record: the table gives it its id."""
    body = {"channel": channel, **SHAPES[channel](record), "source_id": record["id"]}
    return Put(source(KINDS[channel], record["id"]), customer_id, body)


SHAPES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "call": lambda b: {"created_at": b.get("calldate"), "src": b.get("src"), "dst": b.get("dst"),
                       "duration": b.get("duration"), "type": CDR_TYPES.get(b.get("type") or "", "out"),
                       "user_id": b.get("user_id")},
    "sms": lambda b: {"created_at": b.get("created_at"), "src": b.get("from"), "dst": b.get("to"), "duration": 0,
                      "type": DIRECTIONS.get(b.get("type"), "out"), "user_id": b.get("user_id")},
    "fax": lambda b: {"created_at": b.get("created_at"), "src": b.get("from"), "dst": b.get("to"), "duration": 0,
                      "type": DIRECTIONS.get(b.get("type"), "in"), "user_id": None},
    "chat": lambda b: {"created_at": b.get("created_at"), "src": b.get("visitor_name") or b.get("visitor_id"),
                       "dst": str(b["operator_id"]) if b.get("operator_id") is not None else None,
                       "duration": b.get("duration") or 0, "type": "in", "user_id": b.get("operator_id")},
}  # fmt: skip
"""A conversation's fields from the record of each channel."""
READ = {
    "call": ("calldate", "src", "dst", "duration", "type", "user_id"),
    "sms": ("created_at", "from", "to", "type", "user_id"),
    "fax": ("created_at", "from", "to", "type"),
    "chat": ("created_at", "visitor_name", "visitor_id", "operator_id", "duration"),
}
"""The fields of a record each channel's shape reads (besides its id)."""


def made(channel: str) -> Callable[[RecordedEvent], Iterable[DocumentChange]]:
    """A feed of a kind's records made (`<kind>.created`). A rebuild hands it the event's JSON
    (`from_json`), of which it decodes only the fields the conversation reads."""
    record = msgspec.defstruct(f"{channel}_record", [(name, Any, None) for name in ("id", *READ[channel])])
    decode = msgspec.json.Decoder(msgspec.defstruct(f"{channel}_made", [("customer_id", Any), ("body", record)])).decode

    def of(data: dict[str, Any]) -> list[DocumentChange]:
        return [conversation(channel, data["body"], data["customer_id"])]

    def feed(event: RecordedEvent) -> Iterable[DocumentChange]:
        made = event.event
        if not isinstance(made, ResourceCreated):
            return []
        return [conversation(channel, msgspec.to_builtins(made.body), made.customer_id)]

    def from_json(data: bytes) -> Iterable[DocumentChange]:
        try:
            found: Any = decode(data)
        except msgspec.ValidationError:  # not the usual shape: read whole, as `feed` does
            return of(msgspec.json.decode(data))
        return of({"body": msgspec.structs.asdict(found.body), "customer_id": found.customer_id})

    feed.from_json = from_json  # type: ignore[attr-defined]
    return feed


def cleared(channel: str) -> Callable[[RecordedEvent], Iterable[DocumentChange]]:
    """A feed of a kind's records cleared (`<kind>.cleared`): their conversations go."""

    def feed(event: RecordedEvent) -> Iterable[DocumentChange]:
        if isinstance(cleared_ := event.event, ResourceCleared):
            yield Clear(cleared_.customer_id, {"channel": channel})

    return feed


def chat_ended(event: RecordedEvent) -> Iterable[DocumentChange]:
    """A chat's conversation lasts as long as the chat, once it ends."""
    match event.event:
        case ResourceUpdated(id=chat_id, changes=changes) if "duration" in changes:
            yield Patch(source(KINDS["chat"], chat_id), {"duration": changes["duration"]})


FEEDS: dict[str, dict[type[Event], Feed]] = {
    "conversation": {
        RESOURCES["cdr"].created: made("call"), RESOURCES["cdr"].cleared: cleared("call"),
        RESOURCES["sms"].created: made("sms"), RESOURCES["sms"].cleared: cleared("sms"),
        RESOURCES["fax"].created: made("fax"), RESOURCES["chat"].created: made("chat"),
        RESOURCES["chat"].updated: chat_ended,
    }
}  # fmt: skip
"""The conversations' document kind and the events of records it is made from (the call engine
feeds it the CDRs its calls leave, `calls.records`)."""

"""A customer's webhooks: named receivers of call and SMS events, changed as events.

Each webhook is a document `{id, name, url, events, enabled, created_at, updated_at, failing_since,
disabled_reason, secret_sealed}` of the customer, changed by its kind's own events (`webhook.created`,
`.updated`, `.deleted`). Names are unique per customer and name the webhook in paths. The signing
secret is kept sealed under the data dir's key (never in plain text) and shown once, when it is made.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from ..documents import reads
from ..domain.errors import Invalid, Unknown
from ..domain.events import RESOURCES
from ..eventlog import NO_STREAM, Decision, NewEvent
from ..eventlog.connection import Connection
from ..projections.sequences import next_id
from .urls import displayed

KIND = "webhook"
WEBHOOK = RESOURCES[KIND]
"""The events of a webhook's own record."""
EventType = Literal["call.missed", "call.ringing", "call.connected", "call.hangup", "call.state", "sms.received"]
NAMED = "a free name: letters, digits, spaces, dots, dashes, underscores"
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._-]*$",
                                   description=NAMED)]  # fmt: skip
Url = Annotated[str, msgspec.Meta(min_length=1, max_length=2048, description="an https:// URL")]
Events = Annotated[list[EventType], msgspec.Meta(min_length=1, max_length=6)]


class WebhookCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Name
    url: Url
    events: Events
    enabled: bool = True


class WebhookPatch(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Name | msgspec.UnsetType = msgspec.UNSET
    url: Url | msgspec.UnsetType = msgspec.UNSET
    events: Events | msgspec.UnsetType = msgspec.UNSET
    enabled: bool | msgspec.UnsetType = msgspec.UNSET


def shown(document: dict[str, Any], secret: str | None = None) -> dict[str, Any]:
    """The webhook as the API shows it: never its sealed secret (the secret itself only when given), nor
    the password of a URL saved before URLs with credentials were refused."""
    out = {k: v for k, v in document.items() if k not in ("secret_sealed", "customer_id")}
    out["url"] = displayed(out["url"])
    return {**out, "secret": secret} if secret is not None else out


def named(conn: Connection, customer_id: int, name: str) -> dict[str, Any] | None:
    found = reads.every_document(conn, KIND, customer_id, name=name)
    return found[0] if found else None


def _named_or_404(conn: Connection, customer_id: int, name: str) -> dict[str, Any]:
    found = named(conn, customer_id, name)
    if found is None:
        raise Unknown(f"Webhook {name} not found")
    return found


def _unused(conn: Connection, customer_id: int, name: str) -> None:
    if named(conn, customer_id, name) is not None:
        raise Invalid.field("name", "This name is already used")


def create(customer_id: int, body: WebhookCreate, sealed: str, now: str) -> Decision[dict[str, Any]]:
    def decide(conn: Connection) -> tuple[list[NewEvent], dict[str, Any]]:
        _unused(conn, customer_id, body.name)
        id_ = next_id(conn, KIND)
        document = {"id": id_, "name": body.name, "url": body.url, "events": list(dict.fromkeys(body.events)),
                    "enabled": body.enabled, "created_at": now, "updated_at": now, "failing_since": None,
                    "disabled_reason": None, "secret_sealed": sealed}  # fmt: skip
        made = WEBHOOK.made(id_, customer_id, document)
        return [NewEvent(stream=f"{KIND}-{id_}", event=made, expected_version=NO_STREAM)], document

    return Decision(decide)


def change(customer_id: int, name: str, changes: dict[str, Any], now: str) -> Decision[dict[str, Any]]:
    """Fields of a webhook change; enabling it again clears its failure."""

    def decide(conn: Connection) -> tuple[list[NewEvent], dict[str, Any]]:
        current = _named_or_404(conn, customer_id, name)
        if changes.get("name", name) != name:
            _unused(conn, customer_id, changes["name"])
        fields = {**changes, "updated_at": now}
        if "events" in fields:
            fields["events"] = list(dict.fromkeys(fields["events"]))
        if fields.get("enabled") and not current["enabled"]:
            fields.update(failing_since=None, disabled_reason=None)
        changed = WEBHOOK.updated(id=current["id"], changes=fields)
        return [NewEvent(stream=f"{KIND}-{current['id']}", event=changed)], {**current, **fields}

    return Decision(decide)


def delete(customer_id: int, name: str) -> Decision[dict[str, Any]]:
    def decide(conn: Connection) -> tuple[list[NewEvent], dict[str, Any]]:
        current = _named_or_404(conn, customer_id, name)
        return [NewEvent(stream=f"{KIND}-{current['id']}", event=WEBHOOK.deleted(id=current["id"]))], current

    return Decision(decide)

"""SMS both ways, as decisions in the writer's transaction.

Sending: `from` must be one of the customer's SMS-enabled numbers or the user's activated mobile
(400 naming `from` otherwise); without it, the first SMS-enabled number that rings the user, else
the customer's first; none at all is the platform's 412. The text is counted as carriers count it
(`domain.sms`) and charged per part (`billing`); the record (`type` out) starts `QUEUED` and the
simulator moves it on the clock: `SENT`, then `DELIVERED` or `FAILED` with a `failure_reason`, as
its plan (drawn from the seed and the SMS's id, carried in `sms.created`) says.

Receiving: an SMS to an SMS-enabled number is a record (`type` in, `RECEIVED`) of the user the number
rings (none when it rings no user), mailed to the number's `sms_email` when set; the webhook
dispatcher delivers it as the spec's `sms.received`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..clock import wire_time
from ..documents import reads
from ..domain import phone
from ..domain.billing import shown
from ..domain.dictionaries import TARGET_TYPE
from ..domain.errors import Invalid, Unknown, Unmet
from ..domain.events.messaging import SMS, SmsCreated, SmsSteps
from ..domain.sms import Delivery, counted
from ..eventlog import Decision, NewEvent
from ..eventlog.connection import Connection
from ..projections.sequences import next_id

KIND = "sms"
NO_NUMBER = "No SMS-enabled number is available to send from"
SENT, DELIVERED, FAILED, QUEUED, RECEIVED = "SENT", "DELIVERED", "FAILED", "QUEUED", "RECEIVED"
USER_TARGET = TARGET_TYPE.to_code("user")


def _numbers(conn: Connection, customer_id: int) -> list[dict[str, Any]]:
    """The customer's SMS-enabled numbers, oldest first."""
    found = [d for d in reads.every_document(conn, "ddi", customer_id) if d.get("sms_enabled")]
    return sorted(found, key=lambda d: (d.get("created_at") or "", d["id"]))


def sender(conn: Connection, customer_id: int, user: dict[str, Any], requested: str | None) -> str:
    """The number an SMS of `user` goes from."""
    numbers = _numbers(conn, customer_id)
    if requested is not None:
        wanted = phone.e164(requested)
        mobile = user.get("mobile") if user.get("mobile_activated") else None
        if any(n["id"] == wanted for n in numbers) or (mobile and phone.e164(phone.digits(str(mobile))) == wanted):
            return wanted
        raise Invalid.field("from", "This number is not one of your SMS-enabled numbers or your activated mobile.")
    own = [n for n in numbers if n.get("target_type") == USER_TARGET and n.get("target_id") == user["id"]]
    chosen = (own or numbers)[:1]
    if not chosen:
        raise Unmet(NO_NUMBER)
    return chosen[0]["id"]


@dataclass(frozen=True, kw_only=True)
class Outgoing:
    customer_id: int
    user: dict[str, Any]
    to: str
    text: str
    requested: str | None
    to_id: str | None = None
    to_name: str | None = None


def send(out: Outgoing, pricing: Any, plan: Callable[[int], Delivery], now: Callable[[], float]
         ) -> Decision[dict[str, Any]]:  # fmt: skip
    """An SMS sent by a user: its record, queued, its plan, and its charge."""

    def decide(conn: Connection) -> tuple[list[NewEvent], dict[str, Any]]:
        at = now()
        origin = sender(conn, out.customer_id, out.user, out.requested)
        text = counted(out.text)
        pricing.payable_message(conn, out.customer_id, out.to, text.parts)
        sms_id = next_id(conn, KIND)
        price, charges = pricing.message(conn, out.customer_id, out.to, text.parts, at)
        fate = plan(sms_id)
        name = " ".join(p for p in (out.user.get("first_name"), out.user.get("last_name")) if p) or None
        body = {"id": sms_id, "created_at": wire_time(at), "from": origin, "from_id": str(out.user["id"]),
                "from_name": name, "message": out.text, "result": QUEUED, "to": out.to, "to_id": out.to_id,
                "to_name": out.to_name, "type": "out", "user_id": out.user["id"], "encoding": text.encoding,
                "length": text.length, "parts": text.parts, "rate": shown(price["rate"]),
                "charge": shown(price["charge"]), "sent_at": None, "delivered_at": None,
                "failure_reason": None}  # fmt: skip
        steps = SmsSteps(sent_at=at + fate.sent_seconds, final_at=at + fate.final_seconds, delivered=fate.delivered,
                         reason=fate.reason)  # fmt: skip
        created = SmsCreated(id=sms_id, customer_id=out.customer_id, body=SMS.body(body), steps=steps)
        return [NewEvent(stream=f"{KIND}-{sms_id}", event=created), *charges], body

    return Decision(decide)


def receive(customer_id: int, ddi: dict[str, Any], from_: str, text: str, caller: tuple[str | None, str | None],
            mail: Callable[[str, str, str], NewEvent], now: Callable[[], float]
            ) -> Decision[dict[str, Any]]:  # fmt: skip
    """An SMS received on one of the customer's numbers: its record, and its mail to `sms_email`."""

    def decide(conn: Connection) -> tuple[list[NewEvent], dict[str, Any]]:
        at = now()
        sms_id = next_id(conn, KIND)
        user_id = ddi.get("target_id") if ddi.get("target_type") == USER_TARGET else None
        user = reads.documents(conn, "user", [user_id], customer_id).get(user_id) if user_id else None
        name = " ".join(p for p in (user.get("first_name"), user.get("last_name")) if p) if user else None
        counted_ = counted(text)
        body = {"id": sms_id, "created_at": wire_time(at), "from": from_, "from_id": caller[0], "from_name": caller[1],
                "message": text, "result": RECEIVED, "to": ddi["id"], "to_id": str(user_id) if user_id else None,
                "to_name": name or None, "type": "in", "user_id": user_id, "encoding": counted_.encoding,
                "length": counted_.length, "parts": counted_.parts, "rate": 0.0, "charge": 0.0, "sent_at": None,
                "delivered_at": wire_time(at), "failure_reason": None}  # fmt: skip
        made = SmsCreated(id=sms_id, customer_id=customer_id, body=SMS.body(body))
        events = [NewEvent(stream=f"{KIND}-{sms_id}", event=made)]
        if ddi.get("sms_email"):
            said = f"From {from_} to {ddi['id']} at {body['created_at']} UTC:\n\n{text}"
            events.append(mail(ddi["sms_email"], f"SMS from {from_}", said))
        return events, body

    return Decision(decide)


def stepped(customer_id: int, sms_id: int, steps: SmsSteps, now: Callable[[], float]) -> Decision[None]:
    """The SMS's next state, when it is due: sent, then delivered or failed."""

    def decide(conn: Connection) -> tuple[list[NewEvent], None]:
        at = now()
        current = reads.documents(conn, KIND, [sms_id], customer_id).get(sms_id)
        if current is None:
            raise Unknown(f"SMS {sms_id} not found")
        changes: dict[str, Any]
        if current["result"] == QUEUED and at >= steps.sent_at - 1e-6:
            changes = {"result": SENT, "sent_at": wire_time(steps.sent_at)}
        elif current["result"] == SENT and at >= steps.final_at - 1e-6:
            changes = ({"result": DELIVERED, "delivered_at": wire_time(steps.final_at)} if steps.delivered
                       else {"result": FAILED, "failure_reason": steps.reason})  # fmt: skip
        else:
            return [], None
        return [NewEvent(stream=f"{KIND}-{sms_id}", event=SMS.updated(id=sms_id, changes=changes))], None

    return Decision(decide)

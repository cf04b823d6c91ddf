"""What happens at the company, one thing at a time: a call, a text message or a fax, drawn from a
seeded generator as a request to the server. The history and the live traffic draw from here alike,
so both go through the same routing as any call: inbound calls ring a number
(`POST /_telephony/simulate/inbound-call`) and are routed by its target, outbound calls are placed
by a user (`POST /calls`), SMS arrive and are answered, faxes arrive.

The simulator decides how each call goes (who answers, for how long) from its own seed and the call's
id; this module decides only who calls whom, and when the caller gives up or presses a key.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Literal

from .plan import FAX_LINE, IVR_KEYS, MAIN_LINE, SALES_LINE, SMS_LINE, SUPPORT_LINE, Plan

Via = Literal["control", "api"]
INBOUND_TEXTS = (
    "Hi, can you call me back about my order?", "Is the delivery still booked for Thursday?",
    "Thanks for your help earlier!", "Could you send the invoice again please?", "Running 10 minutes late.",
    "Can we move our meeting to 3pm?", "Please confirm the new address.", "The parcel arrived, all good.",
)  # fmt: skip
REPLIES = (
    "Of course, someone will call you within the hour.", "Yes, Thursday between 9 and 12.", "You're welcome!",
    "Sent again just now.", "No problem, see you soon.", "3pm works, see you then.", "Confirmed, thank you.",
)  # fmt: skip


@dataclass(frozen=True)
class Action:
    """One request: `via` the operator's endpoints or the API, its method, path and body, and what it
    is (`kind`: `inbound`, `outbound`, `sms` or `fax`; the history counts them)."""

    via: Via
    path: str
    body: dict[str, Any]
    kind: str
    method: str = "POST"


def call(rng: random.Random, plan: Plan, users: tuple[int, ...]) -> Action:
    """A call: two in three inbound (the main line's menu, a team's line, a direct line), else outbound."""
    if rng.random() < 0.35:
        caller = rng.choice(plan.callers)
        to = _outside_number(rng, plan)
        return Action("api", "/calls", {"from": users[caller], "to": to, "caller_id": MAIN_LINE}, "outbound")
    body: dict[str, Any] = {"from": _outside_number(rng, plan)}
    line = rng.random()
    if line < 0.55:
        body["to"] = MAIN_LINE
        key = rng.choice([*IVR_KEYS, *IVR_KEYS, "0", ""])  # a caller who presses nothing reaches the operator
        if key:
            body["digits"] = [{"key": key, "after": rng.choice([2, 3, 4])}]
    elif line < 0.9:
        body["to"] = SALES_LINE if rng.random() < 0.4 else SUPPORT_LINE
    else:
        body["to"] = rng.choice([p.direct for p in plan.people if p.direct])
    if rng.random() < 0.12:
        body["hangup_after"] = rng.choice([8, 15, 25, 45])  # gives up: a missed or abandoned call
    return Action("control", "/simulate/inbound-call", body, "inbound")


def text_thread(rng: random.Random, plan: Plan) -> list[Action]:
    """A customer's SMS to the text line and the company's reply: a thread of two."""
    contact = rng.choice(plan.contacts)
    asked = {"from": contact.mobile, "to": SMS_LINE, "text": rng.choice(INBOUND_TEXTS)}
    reply = {"from": SMS_LINE, "to": contact.mobile, "message": rng.choice(REPLIES)}
    return [Action("control", "/simulate/inbound-sms", asked, "sms"), Action("api", "/sms", reply, "sms")]


def fax(rng: random.Random, plan: Plan) -> Action:
    body = {"from": rng.choice(plan.contacts).tel, "to": FAX_LINE, "pages": rng.randint(1, 6)}
    return Action("control", "/simulate/inbound-fax", body, "fax")


def _outside_number(rng: random.Random, plan: Plan) -> str:
    """A contact's phone or mobile most of the time (the call is named after the contact), else a stranger."""
    if rng.random() < 0.7:
        contact = rng.choice(plan.contacts)
        return contact.tel if rng.random() < 0.5 else contact.mobile
    return f"+447700900{rng.randrange(500, 1000):03d}"

"""Who a call is between: the originating user, the number it presents, and where it goes.

Numbers are the same with or without `+` or separators (`domain.phone`); a destination of 2 to 6
digits is the extension of a user of the same customer. A user's SIP client (its first
registration) gives its side of the call a user agent and contact; a user with none cannot be rung.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from ..api.errors import BadRequest, PreconditionFailed
from ..documents import reads
from ..documents.listing import ReadStore
from ..domain import phone
from ..domain.billing import Leg, Tariff
from ..domain.calls.call import Call, Party, Target
from ..domain.schemas import CONTACT_NUMBERS

NO_CLIENTS = "Unable to make a call with no VoIP clients registered"
EXTENSION = re.compile(r"^[0-9]{2,6}$")
CLIENT_CODEC = "G722"
NETWORK_CODEC = "PCMA"
NETWORK_UA = "telephony-gateway"


class Client(Protocol):
    """A registered SIP client of a user."""

    @property
    def user_agent(self) -> str | None: ...

    @property
    def contact(self) -> str | None: ...


class Registrations(Protocol):
    def of(self, user_id: int) -> Sequence[Client]: ...


def display_name(user: Mapping[str, Any]) -> str | None:
    return " ".join(p for p in (user.get("first_name"), user.get("last_name")) if p) or None


async def user_of(reader: ReadStore, user_id: int, customer_id: int, field: str = "from") -> dict[str, Any]:
    body = await reads.body(reader, "user", user_id, customer_id)
    if body is None:
        raise BadRequest.field(field, f"User {user_id} is not a user of your account")
    return msgspec.json.decode(body)


def user_party(user: Mapping[str, Any], registrations: Registrations, *, required: bool) -> Party:
    """A user's side of a call, through its first registered client; 412 when `required` and none."""
    clients = registrations.of(user["id"])
    if required and not clients:
        raise PreconditionFailed(NO_CLIENTS)
    client = clients[0] if clients else None
    return Party(number=user.get("ext") or str(user["id"]), id=str(user["id"]), name=display_name(user),
                 ua=client.user_agent if client else None, contact=client.contact if client else None,
                 codec=CLIENT_CODEC, user_id=user["id"])  # fmt: skip


async def caller_id(reader: ReadStore, customer_id: int, requested: str | None, user: dict[str, Any]) -> str | None:
    """The number a call presents: `anonymous`, a number the customer owns, or the user's own."""
    if requested is None:
        number = phone.normalised(str(user["cli"])) if user.get("cli") else user.get("ext")
    elif requested.lower() == "anonymous":
        return "anonymous"
    else:
        number = phone.e164(phone.normalised(requested)) if re.fullmatch(phone.NUMBER, requested) else None
        if number is None or await reads.body(reader, "ddi", number, customer_id) is None:
            raise BadRequest.field("caller_id", "The caller ID must be a number of your account or 'anonymous'.")
    name = display_name(user)
    return f'"{name}" <{number}>' if name and number else number


@dataclass(frozen=True)
class Destination:
    """The party a call reaches, an outcome forced by what it is (an extension nobody has, a user with
    no client), the call's context, and the user an extension names (reached through its rules)."""

    party: Party
    outcome: str | None
    context: str
    target: Target | None = None


async def destination(reader: ReadStore, customer_id: int, to: str, registrations: Registrations, field: str = "to"
                      ) -> Destination:  # fmt: skip
    """Where a call to `to` goes: an outside number, or the extension of a user of the customer. An
    emergency number is neither: the platform refuses it (400 naming `field`) before anything rings."""
    if phone.emergency(to):
        raise BadRequest.field(field, phone.EMERGENCY)
    if not EXTENSION.match(to):
        return Destination(await outside(reader, customer_id, phone.e164(to)), None, "PSTN_CALL")
    found = await reads.bodies_by(reader, "user", "ext", [to], customer_id)
    if not found:
        return Destination(Party(number=to), "unallocated", "USER_LOCAL")
    user = msgspec.json.decode(next(iter(found.values())))
    party = user_party(user, registrations, required=False)
    return Destination(party, None if party.contact else "unavailable", "USER_LOCAL", Target(type="U", id=user["id"]))


async def outside(reader: ReadStore, customer_id: int, number: str) -> Party:
    """An outside number, named `contact:<id>` after the customer's contact that has it, if one does."""
    found = await reads.first_with_number(reader, "contact", customer_id, CONTACT_NUMBERS, number)
    contact = msgspec.json.decode(found) if found else None
    if contact is None:
        return Party(number=number, ua=NETWORK_UA, codec=NETWORK_CODEC)
    name = " ".join(p for p in (contact.get("first_name"), contact.get("last_name")) if p) or contact.get("company")
    return Party(number=number, id=f"contact:{contact['id']}", name=name, ua=NETWORK_UA, codec=NETWORK_CODEC)


def records(user: Mapping[str, Any], direction: str, context: str) -> bool:
    """Whether the user's `monitor` setting records a call of this direction (A all, I in, O out)."""
    if not user.get("rec_allowed", True) or (context == "USER_LOCAL" and user.get("rec_never_internal")):
        return False
    setting = user.get("monitor") or "N"
    return setting == "A" or (setting == "O" and direction == "out") or (setting == "I" and direction == "in")


def charged_legs(call: Call) -> list[Leg]:
    """The legs of a call the platform carries, with the tariffs the call recorded for them, answered
    until the call's end (or none yet): a web call's two numbers from each one's answer, any other
    call's destination from the connection. A destination reached through the carrier is an outside
    number; a user's client, voicemail, an IVR, a queue or a conference is internal on a call of the
    customer's users, and free on an inbound one."""
    legs = []
    for name in ("src", "dst") if call.kind == "web" else ("dst",):
        party, recorded = call.party(name), call.tariffs.get(name)
        seconds = call.answered_seconds(name if call.kind == "web" else None)
        tariff = Tariff.recorded(recorded) if recorded is not None else None
        if party.ua == NETWORK_UA:
            legs.append(Leg(name, party.number or "", seconds, tariff=tariff))
        elif call.destination != "in":
            legs.append(Leg(name, party.number or "", seconds, internal=True, tariff=tariff))
    return legs

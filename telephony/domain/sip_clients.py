"""The SIP clients registered for a user (its "locations"), as pure decisions over folded state.

A user's registrations live on a stream of their own, `sip-<user_id>`, so registering and
unregistering never collide with the user's own changes (logins, resets) on `user-<user_id>`.
Registration ids are an integer sequence per user starting at 1, folded from that stream: an id is
never handed out twice for the same user, even after it was unregistered.

Events: `sip.registered` and `sip.unregistered` (`domain.events.accounts`), whose `locations` is the
number of registrations the user has after the change. A deleted user (or a user of a deleted
customer) has none: its stream is left as it was and read models forget it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from .errors import Invalid, Unknown
from .events import Event, NewEvent
from .events.accounts import SipRegistered, SipUnregistered
from .events.base import fold

MAX_REGISTRATIONS = 100
"""The most registrations one user may have at once (a registrar's limit of contacts per address)."""
DEFAULT_USER_AGENT = "telephony-softphone/1.0"


def sip_stream(user_id: int) -> str:
    return f"sip-{user_id}"


def default_contact(user_id: int, registration_id: int) -> str:
    """A plausible contact for a simulated client: an address of TEST-NET-2 (RFC 5737) per registration."""
    return f"sip:{user_id}@198.51.100.{(registration_id - 1) % 254 + 1}:5060;transport=udp"


@dataclass(frozen=True)
class Registration:
    registration_id: int
    user_agent: str
    contact: str
    registered_at: str


@dataclass(frozen=True)
class SipClients:
    """A user's registrations; `live` says whether the user (and its customer) exists, which the
    caller knows from the user's and customer's streams."""

    user_id: int
    customer_id: int = 0
    live: bool = False
    version: int = 0
    last_id: int = 0
    registrations: Mapping[int, Registration] = field(default_factory=dict)
    """By id, in registration order."""

    @property
    def next_id(self) -> int:
        return self.last_id + 1


def evolve(state: SipClients, event: Event) -> SipClients:
    state = replace(state, version=state.version + 1)
    match event:
        case SipRegistered(registration_id=rid):
            added = Registration(rid, event.user_agent, event.contact, event.registered_at)
            return replace(state, last_id=max(state.last_id, rid), registrations={**state.registrations, rid: added})
        case SipUnregistered(registration_id=rid):
            return replace(state, registrations={k: v for k, v in state.registrations.items() if k != rid})
    return state


def register(state: SipClients, registration_id: int, user_agent: str, contact: str, at: str) -> list[NewEvent]:
    """A client of a live user registers under a new id (the state's `next_id`), up to `MAX_REGISTRATIONS`."""
    _require_live(state)
    if registration_id <= state.last_id:
        raise Invalid.field("id", f"Registration {registration_id} of user {state.user_id} was used already")
    if len(state.registrations) >= MAX_REGISTRATIONS:
        raise Invalid(f"User {state.user_id} has {MAX_REGISTRATIONS} registrations, the most a user may have")
    registered = SipRegistered(user_id=state.user_id, customer_id=state.customer_id, registration_id=registration_id,
                               user_agent=user_agent, contact=contact, registered_at=at,
                               locations=len(state.registrations) + 1)  # fmt: skip
    return [NewEvent(stream=sip_stream(state.user_id), event=registered, expected_version=state.version)]


def register_defaults(state: SipClients, count: int, at: str) -> list[NewEvent]:
    """`count` simulated clients register, each with the default user agent and its own contact."""
    registered: list[NewEvent] = []
    for _ in range(count):
        (new,) = register(state, state.next_id, DEFAULT_USER_AGENT, default_contact(state.user_id, state.next_id), at)
        state = evolve(state, new.event)
        registered.append(new)
    return registered


def unregister(state: SipClients, registration_id: int) -> list[NewEvent]:
    """A registered client of a live user goes."""
    _require_live(state)
    if registration_id not in state.registrations:
        raise Unknown(f"Registration {registration_id} of user {state.user_id} not found")
    gone = SipUnregistered(user_id=state.user_id, customer_id=state.customer_id, registration_id=registration_id,
                           locations=len(state.registrations) - 1)  # fmt: skip
    return [NewEvent(stream=sip_stream(state.user_id), event=gone, expected_version=state.version)]


def folded(user_id: int, customer_id: int, live: bool, events: Iterable[Event]) -> SipClients:
    """A user's registrations after the events of its `sip-` stream."""
    return fold(evolve, SipClients(user_id, customer_id, live), events)


def _require_live(state: SipClients) -> None:
    if not state.live:
        raise Unknown(f"User {state.user_id} not found")

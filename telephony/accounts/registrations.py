"""Users' registered SIP clients: an in-memory projection, and the feed of the users' `nb_sip_locations`.

`Registrations` is folded from `sip.registered` and `sip.unregistered` (`domain/sip_clients.py`);
a deleted user, or every user of a deleted customer, is forgotten. The call engine asks it whether a
user has a client to ring (`count`) and which (`of`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..documents.changes import Patch
from ..documents.projection import DocumentChange, Feed
from ..domain.events import Event
from ..domain.events.accounts import CustomerDeleted, SipRegistered, SipUnregistered, UserDeleted
from ..domain.sip_clients import Registration
from ..eventlog import RecordedEvent
from ..projections.memory import MemoryProjection


@dataclass
class _Clients:
    customer_id: int
    by_id: dict[int, Registration] = field(default_factory=dict)
    """In registration order."""


class Registrations(MemoryProjection):
    name = "registrations"
    handles = frozenset({SipRegistered, SipUnregistered, UserDeleted, CustomerDeleted})
    kept_as = list[tuple[int, int, list[Registration]]]

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._users: dict[int, _Clients] = {}

    def of(self, user_id: int) -> list[Registration]:
        """The user's registrations, oldest first (none for an unknown user)."""
        clients = self._users.get(user_id)
        return list(clients.by_id.values()) if clients else []

    def count(self, user_id: int) -> int:
        clients = self._users.get(user_id)
        return len(clients.by_id) if clients else 0

    def state(self) -> Any:
        return sorted((user_id, c.customer_id, tuple(c.by_id.values())) for user_id, c in self._users.items())

    def snapshot(self) -> Any:
        return [(user_id, c.customer_id, list(c.by_id.values())) for user_id, c in self._users.items()]

    def restore(self, kept: Any) -> None:
        for user_id, customer_id, registrations in kept:
            self._users[user_id] = _Clients(customer_id, {r.registration_id: r for r in registrations})

    def apply(self, event: RecordedEvent) -> None:
        match event.event:
            case SipRegistered(user_id=user_id, registration_id=rid) as added:
                clients = self._users.setdefault(user_id, _Clients(added.customer_id))
                clients.by_id[rid] = Registration(rid, added.user_agent, added.contact, added.registered_at)
            case SipUnregistered(user_id=user_id, registration_id=rid):
                if (left := self._users.get(user_id)) is not None:
                    left.by_id.pop(rid, None)
                    if not left.by_id:
                        del self._users[user_id]
            case UserDeleted(id=user_id) if isinstance(user_id, int):
                self._users.pop(user_id, None)
            case CustomerDeleted(id=customer_id):
                for user_id in [u for u, c in self._users.items() if c.customer_id == customer_id]:
                    del self._users[user_id]


def _locations(event: RecordedEvent) -> list[DocumentChange]:
    """A user document's `nb_sip_locations` follows the count each registration change leaves."""
    match event.event:
        case (
            SipRegistered(user_id=user_id, locations=locations) | SipUnregistered(user_id=user_id, locations=locations)
        ):
            return [Patch(user_id, {"nb_sip_locations": locations})]
    return []


USER_FEEDS: dict[type[Event], Feed] = {SipRegistered: _locations, SipUnregistered: _locations}
"""What feeds the `user` document table beyond the users' own events."""

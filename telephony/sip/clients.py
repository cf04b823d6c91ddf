"""The registrations the connections of this process hold: which real client rings for a user.

A browser softphone that REGISTERs on a connection is held here by its contact until its
registration ends. The call engine asks `of(user_id)` as it reaches a user (`calls.decisions`): the
user's client that registered last, on a connection with room for another call (`[sip]
dialogs_per_connection`), rings instead of the simulator; with none, the simulator plays the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .connection import Connection


@dataclass(frozen=True)
class LiveClient:
    user_id: int
    user_agent: str | None
    contact: str
    connection: Connection


class LiveClients:
    def __init__(self, dialogs_per_connection: int) -> None:
        self._limit = dialogs_per_connection
        self._by_contact: dict[str, LiveClient] = {}

    def hold(self, client: LiveClient) -> None:
        self._by_contact[client.contact] = client

    def drop(self, contact: str) -> None:
        self._by_contact.pop(contact, None)

    def held(self, contact: str | None) -> LiveClient | None:
        return self._by_contact.get(contact or "")

    def on(self, connection: Connection) -> list[LiveClient]:
        """The registrations a connection holds, the last made last."""
        return [client for client in self._by_contact.values() if client.connection is connection]

    def of(self, user_id: int) -> LiveClient | None:
        """The client that rings for the user now, or None."""
        for client in reversed(self._by_contact.values()):
            if client.user_id == user_id and len(client.connection.dialogs) < self._limit:
                return client
        return None

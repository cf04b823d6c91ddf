"""The SIP side of the app: its open connections (by user, for the limit), the registrations they
hold (`clients`), the INVITEs sent to them (`invites`) and those they send (`dialling`), and what
connections need (settings, directory, throttle, clock, the log, live calls)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..accounts import Throttle
from ..clock import Clock
from ..config import Sip
from ..domain.calls.call import Call
from ..eventlog import EventLog
from ..reactors.scheduler import Scheduler
from .clients import LiveClients
from .directory import Directory

if TYPE_CHECKING:
    from .connection import Connection
    from .dialling import Dialling
    from .invites import Invites
    from .registrar import Register, Unregister


@dataclass
class SipHub:
    settings: Sip
    directory: Directory
    throttle: Throttle
    clock: Clock
    scheduler: Scheduler
    event_log: EventLog
    live_calls: Callable[[int], list[Call]]
    """A customer's live calls, as the in-memory projection holds them at `position()`."""
    position: Callable[[], int]
    register_client: Register
    """Records a registration of a user (the accounts' `sip.registered`); `unregister_client` ends one."""
    unregister_client: Unregister
    clients: LiveClients
    invites: Invites
    dialling: Dialling
    """The calls the connections' phones place."""
    connections: set[Connection] = field(default_factory=set)
    _by_user: dict[int, set[Connection]] = field(default_factory=dict)
    _keys: itertools.count = field(default_factory=itertools.count)

    def key(self, what: str) -> str:
        """A scheduler key of its own for a connection's timer."""
        return f"sip-{what}-{next(self._keys)}"

    def bind(self, connection: Connection, user_id: int) -> bool:
        """Count the connection as the user's, unless the user holds the most it may."""
        held = self._by_user.setdefault(user_id, set())
        if len(held) >= self.settings.connections_per_user:
            return False
        held.add(connection)
        return True

    def unbind(self, connection: Connection, user_id: int) -> None:
        held = self._by_user.get(user_id, set())
        held.discard(connection)
        if not held:
            self._by_user.pop(user_id, None)

    async def close(self) -> None:
        """At shutdown: every connection closes (clients reconnect to the next server)."""
        for connection in list(self.connections):
            await connection.ws.close()

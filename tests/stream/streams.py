"""Reading an event stream in the tests: its messages (the listener's parser) with a deadline each."""

from __future__ import annotations

import asyncio

from telephony.testing.listener import Event, events
from tests.accounts.helpers import CONTROL

PATH = "/_telephony/events/stream"
DEADLINE = 10.0


class Reading:
    """The messages of one open stream, taken a few at a time."""

    def __init__(self, response) -> None:
        self.response = response
        self._events = events(response.content)

    async def take(self, count: int) -> list[Event]:
        return [await asyncio.wait_for(anext(self._events), DEADLINE) for _ in range(count)]

    async def until(self, name: str) -> list[Event]:
        """The messages up to the first named `name`, that one included."""
        taken = []
        while not taken or taken[-1].name != name:
            taken += await self.take(1)
        return taken


async def opened(client, headers=CONTROL, status: int = 200, **query: str) -> Reading:
    response = await client.get(PATH, headers=headers, params=query)
    assert response.status == status, await response.text()
    return Reading(response)

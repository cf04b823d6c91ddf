"""Given events written as (type, data), as the log stores them; what a command's events look like."""

from __future__ import annotations

from typing import Any

import msgspec

from telephony.domain.events import ANY_VERSION, EVENTS, Event, NewEvent, tag_of
from telephony.domain.events.base import data_of


def typed(type_: str, data: dict[str, Any]) -> Event:
    """The event stored as `data` under `type_`."""
    return msgspec.convert(data, EVENTS.types[type_])


def stored(new: NewEvent) -> tuple[str, dict[str, Any]]:
    """An event to record as (type, data), as the log would store it."""
    return tag_of(type(new.event)), data_of(new.event)


def shapes(new: list[NewEvent]) -> list[tuple[str, str, int | None]]:
    """(stream, type, the version the stream must be at; None: any) of each event to record."""
    return [(n.stream, tag_of(type(n.event)), None if n.expected_version == ANY_VERSION else n.expected_version)
            for n in new]  # fmt: skip

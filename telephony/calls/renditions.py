"""A call's SIP dialogue, drawn from its events, as the text of `GET /calls/{id}/trace`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def trace(events: Sequence[tuple[str, Any]]) -> str:
    return "\n".join(type_ for type_, _ in events)

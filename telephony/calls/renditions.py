"""A call's SIP dialogue, drawn from its events, as the text of `GET /calls/{id}/trace`."""

from __future__ import annotations

from collections.abc import Sequence

from ..eventlog import RecordedEvent
from ..media import dialogue, sip


def trace(events: Sequence[RecordedEvent]) -> str:
    return sip.render_trace(dialogue.dialogue(dialogue.stored(e.event for e in events)))

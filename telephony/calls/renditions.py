"""A call's SIP dialogue, drawn from its events, as the text of `GET /calls/{id}/trace`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..media import dialogue, sip


def trace(events: Sequence[tuple[str, Mapping]]) -> str:
    return sip.render_trace(dialogue.dialogue(events))

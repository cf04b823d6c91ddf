"""What the wallboard calls a live call's state, in a supervisor's words.

The API's `state` says where the call's signalling is: a queue answers its caller as it joins, so a
caller still waiting for an agent is CONNECTED there. A supervisor means something else: a caller
is `waiting in queue`, `ringing an agent` or `talking` (to the agent); any other call is `setting
up`, `ringing` (also a caller the platform answered while a user rings for it: a queue's final
destination), `talking`, `on hold`, `in the menu` (an IVR), `leaving a message` (voicemail) or `in
a conference`. Each label has a class name for the page's colours (`kind`).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Label(NamedTuple):
    kind: str
    """The class name the page colours it by: `waiting`, `ringing`, `talking`, `held`, `starting`."""
    words: str


IN_QUEUE = {
    "waiting": Label("waiting", "waiting in queue"),
    "ringing": Label("ringing", "ringing an agent"),
    "connected": Label("talking", "talking"),
}
"""A queue's caller, by its `queue_state`."""
BY_STATE = {
    "INITIAL": Label("starting", "setting up"),
    "ACCEPTED": Label("starting", "setting up"),
    "RINGING": Label("ringing", "ringing"),
    "ON_HOLD": Label("held", "on hold"),
    "HANGUP": Label("ended", "ended"),
}
TALKING_IN = {
    "IVR": Label("talking", "in the menu"),
    "VOICEMAIL": Label("talking", "leaving a message"),
    "CONFERENCE": Label("talking", "in a conference"),
}
"""A connected call, by its context, where it talks to the platform rather than to a person."""
TALKING = Label("talking", "talking")


def call_label(live: dict[str, Any]) -> Label:
    """A live call (the API's LiveCall, with the leg being reached: `reaching`) as a supervisor sees it."""
    if live.get("queue_state") in IN_QUEUE:
        return IN_QUEUE[live["queue_state"]]
    state = str(live.get("state"))
    if state in BY_STATE:
        return BY_STATE[state]
    if live.get("reaching") == "dst":  # connected to the platform while a user rings (a queue's final destination)
        return BY_STATE["RINGING"]
    return TALKING_IN.get(str(live.get("context")), TALKING)

"""Calls module records kept as resources: call labels and web call history."""

from typing import Annotated

import msgspec

from ..types import Body, Name, Resource, Seconds


class CallLabel(Resource):
    """A label to tag calls with (the spec shows no fields: a name and a colour, as user groups have)."""

    id: int = 0
    """The label's id."""
    name: str | None = None
    """The label's name."""
    color: str | None = None
    """The label's colour (`#rrggbb`)."""
    created_at: str | None = None
    """When the label was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""


class CallLabelCreate(Body):
    name: Name
    color: Annotated[str, msgspec.Meta(pattern=r"^#?[0-9A-Fa-f]{6}$", description="a colour, #rrggbb")] | None = None


class Webcall(Resource):
    id: int = 0
    """The web call's id."""
    calldate: str | None = None
    """When the web call was placed (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    charge: float | None = None
    """What the web call cost, both legs."""
    from_: str | None = msgspec.field(default=None, name="from")
    """The first number called."""
    from_charge: float | None = None
    """What the first leg cost."""
    from_duration: Seconds | None = None
    """Seconds the first leg was connected."""
    from_rate: float | None = None
    """The per-minute rate of the first leg."""
    to: str | None = None
    """The number the first is bridged to."""
    to_charge: float | None = None
    """What the second leg cost."""
    to_duration: Seconds | None = None
    """Seconds the second leg was connected."""
    to_rate: float | None = None
    """The per-minute rate of the second leg."""
    live_id: int | None = None
    """The live call that bridges the two numbers (not in the spec's model: how a client finds it)."""


class LiveCall(msgspec.Struct, kw_only=True):
    """A call while it lives: the spec's LiveCall, `state` as its name and times as epoch integers
    (real-platform.md), with the labels and action link PATCH sets."""

    id: int
    clid: str | None = None
    connected_at: int | None = None
    context: str | None = None
    destination: int | None = None
    dst: str | None = None
    dst_call_id: str | None = None
    dst_codec: str | None = None
    dst_connection: float | None = None
    dst_contact: str | None = None
    dst_id: str | None = None
    dst_name: str | None = None
    dst_rate: float | None = None
    dst_ua: str | None = None
    duration: int | None = None
    min_charge: float | None = None
    monitor_state: int | None = None
    parent_id: int | None = None
    queue_state: str | None = None
    referred_by: str | None = None
    src: str | None = None
    src_call_id: str | None = None
    src_codec: str | None = None
    src_contact: str | None = None
    src_id: str | None = None
    src_name: str | None = None
    src_rate: float | None = None
    src_ua: str | None = None
    start_time: int | None = None
    state: str | None = None
    labels: list[int] = msgspec.field(default_factory=list)
    action_url: str | None = None
    action_text: str | None = None

"""Calls module records kept as resources: call labels and web call history."""

from typing import Annotated

import msgspec

from ..types import Body, Name, Resource, Seconds


class CallLabel(Resource):
    """A label to tag calls with (the spec shows no fields: a name and a colour, as user groups have)."""

    id: int = 0
    name: str | None = None
    color: str | None = None
    created_at: str | None = None


class CallLabelCreate(Body):
    name: Name
    color: Annotated[str, msgspec.Meta(pattern=r"^#?[0-9A-Fa-f]{6}$", description="a colour, #rrggbb")] | None = None


class Webcall(Resource):
    id: int = 0
    calldate: str | None = None
    charge: float | None = None
    from_: str | None = msgspec.field(default=None, name="from")
    from_charge: float | None = None
    from_duration: Seconds | None = None
    from_rate: float | None = None
    to: str | None = None
    to_charge: float | None = None
    to_duration: Seconds | None = None
    to_rate: float | None = None

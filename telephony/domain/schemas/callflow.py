"""Settings module, call flow: queues, ring groups, pickup groups and IVRs (split from `settings` for size).

A request names a destination type or strategy as text (`"Q"`, `"queue"`, `"ringall"`); the
resource stores and returns its integer code, from the dictionary named in `coded(...)`.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, ClassVar

import msgspec

from ..types import E164, Body, Code, Name, NonNegative, PositiveId, Resource, coded

TargetType = Annotated[Code, coded("target_type")]
Language = Annotated[Code, coded("language")]
Sounds = str | list[str]


class QueueMember(msgspec.Struct, kw_only=True):
    """A queue agent as POSTed: `status` true when logged in to the queue (the default)."""

    id: PositiveId
    status: bool = True


class Queue(Resource):
    """The spec's fields plus `users` (real platform): member ids on the wire.

    `users` also decodes the stored `{id, status}` members, from which the registry renders ids, or
    embedded users with `include=users`.
    """

    id: int = 0
    ann_freq: int | None = None
    agent_sounds: str | None = None
    caller_sounds: str | None = None
    cli_prefix: bool | None = None
    email_missed: str | None = None
    final_dst_id: int | None = None
    final_dst_type: int | None = None
    hash_to_exit: bool | None = None
    hold_ann: bool | None = None
    ivr: int | None = None
    join_empty: bool | None = None
    language: int | None = None
    liaf: bool | None = None
    max_callers: int | None = None
    max_wait_time: int | None = None
    moh: int | None = None
    monitor: int | None = None
    name: str | None = None
    number: int | None = None
    pos_ann: bool | None = None
    post_call_ivr_id: int | None = None
    retry: int | None = None
    ring_strategy: int | None = None
    ring_time: int | None = None
    skip_busy: bool | None = None
    wait_time_prefix: bool | None = None
    wrap_up_panel: bool | None = None
    wrap_up_panel_timeout: int | None = None
    wrap_up_time: int | None = None
    users: list[int | QueueMember] | None = None
    ddis: list[str] | None = None
    """The numbers whose calls wait in the queue (as ring groups list theirs)."""


class QueueCreate(Body):
    """`moh_id` and `ivr_id` are stored as the resource's `moh` and `ivr` (see `stored_as`). Members
    are `{id, status}` objects or bare ids, as GET shows them (a bare id keeps the member's status)."""

    stored_as: ClassVar[Mapping[str, str]] = MappingProxyType({"moh_id": "moh", "ivr_id": "ivr"})

    name: Name
    number: PositiveId | None = None
    moh_id: int | None = None
    ivr_id: int | None = None
    ddis: list[E164] | None = None
    users: list[PositiveId | QueueMember] | None = None
    groups: list[int] | None = None
    cli_prefix: bool | None = None
    wait_time_prefix: bool | None = None
    agent_sounds: str | None = None
    caller_sounds: str | None = None
    max_wait_time: NonNegative | None = None
    max_callers: NonNegative | None = None
    join_empty: bool | None = None
    ring_strategy: Annotated[Code, coded("queue_ring_strategy")] | None = None
    ring_time: NonNegative | None = None
    retry: NonNegative | None = None
    wrap_up_time: NonNegative | None = None
    wrap_up_panel: bool | None = None
    wrap_up_panel_timeout: NonNegative | None = None
    skip_busy: bool | None = None
    language: Language | None = None
    pos_ann: bool | None = None
    hold_ann: bool | None = None
    ann_freq: NonNegative | None = None
    final_dst_type: TargetType | None = None
    final_dst_id: int | None = None
    post_call_ivr_id: int | None = None
    hash_to_exit: bool | None = None
    liaf: bool | None = None
    monitor: Annotated[Code, coded("queue_monitor")] | None = None
    email_missed: str | None = None


class RingGroup(Resource):
    """The spec's fields plus `users` (ids) and `ddis` (numbers), shown with `include=users,ddis`."""

    id: int = 0
    cli_prefix: bool | None = None
    final_dst_id: int | None = None
    final_dst_type: int | None = None
    moh_id: int | None = None
    name: str | None = None
    number: int | None = None
    ring_time: int | None = None
    strategy: int | None = None
    users: list[int] | None = None
    ddis: list[str] | None = None


class RingGroupCreate(Body):
    name: Name
    users: list[PositiveId] | None = None
    ddis: list[E164] | None = None
    strategy: Annotated[Code, coded("ringgroup_strategy")] | None = None
    final_dst_type: TargetType | None = None
    final_dst_id: int | None = None
    ring_time: NonNegative | None = None
    cli_prefix: bool | None = None
    moh_id: int | None = None
    number: PositiveId | None = None


class PickupGroup(Resource):
    """`users` is an integer in the spec's table but a list of ids when POSTed; either decodes."""

    id: int = 0
    name: str | None = None
    users: list[int] | int | None = None


class PickupGroupCreate(Body):
    name: Name
    users: list[PositiveId] | None = None


class _IvrKeys(msgspec.Struct, kw_only=True):
    """What each key does, and the sounds of keys one to nine (the spec lists no zero_sounds). An action
    names a destination as `<final_dst_type letter>:<id>`: `U:1000002`, `V:1000002`, `R:3`, `I:2`, `H`."""

    zero: str | None = None
    one: str | None = None
    two: str | None = None
    three: str | None = None
    four: str | None = None
    five: str | None = None
    six: str | None = None
    seven: str | None = None
    eight: str | None = None
    nine: str | None = None
    star: str | None = None
    hash: str | None = None
    one_sounds: str | None = None
    two_sounds: str | None = None
    three_sounds: str | None = None
    four_sounds: str | None = None
    five_sounds: str | None = None
    six_sounds: str | None = None
    seven_sounds: str | None = None
    eight_sounds: str | None = None
    nine_sounds: str | None = None


class Ivr(Resource, _IvrKeys):
    """`post_sounds` is a string in the spec's table but an array when POSTed; either decodes."""

    id: int = 0
    name: str | None = None
    number: int | None = None
    language: int | None = None
    ring_time: int | None = None
    timeout: int | None = None
    repeats: int | None = None
    ext_dialing: bool | None = None
    random_choice: bool | None = None
    random_dst: str | None = None
    final_dst_id: int | None = None
    final_dst_type: int | None = None
    sounds: str | None = None
    post_sounds: Sounds | None = None
    ddis: list[str] | None = None
    """The numbers whose calls the IVR answers (as ring groups list theirs)."""


class IvrCreate(Body, _IvrKeys):
    """The spec's POST fields, plus the key actions and sounds, which PATCH could not set otherwise."""

    name: Name
    number: PositiveId | None = None
    ring_time: NonNegative | None = None
    timeout: NonNegative | None = None
    repeats: NonNegative | None = None
    ext_dialing: bool | None = None
    random_choice: bool | None = None
    random_dst: str | None = None
    language: Language | None = None
    final_dst_type: TargetType | None = None
    final_dst_id: int | None = None
    sounds: str | None = None
    post_sounds: Sounds | None = None
    ddis: list[E164] | None = None

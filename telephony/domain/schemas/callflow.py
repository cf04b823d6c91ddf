"""Settings module, call flow: queues, ring groups and pickup groups (split from `settings` for size; IVRs: `ivrs`).

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
    """The agent (a user's id)."""
    status: bool = True
    """Whether the agent is logged in to the queue."""


class Queue(Resource):
    """The spec's fields plus `users` (real platform): member ids on the wire.

    `users` also decodes the stored `{id, status}` members, from which the registry renders ids, or
    embedded users with `include=users`.
    """

    id: int = 0
    """The queue's id."""
    ann_freq: int | None = None
    """Seconds between the announcements a waiting caller hears."""
    agent_sounds: str | None = None
    """The sound an agent hears before taking a call."""
    caller_sounds: str | None = None
    """The sound a caller hears on joining."""
    cli_prefix: bool | None = None
    """Whether the queue's name prefixes the caller ID agents see."""
    email_missed: str | None = None
    """The address missed queue calls are mailed to."""
    final_dst_id: int | None = None
    """Where a caller goes after `max_wait_time`, or when the queue turns it away."""
    final_dst_type: int | None = None
    """The kind of the final destination (a code of the `target_type` dictionary: user, voicemail, ring group, IVR,
    queue, conference, hang-up)."""
    hash_to_exit: bool | None = None
    """Whether a waiting caller may leave the queue by pressing #."""
    hold_ann: bool | None = None
    """Whether a waiting caller hears the hold announcement."""
    ivr: int | None = None
    """The IVR a waiting caller may be offered."""
    join_empty: bool | None = None
    """Whether a caller joins while no agent is logged in (false: it is turned away)."""
    language: int | None = None
    """The language of the queue's announcements (the `language` dictionary)."""
    liaf: bool | None = None
    """A queue setting (kept as set; the spec names it without saying what it does)."""
    max_callers: int | None = None
    """The most callers waiting at once (0: no limit); one more is turned away."""
    max_wait_time: int | None = None
    """Seconds a caller waits before going to the final destination."""
    moh: int | None = None
    """The music on hold a waiting caller hears."""
    monitor: int | None = None
    """Which calls are recorded: 0 none, 1 all, 2 inbound, 3 outbound (the `queue_monitor` dictionary)."""
    name: str | None = None
    """The queue's name."""
    number: int | None = None
    """The queue's extension."""
    pos_ann: bool | None = None
    """Whether a waiting caller hears its position in the line."""
    post_call_ivr_id: int | None = None
    """The IVR a caller goes to after talking to an agent (a survey)."""
    retry: int | None = None
    """Seconds between two looks for a free agent."""
    ring_strategy: int | None = None
    """How the queue picks the agent to ring: ring all, least recent, fewest calls, random, round robin with memory,
    linear (the `queue_ring_strategy` dictionary)."""
    ring_time: int | None = None
    """Seconds an agent rings."""
    skip_busy: bool | None = None
    """Whether agents on a call are skipped (false: one with call waiting is rung)."""
    wait_time_prefix: bool | None = None
    """Whether the caller's wait prefixes the caller ID agents see."""
    wrap_up_panel: bool | None = None
    """Whether an agent sees a wrap-up panel after a call."""
    wrap_up_panel_timeout: int | None = None
    """Seconds the wrap-up panel stays."""
    wrap_up_time: int | None = None
    """Seconds after a call before the queue rings the agent again."""
    users: list[int | QueueMember] | None = None
    """The queue's agents, each with whether it is logged in (`{id, status}`; the API shows their ids)."""
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
    """The ring group's id."""
    cli_prefix: bool | None = None
    """Whether the group's name prefixes the caller ID its members see."""
    final_dst_id: int | None = None
    """Where a call nobody answers goes."""
    final_dst_type: int | None = None
    """The kind of the final destination (a code of the `target_type` dictionary: user, voicemail, ring group, IVR,
    queue, conference, hang-up)."""
    moh_id: int | None = None
    """The music on hold callers hear."""
    name: str | None = None
    """The ring group's name."""
    number: int | None = None
    """The ring group's extension."""
    ring_time: int | None = None
    """Seconds the members ring."""
    strategy: int | None = None
    """How members are rung: 1 all at once, 2 hunt, 3 memory hunt (the `ringgroup_strategy` dictionary)."""
    users: list[int] | None = None
    """The members (user ids)."""
    ddis: list[str] | None = None
    """The numbers whose calls the ring group takes."""


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
    """The pickup group's id."""
    name: str | None = None
    """The pickup group's name."""
    users: list[int] | int | None = None
    """The members, who may pick up each other's ringing calls (user ids)."""


class PickupGroupCreate(Body):
    name: Name
    users: list[PositiveId] | None = None

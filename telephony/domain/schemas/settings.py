"""Settings module: numbers (DDIs), contacts, conferences, routing rules and call tracking campaigns.

Queues, ring groups, pickup groups and IVRs, the rest of the module, are in `callflow`.
"""

from typing import Annotated, Any, ClassVar

import msgspec

from ..types import E164, Body, Code, Email, Name, Resource, coded

Pin = Annotated[str, msgspec.Meta(pattern=r"^[0-9]{0,16}$", description="up to 16 digits")]
Phone = E164 | None
RuleTarget = int | str


class Ddi(Resource):
    """A number; `id` is its E.164 string. Provisioned by the platform, never created through the API."""

    id: str = ""
    channels: int | None = None
    cli_hide: bool | None = None
    cli_prefix: int | None = None
    created_at: str | None = None
    e164: E164 | None = None
    esc_enabled: bool | None = None
    fax_email: str | None = None
    fax_enabled: bool | None = None
    flag: int | None = None
    has_fax_password: bool | None = None
    info: str | None = None
    name: str | None = None
    rate: float | None = None
    sms_email: str | None = None
    sms_enabled: bool | None = None
    status: int | None = None
    target_id: int | None = None
    target_type: int | None = None
    tel_verified: bool | None = None
    uri: str | None = None
    campaign_id: int | None = None


CONTACT_NUMBERS = ("tel", "tel_1", "tel_2", "mobile", "mobile_1", "mobile_2")
"""A contact's phone numbers: what names a call's or an SMS's outside party after the contact."""


class Contact(Resource):
    id: int = 0
    company: str | None = None
    created_at: str | None = None
    dialler_source_id: int | None = None
    email: str | None = None
    ext: str | None = None
    first_name: str | None = None
    global_: bool | None = msgspec.field(default=None, name="global")
    group_name: str | None = None
    internal: bool | None = None
    last_call_at: str | None = None
    last_name: str | None = None
    mobile: str | None = None
    mobile_1: str | None = None
    mobile_2: str | None = None
    nb_call_attempts: int | None = None
    next_call_at: str | None = None
    notes: str | None = None
    outcome_id: int | None = None
    rel_user_id: int | None = None
    tel: str | None = None
    tel_1: str | None = None
    tel_2: str | None = None
    type: int | None = None
    user_id: int | None = None
    # What POST /contacts takes beside the spec's table, shown as stored (nothing sent is dropped).
    speed_dial_phone: str | None = None
    speed_dial_phone_1: str | None = None
    speed_dial_phone_2: str | None = None
    speed_dial_mobile: str | None = None
    speed_dial_mobile_1: str | None = None
    speed_dial_mobile_2: str | None = None
    labels: list[Any] | None = None
    groups: list[Any] | None = None
    transfer_list: bool | None = None


class ContactCreate(Body):
    """No field is required: a contact may be a bare number or a bare name."""

    type: Annotated[Code, coded("contact_type")] | None = None
    dialler_source_id: int | None = None
    outcome_id: int | None = None
    group_name: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    email: Email | None = None
    company: str | None = None
    tel: Phone = None
    tel_1: Phone = None
    tel_2: Phone = None
    speed_dial_phone: str | None = None
    speed_dial_phone_1: str | None = None
    speed_dial_phone_2: str | None = None
    mobile: Phone = None
    mobile_1: Phone = None
    mobile_2: Phone = None
    speed_dial_mobile: str | None = None
    speed_dial_mobile_1: str | None = None
    speed_dial_mobile_2: str | None = None
    notes: str | None = None
    labels: list[Any] | None = None
    groups: list[Any] | None = None
    transfer_list: bool | None = None
    user_id: int | None = None


class Conference(Resource):
    id: int = 0
    ann_join_leave: bool | None = None
    confno: int | None = None
    confno_pstn: int | None = None
    monitor: bool | None = None
    name: str | None = None
    pin: str | None = None
    pin_pstn: str | None = None
    ddis: list[str] | None = None
    """The numbers whose callers join the room (as ring groups list theirs)."""


class ConferenceCreate(Body):
    name: Name
    pin: Pin | None = None
    pin_pstn: Pin | None = None
    ann_join_leave: bool | None = None
    monitor: bool | None = None
    ddis: list[E164] | None = None


class RoutingRule(Resource):
    """`source`, `destination` and `time_interval` are strings in the spec's table but arrays when
    POSTed; the resource returns what was stored, so it accepts either. A redirect names where it
    sends the call in `target_type`/`target_id` (as a number's target does), an addition."""

    id: int = 0
    action: str | None = None
    customer: int | None = None
    destination: str | list[RuleTarget] | None = None
    direction: int | None = None
    final_dst: bool | None = None
    pos: int | None = None
    source: str | list[RuleTarget] | None = None
    time_interval: str | list[int] | None = None
    target_type: int | None = None
    target_id: int | None = None


class RoutingRuleCreate(Body):
    """The spec forbids changing `direction` by PATCH; `fixed_after_create` says so to the registry."""

    fixed_after_create: ClassVar[frozenset[str]] = frozenset({"direction"})

    action: Annotated[Code, coded("routing_action")]
    direction: Annotated[Code, coded("routing_direction")]
    pos: Annotated[int, msgspec.Meta(ge=0)] | None = None
    source: list[RuleTarget] | None = None
    destination: list[RuleTarget] | None = None
    time_interval: list[int] | None = None
    target_type: Annotated[Code, coded("target_type")] | None = None
    """Where a `redirect` sends the call (an action naming a kind, such as `queue`, implies it)."""
    target_id: int | None = None


class CallTrackingCampaign(Resource):
    id: int = 0
    name: str | None = None
    url: str | None = None
    rules: list[Any] | None = None
    chat_setting_id: int | None = None
    call_me_back_setting_id: int | None = None
    call_tracking_setting_id: int | None = None
    created_at: str | None = None


class CallTrackingCampaignCreate(Body):
    name: Name
    url: str | None = None
    rules: list[Any] | None = None
    chat_setting_id: int | None = None
    call_me_back_setting_id: int | None = None
    call_tracking_setting_id: int | None = None

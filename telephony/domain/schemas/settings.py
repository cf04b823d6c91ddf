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
    """The number in E.164 with its `+`: its id."""
    channels: int | None = None
    """How many calls the number carries at once."""
    cli_hide: bool | None = None
    """Whether calls from the number hide their caller ID."""
    cli_prefix: int | None = None
    """A prefix added to the caller ID of the calls it takes."""
    created_at: str | None = None
    """When the number was provisioned (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    e164: E164 | None = None
    """The number in E.164."""
    esc_enabled: bool | None = None
    """Whether emergency calls may be made from it."""
    fax_email: str | None = None
    """The address faxes to the number are mailed to."""
    fax_enabled: bool | None = None
    """Whether the number takes faxes."""
    flag: int | None = None
    """The platform's flags of the number."""
    has_fax_password: bool | None = None
    """Whether its faxes are sent with a password."""
    info: str | None = None
    """A note on the number."""
    name: str | None = None
    """The number's name."""
    rate: float | None = None
    """The number's monthly rate."""
    sms_email: str | None = None
    """The address SMS to the number are mailed to."""
    sms_enabled: bool | None = None
    """Whether the number takes SMS."""
    status: int | None = None
    """0 inactive, 1 active, 2 suspended (the `ddi_status` dictionary)."""
    target_id: int | None = None
    """The id of the destination the number's calls go to."""
    target_type: int | None = None
    """The kind of the destination the number's calls go to: a code of the `target_type` dictionary: user,
    voicemail, ring group, IVR, queue, conference, hang-up."""
    tel_verified: bool | None = None
    """Whether the number was verified."""
    uri: str | None = None
    """The SIP URI of the number."""
    campaign_id: int | None = None
    """The call tracking campaign the number counts calls for."""


CONTACT_NUMBERS = ("tel", "tel_1", "tel_2", "mobile", "mobile_1", "mobile_2")
"""A contact's phone numbers: what names a call's or an SMS's outside party after the contact."""


class Contact(Resource):
    id: int = 0
    """The contact's id."""
    company: str | None = None
    """The contact's company."""
    created_at: str | None = None
    """When the contact was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    dialler_source_id: int | None = None
    """The dialler source the contact came from."""
    email: str | None = None
    """The contact's email address."""
    ext: str | None = None
    """The contact's extension."""
    first_name: str | None = None
    """The contact's first name."""
    global_: bool | None = msgspec.field(default=None, name="global")
    """Whether every user of the customer sees the contact."""
    group_name: str | None = None
    """The contact's group."""
    internal: bool | None = None
    """Whether the contact is one of the customer's users."""
    last_call_at: str | None = None
    """When the contact was last called (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    last_name: str | None = None
    """The contact's last name."""
    mobile: str | None = None
    """The contact's mobile number."""
    mobile_1: str | None = None
    """A second mobile number."""
    mobile_2: str | None = None
    """A third mobile number."""
    nb_call_attempts: int | None = None
    """How many times a dialler has called the contact."""
    next_call_at: str | None = None
    """When a dialler calls the contact next (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    notes: str | None = None
    """Notes on the contact."""
    outcome_id: int | None = None
    """The outcome of the dialler's last call."""
    rel_user_id: int | None = None
    """The user the contact is (an internal contact)."""
    tel: str | None = None
    """The contact's phone number."""
    tel_1: str | None = None
    """A second phone number."""
    tel_2: str | None = None
    """A third phone number."""
    type: int | None = None
    """1 personal, 2 shared, 3 lead (the `contact_type` dictionary)."""
    user_id: int | None = None
    """The user the contact belongs to."""
    # What POST /contacts takes beside the spec's table, shown as stored (nothing sent is dropped).
    speed_dial_phone: str | None = None
    """The speed dial of `tel`."""
    speed_dial_phone_1: str | None = None
    """The speed dial of `tel_1`."""
    speed_dial_phone_2: str | None = None
    """The speed dial of `tel_2`."""
    speed_dial_mobile: str | None = None
    """The speed dial of `mobile`."""
    speed_dial_mobile_1: str | None = None
    """The speed dial of `mobile_1`."""
    speed_dial_mobile_2: str | None = None
    """The speed dial of `mobile_2`."""
    labels: list[Any] | None = None
    """The contact's labels."""
    groups: list[Any] | None = None
    """The contact groups it is in."""
    transfer_list: bool | None = None
    """Whether the contact is offered as a transfer destination."""


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
    """The conference's id."""
    ann_join_leave: bool | None = None
    """Whether joining and leaving are announced."""
    confno: int | None = None
    """The conference's number, dialled from a user's phone."""
    confno_pstn: int | None = None
    """The conference's number from outside (PSTN)."""
    monitor: bool | None = None
    """Whether the conference is recorded."""
    name: str | None = None
    """The conference's name."""
    pin: str | None = None
    """The PIN that lets a user's phone in."""
    pin_pstn: str | None = None
    """The PIN that lets a caller from outside in."""
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
    """The rule's id."""
    action: str | None = None
    """What the rule does to a call: `allow`, `block`, `redirect`, or a kind of destination it sends the call to
    (`user`, `voicemail`, `ringgroup`, `ivr`, `queue`, `conference`, `hangup`)."""
    customer: int | None = None
    """The customer the rule belongs to."""
    destination: str | list[RuleTarget] | None = None
    """The called numbers the rule matches (number pattern ids or groups)."""
    direction: int | None = None
    """1 inbound, 2 outbound (the `routing_direction` dictionary); fixed at creation."""
    final_dst: bool | None = None
    """Whether the rule's destination ends the routing."""
    pos: int | None = None
    """The rule's position: rules are tried in order."""
    source: str | list[RuleTarget] | None = None
    """The callers the rule matches (user ids, E.164 numbers, any)."""
    time_interval: str | list[int] | None = None
    """The time intervals in which the rule applies."""
    target_type: int | None = None
    """The kind of destination a redirect sends the call to: a code of the `target_type` dictionary: user,
    voicemail, ring group, IVR, queue, conference, hang-up."""
    target_id: int | None = None
    """The destination a redirect sends the call to."""


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
    """The campaign's id."""
    name: str | None = None
    """The campaign's name."""
    url: str | None = None
    """The website the campaign tracks."""
    rules: list[Any] | None = None
    """The campaign's rules: which visitors see which number."""
    chat_setting_id: int | None = None
    """The chat setting of the campaign."""
    call_me_back_setting_id: int | None = None
    """The Call Me Back setting of the campaign."""
    call_tracking_setting_id: int | None = None
    """The call tracking setting of the campaign."""
    created_at: str | None = None
    """When the campaign was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""


class CallTrackingCampaignCreate(Body):
    name: Name
    url: str | None = None
    rules: list[Any] | None = None
    chat_setting_id: int | None = None
    call_me_back_setting_id: int | None = None
    call_tracking_setting_id: int | None = None

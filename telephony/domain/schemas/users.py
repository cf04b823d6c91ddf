"""A user as the API shows it and its `user.created` event records it: the spec's full User model."""

from typing import Annotated

import msgspec

from ...config import MAX_REGISTRATIONS


class User(msgspec.Struct, kw_only=True):
    """The spec's full User model (`customer_id_id` spelled exactly as the spec gives it)."""

    id: int
    """The user's id."""
    is_initial: bool = False
    """Whether the user created the account (its customer's first user)."""
    email: str = ""
    """The user's email address: its login, unique across all customers."""
    first_name: str = ""
    """The user's first name."""
    last_name: str = ""
    """The user's last name."""
    roles: list[str] = msgspec.field(default_factory=list)
    """The user's ACL roles (`ROLE_ROOT_ADMIN`, `ROLE_ADMIN`, `ROLE_AGENT`, ...)."""
    active: bool = True
    """Whether the account is active."""
    visited_apps: list[str] = msgspec.field(default_factory=list)
    """The applications the user has used."""
    is_root: bool = False
    """Whether the user is the customer's root admin."""
    two_factor_auth: str = "D"
    """The second factor of its logins: `D` (disabled) or `E` (a code sent by email)."""
    created_at: str = ""
    """When the user was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    customer: int = 0
    """The customer the user belongs to."""
    customer_id_id: int = 0
    """The customer the user belongs to, under the name the spec gives it."""
    mobile_activated: bool = False
    """Whether the mobile number is active for outbound SMS."""
    mobile: str | None = None
    """The user's mobile number."""
    ext: str | None = None
    """The user's extension."""
    cli: str | None = None
    """The user's default caller ID."""
    esc_cli: str | None = None
    """The caller ID of the user's emergency calls."""
    cc: str | None = "44"
    """The country code of the user's dialplan."""
    area_code: str | None = None
    """The area code of the user's dialplan."""
    ring_time: str = "20"
    """Seconds the user rings before the final destination takes the call."""
    final_dst_type: str = "V"
    """Where an unanswered call goes: `U` user, `V` voicemail, `R` ring group, `I` IVR, `Q` queue, `C` conference,
    `H` hang up."""
    final_dst_id: int | None = None
    """The id of the final destination (none for voicemail or hang-up)."""
    vm_pin: str | None = None
    """The four-digit voicemail PIN."""
    vm_to_email: bool = False
    """Whether voicemail messages are sent by email."""
    vm_emails: list[str] = msgspec.field(default_factory=list)
    """The addresses voicemail messages are sent to."""
    vm_tts: str | None = None
    """Whether voicemail messages are transcribed."""
    vm_new: int = 0
    """How many voicemail messages are new."""
    vm_old: int = 0
    """How many voicemail messages have been listened to."""
    cw: bool = True
    """Call waiting: whether a second call may ring while the user is on a call."""
    dnd: bool = False
    """Do not disturb: whether the user's calls go straight to the final destination."""
    rec_allowed: bool = True
    """Whether the user may start a recording during a call."""
    rec_never_internal: bool = False
    """Whether internal calls are never recorded."""
    fm: bool = False
    """Whether follow-me (forwarding to other numbers) is on."""
    fm_only_direct: bool = False
    """Whether follow-me forwards only calls made directly to the user's number."""
    fm_init_ring_time: int = 0
    """Seconds the user rings before follow-me forwards the call."""
    fm_announcement_enabled: bool = False
    """Whether an announcement plays before the call is forwarded."""
    fm_confirm_required: bool = False
    """Whether the forwarding destination must confirm it takes the call."""
    fm_allowed: bool = True
    """Whether the user may use follow-me."""
    fm_targets: list[str] = msgspec.field(default_factory=list)
    """The numbers or SIP URIs follow-me forwards to."""
    fm_ring_time: str = "20"
    """Seconds a forwarding destination rings."""
    fm_strategy: str = "A"
    """How follow-me rings its targets: `A` all at once, `H` hunt, `M` memory hunt."""
    fm_final_dst_type: str = "H"
    """Where a call that follow-me leaves unanswered goes (the values of `final_dst_type`)."""
    fm_final_dst_id: int | None = None
    """The id of follow-me's final destination."""
    fm_cli: str = "R"
    """The caller ID a forwarded call shows: `R` the remote party's, `L` the user's."""
    nun: str | None = None
    """The number calls go to when the user's network is unavailable."""
    nun_only_direct: bool = False
    """Whether only direct calls go to the network-unavailable number."""
    nun_ring_time: int = 20
    """Seconds the network-unavailable number rings."""
    monitor: str = "N"
    """Which calls are recorded: `N` none, `A` all, `I` inbound only, `O` outbound only."""
    monitor_transcript: str = "D"
    """Whether recordings get a transcript, summary and sentiment: `D` disabled, `Y` yes."""
    auto_answer_header: str | None = None
    """An auto-answer header to add to the calls sent to the user's phone."""
    log_missed_calls: bool = True
    """Whether calls the user lets ring out leave a missed-call CDR."""
    language: str = "en"
    """The language of the user's announcements."""
    cnam: bool = False
    """Whether caller names are looked up (CNAM)."""
    email_missed: str | None = None
    """The address missed calls are mailed to."""
    call_barge_allowed: bool = False
    """Whether the user may barge into calls (given barging permissions)."""
    transfer_cli: str = "R"
    """The caller ID of blind transfers: `R` the remote party's, `L` the user's."""
    nb_sip_locations: Annotated[int, msgspec.Meta(ge=0, le=MAX_REGISTRATIONS)] = 0
    """How many SIP clients the user has registered."""
    pickup_group_id: int | None = None
    """The pickup group the user belongs to."""
    location_id: str | None = None
    """The user's location."""
    vm_announcement_id: int | None = None
    """The voicemail announcement callers hear."""
    fm_announcement_id: int | None = None
    """The announcement played before follow-me forwards a call."""
    legacy_api_key: str | None = None
    """A deprecated API key."""
    groups: list[int] = msgspec.field(default_factory=list)
    """The user groups the user belongs to."""

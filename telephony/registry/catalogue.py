"""Every stored resource of the API, declared once. The generic handlers serve them all.

Module names are ACL modules (`telephony.domain.acl.MODULES`). `added_ops` are the operations
`real-platform.md` adds to the spec's lists (marked as such by `telephony routes`). `refs` are the
fields naming other records (`telephony.domain.references`): checked on every write, unlinked when
the records they name go. Users declare theirs in `accounts` (`USER_REFERENCES`).
"""

from __future__ import annotations

from typing import Any

from ..domain import schemas as s
from ..domain.dictionaries import TARGET_TYPE
from ..domain.errors import Invalid
from ..domain.references import Destination, Ref
from ..domain.reports import next_run_at
from ..media import mp3
from . import numbers
from .resource import CRUD, READ, Op, Resource


def _recording_size(fields: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """A recording's `size` is the byte length of its `.mp3`, which its duration decides."""
    if "duration" in fields or context["creating"]:
        fields["size"] = mp3.size_for(fields.get("duration") or 0)
    return fields


def _queue_members(current: dict[str, Any] | None, fields: dict[str, Any]) -> dict[str, Any]:
    """Queue members are stored as `{id, status}`; a bare id (as GET shows members) keeps the member's
    login state, and a new member is logged in."""
    if fields.get("users") is not None:
        known = {m["id"]: m.get("status", True) for m in (current or {}).get("users") or () if isinstance(m, dict)}
        fields["users"] = [m if isinstance(m, dict) else {"id": m, "status": known.get(m, True)}
                           for m in fields["users"]]  # fmt: skip
    return fields


REDIRECTS = frozenset({"user", "voicemail", "ringgroup", "ivr", "queue", "conference"})
"""Routing rule actions naming the kind of the destination they redirect to (the `target_type` name)."""


def _rule_destination(current: dict[str, Any] | None, fields: dict[str, Any]) -> dict[str, Any]:
    """A redirecting routing rule names its destination: an action naming a kind (`queue`) sets the
    rule's `target_type` to it; `redirect` needs a `target_type`; both need a `target_id` (but hang-up)."""
    merged = {**(current or {}), **fields}
    action = merged.get("action")
    if action in REDIRECTS:
        fields["target_type"] = merged["target_type"] = TARGET_TYPE.to_code(action)
    elif action != "redirect":
        return fields
    if merged.get("target_type") is None:
        raise Invalid.field("target_type", "A redirect names the type of its destination.")
    if merged.get("target_id") is None and TARGET_TYPE.to_name(merged["target_type"]) != "hangup":
        raise Invalid.field("target_id", "A redirect names its destination.")
    return fields


def _many(field: str, kind: str, **kw: Any) -> Ref:
    return Ref(field, kind, many=True, **kw)


NUMBERS = _many("ddis", "ddi", number=True)
USERS = _many("users", "user")
FINAL = Destination()
L, C, G, U, D = Op.LIST, Op.CREATE, Op.GET, Op.UPDATE, Op.DELETE
DM, DA, BP, DI = Op.DELETE_MANY, Op.DELETE_ALL, Op.BULK_PATCH, Op.DICTIONARIES
R = Resource

RESOURCES: tuple[Resource, ...] = (
    # Settings
    R("contacts", "contact", s.Contact, "settings", frozenset({L, C, G, U, DM, BP}), s.ContactCreate,
      delete_many_status=202, bulk_item=s.ContactBulkItem, indexed=("user_id",), refs=(Ref("user_id", "user"),)),
    R("conferences", "conference", s.Conference, "settings", CRUD, s.ConferenceCreate, refs=(NUMBERS,),
      effects=numbers.listed),
    R("ddis", "ddi", s.Ddi, "settings", frozenset({L, G, DI}), text_ids=True, id_pattern=r"\+?\d+", id_name="e164",
      indexed=("e164", "campaign_id"), refs=(Ref("campaign_id", "campaign"), Destination("target_type", "target_id"))),
    R("queues", "queue", s.Queue, "settings", frozenset({L, C, G}), s.QueueCreate, added_ops=frozenset({U, D}),
      own_ops=frozenset({DI}), includes=("users",), fold=_queue_members, effects=numbers.listed,
      refs=(_many("users", "user", member="id"), NUMBERS, _many("groups", "queuegroup"), Ref("ivr", "ivr"),
            Ref("post_call_ivr_id", "ivr"), FINAL)),
    R("ringgroups", "ringgroup", s.RingGroup, "settings", CRUD | {DI}, s.RingGroupCreate, includes=("ddis", "users"),
      refs=(USERS, NUMBERS, FINAL), effects=numbers.listed),
    R("pickupgroups", "pickupgroup", s.PickupGroup, "settings", READ, s.PickupGroupCreate,
      added_ops=frozenset({C, U, D}), refs=(USERS,)),
    R("routingrules", "routingrule", s.RoutingRule, "settings", frozenset({L, C, G, U}), s.RoutingRuleCreate,
      added_ops=frozenset({D}), fold=_rule_destination, refs=(Destination("target_type", "target_id"),)),
    R("ivrs", "ivr", s.Ivr, "settings", frozenset({L, C, G}), s.IvrCreate, added_ops=frozenset({U, D}),
      own_ops=frozenset({DI}), refs=(NUMBERS, FINAL), effects=numbers.listed),
    R("calltracking/campaigns", "campaign", s.CallTrackingCampaign, "settings", frozenset({L, C}),
      s.CallTrackingCampaignCreate, refs=(Ref("call_me_back_setting_id", "cmbsetting"),)),
    # Customer
    R("queuegroups", "queuegroup", s.QueueGroup, "customer", CRUD, s.QueueGroupCreate),
    R("usergroups", "usergroup", s.UserGroup, "customer", CRUD, s.UserGroupCreate),
    R("usergrouppolicies", "usergrouppolicy", s.UserGroupPolicy, "customer", CRUD, s.UserGroupPolicyCreate),
    # Storage
    R("sms", "sms", s.Sms, "storage", frozenset({L, G, DA, DI}), delete_all_status=202, indexed=("user_id",)),
    R("faxes", "fax", s.Fax, "storage", frozenset({L})),
    R("vmannouncements", "vmannouncement", s.VmAnnouncement, "storage", CRUD, s.VmAnnouncementCreate,
      validate=s.validate_vm_announcement, attachment="data", refs=(Ref("extension", "user"),)),
    R("sms/cannedresponses", "cannedresponse", s.SmsCannedResponse, "storage", CRUD, s.SmsCannedResponseCreate),
    # History
    R("chats", "chat", s.Chat, "history", READ),
    R("chatmsgs", "chatmsg", s.ChatMsg, "history", frozenset({DM, DA}), indexed=("user_id",)),
    R("cdrs", "cdr", s.Cdr, "history", frozenset({L, G, BP, DA, DI}), bulk_item=s.CdrBulkItem,
      indexed=("calldate", "live_id", "user_id", ("type", "calldate")), searched=("src", "dst")),
    R("monitors", "monitor", s.Monitor, "history", frozenset({L, G, U, DM, DA}), s.MonitorCreate,
      delete_all_status=202, indexed=("live_id",), prepare=_recording_size),
    R("msdrs", "msdr", s.Msdr, "history", frozenset({L, G, DI})),
    R("voicemessages", "voicemessage", s.Voicemessage, "history", frozenset({L, G, BP, DM, DA}),
      bulk_item=s.VoicemessageBulkItem, delete_all_status=202, indexed=("live_id",)),
    # Calls (records only: live calls belong to the call engine)
    R("calllabels", "calllabel", s.CallLabel, "calls", CRUD, s.CallLabelCreate),
    R("webcalls", "webcall", s.Webcall, "calls", frozenset({L})),
    R("mediasessions", "mediasession", s.MediaSession, "calls", frozenset({L, G, DI})),
    # Call Me Back
    R("callmeback/settings", "cmbsetting", s.CallMeBackSetting, "callmeback", CRUD, s.CallMeBackSettingCreate,
      refs=(Ref("button_id", "cmbbutton"), Ref("ddi", "ddi", number=True))),
    R("callmeback/websites", "cmbwebsite", s.CallMeBackWebsite, "callmeback", frozenset({L})),
    R("callmeback/visitors", "cmbvisitor", s.CallMeBackVisitor, "callmeback", frozenset({L})),
    R("callmeback/cdrs", "cmbcdr", s.CallMeBackCdr, "callmeback", frozenset({L})),
    R("callmeback/buttons", "cmbbutton", s.CallMeBackButton, "callmeback", frozenset({C, G, U, D}),
      s.CallMeBackButtonCreate),
    # Billing and the unified history (real-platform.md: "Files and billing")
    R("transactions", "transaction", s.Transaction, "customer", frozenset(), added_ops=READ, indexed=("period",)),
    R("conversations", "conversation", s.Conversation, "history", frozenset(), added_ops=READ,
      indexed=("created_at",), drawn_from=("cdr", "sms", "fax", "chat")),
    R("balances", "balance", s.Balance, "customer", frozenset(), one_per_customer=True),
    R("tariffcards", "tariffcard", s.TariffCard, "customer", frozenset(), one_per_customer=True),
    # Reports
    R("reportschedules", "reportschedule", s.ReportSchedule, "reports", CRUD | {DI}, s.ReportScheduleCreate,
      validate=s.validate_report_schedule, computed=next_run_at),
)  # fmt: skip

BY_PATH = {resource.path: resource for resource in RESOURCES}

"""Every kind of record kept as a document, and the Struct of its whole record: what its events carry.

A kind's record is the resource's Struct as the API shows it (`schemas`), but for a webhook's, whose
signing secret is kept sealed (`WebhookRecord`). The registry serves most of them (each of its
resources names the same Struct: `tests/registry`); users, webhooks and deliveries are their
capabilities' own. A record's fields follow the rules of a stored event's (`base`): a new field gets
a default, none is renamed or retyped, so every log ever written still reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import msgspec

from .. import schemas as s

RECORDS: Mapping[str, type[msgspec.Struct]] = MappingProxyType({
    "user": s.User, "contact": s.Contact, "conference": s.Conference, "ddi": s.Ddi, "queue": s.Queue,
    "ringgroup": s.RingGroup, "pickupgroup": s.PickupGroup, "routingrule": s.RoutingRule, "ivr": s.Ivr,
    "campaign": s.CallTrackingCampaign, "queuegroup": s.QueueGroup, "usergroup": s.UserGroup,
    "usergrouppolicy": s.UserGroupPolicy, "sms": s.Sms, "fax": s.Fax, "vmannouncement": s.VmAnnouncement,
    "cannedresponse": s.SmsCannedResponse, "chat": s.Chat, "chatmsg": s.ChatMsg, "cdr": s.Cdr, "monitor": s.Monitor,
    "msdr": s.Msdr, "voicemessage": s.Voicemessage, "calllabel": s.CallLabel, "webcall": s.Webcall,
    "mediasession": s.MediaSession, "cmbsetting": s.CallMeBackSetting, "cmbwebsite": s.CallMeBackWebsite,
    "cmbvisitor": s.CallMeBackVisitor, "cmbcdr": s.CallMeBackCdr, "cmbbutton": s.CallMeBackButton,
    "transaction": s.Transaction, "conversation": s.Conversation, "balance": s.Balance, "tariffcard": s.TariffCard,
    "reportschedule": s.ReportSchedule, "webhook": s.WebhookRecord, "delivery": s.Delivery,
})  # fmt: skip
"""The record of each kind, by kind, in the order the kinds were declared."""

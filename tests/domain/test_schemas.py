"""Schemas: every create body takes a sensible example, names the field it refuses, and what it stores
reads back as its resource."""

import msgspec
import pytest

from telephony.domain import schemas as s
from telephony.domain.dictionaries import DICTIONARIES, RESOURCE_DICTIONARIES
from telephony.domain.types import Resource, dictionary_fields

FREQUENCY = {"type": "weekly", "time_of_day": [8], "day_of_week": [1, 5]}
WAV_BASE64 = "UklGRiQAAABXQVZFZm10IAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="

# collection, resource, create body, a valid example, (a field, a value of the wrong type)
CASES = [
    ("sms", s.Sms, s.SmsCreate, {"to": "+447700900123", "from": "447700900456", "message": "Hi"}, ("to", 447)),
    ("sms/cannedresponses", s.SmsCannedResponse, s.SmsCannedResponseCreate, {"name": "Busy", "text": "Later"},
     ("text", ["x"])),
    ("vmannouncements", s.VmAnnouncement, s.VmAnnouncementCreate,
     {"extension_id": 1000042, "description": "Welcome", "data": WAV_BASE64}, ("extension_id", "one")),
    ("contacts", s.Contact, s.ContactCreate,
     {"type": "personal", "first_name": "Ann", "tel": "+447700900123", "labels": ["vip"]}, ("tel", 447700900123)),
    ("conferences", s.Conference, s.ConferenceCreate,
     {"name": "Standup", "pin": "1234", "monitor": True, "ddis": ["+442071234567"]}, ("monitor", "yes")),
    ("routingrules", s.RoutingRule, s.RoutingRuleCreate,
     {"pos": 1, "source": [1000042, "+447700900123"], "time_interval": [3], "action": "block", "direction": "in"},
     ("pos", "first")),
    ("calltracking/campaigns", s.CallTrackingCampaign, s.CallTrackingCampaignCreate,
     {"name": "Spring", "url": "https://example.com", "rules": [{"utm_source": "ads"}], "chat_setting_id": 2},
     ("chat_setting_id", "two")),
    ("queues", s.Queue, s.QueueCreate,
     {"name": "Sales", "number": 600, "moh_id": 2, "ivr_id": 3, "users": [{"id": 1000042}, {"id": 1000043,
      "status": False}], "ring_strategy": "rrmemory", "language": "en", "final_dst_type": "V", "monitor": "A"},
     ("users", [0])),
    ("ringgroups", s.RingGroup, s.RingGroupCreate,
     {"name": "Support", "users": [1000042], "ddis": ["+442071234567"], "strategy": "hunt", "final_dst_type": 2},
     ("ring_time", "long")),
    ("pickupgroups", s.PickupGroup, s.PickupGroupCreate, {"name": "Floor 1", "users": [1000042]}, ("users", 5)),
    ("ivrs", s.Ivr, s.IvrCreate,
     {"name": "Main", "language": "de", "post_sounds": ["bye"], "one": "Q:5", "one_sounds": "sales",
      "final_dst_type": "hangup"}, ("timeout", -1)),
    ("queuegroups", s.QueueGroup, s.QueueGroupCreate, {"name": "EMEA"}, ("name", 1)),
    ("usergroups", s.UserGroup, s.UserGroupCreate, {"name": "Agents", "color": "#1e90ff"}, ("color", 255)),
    ("usergrouppolicies", s.UserGroupPolicy, s.UserGroupPolicyCreate, {"name": "Night"}, ("name", "")),
    ("monitors", s.Monitor, s.MonitorCreate,
     {"transcript": "Hello", "sentiment": "positive", "cx_score": 80, "metadata": {"crm": 7}}, ("cx_score", "high")),
    ("callmeback/settings", s.CallMeBackSetting, s.CallMeBackSettingCreate,
     {"name": "Widget", "culture": "en-GB", "position": "top-left", "ddi_e164": 442071234567, "max_call_rate": 1.5},
     ("floating_icon", "no")),
    ("callmeback/buttons", s.CallMeBackButton, s.CallMeBackButtonCreate,
     {"name": "Call us", "data_online": "<b>on</b>"}, ("data_offline", False)),
    ("reportschedules", s.ReportSchedule, s.ReportScheduleCreate,
     {"report_id": 3, "name": "Weekly calls", "emails": ["boss@example.com"], "format": "csv", "status": "active",
      "frequency": FREQUENCY, "start_at": "2026-07-01", "timezone": "Europe/London"}, ("emails", "boss@example.com")),
]  # fmt: skip
IDS = [case[0] for case in CASES]
READ_ONLY = [s.Ddi, s.Fax, s.Cdr, s.Msdr, s.MediaSession, s.Voicemessage, s.Chat, s.ChatMsg, s.CallMeBackWebsite,
             s.CallMeBackVisitor, s.CallMeBackCdr]  # fmt: skip


def stored_form(body: msgspec.Struct) -> dict:
    """What a registry stores for a create body: codes for dictionary names, resource field names."""
    document = msgspec.to_builtins(body)
    for field, dictionary in dictionary_fields(type(body)).items():
        if document.get(field) is not None:
            document[field] = DICTIONARIES[dictionary].to_code(document[field])
    for request_name, resource_name in getattr(type(body), "stored_as", {}).items():
        document[resource_name] = document.pop(request_name, None)
    return document


@pytest.mark.parametrize(("collection", "resource", "create", "example", "wrong"), CASES, ids=IDS)
def test_a_create_body_takes_a_sensible_example(collection, resource, create, example, wrong):
    body = msgspec.json.decode(msgspec.json.encode(example), type=create)
    assert isinstance(body, create)


@pytest.mark.parametrize(("collection", "resource", "create", "example", "wrong"), CASES, ids=IDS)
def test_a_wrong_value_is_refused_naming_its_field(collection, resource, create, example, wrong):
    field, value = wrong
    with pytest.raises(msgspec.ValidationError, match=rf"at `\$\.{field}") as caught:
        msgspec.convert({**example, field: value}, create)
    assert field in str(caught.value)


@pytest.mark.parametrize(("collection", "resource", "create", "example", "wrong"), CASES, ids=IDS)
def test_each_required_field_is_refused_when_missing(collection, resource, create, example, wrong):
    required = [f.encode_name for f in msgspec.structs.fields(create) if f.required]
    for field in required:
        with pytest.raises(msgspec.ValidationError, match=f"missing required field `{field}`"):
            msgspec.convert({k: v for k, v in example.items() if k != field}, create)


@pytest.mark.parametrize(("collection", "resource", "create", "example", "wrong"), CASES, ids=IDS)
def test_what_a_create_body_stores_reads_back_as_its_resource(collection, resource, create, example, wrong):
    stored = stored_form(msgspec.convert(example, create))
    answer = msgspec.to_builtins(msgspec.convert(stored, resource))
    shared = set(answer) & set(stored)
    assert shared, "the resource shows none of what was stored"
    assert {k: answer[k] for k in shared} == {k: stored[k] for k in shared}


@pytest.mark.parametrize(("collection", "resource", "create", "example", "wrong"), CASES, ids=IDS)
def test_coded_fields_are_those_the_collection_dictionaries_list(collection, resource, create, example, wrong):
    listed = RESOURCE_DICTIONARIES.get(collection, {})
    assert dictionary_fields(create).items() <= listed.items()
    resource_fields = {f.encode_name for f in msgspec.structs.fields(resource)}
    assert {path for path in listed if "." not in path} <= resource_fields


@pytest.mark.parametrize("resource", [case[1] for case in CASES] + READ_ONLY)
def test_a_resource_decodes_an_empty_document_and_writes_every_field_as_null(resource):
    answer = msgspec.json.decode(msgspec.json.encode(msgspec.json.decode(b"{}", type=resource)))
    assert issubclass(resource, Resource)
    assert set(answer) == {f.encode_name for f in msgspec.structs.fields(resource)}
    assert all(value is None for key, value in answer.items() if key != "id")


def test_spec_names_that_are_python_keywords_keep_their_wire_names():
    assert "from" in msgspec.json.decode(msgspec.json.encode(s.Sms()))
    assert "global" in msgspec.json.decode(msgspec.json.encode(s.Contact()))


def test_an_ivr_has_key_sounds_for_one_to_nine_only():
    fields = {f.name for f in msgspec.structs.fields(s.Ivr)}
    assert {"zero", "star", "hash", "one_sounds", "nine_sounds"} <= fields
    assert not {"zero_sounds", "star_sounds", "hash_sounds"} & fields

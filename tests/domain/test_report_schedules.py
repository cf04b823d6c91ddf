"""Report schedules: the checks msgspec cannot make, on create and on patch bodies."""

import msgspec
import pytest

from telephony.domain.schemas import ReportScheduleCreate, validate_report_schedule, validate_timezone
from telephony.domain.schemas.storage import VmAnnouncementCreate, validate_vm_announcement

VALID = {
    "report_id": 3,
    "name": "Weekly calls",
    "emails": ["boss@example.com"],
    "frequency": {"type": "weekly", "time_of_day": [8], "day_of_week": [1]},
    "start_at": "2026-07-01",
    "end_at": "2026-12-31",
    "timezone": "Europe/London",
}

PROBLEMS = [
    ("a valid schedule", {}, []),
    ("an unknown time zone", {"timezone": "Mars/Olympus"}, ["timezone"]),
    ("an end before the start", {"end_at": "2026-06-30"}, ["end_at"]),
    ("the same start and end day", {"end_at": "2026-07-01"}, []),
    ("a date not in the calendar", {"start_at": "2026-02-30"}, ["start_at"]),
    ("an unknown frequency", {"frequency": {"type": "hourly"}}, ["frequency.type"]),
    ("a weekly report without days", {"frequency": {"type": "weekly"}}, ["frequency.day_of_week"]),
    ("a monthly report without days", {"frequency": {"type": "Monthly"}}, ["frequency.day_of_month"]),
    ("a daily report", {"frequency": {"type": "daily", "time_of_day": [0, 23]}}, []),
    ("two problems", {"timezone": "Nowhere", "end_at": "2020-01-01"}, ["timezone", "end_at"]),
]


@pytest.mark.parametrize(("changes", "fields"), [p[1:] for p in PROBLEMS], ids=[p[0] for p in PROBLEMS])
def test_validate_names_each_problem_field(changes, fields):
    body = msgspec.convert({**VALID, **changes}, ReportScheduleCreate)
    assert [field for field, _ in validate_report_schedule(body)] == fields


def patch_of(create: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """A patch body as the registry derives it: every field optional, UNSET by default."""
    fields = [(f.name, f.type | msgspec.UnsetType, msgspec.UNSET) for f in msgspec.structs.fields(create)]
    return msgspec.defstruct(f"{create.__name__}Patch", fields, kw_only=True)


@pytest.mark.parametrize(
    ("changes", "fields"), [({"timezone": "Mars/Olympus"}, ["timezone"]), ({"end_at": "2020-01-01"}, []), ({}, [])]
)
def test_a_patch_is_checked_only_on_the_fields_it_carries(changes, fields):
    body = msgspec.convert(changes, patch_of(ReportScheduleCreate))
    assert [field for field, _ in validate_report_schedule(body)] == fields


@pytest.mark.parametrize(("name", "valid"), [("UTC", True), ("America/New_York", True), ("Europe/Londn", False)])
def test_time_zones_are_iana_names(name, valid):
    if valid:
        validate_timezone(name)
    else:
        with pytest.raises(ValueError, match="not a known time zone"):
            validate_timezone(name)


@pytest.mark.parametrize(
    ("data", "fields"), [("UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=", []), ("aGVsbG8=", ["data"])]
)
def test_an_announcement_must_carry_real_audio(data, fields):
    body = VmAnnouncementCreate(extension_id=1, description="hi", data=data)
    assert [field for field, _ in validate_vm_announcement(body)] == fields
    assert validate_vm_announcement(msgspec.convert({}, patch_of(VmAnnouncementCreate))) == []

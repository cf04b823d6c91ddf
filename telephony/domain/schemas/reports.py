"""Reports module: report schedules, and the checks msgspec cannot express (dates, time zones)."""

import datetime as dt
import zoneinfo
from typing import Annotated

import msgspec

from ..dictionaries import FREQUENCY_TYPE
from ..types import Body, Code, Email, Name, Resource, WireDate, coded

Hour = Annotated[int, msgspec.Meta(ge=0, le=23)]
Weekday = Annotated[int, msgspec.Meta(ge=1, le=7, description="1 is Monday, 7 is Sunday")]
MonthDay = Annotated[int, msgspec.Meta(ge=1, le=31)]
Problems = list[tuple[str | None, str]]


class Frequency(msgspec.Struct, kw_only=True):
    """When a report runs: a weekly one needs `day_of_week`, a monthly one `day_of_month`."""

    type: Annotated[Code, coded("frequency_type")]
    """`daily`, `weekly` or `monthly` (the `frequency_type` dictionary)."""
    time_of_day: list[Hour] = []
    """The hours of the day it runs at (0 to 23)."""
    day_of_week: list[Weekday] = []
    """The days of the week it runs on (1 Monday to 7 Sunday)."""
    day_of_month: list[MonthDay] = []
    """The days of the month it runs on (1 to 31)."""


class ReportSchedule(Resource):
    id: int = 0
    """The schedule's id."""
    created_at: str | None = None
    """When it was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    culture: int | None = None
    """The report's language and region (the `culture` dictionary)."""
    description: str | None = None
    """What the schedule is for."""
    emails: list[str] | None = None
    """The addresses each report is mailed to."""
    end_at: str | None = None
    """The last day it runs (`YYYY-MM-DD`)."""
    format: int | None = None
    """1 pdf, 2 csv, 3 xlsx (the `report_format` dictionary)."""
    frequency: Frequency | None = None
    """When it runs."""
    last_run_at: str | None = None
    """When it last ran (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    name: str | None = None
    """The schedule's name."""
    next_run_at: str | None = None
    """When it runs next (UTC, `YYYY-MM-DD HH:MM:SS`), drawn from its frequency and the clock."""
    report_id: int | None = None
    """The report it runs: 1 CDR summary, 2 calls, 3 missed calls (the `report` dictionary)."""
    start_at: str | None = None
    """The first day it runs (`YYYY-MM-DD`)."""
    status: int | None = None
    """1 active, 2 paused, 3 finished (the `report_status` dictionary)."""
    timezone: str | None = None
    """The time zone its times are in (`Europe/London`)."""


class ReportScheduleCreate(Body):
    """A schedule needs a report, a name, somewhere to send it and a frequency."""

    report_id: Annotated[Code, coded("report")]
    name: Name
    emails: Annotated[list[Email], msgspec.Meta(min_length=1)]
    frequency: Frequency
    description: str | None = None
    format: Annotated[Code, coded("report_format")] | None = None
    culture: Annotated[Code, coded("culture")] | None = None
    start_at: WireDate | None = None
    end_at: WireDate | None = None
    status: Annotated[Code, coded("report_status")] | None = None
    timezone: str | None = None


def validate_timezone(name: str) -> None:
    """Raise ValueError unless `name` is an IANA time zone known to this system."""
    if name not in zoneinfo.available_timezones():
        raise ValueError(f"{name!r} is not a known time zone (use an IANA name such as Europe/London).")


def validate_report_schedule(body: msgspec.Struct) -> Problems:
    """Cross-field checks for a create or patch body; fields a patch leaves out are not checked."""
    problems: Problems = []
    timezone = getattr(body, "timezone", None)
    if isinstance(timezone, str):
        try:
            validate_timezone(timezone)
        except ValueError as exc:
            problems.append(("timezone", str(exc)))
    dates = {field: _date(body, field, problems) for field in ("start_at", "end_at")}
    start, end = dates["start_at"], dates["end_at"]
    if start is not None and end is not None and end < start:
        problems.append(("end_at", "The end date must not be before the start date."))
    frequency = getattr(body, "frequency", None)
    if isinstance(frequency, Frequency):
        problems.extend(_frequency_problems(frequency))
    return problems


def _date(body: msgspec.Struct, field: str, problems: Problems) -> dt.date | None:
    value = getattr(body, field, None)
    if not isinstance(value, str):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        problems.append((field, f"{value!r} is not a calendar date (YYYY-MM-DD)."))
        return None


def _frequency_problems(frequency: Frequency) -> Problems:
    try:
        kind = FREQUENCY_TYPE.to_code(frequency.type)
    except ValueError as exc:
        return [("frequency.type", str(exc))]
    if kind == "weekly" and not frequency.day_of_week:
        return [("frequency.day_of_week", "A weekly report needs at least one day of the week.")]
    if kind == "monthly" and not frequency.day_of_month:
        return [("frequency.day_of_month", "A monthly report needs at least one day of the month.")]
    return []

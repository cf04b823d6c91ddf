"""Report schedules as pure rules: when a schedule runs next, what period a run covers, what it holds.

A schedule runs at each hour of its `time_of_day` (00:00 when none is given), in its `timezone`
(UTC when none), on every day (`daily`), on its `day_of_week` days (1 Monday .. 7 Sunday,
`weekly`) or its `day_of_month` days (`monthly`; a day the month does not have, such as the 31st
of April, is that month's last day), from `start_at` to `end_at` (whole days, in the schedule's
time zone). Wall-clock hours follow daylight saving time: 09:00 in Warsaw is 08:00 UTC in winter
and 07:00 UTC in summer; an hour the change skips runs an hour later, one it repeats runs once.

Reports (`report_id`, the `report` dictionary): 1 a CDR summary per user, 2 the list of calls, 3 the
missed calls, each of the period since the run before (for a first run, the day, week or month
before it). Formats (`format`): 1 PDF, 2 CSV, 3 XLSX.
"""

from __future__ import annotations

import calendar
import datetime as dt
import zoneinfo
from collections.abc import Iterable
from typing import Any

from ..clock import wire_time
from .dictionaries import REPORT_STATUS

ACTIVE = REPORT_STATUS.to_code("active")
HORIZON_DAYS = 800
"""How far ahead a next run is looked for (a schedule whose days never come runs never)."""
SPANS = {"daily": dt.timedelta(days=1), "weekly": dt.timedelta(days=7)}


def _day(text: str | None) -> dt.date | None:
    return dt.date.fromisoformat(text[:10]) if text else None


def _runs_on(kind: str, day: dt.date, weekdays: set[int], monthdays: set[int]) -> bool:
    if kind == "weekly":
        return day.isoweekday() in weekdays
    if kind == "monthly":
        last = calendar.monthrange(day.year, day.month)[1]
        return day.day in monthdays or (day.day == last and any(d > last for d in monthdays))
    return True


def next_run(schedule: dict[str, Any], after: float) -> float | None:
    """The first run of a schedule strictly after `after` (epoch seconds); None when none comes."""
    frequency = schedule.get("frequency") or {}
    kind = frequency.get("type") or "daily"
    zone = zoneinfo.ZoneInfo(schedule.get("timezone") or "UTC")
    hours = sorted(set(frequency.get("time_of_day") or [0]))
    weekdays, monthdays = set(frequency.get("day_of_week") or ()), set(frequency.get("day_of_month") or ())
    first, last = _day(schedule.get("start_at")), _day(schedule.get("end_at"))
    day = dt.datetime.fromtimestamp(after, zone).date()
    if first is not None and day < first:
        day = first
    for _ in range(HORIZON_DAYS):
        if last is not None and day > last:
            return None
        if _runs_on(kind, day, weekdays, monthdays):
            for hour in hours:
                moment = dt.datetime(day.year, day.month, day.day, hour, tzinfo=zone).timestamp()
                if moment > after:
                    return moment
        day += dt.timedelta(days=1)
    return None


def active(schedule: dict[str, Any]) -> bool:
    """Whether a schedule runs: active (`status` 1), or no status given."""
    return schedule.get("status") in (None, ACTIVE)


def next_run_at(schedule: dict[str, Any], now: float) -> dict[str, str | None]:
    """The schedule's `next_run_at` as of `now`: its first run after it when it is active, else none
    (what the create or change of a schedule stores, so its answer shows it)."""
    due = next_run(schedule, now) if active(schedule) else None
    return {"next_run_at": wire_time(due) if due is not None else None}


def period_before(schedule: dict[str, Any], run: float) -> float:
    """Where a first run's period starts: a day, a week or a month (in its time zone) before it."""
    kind = (schedule.get("frequency") or {}).get("type") or "daily"
    zone = zoneinfo.ZoneInfo(schedule.get("timezone") or "UTC")
    at = dt.datetime.fromtimestamp(run, zone)
    if kind in SPANS:
        return (at - SPANS[kind]).timestamp()
    year, month = (at.year - 1, 12) if at.month == 1 else (at.year, at.month - 1)
    day = min(at.day, calendar.monthrange(year, month)[1])
    return at.replace(year=year, month=month, day=day).timestamp()


REPORTS = {1: "CDR summary per user", 2: "Calls", 3: "Missed calls"}
CALL_COLUMNS = ("calldate", "type", "src", "dst", "duration", "billsec", "disposition", "context", "user_id",
                "t_cause", "charge")  # fmt: skip
SUMMARY_COLUMNS = ("user_id", "user", "calls", "answered", "missed", "duration", "billsec", "charge")


def rows(report_id: int, cdrs: Iterable[dict[str, Any]], names: dict[int, str]) -> tuple[tuple[str, ...], list[list]]:
    """A report's columns and rows from the period's CDRs (oldest first)."""
    cdrs = sorted(cdrs, key=lambda c: (c.get("calldate") or "", c["id"]))
    if report_id == 1:
        per_user: dict[Any, list] = {}
        for cdr in cdrs:
            user = cdr.get("user_id")
            row = per_user.setdefault(user, [user, names.get(user, "") if user else "", 0, 0, 0, 0, 0, 0.0])
            row[2] += 1
            row[3] += 1 if cdr.get("billsec") else 0
            row[4] += 1 if cdr.get("type") == "M" else 0
            row[5] += cdr.get("duration") or 0
            row[6] += cdr.get("billsec") or 0
            row[7] = round(row[7] + (cdr.get("charge") or 0.0), 4)
        return SUMMARY_COLUMNS, sorted(per_user.values(), key=lambda r: (r[0] is None, r[0] or 0))
    chosen = [c for c in cdrs if report_id != 3 or c.get("type") == "M"]
    return CALL_COLUMNS, [[c.get(column) for column in CALL_COLUMNS] for c in chosen]

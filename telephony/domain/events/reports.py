"""The events of report schedules' runs (a schedule's own record is a resource)."""

from __future__ import annotations

from .base import Event
from .mail import Attachment


class ReportRan(Event, frozen=True, kw_only=True, tag="report.ran"):
    """A schedule ran: the report of the period's CDRs, stored and mailed. On `reportrun-<schedule>`."""

    schedule_id: int
    """The schedule that ran."""
    customer_id: int
    """The schedule's customer."""
    at: float
    """When it ran (clock time, epoch seconds)."""
    due: float
    """When it was due (clock time, epoch seconds)."""
    missed: bool
    """It fell due while the server was down, and ran once when it started."""
    period_from: str
    """The start of the period it reports on (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    period_to: str
    """The end of the period it reports on (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    rows: int
    """How many rows the report has."""
    file: Attachment
    """The report's file, mailed."""


REPORT_EVENTS = (ReportRan,)

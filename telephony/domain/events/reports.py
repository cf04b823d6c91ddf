"""The events of report schedules' runs (a schedule's own record is a resource)."""

from __future__ import annotations

from .base import Event
from .mail import Attachment


class ReportRan(Event, frozen=True, kw_only=True, tag="report.ran"):
    """A schedule ran: the report of the period's CDRs, stored and mailed. On `reportrun-<schedule>`."""

    schedule_id: int
    customer_id: int
    at: float
    due: float
    missed: bool
    """It fell due while the server was down, and ran once when it started."""
    period_from: str
    period_to: str
    rows: int
    file: Attachment


REPORT_EVENTS = (ReportRan,)

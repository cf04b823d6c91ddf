"""A report schedule's run, decided in the writer's transaction: the report built from the period's
CDRs, stored (a blob, by content), mailed to the schedule's addresses with the file attached, and
recorded (`report.ran`), with the schedule's `last_run_at` and `next_run_at`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from ..clock import wire_epoch, wire_time
from ..documents import reads
from ..domain.dictionaries import REPORT_FORMAT
from ..domain.events import RESOURCES
from ..domain.events.mail import Attachment
from ..domain.events.reports import ReportRan
from ..domain.reports import REPORTS, active, next_run_at, period_before, rows
from ..eventlog import Decision, NewEvent
from ..eventlog.connection import Connection
from ..media.tables import MEDIA_TYPES, rendered
from ..projections.blobs import sha256_of, store_once

KIND = "reportschedule"
SCHEDULE = RESOURCES[KIND]
"""The events of a report schedule's own record."""
Mail = Callable[[str, str, str, list[Attachment]], NewEvent]


def ran(customer_id: int, schedule_id: int, due: float, missed: bool, now: Callable[[], float], mail: Mail
        ) -> Decision[dict[str, Any] | None]:  # fmt: skip
    """The run due at `due` (`missed`: it fell due while the server was down, and runs now, once):
    nothing when the schedule is gone, not active, or ran for this time already. The schedule after it."""

    def decide(conn: Connection) -> tuple[list[NewEvent], dict[str, Any] | None]:
        at = now()
        schedule = reads.documents(conn, KIND, [schedule_id], customer_id).get(schedule_id)
        if schedule is None or not active(schedule):
            return [], None
        last = wire_epoch(schedule.get("last_run_at"))
        if last is not None and last >= due - 1e-6:
            return [], None
        start, end = (last if last is not None else period_before(schedule, due)), at
        cdrs = reads.between(conn, "cdr", customer_id, "calldate", wire_time(start), wire_time(end))
        users = {u["id"]: " ".join(p for p in (u.get("first_name"), u.get("last_name")) if p) or u["email"]
                 for u in reads.every_document(conn, "user", customer_id)}  # fmt: skip
        report_id = schedule.get("report_id") or 1
        columns, table = rows(report_id, cdrs, users)
        kind = str(REPORT_FORMAT.to_name(schedule.get("format") or REPORT_FORMAT.to_code("csv")))
        title = f"{REPORTS.get(report_id, 'Report')}: {schedule.get('name') or schedule_id}"
        data = rendered(kind, title, columns, table, dt.datetime.fromtimestamp(at, dt.UTC))
        media_type = MEDIA_TYPES[kind]
        file = Attachment(filename=f"report-{schedule_id}-{wire_time(at)[:10]}.{kind}", media_type=media_type,
                          size=len(data), blob=sha256_of(data))  # fmt: skip
        changes = {"last_run_at": wire_time(at), **next_run_at(schedule, at)}
        record = ReportRan(
            schedule_id=schedule_id,
            customer_id=customer_id,
            at=at,
            due=due,
            missed=missed,
            period_from=wire_time(start),
            period_to=wire_time(end),
            rows=len(table),
            file=file,
        )
        events = [
            *store_once(conn, data, media_type),
            NewEvent(stream=f"reportrun-{schedule_id}", event=record),
            NewEvent(stream=f"{KIND}-{schedule_id}", event=SCHEDULE.updated(id=schedule_id, changes=changes)),
        ]
        said = f"{title}, from {record.period_from} to {record.period_to} UTC: {len(table)} rows." + (
            " This run fell due while the server was down, and ran once when it started." if missed else ""
        )
        events += [mail(to, title, said, [file]) for to in schedule.get("emails") or ()]
        return events, {**schedule, **changes}

    return Decision(decide)

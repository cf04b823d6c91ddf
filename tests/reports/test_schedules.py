"""Report schedules run on time in their time zone, mail their report, and survive restarts."""

from __future__ import annotations

import csv
import email
import io

import msgspec
import openpyxl
import pypdf
import pytest

from telephony.app import create_app
from telephony.config import Mail
from telephony.reports import runs
from telephony.reports.planner import RETRY_AFTER
from tests.accounts.helpers import CONTROL, login
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import get, place
from tests.calls.test_voicemail_mail import settled

ADMIN = ("admin@example.com", "change-me-now")


async def set_clock(client, when: str) -> None:
    response = await client.post("/_telephony/clock", json={"set": when}, headers=CONTROL)
    assert response.status == 200, await response.text()
    await settled(client)


async def schedule(client, expect: int = 201, **body) -> dict:
    creds = await login(client, "v1.2", *ADMIN)
    sent = {"report_id": 2, "name": "Calls", "emails": ["boss@example.com"], "format": "csv",
            "frequency": {"type": "daily", "time_of_day": [9]}, "timezone": "Europe/Warsaw", **body}  # fmt: skip
    response = await client.post("/v1.2/voipstudio/reportschedules", json=sent, headers=creds.headers())
    answer = await response.json()
    assert response.status == expect, answer
    await settled(client)
    return answer


async def shown(client, schedule_id: int) -> dict:
    return (await get(client, await login(client, "v1.2", *ADMIN), f"/reportschedules/{schedule_id}"))["data"]


async def reports_mailed(client) -> list[dict]:
    mails = (await (await client.get("/_telephony/outbox?to=boss@example.com", headers=CONTROL)).json())["data"]
    return [m for m in mails if m["attachments"]]


async def test_a_daily_schedule_at_nine_in_warsaw_follows_daylight_saving_time(client):
    await set_clock(client, "2027-03-26 12:00:00")
    made = (await schedule(client, start_at="2027-03-26"))["data"]
    assert (await shown(client, made["id"]))["next_run_at"] == "2027-03-27 08:00:00"  # 09:00 CET
    await set_clock(client, "2027-03-27 08:00:00")
    ran = await shown(client, made["id"])
    assert (ran["last_run_at"], ran["next_run_at"]) == ("2027-03-27 08:00:00", "2027-03-28 07:00:00")  # then CEST
    await set_clock(client, "2027-03-28 07:00:00")
    assert (await shown(client, made["id"]))["last_run_at"] == "2027-03-28 07:00:00"
    assert len(await reports_mailed(client)) == 2
    await set_clock(client, "2027-10-31 08:30:00")  # back to CET: the next run is at 08:00 UTC again
    assert (await shown(client, made["id"]))["next_run_at"] == "2027-11-01 08:00:00"


async def test_weekly_and_monthly_schedules_run_on_their_days(client):
    await set_clock(client, "2027-04-01 00:00:00")  # a Thursday
    weekly = (await schedule(client, frequency={"type": "weekly", "day_of_week": [1, 5], "time_of_day": [7]},
                             timezone="UTC"))["data"]  # fmt: skip
    monthly = (await schedule(client, frequency={"type": "monthly", "day_of_month": [31], "time_of_day": [6]},
                              timezone="UTC"))["data"]  # fmt: skip
    assert (await shown(client, weekly["id"]))["next_run_at"] == "2027-04-02 07:00:00"  # Friday
    assert (await shown(client, monthly["id"]))["next_run_at"] == "2027-04-30 06:00:00"  # April has no 31st
    await set_clock(client, "2027-04-02 07:00:00")
    assert (await shown(client, weekly["id"]))["next_run_at"] == "2027-04-05 07:00:00"  # Monday
    await set_clock(client, "2027-04-30 06:00:00")
    assert (await shown(client, monthly["id"]))["next_run_at"] == "2027-05-31 06:00:00"


async def test_paused_and_ended_schedules_do_not_run(client):
    await set_clock(client, "2027-05-01 00:00:00")
    paused = (await schedule(client, status="paused"))["data"]
    ended = (await schedule(client, start_at="2027-04-01", end_at="2027-04-30"))["data"]
    await set_clock(client, "2027-05-03 00:00:00")
    assert (await shown(client, paused["id"]))["last_run_at"] is None
    assert (await shown(client, ended["id"]))["last_run_at"] is None
    assert await reports_mailed(client) == []
    creds = await login(client, "v1.2", *ADMIN)
    response = await client.patch(f"/v1.2/voipstudio/reportschedules/{paused['id']}", json={"status": "active"},
                                  headers=creds.headers())  # fmt: skip
    assert response.status == 200
    await settled(client)
    assert (await shown(client, paused["id"]))["next_run_at"] == "2027-05-03 07:00:00"  # planned again on change


async def test_the_answers_to_a_create_and_a_change_carry_the_next_run_a_get_shows_at_once(client):
    await set_clock(client, "2027-05-01 00:00:00")
    creds = await login(client, "v1.2", *ADMIN)
    sent = {"report_id": 2, "name": "Calls", "emails": ["boss@example.com"], "timezone": "Europe/Warsaw",
            "frequency": {"type": "daily", "time_of_day": [9]}}  # fmt: skip
    response = await client.post("/v1.2/voipstudio/reportschedules", json=sent, headers=creds.headers())
    made = (await response.json())["data"]
    assert response.status == 201 and made["next_run_at"] == "2027-05-01 07:00:00"  # 09:00 CEST
    assert (await shown(client, made["id"]))["next_run_at"] == made["next_run_at"]  # no reactor step needed
    path = f"/v1.2/voipstudio/reportschedules/{made['id']}"
    paused = await (await client.patch(path, json={"status": "paused"}, headers=creds.headers())).json()
    assert paused["data"]["next_run_at"] is None and (await shown(client, made["id"]))["next_run_at"] is None
    moved = await client.patch(path, json={"status": "active", "frequency": {"type": "daily", "time_of_day": [1]}},
                               headers=creds.headers())  # fmt: skip
    assert (await moved.json())["data"]["next_run_at"] == "2027-05-01 23:00:00"  # today's 01:00 CEST is past
    await settled(client)
    assert (await shown(client, made["id"]))["next_run_at"] == "2027-05-01 23:00:00"


async def test_a_restart_neither_repeats_nor_drops_a_run_and_a_missed_run_runs_once(aiohttp_client, settings, clock):
    client = await aiohttp_client(create_app(settings, clock=clock))
    await set_clock(client, "2027-06-01 06:00:00")
    made = (await schedule(client, timezone="UTC"))["data"]
    await set_clock(client, "2027-06-01 09:00:00")
    assert len(await reports_mailed(client)) == 1
    await client.close()
    client = await aiohttp_client(create_app(settings, clock=clock))  # started after its run: nothing again
    await settled(client)
    assert len(await reports_mailed(client)) == 1
    await client.close()
    clock.set_epoch(clock.time() + 3 * 86400)  # three days pass while the server is down
    client = await aiohttp_client(create_app(settings, clock=clock))
    await settled(client)
    await set_clock(client, "2027-06-04 10:00:00")
    mailed = await reports_mailed(client)
    assert len(mailed) == 2  # the three missed runs make one, at start
    after = await shown(client, made["id"])
    assert after["next_run_at"] == "2027-06-05 09:00:00"


@pytest.fixture
def mailed_settings(settings, smtp_server):
    controller, _ = smtp_server
    return msgspec.structs.replace(settings, mail=Mail(host="127.0.0.1", port=controller.port,
                                                       sender="pbx@telephony.test"))  # fmt: skip


@pytest.mark.parametrize("kind", ["csv", "xlsx", "pdf"])
async def test_the_report_holds_the_periods_calls_in_the_format_asked(aiohttp_client, mailed_settings, clock,
                                                                       smtp_server, kind):  # fmt: skip
    _, inbox = smtp_server
    from telephony.config import Simulator
    from tests.calls.conftest import RULES

    configured = msgspec.structs.replace(mailed_settings, simulator=Simulator(seed=7, destinations=RULES))
    client = await aiohttp_client(create_app(configured, clock=clock))
    await set_clock(client, "2027-07-01 06:00:00")
    made = (await schedule(client, timezone="UTC", format=kind))["data"]
    root = await login(client, "v1.2", *ADMIN)
    for n in range(3):
        await place(client, root, to=f"{ANSWERS}{n}")
    await set_clock(client, "2027-07-01 09:00:00")
    message, part = attachment(inbox, "Calls: Calls")
    data = part.get_payload(decode=True)
    if kind == "csv":
        table = list(csv.reader(io.StringIO(data.decode())))
        assert table[0][:4] == ["calldate", "type", "src", "dst"] and len(table) == 4
        assert sorted(row[3] for row in table[1:]) == [f"{ANSWERS}{n}" for n in range(3)]
    elif kind == "xlsx":
        sheet = openpyxl.load_workbook(io.BytesIO(data)).active
        assert sheet.max_row == 4 and sheet.cell(1, 1).value == "calldate"
    else:
        text = pypdf.PdfReader(io.BytesIO(data)).pages[0].extract_text()
        assert "Calls: Calls" in text and f"{ANSWERS}2" in text
    assert made["id"]
    (mailed,) = await reports_mailed(client)  # the outbox shows what the SMTP server was given
    assert (mailed["date"], mailed["message_id"]) == (message["Date"], message["Message-ID"])
    served = await client.get(mailed["attachments"][0]["url"], headers=CONTROL)
    assert served.content_type == part.get_content_type() and await served.read() == data


def attachment(inbox, subject: str) -> tuple[email.message.Message, email.message.Message]:
    """The one report mailed whose subject starts with `subject`, and the part of its attached file."""
    (message,) = [m for m in inbox.messages if m["Subject"].startswith(subject)]
    parts = [p for p in email.message_from_bytes(message.as_bytes()).walk() if p.get_filename()]
    return message, parts[0]


def attached(inbox, subject: str) -> bytes:
    """The file attached to the one report mailed whose subject starts with `subject`."""
    return attachment(inbox, subject)[1].get_payload(decode=True)


async def test_an_xlsx_reports_sheet_title_is_cut_between_words(aiohttp_client, mailed_settings, clock, smtp_server):
    _, inbox = smtp_server
    client = await aiohttp_client(create_app(mailed_settings, clock=clock))
    await set_clock(client, "2027-07-01 06:00:00")
    await schedule(client, timezone="UTC", format="xlsx", report_id=1, name="Weekly sales team")
    await set_clock(client, "2027-07-01 09:00:00")
    sheet = openpyxl.load_workbook(io.BytesIO(attached(inbox, "CDR summary per user: Weekly sales team"))).active
    assert sheet.title == "CDR summary per user - Weekly"  # Excel's sheet titles hold 31 characters, no ':'
    assert sheet.cell(1, 1).value == "user_id"


@pytest.fixture
def failing_runs(monkeypatch):
    """Make the next `count` report runs fail while drawing their file (nothing of them is stored)."""
    left = {"failures": 0}
    drawn = runs.rendered

    def flaky(*args, **kwargs):
        if left["failures"] > 0:
            left["failures"] -= 1
            raise OSError("disk full")
        return drawn(*args, **kwargs)

    monkeypatch.setattr(runs, "rendered", flaky)

    def fail(count: int) -> None:
        left["failures"] = count

    return fail


async def test_a_run_that_fails_is_tried_again_later(client, failing_runs):
    await set_clock(client, "2027-07-01 06:00:00")
    made = (await schedule(client, timezone="UTC"))["data"]
    failing_runs(2)
    await set_clock(client, "2027-07-01 09:00:00")  # fails
    await set_clock(client, "2027-07-01 09:01:00")  # the first try again, one minute later: fails
    assert await reports_mailed(client) == []
    assert (await shown(client, made["id"]))["last_run_at"] is None
    await set_clock(client, "2027-07-01 09:06:00")  # five minutes after that
    assert len(await reports_mailed(client)) == 1
    ran = await shown(client, made["id"])
    assert (ran["last_run_at"], ran["next_run_at"]) == ("2027-07-01 09:06:00", "2027-07-02 09:00:00")


async def test_after_its_last_try_a_failing_run_gives_way_to_the_next(client, failing_runs):
    await set_clock(client, "2027-08-01 06:00:00")
    made = (await schedule(client, timezone="UTC"))["data"]
    failing_runs(1 + len(RETRY_AFTER))
    tried = 9 * 3600.0
    for wait in (0.0, *RETRY_AFTER):
        tried += wait
        await set_clock(client, f"2027-08-01 {int(tried // 3600):02d}:{int(tried % 3600 // 60):02d}:00")
    assert await reports_mailed(client) == []
    await set_clock(client, "2027-08-02 09:00:00")
    assert len(await reports_mailed(client)) == 1
    assert (await shown(client, made["id"]))["last_run_at"] == "2027-08-02 09:00:00"

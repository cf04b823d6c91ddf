"""The history calls leave, as the lists below records and the audit commands see it."""

from __future__ import annotations

import sqlite3

import pytest

from telephony.app import create_app
from tests.accounts.helpers import login, url
from tests.calls.conftest import ANSWERS, BUSY
from tests.calls.helpers import advance, by_live_id, get, patch, place
from tests.serving import telephony


async def test_contact_and_user_cdrs_list_the_calls_with_their_numbers(client, root):
    response = await client.post(url("v1.2", "/contacts"), json={"first_name": "Bo", "tel": ANSWERS + "1"},
                                 headers=root.headers())  # fmt: skip
    assert response.status == 201, await response.text()
    contact_id = (await response.json())["data"]["id"]
    await place(client, root, to=ANSWERS + "1")
    await place(client, root, to=ANSWERS + "2")
    await advance(client, 70)
    cdrs = (await get(client, root, f"/contacts/{contact_id}/cdrs"))["data"]
    assert [c["dst"] for c in cdrs] == [ANSWERS + "1"] and cdrs[0]["dst_id"] == f"contact:{contact_id}"
    later = await client.post(url("v1.2", "/contacts"), json={"first_name": "Al", "mobile": ANSWERS.lstrip("+") + "2"},
                              headers=root.headers())  # fmt: skip
    later_id = (await later.json())["data"]["id"]
    assert [c["dst"] for c in (await get(client, root, f"/contacts/{later_id}/cdrs"))["data"]] == [ANSWERS + "2"]
    assert (await get(client, root, f"/users/{root.user_id}/cdrs"))["total"] == 2


@pytest.mark.sqlite_only  # the commands on the data dir's SQLite log
async def test_a_replay_of_a_log_with_calls_gives_the_same_history(aiohttp_client, settings, clock):
    client = await aiohttp_client(create_app(settings, clock=clock))
    root = await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    recorded = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await place(client, root, to=BUSY + "1")
    await advance(client, 10)
    await patch(client, root, recorded, monitor_state="start")
    await advance(client, 5)
    await patch(client, root, recorded, dst=ANSWERS + "2")
    await advance(client, 100)
    (monitor,) = (await get(client, root, "/monitors" + by_live_id(recorded)))["data"]
    assert monitor["duration"] == 5
    await client.close()

    result = telephony("--data-dir", settings.data_dir, "verify", cwd=settings.data_dir.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    with sqlite3.connect(settings.data_dir / "events.db") as conn:
        counts = {kind: conn.execute(f'SELECT count(*) FROM "doc_{kind}"').fetchone()[0]
                  for kind in ("cdr", "monitor", "msdr", "mediasession")}  # fmt: skip
    # a media leg per answer: both of the transferred call and of its child, the caller's own of the busy call
    assert counts == {"cdr": 3, "monitor": 1, "msdr": 5, "mediasession": 5}

"""Two times: a delivery's `webhook-timestamp` is the real time of its POST (receivers check it against
their own clocks), while its body's times, its attempts and its retries follow the controllable clock."""

from __future__ import annotations

import calendar
import time

import pytest

from telephony.domain.webhooks import RETRY_SECONDS
from telephony.keys import CLOCK
from tests.accounts.helpers import login
from tests.calls.helpers import advance
from tests.webhooks.conftest import delivered
from tests.webhooks.receiver import verified
from tests.webhooks.test_configuration import hook
from tests.webhooks.test_delivery import missed_call

DAY = 86400


async def test_a_delivery_made_after_the_clock_moved_a_day_verifies_against_the_real_time(client, root, receiver):
    secret = (await hook(client, root, url=receiver.url))["data"]["secret"]
    await advance(client, DAY)
    await missed_call(client)
    await delivered(client)
    assert len(receiver.got) == 3
    clock = client.server.app[CLOCK].time()
    for headers, body in receiver.got:
        assert abs(int(headers["webhook-timestamp"]) - time.time()) < 60  # the real time, not a day ahead
        event = verified(secret, headers, body, int(time.time()))  # as the README's receiver checks it
        assert event["event_time"] == time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(clock))  # the clock's


@pytest.mark.parametrize("disable_after", [900_000.0])
async def test_moving_the_clock_makes_every_retry_that_falls_due_each_at_its_own_time(client, root, receiver):
    """A move of the clock is the platform's time passing: each retry due on the way is made (at once,
    one after another, each signed with the real time) and recorded at its due time, then given up."""
    secret = (await hook(client, root, url=receiver.url, events=["call.hangup"]))["data"]["secret"]
    receiver.failures = 100
    await missed_call(client)
    await delivered(client)
    await advance(client, 2 * DAY)
    await delivered(client)
    assert len(receiver.got) == 1 + len(RETRY_SECONDS)
    assert all(verified(secret, headers, body, int(time.time())) for headers, body in receiver.got)
    root = await login(client, "v1.2", "admin@example.com", "change-me-now")  # two days went by
    response = await client.get("/_telephony/webhooks/crm/deliveries", headers=root.headers())
    (delivery,) = (await response.json())["data"]
    assert (delivery["status"], delivery["attempts"], delivery["next_at"]) == ("failed", 9, None)
    times = [calendar.timegm(time.strptime(a["at"], "%Y-%m-%d %H:%M:%S")) for a in delivery["history"]]
    for waited, scheduled in zip((b - a for a, b in zip(times, times[1:])), RETRY_SECONDS, strict=True):
        assert scheduled * 0.9 - 1 <= waited <= scheduled * 1.1 + 1  # the schedule, +-10%, on the clock

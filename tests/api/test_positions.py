"""A write answers the log's position (`X-Telephony-Position`); a read that sends one back is served
once the read models have followed the log that far, and a position the log never reaches is a 503
after the wait, not a hang; a header that is not a position is a 400 naming it."""

from __future__ import annotations

from telephony.api import positions
from telephony.keys import EVENT_LOG

CONTROL = {"X-Control-Key": "test-control-key-0123456789"}
RULE = {"path": "/v1.1/voipstudio/contacts", "status": 503}


async def test_a_write_answers_the_position_of_the_log_after_its_events(client):
    response = await client.post("/_telephony/faults", json=RULE, headers=CONTROL)
    assert response.status in (200, 201)
    position = int(response.headers[positions.HEADER])
    events = await client.app[EVENT_LOG].read()
    assert position == events[-1].position
    assert events[-1].type.startswith("fault")


async def test_a_read_sending_a_position_already_reached_is_served_at_once_and_carries_none(client):
    written = await client.post("/_telephony/faults", json=RULE, headers=CONTROL)
    read = await client.get(
        "/_telephony/faults", headers={**CONTROL, positions.HEADER: written.headers[positions.HEADER]}
    )
    assert read.status == 200
    assert RULE["path"] in await read.text()
    assert positions.HEADER not in read.headers


async def test_a_position_the_log_never_reaches_is_a_503_after_the_wait(client, monkeypatch):
    monkeypatch.setattr(positions, "WAIT_SECONDS", 0.05)
    ahead = client.app[EVENT_LOG].position + 1000
    read = await client.get("/_telephony/faults", headers={**CONTROL, positions.HEADER: str(ahead)})
    assert read.status == 503
    assert f"position {ahead}" in (await read.json())["message"]


async def test_a_position_that_is_not_a_whole_number_is_a_400_naming_the_header(client):
    read = await client.get("/_telephony/faults", headers={**CONTROL, positions.HEADER: "-3"})
    assert read.status == 400
    body = await read.json()
    assert body["errors"] == [{"field": positions.HEADER, "message": body["errors"][0]["message"]}]


async def test_a_header_that_is_not_a_position_is_named_once_in_the_message(client):
    read = await client.get("/_telephony/faults", headers={**CONTROL, positions.HEADER: "abc"})
    assert read.status == 400
    body = await read.json()
    assert body["message"] == "X-Telephony-Position: Expected a position of the log, a whole number (got 'abc')"
    assert body["errors"] == [{"field": positions.HEADER,
                               "message": "Expected a position of the log, a whole number (got 'abc')"}]  # fmt: skip

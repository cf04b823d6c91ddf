"""Website chats, simulated: made with their messages, listed, ended on the clock, deleted."""

from __future__ import annotations

import json

from tests.accounts.helpers import CONTROL, create_user, error_of
from tests.calls.helpers import advance, get

HOME = 100001


async def chat(client, status: int = 201, **body) -> dict:
    response = await client.post("/_telephony/simulate/chat", json={"customer_id": HOME, **body}, headers=CONTROL)
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def test_a_chat_is_answered_by_an_operator_listed_and_ends_with_its_duration(client, root):
    operator = await create_user(client, HOME, "chat@example.com", first_name="Olga")
    made = (await chat(client, operator_id=operator, website_id=3, duration=90,
                       visitor={"name": "Vera", "email": "vera@example.com", "country": "PL", "ip": "198.51.100.7"},
                       messages=[{"text": "Hi, is it open today?"},
                                 {"from": "operator", "text": "Yes, until six.", "after": 20},
                                 {"text": "Thanks!", "after": 40}]))["data"]  # fmt: skip
    assert (made["state"], made["operator_id"], made["visitor_name"], made["website_id"]) == (2, operator, "Vera", 3)
    assert (await get(client, root, f"/chats/{made['id']}"))["data"]["visitor_email"] == "vera@example.com"
    messages = (await get(client, root, f"/users/{operator}/chatmsgs?sort=id"))["data"]
    assert [(m["direction"], m["message"]) for m in messages] == [
        ("in", "Hi, is it open today?"), ("out", "Yes, until six."), ("in", "Thanks!")]  # fmt: skip
    await advance(client, 90)
    ended = (await get(client, root, f"/chats/{made['id']}"))["data"]
    assert (ended["state"], ended["duration"]) == (3, 90)
    only_chats = json.dumps([{"property": "channel", "operator": "=", "value": "chat"}])
    (listed,) = (await get(client, root, f"/conversations?filter={only_chats}"))["data"]
    assert (listed["src"], listed["duration"], listed["user_id"]) == ("Vera", 90, operator)
    response = await client.delete(f"/v1.2/voipstudio/chatmsgs/{messages[0]['id']}", headers=root.headers())
    assert response.status == 204
    assert (await get(client, root, f"/users/{operator}/chatmsgs"))["total"] == 2
    response = await client.delete("/v1.2/voipstudio/chatmsgs", headers=root.headers())
    assert response.status == 204
    assert (await get(client, root, f"/users/{operator}/chatmsgs"))["total"] == 0


async def test_a_chat_goes_to_the_first_user_without_an_operator_named_and_refuses_strangers(client, root):
    made = (await chat(client, messages=[{"text": "Hello?"}]))["data"]
    assert (made["state"], made["operator_id"]) == (2, root.user_id)
    await advance(client, 30)
    assert (await get(client, root, f"/chats/{made['id']}"))["data"]["state"] == 3
    assert (await chat(client, 400, operator_id=999))["errors"][0]["field"] == "operator_id"
    response = await client.post("/_telephony/simulate/chat", json={"customer_id": 999}, headers=CONTROL)
    await error_of(response, 404)

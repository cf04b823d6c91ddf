"""The SIP-over-WebSocket endpoint: keep-alives, digest challenges (SHA-256 and MD5) on the user's
`sip_password`, nonces used once per count, 400 for what does not parse, the limits, and wrong
passwords throttled as failed logins are."""

from __future__ import annotations

import msgspec
import pytest

from telephony.config import Sip
from tests.accounts.helpers import url
from tests.sip.agent import PATH, connected


@pytest.fixture
def settings(settings):
    limits = Sip(connections_per_user=2, subscriptions_per_connection=2, domain_template="c{customer_id}.sip.test")
    return msgspec.structs.replace(settings, sip=limits)


async def test_me_shows_the_sip_domain_of_the_configured_template_and_clients_authenticate_in_it(client, root):
    agent = await connected(client, root)
    assert agent.domain == "c100001.sip.test"
    assert (await agent.subscribe(agent.user)).code == 200


async def test_options_is_answered_as_a_keep_alive_without_credentials(client, root):
    agent = await connected(client, root)
    await agent.send(agent.request("OPTIONS", agent.user))
    answer = await agent.response()
    assert answer.code == 200 and "SUBSCRIBE" in answer.headers["Allow"]
    assert answer.cseq.method == "OPTIONS" and answer.to_address.parameters.get("tag")


async def test_a_subscribe_is_challenged_with_sha_256_then_md5_in_the_users_domain(client, root):
    agent = await connected(client, root)
    await agent.send(agent.request("SUBSCRIBE", agent.user, extra="Event: dialog\r\n"))
    challenge = await agent.response()
    offered = challenge.headers.getlist("WWW-Authenticate")
    assert challenge.code == 401 and len(offered) == 2
    assert "algorithm=SHA-256" in offered[0] and "algorithm=MD5" in offered[1]
    assert all(f'realm="{agent.domain}"' in value and 'qop="auth"' in value for value in offered)


@pytest.mark.parametrize("algorithm", ["MD5", "SHA-256"])
async def test_a_subscribe_with_the_sip_password_is_accepted(client, root, algorithm):
    agent = await connected(client, root)
    answer = await agent.authenticated("SUBSCRIBE", agent.user, extra="Event: dialog\r\nExpires: 600\r\n",
                                       algorithm=algorithm)  # fmt: skip
    assert answer.code == 200 and answer.headers["Expires"] == "600"


async def test_a_nonce_count_used_once_is_stale_the_second_time(client, root):
    agent = await connected(client, root)
    await agent.send(agent.request("SUBSCRIBE", agent.user, extra="Event: dialog\r\n"))
    challenge = await agent.response()
    credentials = agent.credentials(challenge, "SUBSCRIBE", agent.user)
    await agent.send(agent.request("SUBSCRIBE", agent.user, extra="Event: dialog\r\n" + credentials))
    assert (await agent.response()).code == 200
    await agent.notify()
    await agent.send(agent.request("SUBSCRIBE", agent.user, extra="Event: dialog\r\n" + credentials))
    replayed = await agent.response()
    assert replayed.code == 401 and "stale=true" in replayed.headers.getlist("WWW-Authenticate")[0]


async def test_a_malformed_message_answers_400_and_the_connection_goes_on(client, root):
    agent = await connected(client, root)
    broken = agent.request("OPTIONS", agent.user).replace("CSeq: 1 OPTIONS", "CSeq: one OPTIONS")
    await agent.send(broken)
    refused = await agent.text()
    assert refused.startswith("SIP/2.0 400 CSeq is not valid\r\n") and "\r\nCall-ID: " in refused
    await agent.send(b"\xff\xfe garbage\r\n\r\n")
    assert (await agent.text()).startswith("SIP/2.0 400 ")
    await agent.send(agent.request("OPTIONS", agent.user))
    assert (await agent.response()).code == 200


async def test_a_message_over_64_kib_answers_513(client, root):
    agent = await connected(client, root)
    body = "x" * (64 * 1024)
    await agent.send(agent.request("OPTIONS", agent.user, body=body))
    assert (await agent.response()).code == 513


async def test_a_wrong_password_is_throttled_as_failed_logins_are(client, root, settings):
    agent = await connected(client, root)
    for _ in range(settings.auth.max_failures):
        await agent.send(agent.request("SUBSCRIBE", agent.user, extra="Event: dialog\r\n"))
        challenge = await agent.response()
        wrong = agent.credentials(challenge, "SUBSCRIBE", agent.user, password="not-the-password")
        await agent.send(agent.request("SUBSCRIBE", agent.user, extra="Event: dialog\r\n" + wrong))
        assert (await agent.response()).code == 401
    await agent.send(agent.request("SUBSCRIBE", agent.user, extra="Event: dialog\r\n"))
    challenge = await agent.response()
    right = agent.credentials(challenge, "SUBSCRIBE", agent.user)
    await agent.send(agent.request("SUBSCRIBE", agent.user, extra="Event: dialog\r\n" + right))
    locked = await agent.response()
    assert locked.code == 403 and int(locked.headers["Retry-After"]) == settings.auth.lockout_seconds


async def test_a_user_holds_at_most_the_configured_connections(client, root):
    agents = [await connected(client, root) for _ in range(3)]
    assert [(await agent.subscribe(agent.user)).code for agent in agents] == [200, 200, 403]


async def test_a_connection_holds_at_most_the_configured_subscriptions(client, root):
    agent = await connected(client, root)
    assert (await agent.subscribe(agent.user)).code == 200
    await agent.notify()
    assert (await agent.subscribe(agent.user)).code == 200
    await agent.notify()
    assert (await agent.subscribe(agent.user)).code == 403


async def test_a_request_without_the_sip_subprotocol_is_refused_with_the_error_body(client):
    response = await client.get(PATH)
    body = await response.json()
    assert response.status == 400 and "subprotocol sip" in body["message"]
    assert body["errors"][0]["field"] is None
    plain = await client.get(url("v1.2", "/ping"))
    assert plain.status == 401

"""The pytest plugin, as an integrator's suite uses it: docs/testing.md's example test, the fixtures and
their start times, the options, the webhook receiver; run under pytest's `pytester` (and here, since
the project's own suite has the plugin loaded too)."""

from __future__ import annotations

import re
import ssl
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from telephony.testing.client import HttpError

GUIDE = Path(__file__).parents[2] / "docs" / "testing.md"
MARK = "<!-- the plugin's example test: tests/testing/test_plugin.py runs it -->"


def guide_example() -> str:
    """The Python block that follows the mark in docs/testing.md."""
    found = re.search(re.escape(MARK) + r"\s*```python\n(.*?)```", GUIDE.read_text(), re.DOTALL)
    assert found, "docs/testing.md lost its example test"
    return found.group(1)


def durations(output: str) -> dict[str, float]:
    """Seconds of each setup `--durations=0` reported, by test."""
    return {m.group(2): float(m.group(1)) for m in re.finditer(r"([0-9.]+)s setup\s+\S+::(\S+)", output)}


def test_the_guide_example_passes_under_pytester(pytester):
    pytester.makepyfile(test_crm=guide_example())
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_each_fixture_starts_in_under_a_second_and_serves_both_versions(pytester):
    pytester.makepyfile(
        test_fixtures="""
        import json, urllib.request

        def test_server(telephony_server):
            for version, base in telephony_server.base_urls.items():
                assert base == f"{telephony_server.url}/{version}/voipstudio"
            assert telephony_server.operator("GET", "/health")["status"] == "ok"

        def test_customer(telephony_customer):
            me = telephony_customer.api("GET", "/me")["data"]
            assert (me["id"], me["customer_id"]) == (telephony_customer.user_id, telephony_customer.id)
            login = urllib.request.Request(telephony_customer.server.base_urls["v1.1"] + "/me",
                                           headers={"X-Auth-Token": telephony_customer.token})
            assert json.load(urllib.request.urlopen(login))["data"]["email"] == telephony_customer.email

        def test_clock(telephony_clock):
            before = telephony_clock.now()
            assert (telephony_clock.advance(90) - before).total_seconds() == 90

        def test_traffic(simulate_inbound_call, simulate_inbound_sms, telephony_server):
            customer = telephony_server.customer()
            customer.add_number("+442071230003", target_type="H", sms_enabled=True)
            assert simulate_inbound_call("+447700900003", "+442071230003")["state"] == "HANGUP"  # the number hangs up
            assert simulate_inbound_sms("+447700900003", "+442071230003", "hello")["message"] == "hello"

        def test_receiver(webhook_receiver):
            assert webhook_receiver.url.startswith("https://127.0.0.1:")

        def test_events(wait_for_event, telephony_customer):
            telephony_customer.add_number("+442071230004", sms_enabled=True)
            telephony_customer.server.operator("POST", "/simulate/inbound-sms",
                                               {"from": "+447700900004", "to": "+442071230004", "text": "hi"})
            assert wait_for_event("sms.*", to_no="+442071230004")["text"] == "hi"
    """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--durations=0", "-vv")
    result.assert_outcomes(passed=6)
    took = durations(result.stdout.str())
    assert set(took) == {"test_server", "test_customer", "test_clock", "test_traffic", "test_receiver", "test_events"}
    assert max(took.values()) < 1.0, took


def test_the_seed_the_config_file_and_the_clocks_start_reach_the_server(pytester):
    pytester.makefile(".toml", server='[billing]\ncurrency = "USD"\n')
    pytester.makeini("[pytest]\ntelephony_start = 2026-02-03 04:05:06\n")
    pytester.makepyfile(
        test_options="""
        def test_options(telephony_server, telephony_customer, telephony_clock):
            assert telephony_server.seed == 42
            assert telephony_customer.api("GET", "/me")["data"]["currency_iso"] == "USD"
            assert str(telephony_clock.now()) == "2026-02-03 04:05:06+00:00"
    """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--telephony-seed", "42",
                                           "--telephony-config", "server.toml")  # fmt: skip
    result.assert_outcomes(passed=1)


def test_the_plugin_sits_beside_a_suites_own_settings_clock_and_client_fixtures(pytester):
    pytester.makeconftest("""
        import pytest

        @pytest.fixture
        def settings():
            return "mine"

        @pytest.fixture
        def clock():
            return "mine too"

        @pytest.fixture
        def client():
            return "and mine"
    """)
    pytester.makepyfile(
        test_both="""
        def test_both(settings, clock, client, telephony_clock, telephony_customer):
            assert (settings, clock, client) == ("mine", "mine too", "and mine")
            assert telephony_clock.advance(1) and telephony_customer.api_key
    """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


async def test_the_fixtures_serve_an_async_test_too(telephony_customer, telephony_clock):
    assert telephony_customer.api("GET", "/cdrs")["total"] == 0
    telephony_clock.advance(60)


def test_wait_for_event_answers_the_first_event_of_the_stream_whose_name_and_fields_match(
    telephony_customer, telephony_clock, simulate_inbound_call, wait_for_event
):
    ann = telephony_customer.add_user(ext="201")
    telephony_customer.add_number("+442071230006", target_type="U", target_id=ann["id"])
    first = simulate_inbound_call("+447700900006", "+442071230006", answer={str(ann["id"]): 3})
    second = simulate_inbound_call("+447700900007", "+442071230006", answer={str(ann["id"]): "reject"})
    telephony_clock.advance(600)

    hangup = wait_for_event("call.hangup", call_id=first["id"])
    assert (hangup["event_name"], hangup["src"], hangup["connected_at"] is not None) == (
        "call.hangup", "+447700900006", True)  # fmt: skip
    assert wait_for_event("call.*", call_id=second["id"])["event_name"] == "call.initial"  # the first of its events
    assert wait_for_event("call.hangup", src="+447700900007")["call_id"] == second["id"]


def test_wait_for_event_names_what_the_stream_sent_when_nothing_matches(telephony_customer, wait_for_event):
    telephony_customer.add_number("+442071230008", sms_enabled=True)
    telephony_customer.server.operator("POST", "/simulate/inbound-sms",
                                       {"from": "+447700900008", "to": "+442071230008", "text": "hi"})  # fmt: skip
    with pytest.raises(AssertionError) as waited:
        wait_for_event("call.hangup", timeout=0.5, call_id=1)
    assert str(waited.value) == "no event call.hangup call_id=1 within 0.5 s (the stream sent: sms.received)"


def test_wait_for_event_names_each_call_event_it_saw_with_its_call_id_and_the_fields_asked_for(
    telephony_customer, telephony_clock, simulate_inbound_call, wait_for_event
):
    ann = telephony_customer.add_user(ext="201")
    telephony_customer.add_number("+442071230009", target_type="U", target_id=ann["id"])
    call = simulate_inbound_call("+447700900009", "+442071230009", answer={str(ann["id"]): "reject"})
    telephony_clock.advance(60)
    with pytest.raises(AssertionError) as waited:
        wait_for_event("call.hangup", timeout=0.5, src="+447700900001")
    seen = str(waited.value).split("(the stream sent: ")[1]
    assert seen.startswith(f"call.initial call_id={call['id']} src='+447700900009', call.ringing call_id={call['id']}")


def test_a_refused_request_raises_with_the_platforms_error_body(telephony_customer):
    with pytest.raises(HttpError) as refused:
        telephony_customer.api("GET", "/cdrs/424242")
    assert refused.value.answer.status == 404 and refused.value.answer.body["errors"][0]["message"]


def test_a_fault_rule_added_through_the_server_fails_the_customers_requests_it_counts(
    telephony_server, telephony_customer
):
    rule = telephony_server.operator("POST", "/faults", {"method": "GET", "path": "/cdrs", "status": 503,
                                                         "retry_after": 5, "count": 2})["data"]  # fmt: skip
    for _ in range(2):
        with pytest.raises(HttpError) as failed:
            telephony_customer.api("GET", "/cdrs")
        assert (failed.value.answer.status, failed.value.answer.headers["Retry-After"]) == (503, "5")
    assert telephony_customer.api("GET", "/cdrs")["total"] == 0
    (listed,) = telephony_server.operator("GET", "/faults")["data"]
    assert (listed["id"], listed["fired"], listed["active"]) == (rule["id"], 2, False)


def test_the_receiver_keeps_signed_deliveries_and_refuses_forged_ones(
    telephony_customer, telephony_clock, simulate_inbound_call, webhook_receiver, telephony_ca
):
    number = "+442071230002"
    telephony_customer.add_number(number, target_type="H")
    webhook_receiver.subscribe(telephony_customer, events=["call.missed", "call.hangup"])
    call = simulate_inbound_call("+447700900999", number)
    telephony_clock.advance(1)
    hangup = webhook_receiver.wait_for("call.hangup", call_id=call["id"])
    assert webhook_receiver.names() == ["call.missed", "call.hangup"] and hangup.id == hangup.body["id"]

    forged = urllib.request.Request(webhook_receiver.url, data=b'{"event_name": "call.hangup"}', method="POST",
                                    headers={"webhook-id": "evt_1_0", "webhook-timestamp": str(hangup.timestamp),
                                             "webhook-signature": "v1,AAAA"})  # fmt: skip
    with pytest.raises(urllib.error.HTTPError) as answered:
        urllib.request.urlopen(forged, context=trusting(telephony_ca[0]))
    assert answered.value.code == 401 and webhook_receiver.rejected[0][2] == "webhook-signature does not verify"
    assert len(webhook_receiver.deliveries) == 2


def trusting(ca) -> ssl.SSLContext:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context

"""The files a call leaves, read back with real readers: its recording decoded as MP3, its SIP
dialogue from a PCAP capture and as text, and the user's CDRs as CSV."""

from __future__ import annotations

import csv
import io

from tests.accounts.helpers import CONTROL, create_customer, create_user, error_of, login, url
from tests.calls.conftest import ANSWERS, BUSY, NO_ANSWER
from tests.calls.helpers import advance, by_live_id, get, patch, place
from tests.media.decoders import decode_mp3, read_pcap


async def fetch(client, creds, path: str, media: str) -> bytes:
    response = await client.get(url("v1.2", path), headers=creds.headers())
    assert response.status == 200, await response.text()
    assert response.content_type == media
    return await response.read()


async def finished(client, creds, call_id: int) -> dict:
    (cdr,) = (await get(client, creds, "/cdrs" + by_live_id(call_id)))["data"]
    return cdr


def of_leg(packets, call_id: int, leg: str) -> list:
    return [p for p in packets if p.header("call-id") == f"{call_id}-{leg}@telephony"]


def ladder(packets) -> list[str]:
    return [p.method or f"{p.status}" for p in packets]


async def test_a_recorded_calls_mp3_decodes_to_its_recorded_length(client, root):
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 6)
    await patch(client, root, call_id, monitor_state="start")
    await advance(client, 12)
    await client.delete(url("v1.2", f"/calls/{call_id}"), headers=root.headers())
    (monitor,) = (await get(client, root, "/monitors" + by_live_id(call_id)))["data"]
    data = await fetch(client, root, f"/monitors/{monitor['id']}.mp3", "audio/mpeg")
    assert len(data) == monitor["size"]
    rate, frames, loudest = decode_mp3(data)
    assert abs(frames / rate - 12) < 0.08 and loudest == 0


async def test_a_calls_pcap_holds_its_sip_dialogue_in_order_at_the_times_of_its_events(client, root):
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 10)
    await patch(client, root, call_id, state="hold")
    await advance(client, 5)
    await patch(client, root, call_id, state="unhold")
    await advance(client, 60)
    cdr = await finished(client, root, call_id)
    packets = read_pcap(await fetch(client, root, f"/cdrs/{cdr['id']}.pcap", "application/vnd.tcpdump.pcap"))
    by_leg = {leg: of_leg(packets, call_id, leg) for leg in ("src", "dst")}
    assert ladder(by_leg["src"])[:4] == ["INVITE", "100", "180", "200"]
    dst = ladder(by_leg["dst"])
    assert dst[:5] == ["INVITE", "100", "180", "200", "ACK"]
    assert dst.count("INVITE") == 3 and "BYE" in dst  # the call, then a re-INVITE each for hold and unhold
    reinvites = [p for p in by_leg["dst"] if p.method == "INVITE"][1:]
    assert [b"a=sendonly" in p.body for p in reinvites] == [True, False]
    start = packets[0].at
    assert [round(p.at - start) for p in reinvites] == [10, 15]
    assert all(a.at <= b.at for a, b in zip(packets, packets[1:], strict=False))
    bye = next(p for p in by_leg["dst"] if p.method == "BYE")
    assert round(bye.at - start) == 66 and bye.src == "203.0.113.5"  # the destination hung up
    trace = (await fetch(client, root, f"/cdrs/{cdr['id']}.trace", "text/plain")).decode()
    assert trace.index("180 Ringing") < trace.index("BYE sip:")


async def test_busy_and_unanswered_destinations_show_their_sip_answers(client, root):
    busy = (await place(client, root, to=BUSY + "1"))["data"]["id"]
    unanswered = (await place(client, root, to=NO_ANSWER + "1"))["data"]["id"]
    await advance(client, 40)
    expectations = ((busy, ["INVITE", "100", "486", "ACK"]), (unanswered, ["INVITE", "100", "180", "CANCEL"]))
    for call_id, expected in expectations:
        cdr = await finished(client, root, call_id)
        packets = read_pcap(await fetch(client, root, f"/cdrs/{cdr['id']}.pcap", "application/vnd.tcpdump.pcap"))
        dst = ladder(of_leg(packets, call_id, "dst"))
        assert dst[: len(expected)] == expected
        if call_id == unanswered:
            assert "487" in dst


async def test_each_media_records_pcap_holds_its_own_leg(client, root):
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 70)
    msdrs = (await get(client, root, "/msdrs"))["data"]
    assert len(msdrs) == 2
    for msdr in msdrs:
        packets = read_pcap(await fetch(client, root, f"/msdrs/{msdr['id']}.pcap", "application/vnd.tcpdump.pcap"))
        assert {p.header("call-id") for p in packets} == {msdr["call_id"]}
        assert ladder(packets)[0] == "INVITE"
    assert {m["call_id"] for m in msdrs} == {f"{call_id}-src@telephony", f"{call_id}-dst@telephony"}


async def test_a_live_calls_trace_is_its_dialogue_so_far(client, root):
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 2)
    trace = (await fetch(client, root, f"/calls/{call_id}/trace", "text/plain")).decode()
    assert "180 Ringing" in trace and "BYE sip:" not in trace
    other_customer, _ = await create_customer(client, "Elsewhere", "else@example.com")
    other = await login(client, "v1.2", "else@example.com", "correct-horse-battery-staple")
    response = await client.get(url("v1.2", f"/calls/{call_id}/trace"), headers=other.headers())
    await error_of(response, 404)
    assert other_customer


async def test_the_users_cdrs_csv_lists_its_finished_calls(client, root):
    for n in range(3):
        await place(client, root, to=ANSWERS + str(n))
    await advance(client, 70)
    text = (await fetch(client, root, f"/users/{root.user_id}/cdrs.csv", "text/csv")).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 3 and {r["dst"] for r in rows} == {ANSWERS + str(n) for n in range(3)}


async def test_a_user_with_no_registered_client_gets_412(client, root):
    user_id = await create_user(client, 100001, "nosip@example.com", nb_sip_locations=0)
    creds = await login(client, "v1.2", "nosip@example.com", "correct-horse-battery-staple")
    response = await client.post(url("v1.2", "/calls"), json={"to": ANSWERS + "1"}, headers=creds.headers())
    assert (await error_of(response, 412))["message"] == "Unable to make a call with no VoIP clients registered"
    response = await client.post(f"/_telephony/users/{user_id}/registrations", json={}, headers=CONTROL)
    assert response.status == 201
    placed = await place(client, creds, to=ANSWERS + "1")
    assert placed["data"]["src_contact"].startswith("sip:")
    registrations = await (await client.get(f"/_telephony/users/{user_id}/registrations", headers=CONTROL)).json()
    (only,) = registrations["data"]
    response = await client.delete(f"/_telephony/users/{user_id}/registrations/{only['id']}", headers=CONTROL)
    assert response.status == 204
    response = await client.post(url("v1.2", "/calls"), json={"to": ANSWERS + "1"}, headers=creds.headers())
    await error_of(response, 412)

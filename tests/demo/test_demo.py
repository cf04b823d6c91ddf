"""Demo mode: the tenant and its history made by the engine, the same log for the same seed, live
traffic through the same routing as any call, a tenant that passes `telephony verify`, and data dirs
that are not a demo's left alone."""

from __future__ import annotations

import time
from collections import Counter
from datetime import UTC, datetime

import pytest

from telephony import demo
from telephony.clock import wire_time
from telephony.demo import activity, marker
from telephony.demo.traffic import LiveTraffic
from telephony.keys import EVENT_LOG, SCHEDULER
from tests.conftest import CONTROL_KEY
from tests.demo.conftest import DAYS, TODAY
from tests.serving import free_port, log_env, telephony

CONTROL = {"X-Control-Key": CONTROL_KEY}


async def root_headers(made) -> dict[str, str]:
    body = {"email": made.demo.plan.root.email, "password": demo.PASSWORD}
    async with made.op._session.post(f"{made.base}/v1.2/voipstudio/login", json=body) as response:
        assert response.status == 200, await response.text()
        return {"X-Auth-Token": (await response.json())["user_token"]}


async def listed(made, path: str, headers: dict[str, str]) -> dict:
    async with made.op._session.get(f"{made.base}/v1.2/voipstudio{path}", headers=headers) as response:
        assert response.status == 200, await response.text()
        return await response.json()


async def test_the_demo_tenant_is_a_company_with_teams_numbers_and_contacts(make_demo):
    made = await make_demo(seed=1)
    headers = await root_headers(made)
    users = (await listed(made, "/users?limit=100", headers))["data"]
    assert len(users) == 20 and all(u["first_name"] and u["last_name"] and u["ext"] for u in users)
    assert {g["name"] for g in (await listed(made, "/usergroups", headers))["data"]} == {
        "Management", "Sales", "Support", "Accounts", "Operations"}  # fmt: skip
    queues = (await listed(made, "/queues?include=users", headers))["data"]
    assert {q["name"] for q in queues} == {"Sales", "Support"}
    assert all(q["users"] and all(m["status"] for m in q["users"]) for q in queues)  # agents logged in
    assert (await listed(made, "/ringgroups", headers))["total"] == 1
    assert (await listed(made, "/ivrs", headers))["total"] == 1
    contacts = (await listed(made, "/contacts?limit=100", headers))["data"]
    assert len(contacts) == 40 and all(c["first_name"] and c["tel"] and c["company"] for c in contacts)
    async with made.op._session.get(f"{made.base}/_telephony/users/{users[5]['id']}/registrations",
                                    headers=CONTROL) as response:  # fmt: skip
        assert (await response.json())["total"] >= 1  # a softphone registered


async def test_the_history_is_made_by_the_engine_over_the_days_before_today(make_demo):
    made = await make_demo(seed=1)
    headers = await root_headers(made)
    cdrs = (await listed(made, "/cdrs?limit=5000", headers))["data"]
    first_day = wire_time(TODAY - DAYS * 86_400)
    assert len(cdrs) > 20 and all(first_day <= c["calldate"] < wire_time(TODAY) for c in cdrs)
    assert {c["type"] for c in cdrs} >= {"I", "O"}  # inbound through the routing, and placed by users
    assert {c["context"] for c in cdrs} & {"IVR", "QUEUE"}
    queued = {e.event.id for e in await made.app[EVENT_LOG].read(types=["call.routed"]) if e.event.queue_id}
    records = Counter(c["live_id"] for c in cdrs if c["live_id"] in queued)
    assert queued and records == dict.fromkeys(queued, 1)  # a queue's caller leaves one record, not one per agent
    assert (await listed(made, "/sms", headers))["total"] > 0
    assert (await listed(made, "/monitors", headers))["total"] > 0  # recorded users' calls
    async with made.op._session.get(f"{made.base}/_telephony/clock", headers=CONTROL) as response:
        assert (await response.json())["data"]["now"] == wire_time(TODAY)
    mark = marker.read(made.demo.settings.data_dir)
    assert mark is not None and mark.history is not None and mark.history.made["inbound"] > 0


@pytest.mark.sqlite_only  # two fresh data dirs in one test: one PostgreSQL database per test
async def test_two_demos_of_one_seed_make_the_same_log_up_to_the_history_head(make_demo, tmp_path):
    first, again, other = [await make_demo(seed, tmp_path / name) for seed, name in ((3, "a"), (3, "b"), (4, "c"))]
    a, b, c = (marker.read(m.demo.settings.data_dir).history for m in (first, again, other))
    assert (a.position, a.head) == (b.position, b.head)
    assert c.head != a.head
    (last,) = await first.app[EVENT_LOG].read(after=a.position - 1, until=a.position)
    assert last.hash == a.head


async def test_live_traffic_on_the_moved_clock_shows_in_calls_and_leaves_cdrs(make_demo):
    made = await make_demo(seed=1)
    headers = {"X-Auth-Token": made.op.token}  # the demo's API token: an hour on, a login would have expired
    before = (await listed(made, "/cdrs", headers))["total"]
    traffic = LiveTraffic(made.op, made.demo.plan, made.users, made.app[SCHEDULER], rate=6)
    traffic.start()
    async with made.op._session.post(f"{made.base}/_telephony/clock", json={"advance": 60},
                                     headers=CONTROL) as response:  # fmt: skip
        assert response.status == 200
    live = (await listed(made, "/calls", headers))["data"]
    assert live and traffic.made >= len(live)
    assert all(call["start_time"] >= TODAY for call in live)
    async with made.op._session.post(f"{made.base}/_telephony/clock", json={"advance": 3600},
                                     headers=CONTROL) as response:  # fmt: skip
        assert response.status == 200
    traffic.stop()
    cdrs = (await listed(made, "/cdrs?limit=5000", headers))["data"]
    assert len(cdrs) > before
    assert any(c["calldate"] >= wire_time(TODAY) for c in cdrs)


def test_the_same_seed_draws_the_same_traffic():
    plan = demo.plan_for(5)
    users = tuple(range(1000001, 1000021))

    def drawn() -> list:
        traffic = LiveTraffic(None, plan, users, None, rate=6)  # type: ignore[arg-type]
        return [traffic._rng.expovariate(0.1) for _ in range(3)] + [activity.call(traffic._rng, plan, users)
                                                                     for _ in range(5)]  # fmt: skip

    assert drawn() == drawn()


async def test_the_demo_tenant_passes_verify(make_demo, tmp_path):
    made = await make_demo(seed=2)
    await made.server.close()
    env = log_env(made.demo.settings.eventlog.url)
    result = telephony("--data-dir", made.demo.settings.data_dir, "verify", cwd=tmp_path, **env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_demo_refuses_a_data_dir_holding_other_data_and_leaves_it_alone(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "events.db").write_bytes(b"somebody's log")
    result = telephony("--data-dir", data, "serve", "--demo", "--port", str(free_port()), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("telephony: ") and "not a demo's" in result.stderr
    assert sorted(p.name for p in data.iterdir()) == ["events.db"]
    assert (data / "events.db").read_bytes() == b"somebody's log"


def test_seed_and_rate_are_options_of_demo(tmp_path):
    result = telephony("--data-dir", tmp_path / "d", "serve", "--seed", "3", "--port", str(free_port()), cwd=tmp_path)
    assert result.returncode == 2 and "--seed and --rate are options of --demo" in result.stderr
    result = telephony("--data-dir", tmp_path / "d", "serve", "--demo", "--rate", "0", cwd=tmp_path)
    assert result.returncode == 2 and "--rate must be above 0" in result.stderr


def test_a_demo_dir_is_used_again_only_when_finished_and_of_the_same_seed(tmp_path):
    assert marker.check(tmp_path / "new", 3) is None
    marker.write(tmp_path, marker.Mark(3))
    for seed in (None, 3):
        try:
            marker.check(tmp_path, seed)
        except marker.NotADemoDir as refused:
            assert "stopped before its history was made" in str(refused)
        else:
            raise AssertionError("an unfinished demo was used again")
    history = marker.History(position=10, head="00" * 32, made={"inbound": 1}, seconds=1.0)
    marker.write(tmp_path, marker.Mark(3, 100001, (1000001,), history))
    assert marker.check(tmp_path, None) == marker.check(tmp_path, 3) == marker.read(tmp_path)
    try:
        marker.check(tmp_path, 4)
    except marker.NotADemoDir as refused:
        assert "holds the demo of seed 3, not 4" in str(refused)
    else:
        raise AssertionError("another seed's demo was used")


def test_a_new_demos_history_ends_at_the_start_of_the_day(settings):
    moment = datetime(2026, 6, 3, 14, 30, tzinfo=UTC).timestamp()
    shown = demo.prepare(settings, 1, today=moment)
    assert shown.history_end == TODAY and shown.clock.time() == TODAY - 90 * 86_400
    assert shown.clock.is_virtual and time.time() > shown.history_end

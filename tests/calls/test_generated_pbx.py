"""Random PBX configurations and random inbound calls (a seeded generator): the engine never fails a
request, never leaves a call live for ever, and leaves one CDR per call (each leg of a caller, an
IVR's included) plus one per missed user."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from telephony.keys import EVENT_LOG
from tests.accounts.helpers import CONTROL, create_user, login
from tests.calls.helpers import advance

HOME = 100001


async def configure(client, root, rng: random.Random) -> list[str]:
    """Users, ring groups and IVRs drawn at random, and numbers pointing at them; the numbers."""
    users = []
    for n in range(6):
        fields = {"ext": str(300 + n), "dnd": rng.random() < 0.2, "cw": rng.random() < 0.7,
                  "ring_time": str(rng.choice([5, 10, 20])), "final_dst_type": rng.choice("VHU"),
                  "nb_sip_locations": rng.choice([0, 1, 1, 2]), "log_missed_calls": rng.random() < 0.7}  # fmt: skip
        if rng.random() < 0.4:
            fields.update(
                fm=True,
                fm_strategy=rng.choice("AHM"),
                fm_ring_time=str(rng.choice([5, 15])),
                fm_targets=[f"44770090{rng.randrange(10000):04d}" for _ in range(rng.randrange(1, 3))],
                fm_init_ring_time=rng.choice([0, 3]),
                fm_only_direct=rng.random() < 0.5,
            )
        users.append(await create_user(client, HOME, f"gen{n}@example.com", **fields))
    numbers = [f"+4420712{n:05d}" for n in range(8)]
    for number in numbers:
        response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": number}, headers=CONTROL)
        assert response.status == 201
    headers = root.headers()
    for n, number in enumerate(numbers):
        kind = rng.choice(["user", "voicemail", "hangup", "group", "ivr", "queue", "conference", "none"])
        if kind in ("user", "voicemail", "hangup"):
            target = {"target_type": kind, "target_id": rng.choice(users)}
            response = await client.patch(f"/_telephony/ddis/{number}", json=target, headers=CONTROL)
            assert response.status == 200, await response.text()
        elif kind == "group":
            body = {
                "name": f"G{n}",
                "users": rng.sample(users, rng.randrange(0, 4)),
                "strategy": rng.choice([1, 2, 3]),
                "ring_time": rng.choice([5, 10]),
                "ddis": [number],
                "final_dst_type": rng.choice([2, 7]),
            }
            if body["final_dst_type"] == 2:
                body["final_dst_id"] = rng.choice(users)
            response = await client.post("/v1.2/voipstudio/ringgroups", json=body, headers=headers)
            assert response.status == 201, await response.text()
        elif kind == "queue":
            members = [{"id": u, "status": rng.random() < 0.6} for u in rng.sample(users, rng.randrange(0, 3))]
            body = {"name": f"Q{n}", "users": members, "ring_time": rng.choice([5, 10]), "retry": rng.choice([2, 5]),
                    "max_wait_time": rng.choice([10, 40]), "join_empty": rng.random() < 0.7, "ddis": [number],
                    "final_dst_type": 7, "ring_strategy": rng.randrange(1, 7), "wrap_up_time": rng.choice([0, 5]),
                    "max_callers": rng.choice([0, 1, 3]), "skip_busy": rng.random() < 0.5}  # fmt: skip
            response = await client.post("/v1.2/voipstudio/queues", json=body, headers=headers)
            assert response.status == 201, await response.text()
        elif kind == "conference":
            body = {"name": f"C{n}", "ddis": [number], **({"pin": "2"} if rng.random() < 0.5 else {})}
            response = await client.post("/v1.2/voipstudio/conferences", json=body, headers=headers)
            assert response.status == 201, await response.text()
        elif kind == "ivr":
            body = {"name": f"I{n}", "timeout": rng.choice([3, 5]), "repeats": rng.choice([1, 2]), "ddis": [number],
                    "ext_dialing": rng.random() < 0.5, "two": f"U:{rng.choice(users)}", "three": "H",
                    "four": f"V:{rng.choice(users)}"}  # fmt: skip
            response = await client.post("/v1.2/voipstudio/ivrs", json=body, headers=headers)
            assert response.status == 201, await response.text()
    for pos in range(rng.randrange(0, 3)):
        action = rng.choice(["allow", "block", "hangup", "user", "voicemail"])
        body = {"action": action, "direction": 1, "pos": pos, "source": [f"44770091{rng.randrange(10):04d}"]}
        if action in ("user", "voicemail"):
            body["target_id"] = rng.choice(users)
        response = await client.post("/v1.2/voipstudio/routingrules", json=body, headers=headers)
        assert response.status == 201, await response.text()
    return numbers


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_configurations_and_calls_end_with_one_cdr_per_call_and_missed_user(client, root, seed):
    rng = random.Random(seed)
    numbers = await configure(client, root, rng)
    placed = []
    for _ in range(25):
        body = {"from": f"44770091{rng.randrange(10000):04d}", "to": rng.choice(numbers)}
        if rng.random() < 0.5:
            body["digits"] = [{"key": rng.choice(["2", "3", "4", "9", "301"]), "after": rng.choice([1, 2])}]
        if rng.random() < 0.5:
            body["answer"] = {str(1000002 + rng.randrange(6)): rng.choice([1, 4, "busy", "never", "reject"])}
        if rng.random() < 0.3:
            body["hangup_after"] = rng.choice([5, 30, 120])
        response = await client.post("/_telephony/simulate/inbound-call", json=body, headers=CONTROL)
        assert response.status == 201, await response.text()
        placed.append((await response.json())["data"]["id"])
        await advance(client, rng.choice([0, 1, 3]))
    for _ in range(5):
        await advance(client, 1500)
    root = await login(client, "v1.2", "admin@example.com", "change-me-now")
    response = await client.get("/v1.2/voipstudio/calls", headers=root.headers())
    assert (await response.json())["total"] == 0  # no call lives for ever
    response = await client.get("/v1.2/voipstudio/cdrs?limit=5000", headers=root.headers())
    cdrs = Counter(c["live_id"] for c in (await response.json())["data"])
    log = client.app[EVENT_LOG]
    every = [e.event.id for e in await log.read(types=["call.placed"])]
    assert set(placed) <= set(every)  # and the legs IVRs moved their callers on to
    for call_id in every:
        events = await log.read_stream(f"call-{call_id}")
        assert events[-1].type == "call.ended"
        missed = sum(1 for e in events if e.type == "call.routed" and e.event.missed)
        assert cdrs[call_id] == 1 + missed, [(e.type, getattr(e.event, "cause", None)) for e in events]
    assert sum(cdrs.values()) == len(every) + sum(
        1 for e in await log.read(types=["call.routed"]) if e.event.missed
    )  # no CDR of anything else
    response = await client.post("/_telephony/verify", headers=CONTROL)
    assert (await response.json())["data"]["problem"] is None
